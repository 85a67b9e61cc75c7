// Generates ../fixtures/authjs-session-vectors.json with Auth.js's own code.
//
// Every token in the file is produced by `encode` from `@auth/core/jwt` and
// every `decoded` value is what `decode` from `@auth/core/jwt` returns for it.
// The CSRF examples are produced by @auth/core's internal `createCSRFToken`.
// The script checks the facts it records (key derivation, kid, header shape,
// rotation behaviour, CSRF hash) and refuses to write the file if one fails.
//
// Usage (from tests/compat):  npm ci && node make-vectors.mjs

import assert from "node:assert/strict";
import { createHash, hkdfSync } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { decode, encode } from "@auth/core/jwt";
// Not in @auth/core's package "exports", so imported by path: these are the
// exact functions Auth.js uses for the CSRF cookie and for cookie chunking.
import { createCSRFToken } from "./node_modules/@auth/core/lib/actions/callback/oauth/csrf-token.js";
import { SessionStore } from "./node_modules/@auth/core/lib/utils/cookie.js";

const OUT = new URL("../fixtures/authjs-session-vectors.json", import.meta.url);

// Test-only secrets. Never use these anywhere real.
const SECRET = "libauth-test-secret-0123456789abcdef";
const SECRET_NEW = "libauth-test-secret-NEW-rotation-0123456789";
const SECRET_OLD = "libauth-test-secret-OLD-rotation-0123456789";

// 50 years, so that the vectors stay valid (exp = iat + maxAge).
const MAX_AGE = 50 * 365 * 24 * 3600;

const SALTS = ["authjs.session-token", "__Secure-authjs.session-token"];

const pkgVersion = (name) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url), "utf8")).version;

const b64uDecode = (s) => Buffer.from(s, "base64url");

/** Independent re-derivation with node:crypto, to check what we record. */
function deriveKey(secret, salt, enc = "A256CBC-HS512") {
  const length = enc === "A256GCM" ? 32 : 64;
  const info = `Auth.js Generated Encryption Key (${salt})`;
  const key = Buffer.from(
    hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.from(salt, "utf8"), Buffer.from(info, "utf8"), length),
  );
  const jwk = JSON.stringify({ k: key.toString("base64url"), kty: "oct" });
  const kid = createHash(`sha${length * 8}`)
    .update(jwk)
    .digest("base64url");
  return { info, key, kid };
}

/** Splits a token the way Auth.js's SessionStore.chunk does. */
function authjsChunks(salt, token) {
  const store = new SessionStore({ name: salt, options: {} }, {}, { debug() {} });
  return store.chunk(token, {}).map(({ name, value }) => ({ name, value }));
}

const plainSession = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  picture: "https://example.com/avatars/ada.png",
  sub: "4f9c1b2e-7d3a-4c5b-9e8f-0a1b2c3d4e5f",
};

const noPictureSession = {
  name: "Credentials User",
  email: "user@example.com",
  sub: "1",
};

const unicodeSession = {
  name: "Zoë Ñúñez-Łukasiewicz 山田太郎 🦀",
  email: "zoë@exämple.com",
  picture: 'https://example.com/p/\u00e9t\u00e9.png?size=64&x="quoted"',
  sub: "user-ü-123",
  role: "admin",
  tenant: { id: 42, name: "Ærø – Ωmega", flags: ["beta", "ß"] },
  emoji: "👩‍💻 \u2028 line-sep and \\ backslash",
  null_claim: null,
  nested_numbers: [0, -1, 1.5, 1e21],
};

function largeSession() {
  const groups = [];
  for (let i = 0; i < 150; i++) groups.push(`group-${String(i).padStart(3, "0")}-engineering-platform`);
  return {
    name: "Large Payload User",
    email: "large@example.com",
    picture: "https://example.com/avatars/large.png",
    sub: "large-user-0001",
    groups,
  };
}

