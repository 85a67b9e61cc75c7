// What verifying a passkey sign-in costs (by hand, never in tests; run by
// bench/passkeys/run.sh, which writes its section of bench/RESULTS.md).
//
// A software authenticator (the Node tests': a P-256 key from node:crypto) registers
// one passkey with libauth's engine, then signs N assertions, each over a
// fresh challenge, before anything is timed. Then, one after another:
//
//   - libauth: POST {basePath}/callback/passkey (action=authenticate) through
//     the Node binding (ReactiveAuth, Web Request in, Response out): CSRF
//     check, the challenge cookie decrypted, the passkey read from the memory
//     adapter, the ES256 signature verified, the counter stored, a session
//     JWT issued;
//   - @simplewebauthn/server's verifyAuthenticationResponse (what Auth.js
//     calls): the verification alone, the credential handed to it;
//   - and, for scale, libauth's GET {basePath}/csrf through the same binding
//     (the binding's and engine's fixed cost per request).
//
// Prints the table (markdown) on stdout.
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { verifyAuthenticationResponse } from "@simplewebauthn/server";
import { ReactiveAuth, Passkey } from "libauth";
import { SoftAuthenticator } from "../../bindings/node/test/soft-authenticator.mjs";

const N = Number(process.env.PASSKEY_BENCH_N || 2000);
const ROUNDS = Number(process.env.PASSKEY_BENCH_ROUNDS || 5);
const ORIGIN = "http://localhost:3000";
const RP_ID = "localhost";
const SECRET = "passkey-bench-secret-0123456789abcdefghij";

// ---------------------------------------------------------------- the software authenticator

// The Node tests' authenticator (a P-256 key, attestation "none"); its
// counter stays 0 (as many platform authenticators'), so the prepared
// assertions may be verified in any order.
const key = new SoftAuthenticator(ORIGIN, { counts: false });

// ---------------------------------------------------------------- libauth through the Node binding

const config = {
  secret: SECRET,
  trustHost: true,
  prefix: "/auth",
  experimental: { enableWebAuthn: true },
  adapter: { type: "memory" },
  providers: [Passkey()],
  session: { strategy: "jwt" },
  rateLimit: false, // thousands of sign-ins from one client on purpose
  logger: { warn: () => {}, debug: () => {} },
};
const auth = ReactiveAuth(config);

class Jar {
  constructor() {
    this.cookies = new Map();
  }
  header() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }
  absorb(res) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const i = pair.indexOf("=");
      const value = pair.slice(i + 1);
      if (value === "" || /max-age=0/i.test(line)) this.cookies.delete(pair.slice(0, i));
      else this.cookies.set(pair.slice(0, i), value);
    }
  }
}

async function call(jar, method, path, form) {
  const headers = { cookie: jar.header(), host: "localhost:3000" };
  let body;
  if (form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    headers["x-auth-return-redirect"] = "1";
    body = new URLSearchParams(form).toString();
  }
  const request = new Request(`${ORIGIN}${path}`, { method, headers, body });
  const res = await (method === "POST" ? auth.POST : auth.GET)({ request });
  jar.absorb(res);
  return res;
}

