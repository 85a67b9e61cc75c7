// One sign-in per adapter in headless Chromium (Debian's /usr/bin/chromium,
// driven by playwright-core): the Express example through the built-in
// pages, and the reactive adapter through libauth/client.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ReactiveAuth, getSession } from "libauth";
import { listen, webServer, launch, freePort, startProcess, CHROMIUM, skipUnless } from "./helpers.mjs";
import { baseConfig } from "./flows.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const skip = skipUnless(existsSync(CHROMIUM), "Debian chromium is not installed (apt-get install chromium)");

describe("headless Chromium", { skip }, () => {
  let browser;
  before(async () => (browser = await launch()));
  after(() => browser?.close());

  it("Express example: a protected page, the built-in sign-in page, sign-out", async () => {
    const port = await freePort();
    const app = await startProcess(["server.js"], {
      cwd: `${root}examples/express`,
      env: {
        PORT: String(port),
        AUTH_SECRET: "browser-test-secret-0123456789abcdefgh",
        AUTH_DB: `/tmp/libauth-browser-${process.pid}.db`,
      },
      ready: /Express example on/,
    });
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const origin = `http://127.0.0.1:${port}`;
      await page.goto(`${origin}/dashboard`);
      assert.match(page.url(), /\/auth\/signin\?callbackUrl=/);
      await page.fill("#input-username-for-credentials", "demo");
      await page.fill("#input-password-for-credentials", "demo");
      await Promise.all([page.waitForURL(`${origin}/dashboard`), page.click("text=Sign in with Credentials")]);
      assert.equal(await page.textContent("#secret"), "Hello Demo User, this page is protected.");
      await page.goto(`${origin}/`);
      assert.match(await page.textContent("#who"), /Signed in as Demo User/);
      await page.goto(`${origin}/auth/signout`);
      await Promise.all([page.waitForURL(`${origin}/**`), page.click("button[type=submit]")]);
      await page.goto(`${origin}/`);
      assert.equal(await page.textContent("#who"), "Not signed in.");
    } finally {
      await context.close();
      await app.stop();
    }
  });

  it("Express example: TikTok sign-in against the simulator (the demo's set-up)", async (t) => {
    const simBin = `${root}target/debug/tiktok-sim`;
    const skipReason = skipUnless(
      existsSync(simBin),
      "target/debug/tiktok-sim is not built (cargo build -p tiktok-sim)",
    );
    if (skipReason) return t.skip(skipReason);
    const [port, simPort] = [await freePort(), await freePort()];
    const origin = `http://127.0.0.1:${port}`;
    const { spawn } = await import("node:child_process");
    // Access tokens live 3 s, so the TikTok page has to refresh one.
    const sim = spawn(
      simBin,
      ["--quiet", "--port", String(simPort), "--access-ttl", "3", "--redirect-uri", `${origin}/auth/callback/tiktok`],
      {
        stdio: "ignore",
      },
    );
    let app;
    const context = await browser.newContext();
    try {
      app = await startProcess(["server.js"], {
        cwd: `${root}examples/express`,
        env: {
          PORT: String(port),
          AUTH_SECRET: "browser-test-secret-0123456789abcdefgh",
          AUTH_DB: `/tmp/libauth-browser-tt-${process.pid}.db`,
          TIKTOK_SIM_URL: `http://127.0.0.1:${simPort}`,
        },
        ready: /Express example on/,
      });
      assert.match(app.output(), /providers: credentials, tiktok/);
      const page = await context.newPage();
      await page.goto(`${origin}/login`);
      // The built-in page's TikTok button carries TikTok's logo, inline.
      assert.match(
        await page.getAttribute("button:has-text('Sign in with TikTok') img", "src"),
        /^data:image\/svg\+xml;base64,/,
      );
      await Promise.all([page.waitForURL(`${origin}/dashboard`), page.click("text=Sign in with TikTok")]);
      assert.match(await page.textContent("#secret"), /^Hello .+, this page is protected\.$/);
      // The dashboard: who is signed in, the session, the account's scopes
      // and expiry; never a token.
      assert.match(await page.textContent("#who"), /Signed in as .+/);
      assert.ok(await page.isVisible("#signout"));
      assert.ok(JSON.parse(await page.textContent("#session")).user.id);
      assert.match(await page.textContent("#scopes"), /user\.info\.basic/);
      assert.match(await page.textContent("#expiry"), /^\d{4}-\d\d-\d\dT.*\(valid for \d+ s more\)$/);
      const noTokens = async () => {
        const html = await page.content();
        assert.doesNotMatch(html, /act\.|rft\./, "no access or refresh token in the page");
      };
      await noTokens();
      // TikTok's user info with the stored token...
      await page.click("text=Call TikTok's user-info API");
      await page.waitForURL(`${origin}/tiktok`);
      assert.ok(await page.isVisible("#fresh"), await page.content());
      const name = await page.textContent("#display-name");
      assert.ok(name.length > 0);
      const firstExpiry = await page.textContent("#expiry");
      // ...and, once it has expired, refreshed by libauth first.
      await new Promise((r) => setTimeout(r, 3500));
      await page.goto(`${origin}/tiktok`);
      assert.ok(await page.isVisible("#refreshed"), await page.content());
      assert.equal(await page.textContent("#display-name"), name);
      assert.notEqual(await page.textContent("#expiry"), firstExpiry);
      assert.match(await page.textContent("#expiry"), /valid for \d+ s more/);
      await noTokens();
      // The refreshed (rotated) tokens were stored: the next call uses them.
      await page.goto(`${origin}/tiktok`);
      assert.ok(await page.isVisible("#fresh"));
    } finally {
      await context.close();
      await app?.stop();
      sim.kill();
    }
  });

  it("reactive adapter: sign-in and sign-out with libauth/client", async () => {
    const config = baseConfig();
    const { GET, POST } = ReactiveAuth(config);
    const client = readFileSync(new URL("../client.mjs", import.meta.url), "utf8");
    const page = `<!doctype html><html><body><p id="out">pending</p><script type="module">
      import { configure, signIn, signOut, getSession } from "/client.mjs";
      configure({ basePath: "/api/auth" });
      const out = {};
      out.before = await getSession();
      out.wrong = await signIn("credentials", { username: "ada", password: "nope", redirect: false });
      out.signIn = await signIn("credentials", { username: "ada", password: "lovelace", redirect: false });
      out.session = await getSession();
      out.server = await (await fetch("/me")).json();
      out.signOut = await signOut({ redirect: false });
      out.after = await getSession();
      document.getElementById("out").textContent = JSON.stringify(out);
    </script></body></html>`;
    const server = await listen(
      webServer(async (request) => {
        const { pathname } = new URL(request.url);
        if (pathname === "/client.mjs") return new Response(client, { headers: { "content-type": "text/javascript" } });
        if (pathname === "/") return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
        if (pathname === "/me") return Response.json(await getSession(request, config));
        return (request.method === "POST" ? POST : GET)({ request });
      }),
    );
    const context = await browser.newContext();
    try {
      const p = await context.newPage();
      await p.goto(`${server.url}/`);
      await p.waitForFunction(() => document.getElementById("out").textContent !== "pending", null, { timeout: 20000 });
      const out = JSON.parse(await p.textContent("#out"));
      assert.equal(out.before, null);
      assert.deepEqual(out.wrong, {
        error: "CredentialsSignin",
        code: "credentials",
        status: 200,
        ok: false,
        url: null,
      });
      assert.equal(out.signIn.ok, true);
      assert.equal(out.signIn.error, undefined);
      assert.equal(out.session.user.email, "ada@example.com");
      assert.equal(out.server.user.name, "Ada Lovelace");
      assert.ok(out.signOut.url);
      assert.equal(out.after, null);
    } finally {
      await context.close();
      await server.close();
    }
  });
});
