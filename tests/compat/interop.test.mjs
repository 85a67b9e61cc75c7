// Interoperability tests: libauth (Rust) session cookies <-> Auth.js v5 (@auth/core).
//
// Run from tests/compat:  npm ci && node --test
//
// The Rust side is a command given by LIBAUTH_SESSION_COOKIE_CMD (default:
// `cargo run -q -p libauth-core --example session_cookie --`, run from the
// repository root) with this contract:
//
//   <cmd> encode --secret S [--secret S2] --salt NAME --max-age N --payload JSON
//       prints a JWE token on stdout
//   <cmd> decode --secret S [--secret S2] --salt NAME --token TOKEN
//       prints the decoded payload JSON on stdout; exit code 1 if it does not decode
//
// Nothing is skipped: if the command is missing or crashes, the tests fail and
// say why. A "does not decode" expectation only passes on exit code exactly 1
// with empty stdout, and each one is paired with a positive control, so a
// broken command can never make a negative test pass.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { decode as authjsDecode, encode as authjsEncode } from "@auth/core/jwt";

const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url));
const CMD = process.env.LIBAUTH_SESSION_COOKIE_CMD || "cargo run -q -p libauth-core --example session_cookie --";
const VECTORS = JSON.parse(readFileSync(new URL("../fixtures/authjs-session-vectors.json", import.meta.url), "utf8"));

// Test-only secrets.
const SECRET = "libauth-test-secret-0123456789abcdef";
const NEW = "libauth-test-secret-NEW-rotation-0123456789";
const OLD = "libauth-test-secret-OLD-rotation-0123456789";
const SALTS = ["authjs.session-token", "__Secure-authjs.session-token"];
const MAX_AGE = 30 * 24 * 60 * 60; // Auth.js's default session maxAge
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const SESSION = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  picture: "https://example.com/avatars/ada.png",
  sub: "4f9c1b2e-7d3a-4c5b-9e8f-0a1b2c3d4e5f",
};
const UNICODE = {
  name: "Zoë Ñúñez-Łukasiewicz 山田太郎 🦀",
  email: "zoë@exämple.com",
  picture: 'https://example.com/p/été.png?x="q"',
  sub: "user-ü-123",
  role: "admin",
  tenant: { id: 42, flags: ["beta", "ß"] },
  emoji: "👩‍💻 \u2028 \\ \u0000 end",
};
const LARGE = {
  ...SESSION,
  groups: Array.from({ length: 150 }, (_, i) => `group-${String(i).padStart(3, "0")}-engineering-platform`),
};

// ---------------------------------------------------------------- Rust side

const secretArgs = (secret) => (Array.isArray(secret) ? secret : [secret]).flatMap((s) => ["--secret", s]);
const short = (s, n = 2000) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);

function runRust(args) {
  // Through sh so that LIBAUTH_SESSION_COOKIE_CMD may contain arguments/quoting;
  // the contract arguments are passed as positional parameters, never re-parsed.
  const r = spawnSync("sh", ["-c", `${CMD} "$@"`, "libauth-session-cookie", ...args], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    timeout: 20 * 60 * 1000, // the first call may have to compile
    maxBuffer: 64 * 1024 * 1024,
  });
  const shown = args.map((a) => JSON.stringify(short(a, 80))).join(" ");
  const describeRun = () =>
    `command: ${CMD} ${shown}\n(cwd ${REPO_ROOT}; set LIBAUTH_SESSION_COOKIE_CMD to override)\n` +
    `exit status: ${r.status}${r.signal ? `, signal ${r.signal}` : ""}${r.error ? `, error ${r.error.message}` : ""}\n` +
    `stdout: ${short(r.stdout ?? "")}\nstderr: ${short(r.stderr ?? "")}`;
  return { ...r, describeRun };
}

function rustEncode({ secret, salt, maxAge = MAX_AGE, payload }) {
  const r = runRust([
    "encode",
    ...secretArgs(secret),
    "--salt",
    salt,
    "--max-age",
    String(maxAge),
    "--payload",
    JSON.stringify(payload),
  ]);
  if (r.status !== 0) assert.fail(`Rust encode failed.\n${r.describeRun()}`);
  const token = r.stdout.trim();
  if (!/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token))
    assert.fail(`Rust encode did not print a compact JWE on stdout.\n${r.describeRun()}`);
  return token;
}

/** Decodes with Rust and expects success; returns the payload. */
function rustDecode({ secret, salt, token }) {
  const r = runRust(["decode", ...secretArgs(secret), "--salt", salt, "--token", token]);
  if (r.status !== 0) assert.fail(`Rust decode failed where it must succeed.\n${r.describeRun()}`);
  try {
    return JSON.parse(r.stdout);
  } catch (e) {
    assert.fail(`Rust decode did not print JSON (${e.message}).\n${r.describeRun()}`);
  }
}

