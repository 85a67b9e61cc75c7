#!/usr/bin/env node
// Local OpenID Provider for libauth integration tests.
//
// Wraps panva's `oidc-provider` with:
//   * one statically registered confidential client (configurable),
//   * one test user, logged in and consented automatically (no UI),
//   * freshly generated RS256 + ES256 signing keys,
//   * control endpoints under /__test/ (key rotation, behaviour tweaks, reset).
//
// Stdout carries exactly ONE line: {"issuer":"http://127.0.0.1:PORT","port":PORT}
// printed once the server is listening. Everything else goes to stderr.
// See README.md in this directory for the full contract.

import * as crypto from "node:crypto";
import * as http from "node:http";
import { parseArgs } from "node:util";

// ---------------------------------------------------------------------------
// stdout is reserved for the single "ready" line. oidc-provider prints its
// NOTICE messages with console.info, so route console.log/info to stderr
// before the library is loaded (hence the dynamic import below).
// ---------------------------------------------------------------------------
const writeStdout = process.stdout.write.bind(process.stdout);
console.log = (...args) => console.error(...args);
console.info = (...args) => console.error(...args);
console.debug = (...args) => console.error(...args);

const { Provider, interactionPolicy, errors: opErrors } = await import("oidc-provider");

const { Check, base: basePolicy } = interactionPolicy;

// ---------------------------------------------------------------------------
// Command line / environment
// ---------------------------------------------------------------------------
const USAGE = `usage: node server.mjs [options]

  --port N                      listen port, 0 = ephemeral       (env PORT / OIDC_OP_PORT, default 0)
  --host H                      listen address / issuer host     (env OIDC_OP_HOST, default 127.0.0.1)
  --client-id ID                                                 (env OIDC_OP_CLIENT_ID, default libauth-test)
  --client-secret S                                              (env OIDC_OP_CLIENT_SECRET, default libauth-test-secret)
  --redirect-uri URI            repeatable                       (env OIDC_OP_REDIRECT_URIS, comma separated,
                                                                  default http://127.0.0.1:3000/auth/callback/oidc)
  --post-logout-redirect-uri U  repeatable                       (env OIDC_OP_POST_LOGOUT_REDIRECT_URIS, comma separated)
  --id-token-alg ALG            RS256 | ES256                    (env OIDC_OP_ID_TOKEN_ALG, default RS256)
  --token-endpoint-auth-method M  client_secret_basic | client_secret_post
                                (registered value; both are accepted at the token endpoint either way)
                                                                 (env OIDC_OP_TOKEN_ENDPOINT_AUTH_METHOD, default client_secret_basic)
  --require-pkce                reject authorization requests without code_challenge (env OIDC_OP_REQUIRE_PKCE=1)
  --id-token-claims MODE        all | conform                    (env OIDC_OP_ID_TOKEN_CLAIMS, default all)
  --exit-on-stdin-close         exit when stdin reaches EOF      (env OIDC_OP_EXIT_ON_STDIN_CLOSE=1)
  --verbose                     log every request to stderr      (env OIDC_OP_VERBOSE=1)
  --help
`;

function fail(message) {
  process.stderr.write(`oidc-op: ${message}\n`);
  process.exit(2);
}

let cli;
try {
  cli = parseArgs({
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "client-id": { type: "string" },
      "client-secret": { type: "string" },
      "redirect-uri": { type: "string", multiple: true },
      "post-logout-redirect-uri": { type: "string", multiple: true },
      "id-token-alg": { type: "string" },
      "token-endpoint-auth-method": { type: "string" },
      "require-pkce": { type: "boolean" },
      "id-token-claims": { type: "string" },
      "exit-on-stdin-close": { type: "boolean" },
      verbose: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    allowPositionals: false,
    strict: true,
  }).values;
} catch (err) {
  fail(`${err.message}\n${USAGE}`);
}

