// Passkeys (WebAuthn) end to end in headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core) with a CDP virtual
// authenticator (CTAP2, internal, resident keys, user verification): register
// a passkey, sign out, sign back in with it - with the button and through
// passkey autofill (conditional UI) - through the built-in sign-in page of the
// Express, FastAPI and C examples; libauth/webauthn on a page of our own; and
// Auth.js's own sign-in page client (@auth/core's webauthn script with
// @simplewebauthn/browser, served from node_modules) against libauth.
//
// scripts/test.sh runs this file after the Python and C steps, which build
// what the FastAPI example (.venv with libauth) and the C example
// (examples/c-server/c-server) need.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { ReactiveAuth, Passkey, getSession } from "libauth";
import {
  listen,
  webServer,
  launch,
  freePort,
  startProcess,
  virtualAuthenticator,
  CHROMIUM,
  SECRET,
  skipUnless,
} from "./helpers.mjs";

const require = createRequire(import.meta.url);
const root = fileURLToPath(new URL("../../../", import.meta.url));
const ASSET = `${root}core/assets/webauthn.js`;
const PYTHON = process.env.LIBAUTH_PYTHON || `${root}.venv/bin/python`;
const C_SERVER = `${root}examples/c-server/c-server`;
const APP_SECRET = "passkeys-browser-test-secret-0123456789ab";

const skip = skipUnless(existsSync(CHROMIUM), "Debian chromium is not installed (apt-get install chromium)");

/** A fresh email for each registration (the examples' databases are per test, but be safe). */
const newEmail = (who) => `${who}-${randomBytes(4).toString("hex")}@example.com`;
const tmpDb = (name) => `/tmp/libauth-passkeys-${name}-${process.pid}.db`;

// Each page can turn passkey autofill off (to test the button while a
// passkey exists: the virtual authenticator answers a conditional request at
// once) by setting localStorage["test-no-autofill"]; the page then reports
// conditional mediation as unavailable, as a browser without it would.
const INIT_SCRIPT = `(() => {
  const PKC = globalThis.PublicKeyCredential;
  if (!PKC) return;
  const available = PKC.isConditionalMediationAvailable?.bind(PKC);
  PKC.isConditionalMediationAvailable = async () =>
    localStorage.getItem("test-no-autofill") ? false : available ? available() : false;
})();`;

/** A page with a virtual authenticator of its own. */
async function authenticatorPage(browser) {
  const context = await browser.newContext();
  await context.addInitScript(INIT_SCRIPT);
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  const logs = [];
  page.on("console", (m) => logs.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => logs.push(`pageerror: ${e.message}`));
  const { cdp, authenticatorId, credentials } = await virtualAuthenticator(context, page);
  return {
    context,
    page,
    logs,
    cdp,
    authenticatorId,
    credentials,
    autofill: (on) =>
      page.evaluate((off) => (off ? localStorage.setItem("test-no-autofill", "1") : localStorage.clear()), !on),
  };
}

/** The session as the page's origin sees it (GET /auth/session). */
const sessionOf = (page, basePath = "/auth") =>
  page.evaluate(async (b) => (await fetch(`${b}/session`)).json(), basePath);

/**
 * Sign out through the built-in sign-out page, with autofill off (sign-out
 * may land on a page that sends the browser to the sign-in page, where the
 * authenticator would answer the autofill request at once).
 */
async function signOut(t, origin) {
  const { page } = t;
  await t.autofill(false);
  await page.goto(`${origin}/auth/signout`);
  await Promise.all([page.waitForURL((u) => !u.pathname.endsWith("/signout")), page.click("button[type=submit]")]);
  assert.equal(await sessionOf(page), null, "signed out");
}

/**
 * Through an example's built-in sign-in page: register a passkey (a new
 * email), sign out; sign in with the button (no email: discoverable), sign
 * out; the button with the email is a sign-up, refused at the end for a
 * taken address (the options never tell); then through autofill, without
 * touching the page.
 */
