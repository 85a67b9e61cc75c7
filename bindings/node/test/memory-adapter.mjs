// An in-memory adapter in Auth.js's shape, written in JavaScript (every
// method async, recording its calls): the host adapter of the adapter and
// passkey tests.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { sleep } from "./helpers.mjs";

/** An in-memory adapter in the Auth.js shape, every method async, recording calls. */
export function memoryAdapter(calls = []) {
  const users = new Map();
  const accounts = new Map();
  const sessions = new Map();
  const tokens = new Map();
  const log = (name, args) => calls.push([name, ...args]);
  return {
    calls,
    sessions,
    /** Everything the adapter holds, as one string (to search for a value). */
    dump: () => JSON.stringify([...users, ...accounts, ...sessions, ...tokens]),
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
    async unlinkAccount({ provider, providerAccountId }) {
      log("unlinkAccount", [provider, providerAccountId]);
      accounts.delete(`${provider}:${providerAccountId}`);
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