if (cli.help) {
  process.stderr.write(USAGE);
  process.exit(0);
}

const env = process.env;
const truthy = (v) => v !== undefined && /^(1|true|yes|on)$/i.test(String(v).trim());
const csv = (v) =>
  v
    ? String(v)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

const portRaw = cli.port ?? env.PORT ?? env.OIDC_OP_PORT ?? "0";
const PORT = Number(portRaw);
if (!Number.isInteger(PORT) || PORT < 0 || PORT > 65535) fail(`invalid port: ${portRaw}`);
const HOST = cli.host ?? env.OIDC_OP_HOST ?? "127.0.0.1";
const VERBOSE = cli.verbose || truthy(env.OIDC_OP_VERBOSE);
const EXIT_ON_STDIN_CLOSE = cli["exit-on-stdin-close"] || truthy(env.OIDC_OP_EXIT_ON_STDIN_CLOSE);

const SUPPORTED_ID_TOKEN_ALGS = ["RS256", "ES256"];
const SUPPORTED_AUTH_METHODS = ["client_secret_basic", "client_secret_post"];

const INITIAL_CLIENT = {
  client_id: cli["client-id"] ?? env.OIDC_OP_CLIENT_ID ?? "libauth-test",
  client_secret: cli["client-secret"] ?? env.OIDC_OP_CLIENT_SECRET ?? "libauth-test-secret",
  redirect_uris: cli["redirect-uri"] ?? csv(env.OIDC_OP_REDIRECT_URIS) ?? ["http://127.0.0.1:3000/auth/callback/oidc"],
  post_logout_redirect_uris: cli["post-logout-redirect-uri"] ?? csv(env.OIDC_OP_POST_LOGOUT_REDIRECT_URIS) ?? [],
  response_types: ["code"],
  grant_types: ["authorization_code", "refresh_token"],
  token_endpoint_auth_method:
    cli["token-endpoint-auth-method"] ?? env.OIDC_OP_TOKEN_ENDPOINT_AUTH_METHOD ?? "client_secret_basic",
  id_token_signed_response_alg: cli["id-token-alg"] ?? env.OIDC_OP_ID_TOKEN_ALG ?? "RS256",
};

const DEFAULT_USER = Object.freeze({
  sub: "user-123",
  name: "Test User",
  given_name: "Test",
  family_name: "User",
  preferred_username: "testuser",
  email: "test@example.com",
  email_verified: true,
  picture: "https://example.com/avatar/user-123.png",
});

// Standard claims released per scope; any extra (non-standard) claim put on the
// user via /__test/config is released under the `profile` scope.
const STANDARD_SCOPE_CLAIMS = {
  openid: ["sub"],
  profile: [
    "name",
    "given_name",
    "family_name",
    "middle_name",
    "nickname",
    "preferred_username",
    "profile",
    "picture",
    "website",
    "gender",
    "birthdate",
    "zoneinfo",
    "locale",
    "updated_at",
  ],
  email: ["email", "email_verified"],
  address: ["address"],
  phone: ["phone_number", "phone_number_verified"],
};
const STANDARD_CLAIM_NAMES = new Set([
  ...Object.values(STANDARD_SCOPE_CLAIMS).flat(),
  "acr",
  "amr",
  "auth_time",
  "sid",
  "iss",
  "aud",
  "exp",
  "iat",
  "nbf",
  "nonce",
  "azp",
  "at_hash",
  "c_hash",
  "jti",
]);

function initialBehaviour() {
  return {
    user: { ...DEFAULT_USER },
    client: structuredClone(INITIAL_CLIENT),
    require_pkce: cli["require-pkce"] || truthy(env.OIDC_OP_REQUIRE_PKCE),
    id_token_claims: cli["id-token-claims"] ?? env.OIDC_OP_ID_TOKEN_CLAIMS ?? "all",
    issue_refresh_token: "always", // always | offline_access | never
    sso: true, // reuse the OP session cookie on later flows (false = auto-login every time)
    access_token_ttl: 3600,
    id_token_ttl: 3600,
    refresh_token_ttl: 14 * 24 * 3600,
    next_error: null, // one-shot { error, error_description }
  };
}