async function builtInPageFlow(browser, origin, { secret }) {
  const t = await authenticatorPage(browser);
  const signin = `${origin}/auth/signin?callbackUrl=%2Fdashboard`;
  const dashboard = `${origin}/dashboard`;
  const form = "form[data-webauthn-provider='passkey']";
  const email = newEmail("builtin");
  try {
    await t.page.goto(signin);
    // The page's passkey form, as the engine renders it.
    assert.equal(await t.page.getAttribute(form, "data-base-path"), "/auth");
    assert.equal(await t.page.getAttribute(`${form} input[name=email]`, "autocomplete"), "username webauthn");
    assert.ok(await t.page.isVisible(`${form} button:has-text("Sign in with Passkey")`));

    // Register: an unknown email. Autofill is running (no passkey yet); the
    // button aborts it first.
    await t.page.fill(`${form} input[name=email]`, email);
    await Promise.all([t.page.waitForURL(dashboard), t.page.click(`${form} button[type=submit]`)]);
    assert.match(await t.page.textContent(secret), new RegExp(email.replace(/\./g, "\\.")));
    assert.equal((await sessionOf(t.page)).user.email, email);
    const creds = await t.credentials();
    assert.equal(creds.length, 1, "one passkey on the authenticator");
    assert.equal(creds[0].isResidentCredential, true);
    await signOut(t, origin);

    // The user refuses (no user verification): the page says so, and stays.
    await t.cdp.send("WebAuthn.setUserVerified", { authenticatorId: t.authenticatorId, isUserVerified: false });
    await t.page.goto(signin);
    await t.page.click(`${form} button[type=submit]`);
    await t.page.waitForSelector("[data-webauthn-error]:not([hidden])");
    assert.match(await t.page.textContent("[data-webauthn-error]"), /cancelled or timed out/);
    assert.equal(new URL(t.page.url()).pathname, "/auth/signin");
    assert.equal(await sessionOf(t.page), null);
    await t.cdp.send("WebAuthn.setUserVerified", { authenticatorId: t.authenticatorId, isUserVerified: true });

    // The button, no email: a discoverable credential.
    await t.autofill(false);
    await t.page.goto(signin);
    await Promise.all([t.page.waitForURL(dashboard), t.page.click(`${form} button[type=submit]`)]);
    assert.equal((await sessionOf(t.page)).user.email, email);
    await signOut(t, origin);

    // The button with the email: a sign-up (signed out, the options do not
    // depend on whether the address has an account), refused at the end as
    // the address is taken; the page says to sign in with the passkey.
    const [kept] = await t.credentials();
    await t.page.goto(signin);
    await t.page.fill(`${form} input[name=email]`, email);
    await t.page.click(`${form} button[type=submit]`);
    await t.page.waitForSelector("[data-webauthn-error]:not([hidden])");
    assert.match(await t.page.textContent("[data-webauthn-error]"), /already has an account/);
    assert.equal(await sessionOf(t.page), null);
    // The device made a credential the server never stored: forget it.
    for (const c of await t.credentials()) {
      if (c.credentialId !== kept.credentialId)
        await t.cdp.send("WebAuthn.removeCredential", {
          authenticatorId: t.authenticatorId,
          credentialId: c.credentialId,
        });
    }

    // Autofill (conditional UI): the authenticator answers the page's
    // conditional request; nothing is clicked.
    await t.autofill(true);
    await t.page.goto(signin);
    await t.page.waitForURL(dashboard);
    assert.equal((await sessionOf(t.page)).user.email, email);
    assert.equal((await t.credentials())[0].signCount >= 0, true);
  } catch (e) {
    e.message += `\nbrowser console:\n${t.logs.join("\n")}`;
    throw e;
  } finally {
    await t.context.close();
  }
}

/** Can this interpreter run the FastAPI example? */
function pythonReady() {
  if (!existsSync(PYTHON)) return false;
  const r = spawnSync(PYTHON, ["-c", "import libauth, fastapi, uvicorn"], { stdio: "ignore" });
  return r.status === 0;
}