async function expectJson(res, what) {
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${what}: ${res.status} ${text}`);
  return JSON.parse(text);
}

// Register the passkey (a new user by email).
const owner = new Jar();
const { csrfToken } = await expectJson(await call(owner, "GET", "/auth/csrf"), "csrf");
const reg = await expectJson(
  await call(owner, "GET", "/auth/webauthn-options/passkey?action=register&email=bench%40example.com"),
  "register options",
);
const registered = await expectJson(
  await call(owner, "POST", "/auth/callback/passkey", {
    action: "register",
    data: JSON.stringify(key.register(reg.options)),
    csrfToken,
    callbackUrl: "/",
  }),
  "register",
);
if (/error=/.test(registered.url)) throw new Error(`registration refused: ${registered.url}`);

// One sign-in prepared: its own jar (CSRF and challenge cookies), its own
// challenge, its assertion signed. Counter 0 throughout (an authenticator
// without a counter), so order does not matter.
async function prepareOne() {
  const jar = new Jar();
  const { csrfToken: token } = await expectJson(await call(jar, "GET", "/auth/csrf"), "csrf");
  const { options } = await expectJson(
    await call(jar, "GET", "/auth/webauthn-options/passkey?action=authenticate"),
    "authenticate options",
  );
  const data = JSON.stringify(key.authenticate(options));
  return {
    jar,
    form: { action: "authenticate", data, csrfToken: token, callbackUrl: "/" },
    challenge: options.challenge,
  };
}

async function prepare() {
  const out = [];
  for (let i = 0; i < N; i++) out.push(await prepareOne());
  return out;
}

async function timeLibauth(batch) {
  const t0 = performance.now();
  for (const { jar, form } of batch) {
    const res = await call(jar, "POST", "/auth/callback/passkey", form);
    if (res.status !== 200) throw new Error(`sign-in: ${res.status}`);
    await res.arrayBuffer();
  }
  return ((performance.now() - t0) * 1000) / batch.length;
}

async function timeSimpleWebAuthn(batch) {
  const credential = {
    id: key.credentialId.toString("base64url"),
    publicKey: new Uint8Array(key.coseKey()),
    counter: 0,
    transports: ["internal"],
  };
  const t0 = performance.now();
  for (const { form, challenge } of batch) {
    const { verified } = await verifyAuthenticationResponse({
      response: JSON.parse(form.data),
      expectedChallenge: challenge,
      expectedOrigin: ORIGIN,
      expectedRPID: RP_ID,
      credential,
      requireUserVerification: true,
    });
    if (!verified) throw new Error("simplewebauthn: not verified");
  }
  return ((performance.now() - t0) * 1000) / batch.length;
}

async function timeCsrf() {
  const jar = new Jar();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await (await call(jar, "GET", "/auth/csrf")).arrayBuffer();
  return ((performance.now() - t0) * 1000) / N;
}

// One sign-in really signs in before any is timed.
{
  const one = await prepareOne();
  const answer = await expectJson(await call(one.jar, "POST", "/auth/callback/passkey", one.form), "sign-in");
  if (/error=/.test(answer.url)) throw new Error(`sign-in refused: ${answer.url}`);
  const session = await expectJson(await call(one.jar, "GET", "/auth/session"), "session");
  if (session?.user?.email !== "bench@example.com")
    throw new Error(`no session after sign-in: ${JSON.stringify(session)}`);
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = { libauth: [], simple: [], csrf: [] };
for (let r = 0; r < ROUNDS; r++) {
  const batch = await prepare();
  rows.libauth.push(await timeLibauth(batch));
  rows.simple.push(await timeSimpleWebAuthn(batch));
  rows.csrf.push(await timeCsrf());
}
const fmt = (xs) =>
  `${median(xs).toFixed(1)} (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)}) | ${Math.round(1e6 / median(xs))}`;
const simpleVersion = JSON.parse(
  readFileSync(new URL("../node_modules/@simplewebauthn/server/package.json", import.meta.url), "utf8"),
).version;
console.log(
  `| passkey sign-in, ES256 (one at a time, ${N} per round) | µs/op, median of ${ROUNDS} (min–max) | ops/s |`,
);
console.log("|---|---|---|");
console.log(
  `| libauth: POST /auth/callback/passkey through the Node binding (CSRF, challenge cookie, memory adapter, verify, counter, session JWT) | ${fmt(rows.libauth)} |`,
);
console.log(
  `| @simplewebauthn/server ${simpleVersion} verifyAuthenticationResponse (verification only) | ${fmt(rows.simple)} |`,
);
console.log(`| for scale: libauth GET /auth/csrf through the Node binding | ${fmt(rows.csrf)} |`);
