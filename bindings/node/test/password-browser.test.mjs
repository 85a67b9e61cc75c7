// Email + password accounts from Node: the whole flow in headless Chromium
// (Debian's /usr/bin/chromium, driven by playwright-core) through the
// built-in pages behind Express, then signing in with libauth/client's
// `signIn("password", { email, password })` (Auth.js's client wire), and
// the server-side steps (`signUp`, …) with their error types; a user who
// adds a passkey and turns TOTP on on the account page, then signs in
// through the sign-in and two-factor pages and trusts the browser.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import express from "express";
import { ServerAuth, Password, Passkey, signUp, requestPasswordReset, AuthError } from "libauth";
import {
  listen,
  launch,
  freePort,
  startProcess,
  virtualAuthenticator,
  CHROMIUM,
  SECRET,
  skipUnless,
  totp,
} from "./helpers.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const PYTHON = process.env.LIBAUTH_PYTHON || `${root}.venv/bin/python`;
const C_SERVER = `${root}examples/c-server/c-server`;
const APP_SECRET = "password-browser-test-secret-0123456789abc";

/** The SMTP sink (core/tests/support/smtp_sink.py, aiosmtpd): each message as JSON. */
async function smtpSink() {
  const child = spawn(PYTHON, [`${root}core/tests/support/smtp_sink.py`], { stdio: ["pipe", "pipe", "inherit"] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const ready = (await lines.next()).value;
  assert.match(ready, /^READY \d+$/);
  return {
    port: Number(ready.split(" ")[1]),
    async next() {
      return JSON.parse((await lines.next()).value);
    },
    close: () => child.kill(),
  };
}

/** The link in a mail's text part (`<label>: <url>`). */
function linkIn(mail) {
  const line = mail.text.split("\n").find((l) => l.includes(": http"));
  assert.ok(line, mail.text);
  return line.slice(line.indexOf(": ") + 2).trim();
}

/**
 * An example server's built-in pages, mail through the sink: sign up,
 * follow the verification link, sign out, sign in with the password,
 * forget it, reset it from the mailed link, sign in with the new one.
 */
async function examplePasswordFlow(browser, origin, sink, email) {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/auth/password/signup`);
    await page.fill("#input-signup-email", email);
    await page.fill("#input-signup-password", "correct horse battery");
    await Promise.all([page.waitForURL(/verify-request/), page.click("button[type=submit]")]);
    const verify = await sink.next();
    assert.deepEqual(verify.rcpt_tos, [email]);
    await page.goto(linkIn(verify));
    let session = await (await page.request.get(`${origin}/auth/session`)).json();
    assert.equal(session.user.email, email);
    await page.goto(`${origin}/auth/signout`);
    await Promise.all([page.waitForURL(`${origin}/**`), page.click("button[type=submit]")]);
    await page.goto(`${origin}/auth/signin`);
    await page.fill("#input-email-for-password", email);
    await page.fill("#input-password-for-password", "correct horse battery");
    await Promise.all([page.waitForURL(`${origin}/**`), page.click("#input-password-for-password >> xpath=../button")]);
    session = await (await page.request.get(`${origin}/auth/session`)).json();
    assert.equal(session?.user?.email, email, "signed in with the password");
    await page.goto(`${origin}/auth/password/forgot`);
    await page.fill("#input-forgot-email", email);
    await Promise.all([page.waitForURL(/verify-request/), page.click("button[type=submit]")]);
    await page.goto(linkIn(await sink.next()));
    await page.fill("#input-reset-password", "a brand new password");
    await Promise.all([page.waitForURL(`${origin}/**`), page.click("button[type=submit]")]);
    session = await (await page.request.get(`${origin}/auth/session`)).json();
    assert.equal(session?.user?.email, email, "signed in after the reset");
  } finally {
    await context.close();
  }
}

const skip = skipUnless(existsSync(CHROMIUM), "Debian chromium is not installed (apt-get install chromium)");

/** A config with the password provider whose mail lands in `mailbox`. */
function passwordConfig(mailbox, db) {
  return {
    secret: SECRET,
    trustHost: true,
    basePath: "/auth",
    adapter: { type: "sqlite", path: db },
    session: { strategy: "database" },
    providers: [
      Password({
        argon2: { memoryKib: 64, iterations: 1 },
        sendEmail: async (params) => {
          mailbox.push(params);
        },
        checkPassword: ({ password }) => (password === "password123" ? "That one is on a breach list." : null),
      }),
    ],
  };
}

function app(config) {
  const server = express();
  server.use("/auth", ServerAuth(config));
  server.get("/client.mjs", (_req, res) =>
    res.type("text/javascript").send(readFileSync(new URL("../client.mjs", import.meta.url), "utf8")),
  );
  server.get("/client-page", (_req, res) =>
    res.type("html").send(`<!doctype html><html><body><p id="out">pending</p><script type="module">
      import { signIn, getSession, signUp, changePassword } from "/client.mjs";
      const out = {};
      out.refused = await signUp({ email: "cy@example.com", password: "short" });
      out.created = await signUp({ email: "cy@example.com", password: "long enough" });
      out.notSignedIn = await changePassword({ currentPassword: "x", newPassword: "long enough 2" });
      out.wrong = await signIn("password", { email: "ada@example.com", password: "nope nope", redirect: false });
      out.right = await signIn("password", { email: "ada@example.com", password: "a new password", redirect: false });
      out.session = await getSession();
      document.getElementById("out").textContent = JSON.stringify(out);
    </script></body></html>`),
  );
  server.get("/", (_req, res) => res.type("html").send("<p>home</p>"));
  return server;
}

describe("password accounts in headless Chromium", { skip }, () => {
  let browser;
  const db = join(tmpdir(), `libauth-password-${process.pid}.db`);
  before(async () => (browser = await launch()));
  after(() => {
    browser?.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
  });

  it("sign up, verify, sign in, forget, reset, then Auth.js's client wire", async () => {
    const mailbox = [];
    const server = await listen(app(passwordConfig(mailbox, db)));
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      const origin = server.url;
      await page.goto(`${origin}/auth/signin`);
      await Promise.all([page.waitForURL(/\/auth\/password\/signup/), page.click("text=Create an account")]);
      await page.fill("#input-signup-email", "ada@example.com");
      await page.fill("#input-signup-password", "password123");
      await page.click("button[type=submit]");
      assert.match(await page.textContent(".error"), /breach list/);
      await page.fill("#input-signup-password", "correct horse battery");
      await Promise.all([page.waitForURL(/verify-request/), page.click("button[type=submit]")]);
      assert.match(await page.textContent("p"), /a link has been sent/);
      const verify = mailbox.shift();
      assert.equal(verify.kind, "verify-email");
      await page.goto(verify.url);
      const session = await (await page.request.get(`${origin}/auth/session`)).json();
      assert.equal(session.user.email, "ada@example.com");

      // Forgotten password, in a second browser.
      const other = await browser.newContext();
      const p2 = await other.newPage();
      await p2.goto(`${origin}/auth/signin`);
      await Promise.all([page.waitForTimeout(0), p2.click("text=Forgot your password?")]);
      await p2.waitForURL(/\/auth\/password\/forgot/);
      await p2.fill("#input-forgot-email", "ada@example.com");
      await Promise.all([p2.waitForURL(/verify-request/), p2.click("button[type=submit]")]);
      const reset = mailbox.shift();
      assert.equal(reset.kind, "reset-password");
      await p2.goto(reset.url);
      await p2.fill("#input-reset-password", "a new password");
      await Promise.all([p2.waitForURL(`${origin}/**`), p2.click("button[type=submit]")]);
      const after = await (await p2.request.get(`${origin}/auth/session`)).json();
      assert.equal(after.user.email, "ada@example.com");
      const ended = await (await page.request.get(`${origin}/auth/session`)).json();
      assert.equal(ended, null, "the reset ended the first browser's session");
      await other.close();

      // libauth/client, as Auth.js's client signs in with a credentials-type provider.
      const fresh = await browser.newContext();
      const p3 = await fresh.newPage();
      await p3.goto(`${origin}/client-page`);
      await p3.waitForFunction(() => document.getElementById("out").textContent !== "pending", null, {
        timeout: 20000,
      });
      const out = JSON.parse(await p3.textContent("#out"));
      assert.equal(out.refused.ok, false);
      assert.equal(out.refused.error, "PasswordRefused");
      assert.match(out.refused.message, /at least 8/);
      assert.equal(out.created.ok, true);
      assert.match(out.created.url, /\/auth\/verify-request\?provider=password&type=password/);
      assert.match(out.notSignedIn.url, /\/auth\/signin\?callbackUrl=/, "signed out: to the sign-in page");
      assert.equal(out.wrong.error, "CredentialsSignin");
      assert.equal(out.right.ok, true);
      assert.equal(out.session.user.email, "ada@example.com");
      await fresh.close();
    } finally {
      await context.close();
      await server.close();
    }
  });
});

describe("a two-step sign-in in headless Chromium", { skip }, () => {
  let browser;
  const db = join(tmpdir(), `libauth-two-step-${process.pid}.db`);
  before(async () => (browser = await launch()));
  after(() => {
    browser?.close();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
  });

  it("a passkey and TOTP set up on the account page, then the password and a code; a trusted browser skips the code", async () => {
    const mailbox = [];
    const base = passwordConfig(mailbox, db);
    const config = {
      ...base,
      session: { strategy: "jwt" },
      experimental: { enableWebAuthn: true },
      providers: [...base.providers, Passkey()],
    };
    const server = await listen(app(config));
    const context = await browser.newContext();
    const now = () => Date.now() / 1000;
    // Passkeys need a host name: localhost, not 127.0.0.1.
    const origin = server.url.replace("127.0.0.1", "localhost");
    const sessionOf = async (page) => (await page.request.get(`${origin}/auth/session`)).json();
    try {
      const request = new Request(`${origin}/auth/password/signup`, { method: "POST" });
      await signUp({ email: "grace@example.com", password: "correct horse battery" }, request, config);
      const page = await context.newPage();
      await page.goto(mailbox.shift().url);

      // The account page: add a passkey (a virtual authenticator answers
      // the browser module's ceremony)...
      const { cdp, authenticatorId, credentials } = await virtualAuthenticator(context, page);
      const logs = [];
      page.on("console", (m) => logs.push(`${m.type()}: ${m.text()}`));
      page.on("pageerror", (e) => logs.push(`pageerror: ${e.message}`));
      await page.goto(`${origin}/auth/password/account`);
      await Promise.all([
        page.waitForURL(/notice=passkey-added/, { timeout: 10000 }).catch(async (e) => {
          const shown = await page.textContent("[data-webauthn-error]").catch(() => "");
          e.message += `\npage: ${page.url()}\nerror shown: ${shown}\nconsole:\n${logs.join("\n")}`;
          throw e;
        }),
        page.click("section >> text=Add a passkey"),
      ]);
      assert.equal((await credentials()).length, 1);
      assert.ok(await page.isVisible("section >> text=Remove"), "the passkey is listed");
      // Gone with its device: the sign-in page's passkey autofill would
      // otherwise sign in with it before the password is typed.
      await cdp.send("WebAuthn.removeVirtualAuthenticator", { authenticatorId });

      // ...then TOTP: set up, scan (here: read the key), the first code.
      await Promise.all([page.waitForURL(/\/auth\/two-factor\/setup/), page.click("section >> text=Set up")]);
      const qr = page.locator("figure.qr img");
      assert.ok(await qr.evaluate((img) => img.complete && img.naturalWidth > 0), "the QR code's image renders");
      const secret = (await page.textContent("figure.qr code")).trim();
      if (process.env.LIBAUTH_TEST_OUTPUT) {
        await page.screenshot({ path: join(process.env.LIBAUTH_TEST_OUTPUT, "two-factor-setup.png") });
      }
      await page.fill("#input-two-factor-setup-code", totp(secret, now() - 30));
      await page.click("button[type=submit]");
      const codes = await page.locator("ul.codes li").allTextContents();
      assert.equal(codes.length, 10, "ten recovery codes, shown once");
      await page.goto(`${origin}/auth/signout`);
      await Promise.all([page.waitForURL(`${origin}/**`), page.click("button[type=submit]")]);

      // The password, then the code page.
      const signIn = async () => {
        await page.goto(`${origin}/auth/signin?callbackUrl=%2F`);
        await page.fill("#input-email-for-password", "grace@example.com");
        await page.fill("#input-password-for-password", "correct horse battery");
        await Promise.all([
          page.waitForURL(`${origin}/**`),
          page.click("#input-password-for-password >> xpath=../button"),
        ]);
      };
      await signIn();
      assert.match(page.url(), /\/auth\/two-factor/);
      assert.equal(await sessionOf(page), null, "no session after the password alone");
      await page.fill("#input-two-factor-code", "000000");
      await page.click("button[type=submit]");
      assert.match(await page.textContent(".error"), /not right/);
      await page.fill("#input-two-factor-code", totp(secret, now()));
      await page.check("#input-two-factor-trust");
      await Promise.all([
        page.waitForURL((url) => !url.pathname.startsWith("/auth/")),
        page.click("button[type=submit]"),
      ]);
      let session = await sessionOf(page);
      assert.equal(session?.user?.email, "grace@example.com", "signed in after the code");
      assert.deepEqual(session.amr, ["pwd", "otp"]);

      // Trusted: the next sign-in in this browser is the password alone.
      await page.goto(`${origin}/auth/signout`);
      await Promise.all([page.waitForURL(`${origin}/**`), page.click("button[type=submit]")]);
      await signIn();
      assert.ok(!new URL(page.url()).pathname.startsWith("/auth/"), page.url());
      session = await sessionOf(page);
      assert.deepEqual(session?.amr, ["pwd"]);

      // Off again, with the password, on the account page.
      await page.goto(`${origin}/auth/password/account`);
      await page.fill("#input-two-factor-disable-code", "correct horse battery");
      await Promise.all([
        page.waitForURL(/notice=two-factor-off/),
        page.click("#input-two-factor-disable-code >> xpath=../button"),
      ]);
      assert.match(await page.textContent(".notice"), /off/);
    } finally {
      await context.close();
      await server.close();
    }
  });
});

describe("password accounts in the FastAPI and C examples (headless Chromium, real SMTP)", { skip }, () => {
  let browser;
  let sink;
  before(async () => {
    browser = await launch();
    sink = await smtpSink();
  });
  after(() => {
    browser?.close();
    sink?.close();
  });

  it("FastAPI example", async (t) => {
    const ok = existsSync(PYTHON) && spawnSync(PYTHON, ["-c", "import libauth, fastapi, uvicorn"]).status === 0;
    const reason = skipUnless(
      ok,
      `${PYTHON} cannot import libauth, fastapi and uvicorn (scripts/test.sh installs them)`,
    );
    if (reason) return t.skip(reason);
    const port = await freePort();
    const db = join(tmpdir(), `libauth-password-fastapi-${process.pid}.db`);
    const app = await startProcess(["app.py"], {
      command: PYTHON,
      cwd: `${root}examples/fastapi`,
      env: {
        PORT: String(port),
        AUTH_SECRET: APP_SECRET,
        AUTH_DB: db,
        AUTH_SMTP_HOST: "127.0.0.1",
        AUTH_SMTP_PORT: String(sink.port),
        PYTHONUNBUFFERED: "1",
      },
      ready: `http://127.0.0.1:${port}/`,
    });
    try {
      await examplePasswordFlow(browser, `http://localhost:${port}`, sink, "fastapi@example.com");
    } finally {
      await app.stop();
      for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
    }
  });

  it("C example", async (t) => {
    if (!existsSync(C_SERVER)) {
      spawnSync("make", ["-s", "-C", `${root}examples/c-server`], { stdio: "inherit", timeout: 900_000 });
    }
    const reason = skipUnless(
      existsSync(C_SERVER),
      "examples/c-server/c-server is not built (make -C examples/c-server)",
    );
    if (reason) return t.skip(reason);
    const port = await freePort();
    const db = join(tmpdir(), `libauth-password-c-${process.pid}.db`);
    const app = await startProcess([], {
      command: C_SERVER,
      cwd: `${root}examples/c-server`,
      env: {
        PORT: String(port),
        AUTH_SECRET: APP_SECRET,
        AUTH_DB: db,
        AUTH_SMTP_HOST: "127.0.0.1",
        AUTH_SMTP_PORT: String(sink.port),
      },
      ready: `http://127.0.0.1:${port}/`,
    });
    try {
      await examplePasswordFlow(browser, `http://localhost:${port}`, sink, "c-example@example.com");
    } finally {
      await app.stop();
      for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
    }
  });
});

describe("password steps from server code", () => {
  it("signUp and requestPasswordReset resolve or reject with typed errors", async () => {
    const mailbox = [];
    const db = join(tmpdir(), `libauth-password-actions-${process.pid}.db`);
    const config = passwordConfig(mailbox, db);
    const request = new Request("http://localhost:3000/account/signup", { method: "POST" });
    try {
      await assert.rejects(
        signUp({ email: "bob@example.com", password: "short" }, request, config),
        (e) => e instanceof AuthError && e.type === "PasswordRefused" && /at least 8/.test(e.message),
      );
      await assert.rejects(
        signUp({ email: "bob", password: "long enough" }, request, config),
        (e) => e instanceof AuthError && e.type === "InvalidEmail",
      );
      const done = await signUp({ email: "bob@example.com", password: "long enough" }, request, config);
      assert.match(done.url, /\/auth\/verify-request/);
      assert.deepEqual(
        mailbox.map((m) => [m.kind, m.to]),
        [["verify-email", "bob@example.com"]],
      );
      const unknown = await requestPasswordReset({ email: "nobody@example.com" }, request, config);
      const known = await requestPasswordReset({ email: "bob@example.com" }, request, config);
      assert.equal(unknown.url, known.url, "the same answer for any address");
      assert.equal(mailbox.length, 2);
    } finally {
      for (const suffix of ["", "-wal", "-shm"]) rmSync(db + suffix, { force: true });
    }
  });
});
