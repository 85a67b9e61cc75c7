// Custom session encodings over real HTTP: `jwt: { encode, decode }` (hooks
// `jwt.encode` / `jwt.decode`), sync and async, and
// `session.generateSessionToken` with the database strategy.
import { describe, it, before, after } from "node:test";
import assert from "node:assert/strict";
import { Browser, SECRET, sleep, serveProtected } from "./helpers.mjs";
import { baseConfig } from "./flows.mjs";

const serve = (config) => serveProtected(config);

// A reversible encoding the test can read and forge: "b64." + base64url(JSON).
const PREFIX = "b64.";
const pack = (claims) => PREFIX + Buffer.from(JSON.stringify(claims)).toString("base64url");
const unpack = (raw) => JSON.parse(Buffer.from(raw.slice(PREFIX.length), "base64url").toString("utf8"));

/** jwt.encode/decode, sync or async, recording their arguments. */
function codec(calls, { async }) {
  const encode = ({ token, secret, salt, maxAge }) => {
    calls.push(["encode", { token, secret, salt, maxAge }]);
    return pack({ ...token, exp: Math.floor(Date.now() / 1000) + maxAge });
  };
  const decode = ({ token, secret, salt }) => {
    calls.push(["decode", { token, secret, salt }]);
    if (typeof token !== "string" || !token.startsWith(PREFIX)) return null;
    if (token === `${PREFIX}boom`) throw new Error("decoder exploded");
    return unpack(token);
  };
  if (!async) return { encode, decode };
  return {
    encode: async (params) => (await sleep(1), encode(params)),
    decode: async (params) => (await sleep(1), decode(params)),
  };
}

for (const variant of ["sync", "async"]) {
  describe(`jwt.encode / jwt.decode (${variant})`, () => {
    const calls = [];
    const logged = [];
    const config = baseConfig({
      jwt: { maxAge: 3600, ...codec(calls, { async: variant === "async" }) },
      logger: { error: (e) => logged.push([e.type, e.message]) },
    });
    let s;
    before(async () => (s = await serve(config)));
    after(() => s?.close());

    it("sign-in stores what encode returned; session and getSession read it through decode", async () => {
      const br = new Browser(s.url);
      const res = await br.signIn("ada", "lovelace");
      assert.equal(res.status, 302);
      const cookie = br.sessionCookie();
      assert.ok(cookie?.startsWith(PREFIX), `the cookie is encode's output: ${cookie}`);
      const claims = unpack(cookie);
      assert.equal(claims.sub, "42");
      assert.equal(claims.name, "Ada Lovelace");
      assert.equal(claims.email, "ada@example.com");
      assert.equal(claims.picture, "https://img.example/ada.png");
      const [, enc] = calls.find(([k]) => k === "encode");
      assert.equal(enc.salt, "authjs.session-token");
      assert.deepEqual([enc.secret].flat(), [SECRET]);
      assert.equal(enc.maxAge, 3600);

      const before = calls.filter(([k]) => k === "decode").length;
      const session = await br.session();
      assert.deepEqual(session.user, {
        name: "Ada Lovelace",
        email: "ada@example.com",
        image: "https://img.example/ada.png",
      });
      const me = await (await br.fetch("/me")).json();
      assert.equal(me.user.email, "ada@example.com");
      const decodes = calls.filter(([k]) => k === "decode");
      assert.ok(decodes.length >= before + 2, "GET session and getSession both decoded");
      const [, dec] = decodes.at(-1);
      assert.equal(dec.token, br.sessionCookie());
      assert.equal(dec.salt, "authjs.session-token");
    });

    it("a token the test encodes itself is accepted: decode, not the engine's JWE, decides", async () => {
      const br = new Browser(s.url);
      br.jar.set("authjs.session-token", pack({ sub: "7", name: "Forged by the test", email: "test@example.com" }));
      assert.equal((await br.session()).user.name, "Forged by the test");
      assert.equal((await (await br.fetch("/me")).json()).user.email, "test@example.com");
    });

    it("decode returning null, or throwing, gives no session and clears the cookie", async () => {
      for (const value of ["not-ours", `${PREFIX}boom`]) {
        const br = new Browser(s.url);
        br.jar.set("authjs.session-token", value);
        const res = await br.fetch("/auth/session");
        assert.equal(await res.json(), null, value);
        assert.ok(
          res.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=")),
          `cookie cleared (${value})`,
        );
        assert.equal(br.sessionCookie(), undefined);
        br.jar.set("authjs.session-token", value);
        assert.equal((await br.fetch("/me")).status, 302, value);
      }
      assert.ok(
        logged.some(([type, msg]) => type === "JWTSessionError" && /decoder exploded/.test(msg)),
        JSON.stringify(logged),
      );
    });

    it("session update re-encodes through encode; sign-out clears the cookie", async () => {
      const br = new Browser(s.url);
      await br.signIn("ada", "lovelace");
      const encodes = calls.filter(([k]) => k === "encode").length;
      let csrfToken = await br.csrf();
      const res = await br.fetch("/auth/session", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ csrfToken, data: {} }),
      });
      assert.equal((await res.json()).user.email, "ada@example.com");
      assert.ok(calls.filter(([k]) => k === "encode").length > encodes, "the update re-encoded the token");
      assert.ok(br.sessionCookie().startsWith(PREFIX));

      csrfToken = await br.csrf();
      const out = await br.post("/auth/signout", { csrfToken });
      assert.equal(out.status, 302);
      assert.equal(br.sessionCookie(), undefined);
      assert.equal(await br.session(), null);
    });
  });
}

