// Email + password accounts from Node: the whole flow in headless Chromium
// (Debian's /usr/bin/chromium, driven by playwright-core) through the
// built-in pages behind Express, then signing in with libauth/client's
// `signIn("password", { email, password })` (Auth.js's client wire), and
// the server-side steps (`signUp`, …) with their error types.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import express from "express";
import { ServerAuth, Password, signUp, requestPasswordReset, AuthError } from "libauth";
import { listen, launch, CHROMIUM, SECRET, skipUnless } from "./helpers.mjs";

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