const cases = [
  {
    description: "plain session {name,email,picture,sub}",
    payload: plainSession,
    secret: SECRET,
  },
  {
    description: "session without picture (credentials user with no image: picture undefined is omitted)",
    payload: noPictureSession,
    secret: SECRET,
  },
  {
    description: "unicode strings, a custom claim (role), nested object, null and number claims",
    payload: unicodeSession,
    secret: SECRET,
  },
  {
    description:
      "rotation: encoded with the secret list [new, old]; the first (new) secret is used and its kid is in the header",
    payload: plainSession,
    secret: [SECRET_NEW, SECRET_OLD],
    decodeWith: [[SECRET_NEW, SECRET_OLD], [SECRET_NEW], SECRET_NEW, [SECRET_OLD, SECRET_NEW]],
    rejectWith: [[SECRET_OLD], SECRET_OLD, SECRET],
  },
  {
    description: "rotation: encoded with only the old secret; decoding with [new, old] must pick the old key by kid",
    payload: plainSession,
    secret: SECRET_OLD,
    decodeWith: [[SECRET_NEW, SECRET_OLD], [SECRET_OLD, SECRET_NEW], [SECRET_OLD], SECRET_OLD],
    rejectWith: [[SECRET_NEW], SECRET_NEW, SECRET],
  },
  {
    description: "large payload: token longer than 4000 characters (Auth.js splits it into .0/.1 cookie chunks)",
    payload: largeSession(),
    secret: SECRET,
    large: true,
  },
];

async function makeVector(c, salt) {
  // exp is computed by Auth.js with its own clock read, iat by jose with
  // another one; retry in the rare case they straddle a second boundary so
  // that the recorded vectors have exp = iat + maxAge exactly.
  for (let attempt = 0; attempt < 5; attempt++) {
    const token = await encode({ token: c.payload, secret: c.secret, salt, maxAge: MAX_AGE });
    const decoded = await decode({ token, secret: c.secret, salt });
    if (decoded.exp - decoded.iat !== MAX_AGE) continue;

    const [h, ek, iv, ct, tag, ...rest] = token.split(".");
    assert.equal(rest.length, 0, "compact JWE has 5 segments");
    const header = JSON.parse(b64uDecode(h).toString("utf8"));
    const firstSecret = Array.isArray(c.secret) ? c.secret[0] : c.secret;
    const { kid } = deriveKey(firstSecret, salt);
    assert.equal(b64uDecode(h).toString("utf8"), JSON.stringify({ alg: "dir", enc: "A256CBC-HS512", kid }));
    assert.equal(ek, "");
    assert.equal(b64uDecode(iv).length, 16);
    assert.equal(b64uDecode(tag).length, 32);
    assert.equal(b64uDecode(ct).length % 16, 0);
    const { iat, exp, jti, ...claims } = decoded;
    assert.deepEqual(claims, c.payload);
    assert.deepEqual(Object.keys(decoded), [...Object.keys(c.payload), "iat", "exp", "jti"]);
    assert.match(jti, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);

    // Rotation expectations, checked against Auth.js itself.
    for (const s of c.decodeWith ?? []) assert.deepEqual(await decode({ token, secret: s, salt }), decoded);
    for (const s of c.rejectWith ?? []) await assert.rejects(decode({ token, secret: s, salt }));
    // The other cookie name never decodes it.
    for (const other of SALTS.filter((x) => x !== salt))
      await assert.rejects(decode({ token, secret: c.secret, salt: other }));

    const v = {
      description: `${c.description} [salt ${salt}]`,
      secret: c.secret,
      salt,
      maxAge: MAX_AGE,
      payload: c.payload,
      token,
      decoded,
      header,
    };
    if (c.decodeWith) v.decodeWith = c.decodeWith;
    if (c.rejectWith) v.rejectWith = c.rejectWith;
    if (c.large) {
      assert.ok(token.length > 4000, `large token is ${token.length} chars`);
      v.cookieChunks = authjsChunks(salt, token);
      assert.ok(v.cookieChunks.length >= 2);
      assert.equal(v.cookieChunks.map((x) => x.value).join(""), token);
    }
    return v;
  }
  throw new Error("could not produce a vector with exp = iat + maxAge");
}