let behaviour = initialBehaviour();
const knownUsers = new Map([[behaviour.user.sub, behaviour.user]]);

function validateBehaviour(b) {
  const c = b.client;
  if (!SUPPORTED_ID_TOKEN_ALGS.includes(c.id_token_signed_response_alg)) {
    throw new Error(`id_token_signed_response_alg must be one of ${SUPPORTED_ID_TOKEN_ALGS.join(", ")}`);
  }
  if (!SUPPORTED_AUTH_METHODS.includes(c.token_endpoint_auth_method)) {
    throw new Error(`token_endpoint_auth_method must be one of ${SUPPORTED_AUTH_METHODS.join(", ")}`);
  }
  if (!Array.isArray(c.redirect_uris) || c.redirect_uris.length === 0) {
    throw new Error("at least one redirect_uri is required");
  }
  if (!["all", "conform"].includes(b.id_token_claims)) {
    throw new Error('id_token_claims must be "all" or "conform"');
  }
  if (!["always", "offline_access", "never"].includes(b.issue_refresh_token)) {
    throw new Error('issue_refresh_token must be "always", "offline_access" or "never"');
  }
  if (typeof b.user?.sub !== "string" || !b.user.sub) throw new Error("user.sub must be a non-empty string");
  for (const k of ["access_token_ttl", "id_token_ttl", "refresh_token_ttl"]) {
    if (!Number.isInteger(b[k]) || b[k] <= 0) throw new Error(`${k} must be a positive integer (seconds)`);
  }
}

try {
  validateBehaviour(behaviour);
} catch (err) {
  fail(err.message);
}

// ---------------------------------------------------------------------------
// Signing keys
// ---------------------------------------------------------------------------
let keyGeneration = 0;

function generateSigningKey(alg, generation) {
  const kid = `${alg.toLowerCase()}-${generation}-${crypto.randomBytes(4).toString("hex")}`;
  const { privateKey } =
    alg === "RS256"
      ? crypto.generateKeyPairSync("rsa", { modulusLength: 2048 })
      : crypto.generateKeyPairSync("ec", { namedCurve: "P-256" });
  return { ...privateKey.export({ format: "jwk" }), kid, alg, use: "sig" };
}

function publicJwk(jwk) {
  const pub = crypto.createPublicKey({ key: jwk, format: "jwk" }).export({ format: "jwk" });
  return { ...pub, kid: jwk.kid, alg: jwk.alg, use: jwk.use };
}

// Ordered list of private JWKs; for each alg, the FIRST key of that alg signs.
let signingKeys = [];
function freshKeySet() {
  keyGeneration += 1;
  return SUPPORTED_ID_TOKEN_ALGS.map((alg) => generateSigningKey(alg, keyGeneration));
}
signingKeys = freshKeySet();

function activeKids() {
  const out = {};
  for (const alg of SUPPORTED_ID_TOKEN_ALGS) out[alg] = signingKeys.find((k) => k.alg === alg)?.kid;
  return out;
}

// ---------------------------------------------------------------------------
// Storage adapter shared by every Provider instance (the Provider is rebuilt
// on key rotation / config changes; sessions, interactions, codes and tokens
// must survive that).
// ---------------------------------------------------------------------------
const store = new Map(); // key -> { value, expiresAt }
const GRANTABLE = new Set([
  "AccessToken",
  "AuthorizationCode",
  "RefreshToken",
  "DeviceCode",
  "BackchannelAuthenticationRequest",
]);

