// signIn / signOut from host code (form actions handled on the server):
// an Express login route over real HTTP, and the same calls with a Web
// Request. Refusals are thrown (CredentialsSignin with its code), never
// redirected.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { ServerAuth, getSession, signIn, signOut, AuthError, CredentialsSignin } from "libauth";
import { listen, Browser } from "./helpers.mjs";
import { baseConfig } from "./flows.mjs";

const express = createRequire(import.meta.url)("express");

describe("signIn / signOut from an Express route", () => {
  const config = baseConfig();
  const denying = baseConfig({ callbacks: { signIn: ({ user }) => user.name !== "Ada Lovelace" } });
  let server;
  before(async () => {
    const app = express();
    app.use("/auth", ServerAuth(config));
    app.use(express.urlencoded({ extended: false }));
    const login = (cfg) => async (req, res) => {
      try {
        const { url, cookies } = await signIn("credentials", req.body, req, cfg);
        res.setHeader("set-cookie", cookies);
        res.redirect(303, url);
      } catch (e) {
        if (e instanceof CredentialsSignin) return res.status(401).json({ error: e.type, code: e.code });
        if (e instanceof AuthError) return res.status(403).json({ error: e.type });
        throw e;
      }
    };
    app.post("/login", login(config));
    app.post("/login-denied", login(denying));
    app.post("/logout", async (req, res) => {
      const { url, cookies } = await signOut(req, config);
      res.setHeader("set-cookie", cookies);
      res.redirect(303, url);
    });
    app.get("/me", async (req, res) => res.json(await getSession(req, config)));
    server = await listen(app);
  });
  after(() => server?.close());

  it("signs in with the form's fields: cookies set, the session readable", async () => {
    const b = new Browser(server.url);
    const res = await b.post("/login", { username: "ada", password: "lovelace", callbackUrl: "/me" });
    assert.equal(res.status, 303);
    assert.equal(res.headers.get("location"), `${server.url}/me`);
    assert.ok(b.sessionCookie(), res.headers.getSetCookie().join("\n"));
    assert.equal((await (await b.fetch("/me")).json()).user.name, "Ada Lovelace");
    assert.equal((await b.session()).user.email, "ada@example.com");
  });

  it("a wrong password is CredentialsSignin the route catches, with its code; no cookie", async () => {
    const b = new Browser(server.url);
    let res = await b.post("/login", { username: "ada", password: "nope" });
    assert.equal(res.status, 401);
    assert.deepEqual(await res.json(), { error: "CredentialsSignin", code: "credentials" });
    assert.equal(b.sessionCookie(), undefined);
    // authorize threw its own subclass: its code comes through.
    res = await b.post("/login", { username: "throw", password: "x" });
    assert.deepEqual(await res.json(), { error: "CredentialsSignin", code: "invalid_login" });
  });

  it("a signIn callback saying no is AccessDenied", async () => {
    const b = new Browser(server.url);
    const res = await b.post("/login-denied", { username: "ada", password: "lovelace" });
    assert.equal(res.status, 403);
    assert.deepEqual(await res.json(), { error: "AccessDenied" });
  });

  it("signOut ends the session", async () => {
    const b = new Browser(server.url);
    await b.post("/login", { username: "ada", password: "lovelace" });
    assert.ok(b.sessionCookie());
    const res = await b.post("/logout", {});
    assert.equal(res.status, 303);
    assert.equal(b.sessionCookie(), undefined);
    assert.equal(await b.session(), null);
  });
});

describe("signIn / signOut with a Web Request", () => {
  const config = { ...baseConfig(), prefix: "/api/auth" };
  const origin = "http://127.0.0.1:4321";

  it("accepts FormData and a Request (or an event carrying one)", async () => {
    const form = new FormData();
    form.set("username", "ada");
    form.set("password", "lovelace");
    form.set("redirectTo", "/dashboard");
    const request = new Request(`${origin}/_server`, { method: "POST" });
    const { url, cookies } = await signIn("credentials", form, { request }, config);
    assert.equal(url, `${origin}/dashboard`);
    const cookie = cookies.map((c) => c.split(";")[0]).join("; ");
    const session = await getSession(new Request(`${origin}/`, { headers: { cookie } }), config);
    assert.equal(session.user.name, "Ada Lovelace");

    const out = await signOut(new Request(`${origin}/_server`, { method: "POST", headers: { cookie } }), config);
    // As the sign-out route: the callback-url cookie the sign-in set.
    assert.equal(out.url, `${origin}/dashboard`);
    assert.ok(
      out.cookies.some((c) => /session-token=;/.test(c) || /Max-Age=0/.test(c)),
      out.cookies.join("\n"),
    );
  });

  it("throws CredentialsSignin with .code, and a typed AuthError for an unknown provider", async () => {
    const request = new Request(`${origin}/_server`, { method: "POST" });
    await assert.rejects(
      signIn("credentials", new URLSearchParams({ username: "ada", password: "x" }), request, config),
      (e) => {
        assert.ok(e instanceof CredentialsSignin);
        assert.equal(e.type, "CredentialsSignin");
        assert.equal(e.code, "credentials");
        return true;
      },
    );
    await assert.rejects(
      signIn("github", {}, request, config),
      (e) => e instanceof AuthError && e.type === "InvalidProviderType",
    );
  });
});
