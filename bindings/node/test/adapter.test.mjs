// Database adapters: a JavaScript object implementing Auth.js's adapter
// methods (hooks `adapter.*`), and the engine's built-in ones by name.
import { describe, it, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { randomUUID } from "node:crypto";
import { ServerAuth } from "libauth";
import { Browser, sleep, serveProtected } from "./helpers.mjs";
import { baseConfig } from "./flows.mjs";

const require = createRequire(import.meta.url);
const express = require("express");

/** An in-memory adapter in the Auth.js shape, every method async, recording calls. */
export function memoryAdapter(calls = []) {
  const users = new Map();
  const accounts = new Map();
  const sessions = new Map();
  const tokens = new Map();
  const log = (name, args) => calls.push([name, ...args]);
  return {
    calls,
    async createUser(user) {
      log("createUser", [user]);
      await sleep(1);
      const u = { ...user, id: user.id ?? randomUUID() };
      users.set(u.id, u);
      return u;
    },
    async getUser(id) {
      log("getUser", [id]);
      return users.get(id) ?? null;
    },
    async getUserByEmail(email) {
      log("getUserByEmail", [email]);
      return [...users.values()].find((u) => u.email === email) ?? null;
    },
    async getUserByAccount({ provider, providerAccountId }) {
      log("getUserByAccount", [provider, providerAccountId]);
      const a = accounts.get(`${provider}:${providerAccountId}`);
      return a ? (users.get(a.userId) ?? null) : null;
    },
    async updateUser(user) {
      log("updateUser", [user]);
      const u = { ...users.get(user.id), ...user };
      users.set(u.id, u);
      return u;
    },
    async deleteUser(id) {
      log("deleteUser", [id]);
      users.delete(id);
    },
    async linkAccount(account) {
      log("linkAccount", [account]);
      accounts.set(`${account.provider}:${account.providerAccountId}`, account);
      return account;
    },
    async createSession(session) {
      log("createSession", [session]);
      assert.ok(session.expires instanceof Date, "expires arrives as a Date");
      sessions.set(session.sessionToken, session);
      return session;
    },
    async getSessionAndUser(sessionToken) {
      log("getSessionAndUser", [sessionToken]);
      await sleep(1);
      const session = sessions.get(sessionToken);
      if (!session) return null;
      return { session, user: users.get(session.userId) };
    },
    async updateSession(session) {
      log("updateSession", [session]);
      const s = { ...sessions.get(session.sessionToken), ...session };
      sessions.set(s.sessionToken, s);
      return s;
    },
    async deleteSession(sessionToken) {
      log("deleteSession", [sessionToken]);
      const s = sessions.get(sessionToken);
      sessions.delete(sessionToken);
      return s ?? null;
    },
    async createVerificationToken(token) {
      tokens.set(`${token.identifier}:${token.token}`, token);
      return token;
    },
    async useVerificationToken({ identifier, token }) {
      const t = tokens.get(`${identifier}:${token}`) ?? null;
      tokens.delete(`${identifier}:${token}`);
      return t;
    },
  };
}

const serve = (config, mw) => serveProtected(config, mw);

describe("a JavaScript adapter (adapter.* hooks)", () => {
  const servers = [];
  after(() => Promise.all(servers.map((s) => s.close())));

  it("credentials sign-in with the database strategy stores, reads and deletes the session through it", async (t) => {
    const adapter = memoryAdapter();
    const config = baseConfig({ adapter, session: { strategy: "database" } });
    const mw = ServerAuth(config);
    const s = await serve(config, mw);
    servers.push(s);
    const br = new Browser(s.url);
    const res = await br.signIn("ada", "lovelace");
    assert.equal(res.status, 302);
    const token = br.sessionCookie();
    assert.ok(token && token.split(".").length !== 5, "the cookie holds a session token, not a JWT");
    assert.ok(adapter.calls.some(([m]) => m === "createSession"));
    assert.equal((await br.session()).user.email, "ada@example.com");
    assert.equal((await (await br.fetch("/me")).json()).user.email, "ada@example.com");
    assert.ok(adapter.calls.some(([m]) => m === "getSessionAndUser"));
    const csrfToken = await br.csrf();
    await br.post("/auth/signout", { csrfToken });
    assert.ok(adapter.calls.some(([m, t]) => m === "deleteSession" && t === token));
    assert.equal(await br.session(), null);
  });
});

describe("built-in adapters by name", () => {
  const servers = [];
  after(() => Promise.all(servers.map((s) => s.close())));
  const adapters = [
    { type: "memory" },
    { type: "sqlite", path: `/tmp/libauth-node-test-${process.pid}.db` },
    // scripts/test.sh starts the machine's PostgreSQL (database `test`).
    { type: "postgres", url: process.env.LIBAUTH_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test" },
  ];
  for (const adapter of adapters) {
    it(`${adapter.type}: credentials sign-in, session, sign-out`, async (t) => {
      const config = baseConfig({ adapter, session: { strategy: "database" } });
      const mw = ServerAuth(config);
      const s = await serve(config, mw);
      servers.push(s);
      const br = new Browser(s.url);
      await br.signIn("ada", "lovelace");
      assert.equal((await br.session()).user.email, "ada@example.com");
      const csrfToken = await br.csrf();
      await br.post("/auth/signout", { csrfToken });
      assert.equal(await br.session(), null);
    });
  }
});