function storeGet(key) {
  const entry = store.get(key);
  if (!entry) return undefined;
  if (entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
    store.delete(key);
    return undefined;
  }
  return entry.value;
}
function storeSet(key, value, expiresIn) {
  store.set(key, {
    value,
    expiresAt: typeof expiresIn === "number" ? Date.now() + (expiresIn + 60) * 1000 : undefined,
  });
}

class TestAdapter {
  constructor(model) {
    this.model = model;
  }

  key(id) {
    return `${this.model}:${id}`;
  }

  async upsert(id, payload, expiresIn) {
    storeSet(this.key(id), payload, expiresIn);
    if (this.model === "Session" && payload.uid) storeSet(`sessionUid:${payload.uid}`, id, expiresIn);
    if (payload.userCode) storeSet(`userCode:${payload.userCode}`, id, expiresIn);
    if (GRANTABLE.has(this.model) && payload.grantId) {
      const gk = `grant:${payload.grantId}`;
      const members = storeGet(gk) ?? new Set();
      members.add(this.key(id));
      storeSet(gk, members); // no expiry; cleaned by revokeByGrantId / reset
    }
  }

  async find(id) {
    return storeGet(this.key(id));
  }

  async findByUid(uid) {
    const id = storeGet(`sessionUid:${uid}`);
    return id ? this.find(id) : undefined;
  }

  async findByUserCode(userCode) {
    const id = storeGet(`userCode:${userCode}`);
    return id ? this.find(id) : undefined;
  }

  async consume(id) {
    const value = storeGet(this.key(id));
    if (value) value.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id) {
    store.delete(this.key(id));
  }

  async revokeByGrantId(grantId) {
    const gk = `grant:${grantId}`;
    for (const key of storeGet(gk) ?? []) store.delete(key);
    store.delete(gk);
  }
}

// ---------------------------------------------------------------------------
// Provider construction
// ---------------------------------------------------------------------------
const noCache = (res) => res.setHeader("Cache-Control", "no-store");

function scopeClaims() {
  const claims = structuredClone(STANDARD_SCOPE_CLAIMS);
  for (const name of Object.keys(behaviour.user)) {
    if (!STANDARD_CLAIM_NAMES.has(name)) claims.profile.push(name);
  }
  return { acr: null, auth_time: null, sid: null, ...claims };
}

function buildPolicy() {
  const policy = basePolicy();
  // Go through the (fully automatic) interaction even with a live OP session
  // when SSO is disabled, or when a one-shot error is armed (so it is delivered
  // by the very next authorization request). A change of the test user's `sub`
  // is handled by dropping all OP sessions, see applyConfig.
  policy.get("login").checks.add(
    new Check("libauth_test_forced_interaction", "test harness requires an interaction for this request", (ctx) => {
      if (ctx.oidc.result) return Check.NO_NEED_TO_PROMPT;
      return behaviour.sso && !behaviour.next_error ? Check.NO_NEED_TO_PROMPT : Check.REQUEST_PROMPT;
    }),
  );
  return policy;
}