describe("passkeys in headless Chromium (virtual authenticator)", { skip }, () => {
  let browser;
  before(async () => (browser = await launch()));
  after(() => browser?.close());

  it("Express example: register, sign out, sign in with the button and with autofill", async () => {
    const port = await freePort();
    const db = tmpDb("express");
    const app = await startProcess(["server.js"], {
      cwd: `${root}examples/express`,
      env: { PORT: String(port), AUTH_SECRET: APP_SECRET, AUTH_DB: db },
      ready: /Express example on/,
    });
    try {
      assert.match(app.output(), /providers: credentials, passkey/);
      await builtInPageFlow(browser, `http://localhost:${port}`, { secret: "#secret" });
    } finally {
      await app.stop();
      rmSync(db, { force: true });
    }
  });

  it("FastAPI example: register, sign out, sign in with the button and with autofill", async (t) => {
    const reason = skipUnless(
      pythonReady(),
      `${PYTHON} cannot import libauth, fastapi and uvicorn (scripts/test.sh's Python step installs them; or set LIBAUTH_PYTHON)`,
    );
    if (reason) return t.skip(reason);
    const port = await freePort();
    const db = tmpDb("fastapi");
    const app = await startProcess(["app.py"], {
      command: PYTHON,
      cwd: `${root}examples/fastapi`,
      env: { PORT: String(port), AUTH_SECRET: APP_SECRET, AUTH_DB: db, PYTHONUNBUFFERED: "1" },
      ready: `http://127.0.0.1:${port}/`,
    });
    try {
      await builtInPageFlow(browser, `http://localhost:${port}`, { secret: "#secret" });
    } finally {
      await app.stop();
      rmSync(db, { force: true });
    }
  });

  it("C example: register, sign out, sign in with the button and with autofill", async (t) => {
    if (!existsSync(C_SERVER)) {
      // Build it as tests/c/run.sh does (libauth.so first, when missing).
      spawnSync("make", ["-s", "-C", `${root}examples/c-server`], { stdio: "inherit", timeout: 900_000 });
    }
    const reason = skipUnless(
      existsSync(C_SERVER),
      "examples/c-server/c-server is not built (make -C examples/c-server)",
    );
    if (reason) return t.skip(reason);
    const port = await freePort();
    const db = tmpDb("c");
    const app = await startProcess([], {
      command: C_SERVER,
      cwd: `${root}examples/c-server`,
      env: { PORT: String(port), AUTH_SECRET: APP_SECRET, AUTH_DB: db },
      ready: `http://127.0.0.1:${port}/`,
    });
    try {
      await builtInPageFlow(browser, `http://localhost:${port}`, { secret: "#dashboard" });
    } finally {
      await app.stop();
      rmSync(db, { force: true });
    }
  });

  it("libauth/webauthn on a page of our own: register, sign out, authenticate, list, rename, delete", async () => {
    const config = {
      secret: SECRET,
      prefix: "/auth",
      experimental: { enableWebAuthn: true },
      adapter: { type: "memory" },
      providers: [Passkey()],
    };
    const { GET, POST } = ReactiveAuth(config);
    const shipped = require.resolve("libauth/webauthn");
    const page = `<!doctype html><html><body><p id="ready">no</p><script type="module">
      import * as webauthn from "/webauthn.mjs";
      window.webauthn = webauthn;
      document.getElementById("ready").textContent = "yes";
    </script></body></html>`;
    const server = await listen(
      webServer(async (request) => {
        const { pathname } = new URL(request.url);
        if (pathname === "/webauthn.mjs") {
          return new Response(readFileSync(shipped), { headers: { "content-type": "text/javascript" } });
        }
        if (pathname === "/") return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
        if (pathname === "/me") return Response.json(await getSession(request, config));
        return (request.method === "POST" ? POST : GET)({ request });
      }),
    );
    const origin = server.url.replace("127.0.0.1", "localhost");
    const t = await authenticatorPage(browser);
    const call = (fn, ...args) =>
      t.page.evaluate(
        async ([name, a]) => {
          try {
            return { value: await window.webauthn[name](...a) };
          } catch (e) {
            return { thrown: { name: e.name, type: e.type, status: e.status, message: e.message } };
          }
        },
        [fn, args],
      );
    const email = newEmail("custom");
    try {
      // The engine serves the same module at {basePath}/webauthn.js.
      const served = await fetch(`${server.url}/auth/webauthn.js`);
      assert.equal(served.status, 200);
      assert.match(served.headers.get("content-type"), /^text\/javascript/);
      assert.equal(await served.text(), readFileSync(ASSET, "utf8"));

      await t.page.goto(`${origin}/`);
      await t.page.waitForFunction(() => document.getElementById("ready").textContent === "yes");

      // Register (an unknown email).
      const registered = await call("signIn", "passkey", { email, redirect: false, callbackUrl: "/me" });
      assert.deepEqual(registered.value, { ok: true, url: `${origin}/me`, error: undefined, status: 200 });
      assert.equal((await sessionOf(t.page)).user.email, email);
      let list = (await call("listPasskeys")).value;
      assert.equal(list.length, 1);
      const [passkey] = list;
      assert.equal(
        passkey.id,
        (await t.credentials())[0].credentialId.replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_"),
      );
      assert.equal(typeof passkey.createdAt, "string");
      assert.ok(["singleDevice", "multiDevice"].includes(passkey.deviceType));
      assert.equal(typeof passkey.backedUp, "boolean");
      assert.ok(Array.isArray(passkey.transports));

      // Sign out; the list is the signed-in user's only.
      const signOutHere = async () => {
        const status = await t.page.evaluate(async () => {
          const { csrfToken } = await (await fetch("/auth/csrf")).json();
          const res = await fetch("/auth/signout", {
            method: "POST",
            headers: { "content-type": "application/x-www-form-urlencoded", "x-auth-return-redirect": "1" },
            body: new URLSearchParams({ csrfToken }),
          });
          return res.status;
        });
        assert.equal(status, 200);
        assert.equal(await sessionOf(t.page), null);
      };
      await signOutHere();
      assert.deepEqual((await call("listPasskeys")).thrown?.status, 401);
      assert.equal((await call("listPasskeys")).thrown?.name, "PasskeyError");

      // The user refuses (no user verification): the browser's error, nothing posted.
      await t.cdp.send("WebAuthn.setUserVerified", { authenticatorId: t.authenticatorId, isUserVerified: false });
      const refused = await call("signIn", "passkey", { redirect: false, callbackUrl: "/me" });
      assert.equal(refused.value.ok, false);
      assert.equal(refused.value.error, "NotAllowedError");
      assert.equal(refused.value.url, null);
      await t.cdp.send("WebAuthn.setUserVerified", { authenticatorId: t.authenticatorId, isUserVerified: true });
      assert.equal(await sessionOf(t.page), null);

      // Authenticate (no email: discoverable).
      const signedIn = await call("signIn", "passkey", { redirect: false, callbackUrl: "/me" });
      assert.deepEqual(signedIn.value, { ok: true, url: `${origin}/me`, error: undefined, status: 200 });
      assert.equal((await sessionOf(t.page)).user.email, email);
      list = (await call("listPasskeys")).value;
      assert.equal(list.length, 1);
      assert.ok(list[0].lastUsedAt, "lastUsedAt is set by the sign-in");

      // Rename.
      const renamed = (await call("renamePasskey", passkey.id, "Test laptop")).value;
      assert.equal(renamed.id, passkey.id);
      assert.equal(renamed.name, "Test laptop");
      assert.equal((await call("listPasskeys")).value[0].name, "Test laptop");

      // The last way to sign in cannot be deleted.
      const last = (await call("deletePasskey", passkey.id)).thrown;
      assert.deepEqual([last?.name, last?.type, last?.status], ["PasskeyError", "LastSignInMethod", 409]);

      // Without the browser's JSON helpers (older browsers): the module's own
      // base64url conversion, from here on.
      await t.page.evaluate(() => {
        delete PublicKeyCredential.parseCreationOptionsFromJSON;
        delete PublicKeyCredential.parseRequestOptionsFromJSON;
        delete PublicKeyCredential.prototype.toJSON;
      });
      assert.equal(await t.page.evaluate(() => typeof PublicKeyCredential.parseRequestOptionsFromJSON), "undefined");
      // This device holds the user's passkey already: registering it again is
      // refused by the browser (excludeCredentials), and nothing is posted.
      const twice = await call("signIn", "passkey", { action: "register", redirect: false, callbackUrl: "/me" });
      assert.deepEqual(twice.value, { ok: false, url: null, error: "InvalidStateError" });
      // The device loses it; the signed-in user adds a second passkey (on the
      // "new" device) and signs in with it (discoverable: an email names no
      // one's passkeys while signed out).
      await t.cdp.send("WebAuthn.removeCredential", {
        authenticatorId: t.authenticatorId,
        credentialId: (await t.credentials())[0].credentialId,
      });
      const second = await call("signIn", "passkey", { action: "register", redirect: false, callbackUrl: "/me" });
      assert.equal(second.value.ok, true, JSON.stringify(second.value));
      assert.equal((await sessionOf(t.page)).user.email, email, "the same user");
      assert.equal((await t.credentials()).length, 1);
      list = (await call("listPasskeys")).value;
      assert.equal(list.length, 2);
      // Signed in, the server wants to be told what to do.
      const vague = await call("signIn", "passkey", { email, redirect: false, callbackUrl: "/me" });
      assert.deepEqual(vague.value, { ok: false, url: null, error: "Invalid request", status: 400 });
      await signOutHere();
      const again = await call("signIn", "passkey", {
        action: "authenticate",
        email,
        redirect: false,
        callbackUrl: "/me",
      });
      assert.equal(again.value.ok, true, JSON.stringify(again.value));
      assert.equal((await sessionOf(t.page)).user.email, email);

      // Now one of two may go.
      assert.deepEqual((await call("deletePasskey", passkey.id)).value, undefined);
      list = (await call("listPasskeys")).value;
      assert.deepEqual(
        list.map((p) => p.id),
        [list[0].id],
      );
      assert.notEqual(list[0].id, passkey.id);
    } catch (e) {
      e.message += `\nbrowser console:\n${t.logs.join("\n")}`;
      throw e;
    } finally {
      await t.context.close();
      await server.close();
    }
  });

  it("Auth.js's sign-in page client (@auth/core + @simplewebauthn/browser) against libauth", async () => {
    const { Auth } = await import("@auth/core");
    const { default: AuthjsPasskey } = await import("@auth/core/providers/passkey");
    const umd = require.resolve("@simplewebauthn/browser/dist/bundle/index.umd.min.js");
    // libauth answers every route but the sign-in page, which is Auth.js's
    // own (its form, its CSRF token, its webauthn script with
    // @simplewebauthn/browser), rendered by @auth/core with the same secret.
    const config = {
      secret: SECRET,
      prefix: "/auth",
      experimental: { enableWebAuthn: true },
      adapter: { type: "memory" },
      providers: [Passkey()],
    };
    const { GET, POST } = ReactiveAuth(config);
    const unused = () => {
      throw new Error("Auth.js only renders the sign-in page here");
    };
    // Auth.js checks that the adapter has its methods; rendering calls none.
    const authjsAdapter = new Proxy({}, { get: () => unused, has: () => true });
    const authjs = {
      secret: SECRET,
      trustHost: true,
      basePath: "/auth",
      experimental: { enableWebAuthn: true },
      adapter: authjsAdapter,
      providers: [AuthjsPasskey],
      logger: { warn: () => {}, error: (e) => console.error(e), debug: () => {} },
    };
    const server = await listen(
      webServer(async (request) => {
        const { pathname } = new URL(request.url);
        if (pathname === "/vendor/simplewebauthn-browser.js") {
          return new Response(readFileSync(umd), { headers: { "content-type": "text/javascript" } });
        }
        if (pathname === "/auth/signin" && request.method === "GET") {
          const res = await Auth(request, authjs);
          const html = (await res.text()).replace(
            /<script src="https:\/\/unpkg\.com\/@simplewebauthn\/browser@[^"]+" crossorigin="anonymous"><\/script>/,
            '<script src="/vendor/simplewebauthn-browser.js"></script>',
          );
          assert.match(html, /\/vendor\/simplewebauthn-browser\.js/, "no CDN: the script comes from node_modules");
          const headers = new Headers(res.headers);
          headers.delete("content-length");
          return new Response(html, { status: res.status, headers });
        }
        if (pathname === "/")
          return new Response("<!doctype html><p>home</p>", { headers: { "content-type": "text/html" } });
        return (request.method === "POST" ? POST : GET)({ request });
      }),
    );
    const origin = server.url.replace("127.0.0.1", "localhost");
    const t = await authenticatorPage(browser);
    const email = newEmail("authjs");
    const signin = `${origin}/auth/signin?callbackUrl=%2F`;
    const form = "#passkey-form";
    const leftSignIn = (u) => !u.pathname.startsWith("/auth/");
    try {
      // Register through Auth.js's form (its autofill request is pending,
      // and @simplewebauthn/browser aborts it).
      await t.page.goto(signin);
      assert.ok(await t.page.isVisible(`${form} button`), "Auth.js rendered its passkey form");
      await t.page.fill(`${form} input[name=email]`, email);
      await Promise.all([t.page.waitForURL(leftSignIn), t.page.click(`${form} button`)]);
      assert.equal((await sessionOf(t.page))?.user?.email, email, `landed on ${t.page.url()}`);
      assert.equal((await t.credentials()).length, 1);
      await signOut(t, origin);

      // Auth.js's button always sends the email (its field is required) and
      // no action: signed out, that is a sign-up whatever the address, so for
      // a taken one it is refused at the end and signs in no one.
      const [kept] = await t.credentials();
      await t.autofill(false);
      await t.page.goto(signin);
      await t.page.fill(`${form} input[name=email]`, email);
      await Promise.all([
        t.page.waitForURL((u) => u.searchParams.get("error") === "AccountNotLinked"),
        t.page.click(`${form} button`),
      ]);
      assert.equal(await sessionOf(t.page), null);
      for (const c of await t.credentials()) {
        if (c.credentialId !== kept.credentialId)
          await t.cdp.send("WebAuthn.removeCredential", {
            authenticatorId: t.authenticatorId,
            credentialId: c.credentialId,
          });
      }

      // Auth.js's autofill.
      await t.autofill(true);
      await t.page.goto(signin);
      await t.page.waitForURL(leftSignIn);
      assert.equal((await sessionOf(t.page))?.user?.email, email, `landed on ${t.page.url()}`);
    } catch (e) {
      e.message += `\nbrowser console:\n${t.logs.join("\n")}`;
      throw e;
    } finally {
      await t.context.close();
      await server.close();
    }
  });
});
