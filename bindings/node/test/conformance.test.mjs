// The host conventions, checked against the vectors every language shares
// (tests/fixtures/hook-conformance.json): each hook kind receives the same
// arguments (Dates, a Web Request, an AuthError where the engine says), and
// its answer (or its error) has the same effect on what the engine reads.
import { describe, it } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import { AuthError, CredentialsSignin } from "libauth";

const require = createRequire(import.meta.url);
const { instanceFor } = require("../lib/native.js");
const vectors = JSON.parse(fs.readFileSync(new URL("../../../tests/fixtures/hook-conformance.json", import.meta.url)));

/** What a hook received, in the vectors' notation. */
function normalise(value) {
  if (value instanceof Date) return { $date: value.toISOString() };
  if (value instanceof Request) {
    return { $request: { method: value.method, url: value.url, headers: Object.fromEntries(value.headers) } };
  }
  if (value instanceof Error) {
    return { $error: { type: value.type, message: value.message, cause: value.cause?.err?.message ?? null } };
  }
  if (Array.isArray(value)) return value.map(normalise);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v)]));
  return value;
}

/** A reply in the vectors' notation, as a JavaScript hook returns it. */
function revive(value) {
  if (Array.isArray(value)) return value.map(revive);
  if (value && typeof value === "object") {
    if (typeof value.$date === "string") return new Date(value.$date);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, revive(v)]));
  }
  return value;
}

describe("host conventions: every hook kind, as the shared vectors say", () => {
  const current = { case: null, received: null };
  const hook = (...args) => {
    current.received = normalise(args);
    const { reply, throws } = current.case;
    if (throws) {
      const e =
        throws.type === "CredentialsSignin" ? new CredentialsSignin(throws.message) : new AuthError(throws.message);
      if (throws.code) e.code = throws.code;
      throw e;
    }
    return revive(reply);
  };
  const names = [...new Set(vectors.cases.map((c) => c.hook))];
  const config = {
    secret: "libauth-conformance-secret-0123456789",
    trustHost: true,
    callbacks: {},
    events: {},
    logger: {},
    jwt: {},
    session: {},
  };
  const adapter = {};
  for (const name of names) {
    const [group, rest] = [name.slice(0, name.indexOf(".")), name.slice(name.indexOf(".") + 1)];
    if (group === "adapter") adapter[rest] = hook;
    else if (group !== "providers") config[group][rest] = hook;
  }
  config.adapter = adapter;
  config.providers = [
    { type: "credentials", credentials: {}, authorize: hook },
    { type: "email", sendVerificationRequest: hook },
    { builtin: "github", clientId: "id", clientSecret: "secret", profile: hook },
    { type: "webauthn", getUserInfo: hook },
  ];
  config.experimental = { enableWebAuthn: true };
  const auth = instanceFor(config);

  for (const c of vectors.cases) {
    it(`${c.hook}${c.throws ? " (throws)" : ""}`, async () => {
      current.case = c;
      current.received = null;
      let decoded;
      try {
        decoded = await auth.callHook(c.hook, JSON.stringify(c.engineArgs));
      } catch (e) {
        assert.ok(c.throws, `unexpected error ${e.message}`);
        assert.equal(e.type, c.throws.type);
        assert.equal(e.message, c.throws.message);
        assert.equal(e.code, c.throws.code);
      }
      assert.deepEqual(current.received, c.received);
      if (!c.throws) assert.deepEqual(decoded, c.decoded);
    });
  }
});