function buildProvider(issuer) {
  const clientMeta = { ...behaviour.client };
  if (!clientMeta.post_logout_redirect_uris?.length) delete clientMeta.post_logout_redirect_uris;

  const provider = new Provider(issuer, {
    adapter: TestAdapter,
    clients: [clientMeta],
    clientAuthMethods: [...SUPPORTED_AUTH_METHODS],
    jwks: { keys: signingKeys.map((k) => ({ ...k })) },
    claims: scopeClaims(),
    scopes: ["openid", "offline_access"],
    conformIdTokenClaims: behaviour.id_token_claims === "conform",
    enabledJWA: { idTokenSigningAlgValues: [...SUPPORTED_ID_TOKEN_ALGS] },
    responseTypes: ["code"],
    pkce: {
      required: () => behaviour.require_pkce,
    },
    features: {
      devInteractions: { enabled: false },
      userinfo: { enabled: true },
      claimsParameter: { enabled: true },
      revocation: { enabled: true },
      introspection: { enabled: true },
      rpInitiatedLogout: { enabled: true },
    },
    interactions: {
      policy: buildPolicy(),
      url: (_ctx, interaction) => `/interaction/${interaction.uid}`,
    },
    cookies: {
      long: { httpOnly: true, sameSite: "lax" },
      short: { httpOnly: true, sameSite: "lax" },
    },
    async findAccount(_ctx, sub) {
      const user = sub === behaviour.user.sub ? behaviour.user : knownUsers.get(sub);
      if (!user) return undefined;
      return {
        accountId: sub,
        async claims() {
          return { ...user, sub };
        },
      };
    },
    async issueRefreshToken(_ctx, client, code) {
      if (!client.grantTypeAllowed("refresh_token")) return false;
      switch (behaviour.issue_refresh_token) {
        case "always":
          return true;
        case "offline_access":
          return code.scopes.has("offline_access");
        default:
          return false;
      }
    },
    clientBasedCORS: () => true,
    ttl: {
      AccessToken: () => behaviour.access_token_ttl,
      AuthorizationCode: 60,
      ClientCredentials: 600,
      IdToken: () => behaviour.id_token_ttl,
      Interaction: 3600,
      Grant: 14 * 24 * 3600,
      Session: 14 * 24 * 3600,
      RefreshToken: () => behaviour.refresh_token_ttl,
      DeviceCode: 600,
      BackchannelAuthenticationRequest: 600,
    },
    async renderError(ctx, out, error) {
      ctx.type = "html";
      ctx.body = `<!DOCTYPE html>
<html><head><title>oidc-op error</title></head>
<body><h1>oidc-op error</h1>
${Object.entries(out)
  .map(([k, v]) => `<pre id="${k}">${k}: ${String(v).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}</pre>`)
  .join("\n")}
</body></html>`;
      if (error) process.stderr.write(`oidc-op: rendered error: ${error.name}: ${error.message}\n`);
    },
  });

  const logError = (label) => (_ctx, err) => {
    process.stderr.write(
      `oidc-op: ${label}: ${err?.name}: ${err?.message}${err?.error_description ? ` (${err.error_description})` : ""}\n`,
    );
  };
  provider.on("server_error", logError("server_error"));
  provider.on("authorization.error", logError("authorization.error"));
  provider.on("grant.error", logError("grant.error"));
  provider.on("userinfo.error", logError("userinfo.error"));
  provider.on("introspection.error", logError("introspection.error"));
  provider.on("revocation.error", logError("revocation.error"));
  provider.on("end_session.error", logError("end_session.error"));

  return provider;
}

let issuer; // set once listening
let provider; // current instance
let providerHandler; // provider.callback()

async function installProvider() {
  const next = buildProvider(issuer);
  // Static clients are validated lazily; force it now so bad settings fail here.
  const client = await next.Client.find(behaviour.client.client_id);
  if (!client) throw new Error("client failed to load");
  provider = next;
  providerHandler = next.callback();
}