describe("session.generateSessionToken (database strategy, memory adapter)", () => {
  it("the session cookie holds the generated token; session, getSession and sign-out use it", async () => {
    let n = 0;
    const config = baseConfig({
      adapter: { type: "memory" },
      session: { strategy: "database", generateSessionToken: () => `node-session-${++n}-${"x".repeat(16)}` },
    });
    const s = await serve(config);
    try {
      const br = new Browser(s.url);
      const res = await br.signIn("ada", "lovelace");
      assert.equal(res.status, 302);
      assert.equal(br.sessionCookie(), `node-session-1-${"x".repeat(16)}`);
      assert.equal((await br.session()).user.email, "ada@example.com");
      assert.equal((await (await br.fetch("/me")).json()).user.name, "Ada Lovelace");

      const other = new Browser(s.url);
      await other.signIn("ada", "lovelace");
      assert.equal(other.sessionCookie(), `node-session-2-${"x".repeat(16)}`);

      // The generated token is the key in the database: forge it and it is that session.
      const forged = new Browser(s.url);
      forged.jar.set("authjs.session-token", `node-session-1-${"x".repeat(16)}`);
      assert.equal((await forged.session()).user.email, "ada@example.com");

      const csrfToken = await br.csrf();
      await br.post("/auth/signout", { csrfToken });
      assert.equal(br.sessionCookie(), undefined);
      assert.equal(await forged.session(), null, "the session was deleted");
      assert.equal((await other.session()).user.email, "ada@example.com", "the other session is untouched");
    } finally {
      await s.close();
    }
  });

  it("an async generator works; one returning a short token fails the sign-in with SessionTokenError", async () => {
    const logged = [];
    const asyncConfig = baseConfig({
      adapter: { type: "memory" },
      session: {
        strategy: "database",
        generateSessionToken: async () => (await sleep(1), "async-generated-token-0001"),
      },
    });
    const shortConfig = baseConfig({
      adapter: { type: "memory" },
      session: { strategy: "database", generateSessionToken: () => "short" },
      logger: { error: (e) => logged.push(e) },
    });
    const [a, b] = [await serve(asyncConfig), await serve(shortConfig)];
    try {
      const br = new Browser(a.url);
      await br.signIn("ada", "lovelace");
      assert.equal(br.sessionCookie(), "async-generated-token-0001");
      assert.equal((await br.session()).user.email, "ada@example.com");

      // No silent UUID behind the host's back: the sign-in fails, named.
      const br2 = new Browser(b.url);
      const res = await br2.signIn("ada", "lovelace");
      assert.equal(res.status, 302);
      assert.equal(res.headers.get("location"), `${b.url}/auth/error?error=Configuration`);
      assert.equal(br2.sessionCookie(), undefined);
      assert.ok(
        logged.some((e) => e.type === "SessionTokenError" && /generateSessionToken/.test(e.message)),
        logged.map((e) => `${e.type}: ${e.message}`).join("\n"),
      );
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
});