/** Decodes with Rust and expects the contract's rejection: exit code 1, nothing on stdout. */
function rustDecodeRejects({ secret, salt, token }, why) {
  const r = runRust(["decode", ...secretArgs(secret), "--salt", salt, "--token", token]);
  if (r.status === 0) assert.fail(`Rust decode accepted a token it must reject (${why}).\n${r.describeRun()}`);
  if (r.status !== 1)
    assert.fail(
      `Rust decode must exit with code 1 when a token does not decode (${why}); the command failed differently.\n${r.describeRun()}`,
    );
  assert.equal(r.stdout.trim(), "", `Rust decode printed something while rejecting (${why})`);
}

// ------------------------------------------------------------- Auth.js side

async function authjsRejects(params, why) {
  await assert.rejects(authjsDecode(params), undefined, `Auth.js decode accepted a token it must reject (${why})`);
}

const b64json = (segment) => JSON.parse(Buffer.from(segment, "base64url").toString("utf8"));

/** The kid Auth.js puts in the header for this secret (first of a list) and salt. */
async function authjsHeaderSegment(secret, salt) {
  return (await authjsEncode({ token: {}, secret, salt, maxAge: 60 })).split(".")[0];
}

async function assertTokenShape(token, secret, salt) {
  const segments = token.split(".");
  assert.equal(segments.length, 5, "compact JWE has 5 segments");
  const [h, encryptedKey, iv, ciphertext, tag] = segments;
  const header = b64json(h);
  const expected = b64json(await authjsHeaderSegment(secret, salt));
  assert.deepEqual(
    header,
    expected,
    "protected header is {alg:'dir', enc:'A256CBC-HS512', kid:<Auth.js kid for the first secret and this salt>} and nothing else",
  );
  assert.equal(encryptedKey, "", "alg=dir: the encrypted-key segment is empty");
  assert.equal(Buffer.from(iv, "base64url").length, 16, "IV is 16 bytes");
  assert.equal(Buffer.from(tag, "base64url").length, 32, "A256CBC-HS512 tag is 32 bytes");
  assert.equal(Buffer.from(ciphertext, "base64url").length % 16, 0, "AES-CBC ciphertext is a multiple of 16 bytes");
}

function assertSessionClaims(decoded, payload, maxAge) {
  const { iat, exp, jti, ...claims } = decoded;
  assert.deepEqual(claims, payload, "claims other than iat/exp/jti round-trip unchanged");
  assert.ok(Number.isInteger(iat), `iat is an integer (got ${JSON.stringify(iat)})`);
  assert.ok(Number.isInteger(exp), `exp is an integer (got ${JSON.stringify(exp)})`);
  assert.equal(exp, iat + maxAge, "exp = iat + maxAge");
  const now = Math.floor(Date.now() / 1000);
  assert.ok(Math.abs(iat - now) <= 120, `iat (${iat}) is the current time (${now})`);
  assert.equal(typeof jti, "string", "jti is a string");
  assert.match(jti, UUID, "jti is a UUID like crypto.randomUUID()");
}

/** Changes one character in the middle of a segment (never the last one, whose low bits may be ignored by base64 decoders). */
function tamper(token, segmentIndex) {
  const segments = token.split(".");
  const s = segments[segmentIndex];
  const i = Math.floor(s.length / 2);
  segments[segmentIndex] = s.slice(0, i) + (s[i] === "A" ? "B" : "A") + s.slice(i + 1);
  const tampered = segments.join(".");
  assert.notEqual(tampered, token);
  return tampered;
}

// ------------------------------------------------------------------- tests

test("the Rust command runs (encode, then decode its own token)", () => {
  const token = rustEncode({ secret: SECRET, salt: SALTS[0], payload: SESSION });
  const decoded = rustDecode({ secret: SECRET, salt: SALTS[0], token });
  assert.equal(decoded.sub, SESSION.sub);
});