// ---------------------------------------------------------------------------
// Automatic interactions (login + consent)
// ---------------------------------------------------------------------------
async function autoInteraction(req, res) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;

  if (behaviour.next_error) {
    const { error, error_description } = behaviour.next_error;
    behaviour.next_error = null;
    return provider.interactionFinished(
      req,
      res,
      {
        error,
        ...(error_description ? { error_description } : {}),
      },
      { mergeWithLastSubmission: false },
    );
  }

  const result = {};
  let accountId = session?.accountId;
  if (prompt.name === "login" || !accountId || accountId !== behaviour.user.sub) {
    accountId = behaviour.user.sub;
    knownUsers.set(accountId, behaviour.user);
    result.login = { accountId, amr: ["pwd"], remember: true };
  }

  // Consent: grant everything that was asked for, in the same round-trip.
  let grant;
  if (details.grantId) {
    grant = await provider.Grant.find(details.grantId);
    if (grant && grant.accountId !== accountId) grant = undefined;
  }
  grant ||= new provider.Grant({ accountId, clientId: params.client_id });

  if (params.scope) grant.addOIDCScope(String(params.scope));
  if (params.claims) {
    try {
      const requested = JSON.parse(params.claims);
      const names = new Set();
      for (const part of ["id_token", "userinfo"]) {
        for (const name of Object.keys(requested?.[part] ?? {})) names.add(name);
      }
      if (names.size) grant.addOIDCClaims([...names]);
    } catch {
      /* invalid claims are rejected by the provider before we get here */
    }
  }
  const d = prompt.details ?? {};
  if (d.missingOIDCScope) grant.addOIDCScope(d.missingOIDCScope.join(" "));
  if (d.missingOIDCClaims) grant.addOIDCClaims(d.missingOIDCClaims);
  if (d.missingResourceScopes) {
    for (const [indicator, scopes] of Object.entries(d.missingResourceScopes)) {
      grant.addResourceScope(indicator, scopes.join(" "));
    }
  }
  result.consent = { grantId: await grant.save() };

  return provider.interactionFinished(req, res, result, { mergeWithLastSubmission: true });
}

// ---------------------------------------------------------------------------
// /__test control endpoints
// ---------------------------------------------------------------------------
function sendJson(res, status, body) {
  const data = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader("Content-Type", "application/json; charset=utf-8");
  res.setHeader("Content-Length", Buffer.byteLength(data));
  noCache(res);
  res.end(data);
}

async function readJson(req) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > 1024 * 1024) throw Object.assign(new Error("body too large"), { status: 413 });
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (!text) return {};
  try {
    const parsed = JSON.parse(text);
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
    return parsed;
  } catch (err) {
    throw Object.assign(new Error(`invalid JSON body: ${err.message}`), { status: 400 });
  }
}

function describeState() {
  return {
    issuer,
    user: behaviour.user,
    client: behaviour.client,
    require_pkce: behaviour.require_pkce,
    id_token_claims: behaviour.id_token_claims,
    issue_refresh_token: behaviour.issue_refresh_token,
    sso: behaviour.sso,
    access_token_ttl: behaviour.access_token_ttl,
    id_token_ttl: behaviour.id_token_ttl,
    refresh_token_ttl: behaviour.refresh_token_ttl,
    next_error: behaviour.next_error,
    signing_kids: activeKids(),
    jwks: { keys: signingKeys.map(publicJwk) },
  };
}

const CONFIG_KEYS = new Set([
  "user",
  "user_merge",
  "client",
  "require_pkce",
  "id_token_claims",
  "issue_refresh_token",
  "sso",
  "access_token_ttl",
  "id_token_ttl",
  "refresh_token_ttl",
  "next_error",
  "id_token_signed_response_alg",
  "redirect_uris",
  "token_endpoint_auth_method",
  "reset",
]);

