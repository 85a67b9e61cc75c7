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
      env: { PORT: String(port), AUTH_SECRET: "browser-test-secret-0123456789abcdefgh", AUTH_DB: `/tmp/libauth-browser-${process.pid}.db` },
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
    const skipReason = skipUnless(existsSync(simBin), "target/debug/tiktok-sim is not built (cargo build -p tiktok-sim)");
    if (skipReason) return t.skip(skipReason);
    const [port, simPort] = [await freePort(), await freePort()];
    const origin = `http://127.0.0.1:${port}`;
    const { spawn } = await import("node:child_process");
    const sim = spawn(simBin, ["--quiet", "--port", String(simPort), "--redirect-uri", `${origin}/auth/callback/tiktok`], { stdio: "ignore" });
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
      await Promise.all([page.waitForURL(`${origin}/dashboard`), page.click("text=Sign in with TikTok")]);
      assert.match(await page.textContent("#secret"), /^Hello .+, this page is protected\.$/);
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
      assert.deepEqual(out.wrong, { error: "CredentialsSignin", code: "credentials", status: 200, ok: false, url: null });
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