describe("(a) Rust encode -> Auth.js decode", () => {
  for (const salt of SALTS) {
    test(`plain session, single secret, salt ${salt}`, async () => {
      const token = rustEncode({ secret: SECRET, salt, payload: SESSION });
      await assertTokenShape(token, SECRET, salt);
      assertSessionClaims(await authjsDecode({ token, secret: SECRET, salt }), SESSION, MAX_AGE);
    });

    test(`plain session, secret list [new, old], salt ${salt}`, async () => {
      const token = rustEncode({ secret: [NEW, OLD], salt, payload: SESSION });
      await assertTokenShape(token, NEW, salt);
      assertSessionClaims(await authjsDecode({ token, secret: [NEW, OLD], salt }), SESSION, MAX_AGE);
    });

    test(`header segment is byte-identical to Auth.js's, salt ${salt}`, async () => {
      const token = rustEncode({ secret: SECRET, salt, payload: SESSION });
      const ours = token.split(".")[0];
      const theirs = await authjsHeaderSegment(SECRET, salt);
      assert.equal(
        ours,
        theirs,
        `protected header bytes differ:\n  ours:    ${Buffer.from(ours, "base64url")}\n  Auth.js: ${Buffer.from(theirs, "base64url")}`,
      );
    });
  }

  test("unicode and custom claims round-trip", async () => {
    const salt = SALTS[0];
    const token = rustEncode({ secret: SECRET, salt, payload: UNICODE });
    assertSessionClaims(await authjsDecode({ token, secret: SECRET, salt }), UNICODE, MAX_AGE);
  });

  test("large payload (token > 4000 characters)", async () => {
    const salt = SALTS[1];
    const token = rustEncode({ secret: SECRET, salt, payload: LARGE });
    assert.ok(token.length > 4000, `token is ${token.length} characters`);
    assertSessionClaims(await authjsDecode({ token, secret: SECRET, salt }), LARGE, MAX_AGE);
  });

  test("50-year maxAge (exp beyond 2^31)", async () => {
    const maxAge = 50 * 365 * 24 * 3600;
    const salt = SALTS[0];
    const token = rustEncode({ secret: SECRET, salt, maxAge, payload: SESSION });
    const decoded = await authjsDecode({ token, secret: SECRET, salt });
    assertSessionClaims(decoded, SESSION, maxAge);
    assert.ok(decoded.exp > 2 ** 31);
  });
});

describe("(b) Auth.js encode (fresh) -> Rust decode", () => {
  for (const salt of SALTS) {
    test(`plain session, single secret, salt ${salt}`, async () => {
      const token = await authjsEncode({ token: SESSION, secret: SECRET, salt, maxAge: MAX_AGE });
      assert.deepEqual(
        rustDecode({ secret: SECRET, salt, token }),
        await authjsDecode({ token, secret: SECRET, salt }),
      );
    });

    test(`secret list [new, old], salt ${salt}`, async () => {
      const token = await authjsEncode({ token: SESSION, secret: [NEW, OLD], salt, maxAge: MAX_AGE });
      const expected = await authjsDecode({ token, secret: [NEW, OLD], salt });
      assert.deepEqual(rustDecode({ secret: [NEW, OLD], salt, token }), expected);
      assert.deepEqual(rustDecode({ secret: NEW, salt, token }), expected);
    });

    test(`token from the old secret decodes with [new, old] (kid selects the key), salt ${salt}`, async () => {
      const token = await authjsEncode({ token: SESSION, secret: OLD, salt, maxAge: MAX_AGE });
      const expected = await authjsDecode({ token, secret: [NEW, OLD], salt });
      assert.deepEqual(rustDecode({ secret: [NEW, OLD], salt, token }), expected);
      rustDecodeRejects({ secret: NEW, salt, token }, "encoded with the old secret, decoding with [new] only");
    });
  }

  test("unicode and custom claims", async () => {
    const salt = SALTS[1];
    const token = await authjsEncode({ token: UNICODE, secret: SECRET, salt, maxAge: MAX_AGE });
    assert.deepEqual(rustDecode({ secret: SECRET, salt, token }), await authjsDecode({ token, secret: SECRET, salt }));
  });

  test("large payload (token > 4000 characters)", async () => {
    const salt = SALTS[0];
    const token = await authjsEncode({ token: LARGE, secret: SECRET, salt, maxAge: MAX_AGE });
    assert.ok(token.length > 4000);
    assert.deepEqual(rustDecode({ secret: SECRET, salt, token }), await authjsDecode({ token, secret: SECRET, salt }));
  });

  test(`fixture vectors (tests/fixtures/authjs-session-vectors.json, @auth/core ${VECTORS.generatedBy["@auth/core"]})`, () => {
    assert.ok(VECTORS.vectors.length > 0);
    for (const v of VECTORS.vectors) {
      assert.deepEqual(rustDecode({ secret: v.secret, salt: v.salt, token: v.token }), v.decoded, v.description);
      for (const s of v.decodeWith ?? [])
        assert.deepEqual(
          rustDecode({ secret: s, salt: v.salt, token: v.token }),
          v.decoded,
          `${v.description}, decoding with ${JSON.stringify(s)}`,
        );
      for (const s of v.rejectWith ?? [])
        rustDecodeRejects(
          { secret: s, salt: v.salt, token: v.token },
          `${v.description}, decoding with ${JSON.stringify(s)}`,
        );
    }
  });
});

