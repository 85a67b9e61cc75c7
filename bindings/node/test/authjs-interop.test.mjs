// Cookies issued by @auth/express 0.12.3 (Auth.js v5) for the same secret
// are accepted by libauth's getSession, and the reverse, through real
// servers of both.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { ExpressAuth, getSession as authjsGetSession } from "@auth/express";
import AuthjsCredentials from "@auth/express/providers/credentials";
import { ServerAuth, getSession } from "libauth";
import { listen, Browser, SECRET, users } from "./helpers.mjs";
import { baseConfig } from "./flows.mjs";

const require = createRequire(import.meta.url);
const express4 = require("express4");

function authjsConfig() {
  return {
    secret: SECRET,
    trustHost: true,
    providers: [
      AuthjsCredentials({
        credentials: { username: {}, password: {} },
        authorize: async ({ username, password }) =>
          username === "ada" && password === "lovelace" ? users().ada : null,
      }),
    ],
  };
}

function meRoute(app, read, config) {
  app.get("/me", async (req, res) => {
    const session = await read(req, config);
    if (!session?.user) return res.redirect("/login");
    res.json(session);
  });
}

describe("Auth.js v5 (@auth/express 0.12.3) interoperability", () => {
  let authjs;
  let ours;
  before(async () => {
    // @auth/express cannot be mounted on Express 5 wildcards: Express 4.
    const a = express4();
    const ac = authjsConfig();
    a.use("/auth/*", ExpressAuth(ac));
    meRoute(a, authjsGetSession, ac);
    authjs = await listen(a);

    const b = express4();
    const bc = baseConfig();
    b.use("/auth", ServerAuth(bc));
    meRoute(b, getSession, bc);
    ours = await listen(b);
  });
  after(() => Promise.all([authjs?.close(), ours?.close()]));

  it("a session cookie issued by Auth.js is accepted by libauth's getSession and session route", async () => {
    const br = new Browser(authjs.url);
    const res = await br.signIn("ada", "lovelace");
    assert.equal(res.status, 302);
    const token = br.sessionCookie();
    assert.ok(token, "Auth.js set a session cookie");
    const mine = new Browser(ours.url);
    mine.jar.set("authjs.session-token", token);
    const me = await mine.fetch("/me");
    assert.equal(me.status, 200);
    const session = await me.json();
    assert.deepEqual(session.user, {
      name: "Ada Lovelace",
      email: "ada@example.com",
      image: "https://img.example/ada.png",
    });
    assert.equal((await mine.session()).user.email, "ada@example.com");
  });

  it("a session cookie issued by libauth is accepted by Auth.js's getSession and session route", async () => {
    const mine = new Browser(ours.url);
    await mine.signIn("ada", "lovelace");
    const token = mine.sessionCookie();
    assert.ok(token);
    const br = new Browser(authjs.url);
    br.jar.set("authjs.session-token", token);
    const me = await br.fetch("/me");
    assert.equal(me.status, 200);
    assert.equal((await me.json()).user.name, "Ada Lovelace");
    assert.equal((await br.session()).user.email, "ada@example.com");
  });

  it("a cookie for another secret is refused by both", async () => {
    const other = { ...baseConfig(), secret: "another-secret-of-at-least-32-characters!!" };
    const c = express4();
    c.use("/auth", ServerAuth(other));
    const s = await listen(c);
    try {
      const br = new Browser(s.url);
      await br.signIn("ada", "lovelace");
      const token = br.sessionCookie();
      for (const target of [ours, authjs]) {
        const x = new Browser(target.url);
        x.jar.set("authjs.session-token", token);
        assert.equal((await x.fetch("/me")).status, 302);
      }
    } finally {
      await s.close();
    }
  });
});
