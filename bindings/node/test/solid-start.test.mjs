// The SolidStart 2 example (examples/solid-start), built (`vite build`) and
// served by its own Nitro node server: the auth routes, the loader-protected
// page, the middleware-protected paths, a sign-in in Chromium, and the login
// page whose server action calls libauth's signIn (posted without
// JavaScript, and driven in Chromium).
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Browser, launch, freePort, startProcess, CHROMIUM, skipUnless } from "./helpers.mjs";

const app = fileURLToPath(new URL("../../../examples/solid-start/", import.meta.url));
const built = existsSync(`${app}.output/server/index.mjs`);
const skip = skipUnless(built, "examples/solid-start is not built (scripts/test.sh runs `npm run build` there)");

describe("SolidStart example (built server)", { skip }, () => {
  let server;
  let origin;
  before(async () => {
    const port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    server = await startProcess([".output/server/index.mjs"], {
      cwd: app,
      env: {
        PORT: String(port),
        HOST: "127.0.0.1",
        TEST: "1",
        AUTH_SECRET: "solid-start-test-secret-0123456789abcdef",
      },
      ready: `${origin}/api/auth/csrf`,
    });
  });
  after(() => server?.stop());

  const signIn = async (br) => {
    const csrfToken = await br.csrf();
    return br.post("/api/auth/callback/credentials", { csrfToken, username: "demo", password: "demo" });
  };

  it("serves the auth routes under /api/auth: csrf, providers, session", async () => {
    const br = new Browser(origin, { basePath: "/api/auth" });
    assert.match(await br.csrf(), /^[0-9a-f]{64}$/);
    const providers = await (await br.fetch("/api/auth/providers")).json();
    assert.equal(providers.credentials.callbackUrl, `${origin}/api/auth/callback/credentials`);
    assert.equal(await br.session(), null);
  });

  it("credentials sign-in keeps every Set-Cookie; wrong credentials redirect with CredentialsSignin", async () => {
    const bad = new Browser(origin, { basePath: "/api/auth" });
    const csrfToken = await bad.csrf();
    let res = await bad.post("/api/auth/callback/credentials", { csrfToken, username: "demo", password: "nope" });
    assert.equal(res.headers.get("location"), `${origin}/api/auth/signin?error=CredentialsSignin&code=credentials`);
    const br = new Browser(origin, { basePath: "/api/auth" });
    res = await signIn(br);
    assert.equal(res.status, 302);
    assert.ok(res.headers.getSetCookie().length >= 2, res.headers.getSetCookie().join("\n"));
    assert.equal((await br.session()).user.name, "Demo User");
  });

  it("the loader-protected page redirects (SSR 302) without a session and renders with one", async () => {
    const anon = new Browser(origin, { basePath: "/api/auth" });
    let res = await anon.fetch("/dashboard");
    assert.equal(res.status, 302);
    assert.equal(new URL(res.headers.get("location"), origin).pathname, "/");
    const br = new Browser(origin, { basePath: "/api/auth" });
    await signIn(br);
    res = await br.fetch("/dashboard");
    assert.equal(res.status, 200);
    assert.match(await res.text(), /Hello <!--[^>]*-->?Demo User|Hello Demo User/);
  });

  it("the middleware protects its list of paths", async () => {
    const anon = new Browser(origin, { basePath: "/api/auth" });
    for (const path of ["/account", "/settings", "/account/x"]) {
      const res = await anon.fetch(path);
      assert.equal(res.status, 302, path);
      assert.equal(new URL(res.headers.get("location"), origin).pathname, "/");
    }
    const br = new Browser(origin, { basePath: "/api/auth" });
    await signIn(br);
    const res = await br.fetch("/account");
    assert.equal(res.status, 200);
    assert.match(await res.text(), /protected by the middleware/);
  });

  it("sign-out ends the session", async () => {
    const br = new Browser(origin, { basePath: "/api/auth" });
    await signIn(br);
    const csrfToken = await br.csrf();
    await br.post("/api/auth/signout", { csrfToken });
    assert.equal(await br.session(), null);
    assert.equal((await br.fetch("/dashboard")).status, 302);
  });

  /** The login page's form actions (SolidStart renders them as plain forms). */
  const loginForms = async (br) => {
    const html = await (await br.fetch("/login")).text();
    const actions = [...html.matchAll(/<form action="([^"]+)" method="post"/g)].map((m) =>
      m[1].replaceAll("&amp;", "&"),
    );
    assert.equal(actions.length, 2, html);
    return { login: actions[0], logout: actions[1] };
  };

  it("the login form's server action (no JavaScript): a wrong password returns the code, the right one a session", async () => {
    const br = new Browser(origin, { basePath: "/api/auth" });
    const { login, logout } = await loginForms(br);
    const referer = { referer: `${origin}/login` };
    let res = await br.post(login, { callbackUrl: "/dashboard", username: "demo", password: "nope" }, referer);
    // Back to the page, the action's result in SolidStart's flash cookie.
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), `${origin}/login`);
    const flash = JSON.parse(decodeURIComponent(br.jar.get("flash")));
    assert.deepEqual(flash.result, { error: "credentials" });
    assert.equal(br.sessionCookie(), undefined);
    br.jar.delete("flash");

    res = await br.post(login, { callbackUrl: "/dashboard", username: "demo", password: "demo" }, referer);
    assert.equal(res.status, 302);
    assert.equal(res.headers.get("location"), `${origin}/dashboard`);
    assert.ok(br.sessionCookie(), res.headers.getSetCookie().join("\n"));
    assert.equal((await br.session()).user.name, "Demo User");
    assert.equal((await br.fetch("/dashboard")).status, 200);

    res = await br.post(logout, {}, referer);
    assert.equal(res.status, 302);
    assert.equal(br.sessionCookie(), undefined);
    assert.equal(await br.session(), null);
  });

  it("the login form's server action in headless Chromium: the code on the page, then a session", {
    skip: skipUnless(existsSync(CHROMIUM), "Debian chromium is not installed (apt-get install chromium)"),
  }, async () => {
    const browser = await launch();
    try {
      const page = await browser.newPage();
      await page.goto(`${origin}/login`);
      await page.fill("#username", "demo");
      await page.fill("#password", "wrong");
      await page.click("#sign-in");
      await page.waitForSelector("#login-error");
      assert.equal(await page.textContent("#login-error"), "Sign-in failed: credentials");
      assert.equal(new URL(page.url()).pathname, "/login");
      await page.fill("#password", "demo");
      await Promise.all([page.waitForURL(`${origin}/dashboard`), page.click("#sign-in")]);
      assert.match(await page.textContent("#secret"), /Hello\s*Demo User, this page is protected by its loader\./);
    } finally {
      await browser.close();
    }
  });

  it("signs in through the built-in page in headless Chromium", {
    skip: skipUnless(existsSync(CHROMIUM), "Debian chromium is not installed (apt-get install chromium)"),
  }, async () => {
    const browser = await launch();
    try {
      const page = await browser.newPage();
      await page.goto(`${origin}/dashboard`);
      assert.equal(new URL(page.url()).pathname, "/");
      await page.goto(`${origin}/api/auth/signin?callbackUrl=%2Fdashboard`);
      await page.fill("#input-username-for-credentials", "demo");
      await page.fill("#input-password-for-credentials", "demo");
      await Promise.all([page.waitForURL(`${origin}/dashboard`), page.click("text=Sign in with Credentials")]);
      assert.match(await page.textContent("#secret"), /Hello\s*Demo User, this page is protected by its loader\./);
      await page.goto(`${origin}/account`);
      assert.equal(await page.textContent("#account"), "This page is protected by the middleware.");
    } finally {
      await browser.close();
    }
  });
});
