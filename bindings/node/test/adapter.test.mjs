// Database adapters: a JavaScript object implementing Auth.js's adapter
// methods (hooks `adapter.*`), and the engine's built-in ones by name.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { rmSync } from "node:fs";
import { ServerAuth } from "libauth";
import { Browser, serveProtected } from "./helpers.mjs";
import { memoryAdapter } from "./memory-adapter.mjs";
import { baseConfig } from "./flows.mjs";

const serve = (config, mw) => serveProtected(config, mw);

/** The key the engine stores a database session under: SHA-256 of the cookie's token, hex. */
const storedKey = (token) => createHash("sha256").update(token).digest("hex");

/**
 * Sign `br` out and check that only its session ended: its cookie is
 * cleared, a copy of that cookie taken before sign-out (`copy()` makes a
 * fresh browser holding it) no longer finds a session - the row is gone,
 * not just the cookie - and `others` (other devices of the same user) are
 * still signed in.
 */
async function signOutEndsOnlyThisSession(br, copy, others = []) {
  const before = copy();
  assert.equal((await before.session())?.user?.email, "ada@example.com", "the copied cookie works before sign-out");
  const csrfToken = await br.csrf();
  const out = await br.post("/auth/signout", { csrfToken });
  assert.equal(out.status, 302);
  assert.equal(out.headers.get("location"), br.origin);
  assert.equal(br.sessionCookie(), undefined, "session cookie cleared");
  assert.equal(await br.session(), null);
  const me = await copy().fetch("/me");
  assert.equal(me.status, 302, "a copy of the cookie taken before sign-out is refused by getSession");
  assert.equal(me.headers.get("location"), "/login");
  assert.equal(await copy().session(), null, "a copy of the cookie taken before sign-out gives no session");
  for (const other of others) {
    assert.equal((await other.session())?.user?.email, "ada@example.com", "another device keeps its session");
    const res = await other.fetch("/me");
    assert.equal(res.status, 200);
    assert.equal((await res.json()).user.email, "ada@example.com");
  }
}

describe("a JavaScript adapter (adapter.* hooks)", () => {
  const servers = [];
  after(() => Promise.all(servers.map((s) => s.close())));
  const start = async (adapter) => {
    const config = baseConfig({ adapter, session: { strategy: "database" } });
    const s = await serve(config, ServerAuth(config));
    servers.push(s);
    return s;
  };

  it("credentials sign-in with the database strategy stores, reads and deletes the session through it", async () => {
    const adapter = memoryAdapter();
    const s = await start(adapter);
    const br = new Browser(s.url);
    const res = await br.signIn("ada", "lovelace");
    assert.equal(res.status, 302);
    const token = br.sessionCookie();
    assert.ok(token && token.split(".").length !== 5, "the cookie holds a session token, not a JWT");
    const key = storedKey(token);
    assert.ok(
      adapter.calls.some(([m, session]) => m === "createSession" && session.sessionToken === key),
      "createSession got SHA-256(token)",
    );
    assert.deepEqual([...adapter.sessions.keys()], [key], "the store holds the session under SHA-256(token)");
    assert.equal((await br.session()).user.email, "ada@example.com");
    assert.equal((await (await br.fetch("/me")).json()).user.email, "ada@example.com");
    assert.ok(
      adapter.calls.some(([m, t]) => m === "getSessionAndUser" && t === key),
      "getSessionAndUser got SHA-256(token)",
    );
    assert.ok(!adapter.dump().includes(token), "the cookie's value is nowhere in the adapter's store");

    const cookies = br.sessionCookies();
    await signOutEndsOnlyThisSession(br, () => Browser.withCookies(s.url, cookies));
    assert.ok(
      adapter.calls.some(([m, t]) => m === "deleteSession" && t === key),
      "deleteSession got SHA-256(token)",
    );
    assert.equal(adapter.sessions.has(key), false, "the store no longer holds the session");
    assert.equal(adapter.sessions.size, 0);
    assert.ok(!JSON.stringify(adapter.calls).includes(token), "no adapter method ever received the cookie's value");
  });

  it("sign-out deletes only this browser's session: another device stays signed in", async () => {
    const adapter = memoryAdapter();
    const s = await start(adapter);
    const laptop = new Browser(s.url);
    const phone = new Browser(s.url);
    assert.equal((await laptop.signIn("ada", "lovelace")).status, 302);
    assert.equal((await phone.signIn("ada", "lovelace")).status, 302);
    const [laptopKey, phoneKey] = [storedKey(laptop.sessionCookie()), storedKey(phone.sessionCookie())];
    assert.notEqual(laptopKey, phoneKey, "two sessions");
    assert.deepEqual(new Set(adapter.sessions.keys()), new Set([laptopKey, phoneKey]));
    for (const br of [laptop, phone])
      assert.ok(!adapter.dump().includes(br.sessionCookie()), "no cookie value in the store");

    const cookies = laptop.sessionCookies();
    await signOutEndsOnlyThisSession(laptop, () => Browser.withCookies(s.url, cookies), [phone]);
    assert.deepEqual(
      adapter.calls.filter(([m]) => m === "deleteSession").map(([, t]) => t),
      [laptopKey],
      "deleteSession was called once, for the laptop's session",
    );
    assert.deepEqual([...adapter.sessions.keys()], [phoneKey], "the phone's session is still stored");
  });
});

describe("built-in adapters by name", () => {
  const sqlitePath = `/tmp/libauth-node-test-${process.pid}.db`;
  after(() => {
    for (const suffix of ["", "-wal", "-shm"]) rmSync(sqlitePath + suffix, { force: true });
  });
  const adapters = [
    { type: "memory" },
    { type: "sqlite", path: sqlitePath },
    // scripts/test.sh starts the machine's PostgreSQL (database `test`).
    { type: "postgres", url: process.env.LIBAUTH_TEST_POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test" },
  ];
  for (const adapter of adapters) {
    describe(adapter.type, () => {
      let s;
      before(async () => {
        const config = baseConfig({ adapter, session: { strategy: "database" } });
        s = await serve(config, ServerAuth(config));
      });
      after(() => s?.close());

      it(`${adapter.type}: credentials sign-in, session, sign-out deletes the session (a copied cookie stops working)`, async () => {
        const br = new Browser(s.url);
        assert.equal((await br.signIn("ada", "lovelace")).status, 302);
        assert.equal((await br.session()).user.email, "ada@example.com");
        const cookies = br.sessionCookies();
        assert.equal(cookies.length, 1, "one session cookie");
        await signOutEndsOnlyThisSession(br, () => Browser.withCookies(s.url, cookies));
      });

      it(`${adapter.type}: sign-out on one device leaves the same user's session on another`, async () => {
        const laptop = new Browser(s.url);
        const phone = new Browser(s.url);
        assert.equal((await laptop.signIn("ada", "lovelace")).status, 302);
        assert.equal((await phone.signIn("ada", "lovelace")).status, 302);
        assert.notEqual(laptop.sessionCookie(), phone.sessionCookie(), "two sessions");
        const cookies = laptop.sessionCookies();
        await signOutEndsOnlyThisSession(laptop, () => Browser.withCookies(s.url, cookies), [phone]);
      });
    });
  }
});