async function applyConfig(body) {
  const unknown = Object.keys(body).filter((k) => !CONFIG_KEYS.has(k));
  if (unknown.length) throw Object.assign(new Error(`unknown config keys: ${unknown.join(", ")}`), { status: 400 });

  const next = body.reset ? initialBehaviour() : structuredClone(behaviour);
  if (body.user !== undefined) {
    if (!body.user || typeof body.user !== "object")
      throw Object.assign(new Error("user must be an object"), { status: 400 });
    next.user = { sub: next.user.sub, ...body.user };
  }
  if (body.user_merge !== undefined) {
    next.user = { ...next.user, ...body.user_merge };
    for (const [k, v] of Object.entries(body.user_merge)) if (v === null) delete next.user[k];
  }
  if (body.client !== undefined) next.client = { ...next.client, ...body.client };
  if (body.id_token_signed_response_alg !== undefined) {
    next.client.id_token_signed_response_alg = body.id_token_signed_response_alg;
  }
  if (body.redirect_uris !== undefined) next.client.redirect_uris = body.redirect_uris;
  if (body.token_endpoint_auth_method !== undefined) {
    next.client.token_endpoint_auth_method = body.token_endpoint_auth_method;
  }
  for (const k of ["require_pkce", "sso"]) if (body[k] !== undefined) next[k] = Boolean(body[k]);
  for (const k of ["id_token_claims", "issue_refresh_token", "access_token_ttl", "id_token_ttl", "refresh_token_ttl"]) {
    if (body[k] !== undefined) next[k] = body[k];
  }
  if (body.next_error !== undefined) {
    const ne = body.next_error;
    if (ne !== null && (typeof ne !== "object" || typeof ne.error !== "string")) {
      throw Object.assign(new Error('next_error must be null or {"error": string, "error_description"?: string}'), {
        status: 400,
      });
    }
    next.next_error = ne;
  }

  try {
    validateBehaviour(next);
  } catch (err) {
    throw Object.assign(err, { status: 400 });
  }

  const previous = behaviour;
  behaviour = next;
  try {
    await installProvider();
  } catch (err) {
    behaviour = previous;
    await installProvider();
    throw Object.assign(new Error(`rejected by oidc-provider: ${err.error_description ?? err.message}`), {
      status: 400,
    });
  }
  knownUsers.set(behaviour.user.sub, behaviour.user);
  if (behaviour.user.sub !== previous.user.sub) {
    // The OP session (cookie `_session`) belongs to the previous user. Logging a
    // different account into an existing session makes oidc-provider render an
    // auto-submitting logout form (POST /session/end/confirm) that a plain HTTP
    // client would not follow, so drop every session server-side instead: the
    // next authorization request starts from a fresh (automatic) login.
    dropSessions();
  }
}

function dropSessions() {
  for (const key of store.keys()) {
    if (key.startsWith("Session:") || key.startsWith("sessionUid:")) store.delete(key);
  }
}

async function rotate(body) {
  const algs = body.alg === undefined || body.alg === "all" ? SUPPORTED_ID_TOKEN_ALGS : [body.alg].flat();
  for (const alg of algs) {
    if (!SUPPORTED_ID_TOKEN_ALGS.includes(alg)) {
      throw Object.assign(new Error(`alg must be one of ${SUPPORTED_ID_TOKEN_ALGS.join(", ")} or "all"`), {
        status: 400,
      });
    }
  }
  const keepOld = body.keep_old === undefined ? true : Boolean(body.keep_old);
  const previousKids = activeKids();
  keyGeneration += 1;
  const fresh = algs.map((alg) => generateSigningKey(alg, keyGeneration));
  const rest = keepOld ? signingKeys : signingKeys.filter((k) => !algs.includes(k.alg));
  const previousKeys = signingKeys;
  signingKeys = [...fresh, ...rest];
  try {
    await installProvider();
  } catch (err) {
    signingKeys = previousKeys;
    await installProvider();
    throw err;
  }
  return {
    previous_kids: previousKids,
    signing_kids: activeKids(),
    rotated: fresh.map((k) => ({ alg: k.alg, kid: k.kid })),
    jwks: { keys: signingKeys.map(publicJwk) },
  };
}

async function handleTest(req, res, pathname) {
  try {
    if (pathname === "/__test/config" && req.method === "GET") return sendJson(res, 200, describeState());
    if (pathname === "/__test/config" && req.method === "POST") {
      await applyConfig(await readJson(req));
      return sendJson(res, 200, describeState());
    }
    if (pathname === "/__test/rotate" && req.method === "POST") {
      return sendJson(res, 200, await rotate(await readJson(req)));
    }
    if (pathname === "/__test/reset" && req.method === "POST") {
      await readJson(req);
      store.clear();
      knownUsers.clear();
      await applyConfig({ reset: true });
      return sendJson(res, 200, describeState());
    }
    if (pathname === "/__test/logout" && req.method === "POST") {
      await readJson(req);
      dropSessions();
      return sendJson(res, 200, { ok: true });
    }
    if (pathname === "/__test/health" && req.method === "GET") return sendJson(res, 200, { ok: true, issuer });
    return sendJson(res, 404, { error: "not_found", error_description: `no test endpoint ${req.method} ${pathname}` });
  } catch (err) {
    return sendJson(res, err.status ?? 500, { error: "test_endpoint_error", error_description: err.message });
  }
}