describe("(c) a token for one cookie name does not decode under the other", () => {
  for (const [salt, other] of [SALTS, [...SALTS].reverse()]) {
    test(`Rust token for ${salt}`, async () => {
      const token = rustEncode({ secret: SECRET, salt, payload: SESSION });
      assert.equal(rustDecode({ secret: SECRET, salt, token }).sub, SESSION.sub, "positive control");
      rustDecodeRejects({ secret: SECRET, salt: other, token }, `encoded for ${salt}, decoded as ${other}`);
      await authjsRejects({ token, secret: SECRET, salt: other }, `encoded for ${salt}, decoded as ${other}`);
    });

    test(`Auth.js token for ${salt}`, async () => {
      const token = await authjsEncode({ token: SESSION, secret: SECRET, salt, maxAge: MAX_AGE });
      assert.equal(rustDecode({ secret: SECRET, salt, token }).sub, SESSION.sub, "positive control");
      rustDecodeRejects({ secret: SECRET, salt: other, token }, `encoded for ${salt}, decoded as ${other}`);
      await authjsRejects({ token, secret: SECRET, salt: other }, `encoded for ${salt}, decoded as ${other}`);
    });
  }
});

describe("(d) rotation: Rust token encoded with [new, old]", () => {
  for (const salt of SALTS) {
    test(`decodes in Auth.js with [new] and [old, new], fails with [old] only, salt ${salt}`, async () => {
      const token = rustEncode({ secret: [NEW, OLD], salt, payload: SESSION });
      assertSessionClaims(await authjsDecode({ token, secret: [NEW], salt }), SESSION, MAX_AGE);
      assertSessionClaims(await authjsDecode({ token, secret: NEW, salt }), SESSION, MAX_AGE);
      assertSessionClaims(await authjsDecode({ token, secret: [OLD, NEW], salt }), SESSION, MAX_AGE);
      await authjsRejects({ token, secret: [OLD], salt }, "encoded with [new, old], decoded with [old]");
      // Same behaviour on the Rust side.
      assert.equal(rustDecode({ secret: [NEW], salt, token }).sub, SESSION.sub);
      rustDecodeRejects({ secret: [OLD], salt, token }, "encoded with [new, old], decoded with [old]");
    });
  }
});

describe("(e) tampering with one character fails in both", () => {
  for (const [label, segmentIndex] of [
    ["ciphertext", 3],
    ["authentication tag", 4],
  ]) {
    test(`${label} of a Rust token`, async () => {
      const salt = SALTS[0];
      const token = rustEncode({ secret: SECRET, salt, payload: SESSION });
      const bad = tamper(token, segmentIndex);
      assert.equal(rustDecode({ secret: SECRET, salt, token }).sub, SESSION.sub, "positive control");
      await authjsDecode({ token, secret: SECRET, salt }); // positive control
      rustDecodeRejects({ secret: SECRET, salt, token: bad }, `tampered ${label}`);
      await authjsRejects({ token: bad, secret: SECRET, salt }, `tampered ${label}`);
    });

    test(`${label} of an Auth.js token`, async () => {
      const salt = SALTS[1];
      const token = await authjsEncode({ token: SESSION, secret: SECRET, salt, maxAge: MAX_AGE });
      const bad = tamper(token, segmentIndex);
      assert.equal(rustDecode({ secret: SECRET, salt, token }).sub, SESSION.sub, "positive control");
      rustDecodeRejects({ secret: SECRET, salt, token: bad }, `tampered ${label}`);
      await authjsRejects({ token: bad, secret: SECRET, salt }, `tampered ${label}`);
    });
  }
});

describe("(f) expiry matches Auth.js (exp checked with 15 s clock tolerance)", () => {
  test("an Auth.js token that expired 60 s ago is rejected by both", async () => {
    const salt = SALTS[0];
    const token = await authjsEncode({ token: SESSION, secret: SECRET, salt, maxAge: -60 });
    await authjsRejects({ token, secret: SECRET, salt }, "expired 60 s ago");
    rustDecodeRejects({ secret: SECRET, salt, token }, "expired 60 s ago");
  });

  test("an Auth.js token that expired 5 s ago is still accepted by both", async () => {
    const salt = SALTS[0];
    const token = await authjsEncode({ token: SESSION, secret: SECRET, salt, maxAge: -5 });
    const expected = await authjsDecode({ token, secret: SECRET, salt });
    assert.deepEqual(rustDecode({ secret: SECRET, salt, token }), expected);
  });
});