async function makeCsrf(description, secret) {
  // Exactly what @auth/core's init() does when there is no CSRF cookie yet.
  const options = { secret };
  const { cookie, csrfToken } = await createCSRFToken({
    options,
    cookieValue: undefined,
    isPost: false,
    bodyValue: undefined,
  });
  const [token, hash] = cookie.split("|");
  assert.equal(token, csrfToken);
  assert.match(token, /^[0-9a-f]{64}$/);
  // `${csrfToken}${options.secret}`: an array secret is joined with commas.
  const hashInput = `${token}${secret}`;
  assert.equal(hash, createHash("sha256").update(hashInput, "utf8").digest("hex"));
  // And Auth.js accepts it back on a POST with the same token in the body.
  const back = await createCSRFToken({ options, cookieValue: cookie, isPost: true, bodyValue: token });
  assert.equal(back.csrfTokenVerified, true);
  assert.equal(back.csrfToken, token);
  return { description, secret, token, hashInput, hash, cookieValue: cookie };
}

const vectors = [];
for (const c of cases) for (const salt of SALTS) vectors.push(await makeVector(c, salt));

const derivedKeys = [];
for (const secret of [SECRET, SECRET_NEW, SECRET_OLD]) {
  for (const salt of SALTS) {
    const { info, key, kid } = deriveKey(secret, salt);
    derivedKeys.push({
      secret,
      salt,
      enc: "A256CBC-HS512",
      hkdfInfo: info,
      keyHex: key.toString("hex"),
      macKeyHex: key.subarray(0, 32).toString("hex"),
      aesKeyHex: key.subarray(32).toString("hex"),
      kid,
    });
  }
}
// Cross-check: every vector's kid is the kid of the first encode secret.
for (const v of vectors) {
  const s = Array.isArray(v.secret) ? v.secret[0] : v.secret;
  assert.equal(v.header.kid, derivedKeys.find((k) => k.secret === s && k.salt === v.salt).kid);
}

const csrf = [
  await makeCsrf("CSRF cookie value token|sha256hex(token + secret) for a single secret", SECRET),
  await makeCsrf(
    "CSRF cookie with a secret list (config.secret array, e.g. from AUTH_SECRET_1..3): the template literal joins the list with commas, so the hash is sha256hex(token + 'new,old')",
    [SECRET_NEW, SECRET_OLD],
  ),
];

const out = {
  description:
    "Auth.js v5 session cookie (JWT strategy) interoperability vectors. Every token was produced by encode() and every 'decoded' by decode() from @auth/core/jwt; 'payload' is what was passed to encode. Secrets are test-only.",
  generatedBy: {
    "@auth/core": pkgVersion("@auth/core"),
    jose: pkgVersion("jose"),
    "@panva/hkdf": pkgVersion("@panva/hkdf"),
    node: process.version,
    script: "tests/compat/make-vectors.mjs",
  },
  generatedAt: new Date().toISOString(),
  notes: [
    "secret: a string, or an array of strings (rotation: the first one encodes, decode picks the key whose kid matches the header).",
    "salt: the session cookie name; it is also part of the HKDF info string.",
    "decodeWith / rejectWith (rotation vectors only): secrets (string or list) that Auth.js decode accepts / rejects for this token.",
    "header: the decoded JWE protected header; its base64url segment is exactly the JSON shown, keys in this order.",
    "cookieChunks (large vectors only): the cookies Auth.js SessionStore.chunk emits (chunk size 4096 - 160 = 3936 characters).",
    "derivedKeys: HKDF-SHA-256(ikm = secret UTF-8, salt = cookie name, info = hkdfInfo, 64 bytes); MAC key = first 32 bytes, AES key = last 32; kid = RFC 7638 thumbprint (SHA-512) of {k, kty:'oct'}.",
    "maxAge is 50 years for every vector so the tokens stay valid; exp = iat + maxAge.",
  ],
  vectors,
  csrf,
  derivedKeys,
};

writeFileSync(OUT, `${JSON.stringify(out, null, 2)}\n`);
console.log(`wrote ${vectors.length} vectors, ${csrf.length} csrf examples to ${OUT.pathname}`);
for (const v of vectors) console.log(`  ${String(v.token.length).padStart(5)}  ${v.description}`);