// ---------------------------------------------------------------------------
// HTTP server
// ---------------------------------------------------------------------------
const INTERACTION_PATH = /^\/interaction\/[A-Za-z0-9_-]+\/?$/;

async function route(req, res) {
  const { pathname } = new URL(req.url, "http://placeholder");

  if (pathname.startsWith("/__test/")) return handleTest(req, res, pathname);

  if (INTERACTION_PATH.test(pathname) && (req.method === "GET" || req.method === "POST")) {
    try {
      return await autoInteraction(req, res);
    } catch (err) {
      const hint =
        err instanceof opErrors.SessionNotFound
          ? " (the client must keep the cookies set by the authorization endpoint: _interaction / _interaction_resume / _session)"
          : "";
      process.stderr.write(`oidc-op: interaction failed: ${err.name}: ${err.message}${hint}\n`);
      res.statusCode = err.statusCode ?? err.status ?? 500;
      res.setHeader("Content-Type", "text/plain; charset=utf-8");
      noCache(res);
      return res.end(`interaction failed: ${err.error_description ?? err.message}${hint}\n`);
    }
  }

  return providerHandler(req, res);
}

const server = http.createServer((req, res) => {
  if (VERBOSE) {
    const started = Date.now();
    res.on("finish", () => {
      const loc = res.getHeader("location");
      process.stderr.write(
        `oidc-op: ${req.method} ${req.url} -> ${res.statusCode}${loc ? ` ${loc}` : ""} (${Date.now() - started}ms)\n`,
      );
    });
  }
  route(req, res).catch((err) => {
    process.stderr.write(`oidc-op: unhandled error: ${err?.stack ?? err}\n`);
    if (!res.headersSent) {
      res.statusCode = 500;
      res.end("internal error\n");
    } else {
      res.destroy();
    }
  });
});

let shuttingDown = false;
function shutdown(reason, code = 0) {
  if (shuttingDown) return;
  shuttingDown = true;
  if (VERBOSE) process.stderr.write(`oidc-op: shutting down (${reason})\n`);
  setTimeout(() => process.exit(code), 2000).unref();
  server.close(() => process.exit(code));
  server.closeAllConnections?.();
}

process.on("SIGTERM", () => shutdown("SIGTERM"));
process.on("SIGINT", () => shutdown("SIGINT"));
process.on("SIGHUP", () => shutdown("SIGHUP"));
process.stdout.on("error", () => shutdown("stdout closed"));

if (EXIT_ON_STDIN_CLOSE) {
  process.stdin.on("end", () => shutdown("stdin closed"));
  process.stdin.on("close", () => shutdown("stdin closed"));
  process.stdin.on("error", () => shutdown("stdin error"));
  process.stdin.on("data", () => {}); // drain; content is ignored
  process.stdin.resume();
}

server.on("error", (err) => {
  process.stderr.write(`oidc-op: server error: ${err.message}\n`);
  process.exit(1);
});

server.listen(PORT, HOST, async () => {
  const { port } = server.address();
  const hostForUrl = HOST.includes(":") ? `[${HOST}]` : HOST;
  issuer = `http://${hostForUrl}:${port}`;
  try {
    await installProvider();
  } catch (err) {
    process.stderr.write(`oidc-op: invalid configuration: ${err.error_description ?? err.message}\n`);
    process.exit(1);
  }
  writeStdout(`${JSON.stringify({ issuer, port })}\n`);
});
