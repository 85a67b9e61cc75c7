"use strict";
// Sign-in and sign-out from host code, for form actions handled on the
// server (an Express route, a SolidStart `action`). As in Auth.js, a
// refusal is thrown to the caller instead of redirecting: `CredentialsSignin`
// with its `code`, or an `AuthError` with its `type`. No CSRF token is asked
// for: the host's own form protection applies.

const express = require("./express");
const reactive = require("./reactive");

/**
 * Sign in with `provider` and the submitted `fields` (FormData,
 * URLSearchParams or a plain object; `callbackUrl` or `redirectTo` names
 * where to go after). `request` is the host's request: an Express request,
 * a Web `Request`, or an event carrying one. Resolves to `{ url, cookies }`:
 * the caller sets each Set-Cookie string on its response and redirects to
 * `url` (the callback URL, the provider's authorization URL, or the
 * verify-request page).
 * @returns {Promise<{ url: string, cookies: string[] }>}
 */
async function signIn(provider, fields, request, config) {
  const { auth, method, url, headers, peer } = target(request, config, "signIn");
  const json = JSON.stringify(plainFields(fields));
  return auth.signIn(provider == null ? "" : String(provider), json, method, url, headers, peer);
}

/**
 * A step of the password provider from server code (a form of your own),
 * with the fields the built-in form posts. Resolves to `{ url, cookies }`
 * as `signIn` does; rejects with `PasswordRefused`, `InvalidEmail`,
 * `CredentialsSignin` (a wrong current password), `Verification` (a bad
 * reset token) or `RateLimited`. No CSRF token: the host's own form
 * protection applies.
 */
function passwordAction(action) {
  return async (fields, request, config) => {
    const { auth, url, headers, peer } = target(request, config, action);
    return auth.passwordAction(action, JSON.stringify(plainFields(fields)), "POST", url, headers, peer);
  };
}

/** `{ email, password, name?, callbackUrl? }`: create an account and mail its verification link. */
const signUp = passwordAction("signUp");
/** `{ email }`: mail a reset link (the same answer for any address). */
const requestPasswordReset = passwordAction("requestPasswordReset");
/** `{ token, email, password }`: a reset link's new password; ends every session, signs in. */
const resetPassword = passwordAction("resetPassword");
/** `{ currentPassword, newPassword }`: the request's signed-in user; ends their other sessions. */
const changePassword = passwordAction("changePassword");
/** `{ currentPassword, newEmail }`: mail a confirmation link to the new address, tell the old one. */
const changeEmail = passwordAction("changeEmail");
/** `{ currentPassword }`: delete the request's signed-in user, and sign out. */
const deleteAccount = passwordAction("deleteAccount");

/**
 * End the session of `request` (the database row too) and resolve to
 * `{ url, cookies }`: cookies that clear it, and where to go.
 * @returns {Promise<{ url: string, cookies: string[] }>}
 */
async function signOut(request, config) {
  const { auth, method, url, headers, peer } = target(request, config, "signOut");
  return auth.signOut(method, url, headers, peer);
}

/**
 * The account `userId` linked with `provider`, as stored by the adapter,
 * tokens included (`access_token`, `refresh_token`, `expires_at` in unix
 * seconds, `scope`, …), or null. For server code calling the provider's API:
 * never send the tokens to the browser. Needs a built-in adapter (SQLite,
 * PostgreSQL or memory); a JS adapter object cannot read accounts yet.
 * @returns {Promise<object | null>}
 */
async function getAccount(userId, provider, config) {
  return accountCall(userId, provider, config, "getAccount", "read");
}

/**
 * Refresh the access token of that account with its refresh token (the
 * provider's token endpoint), store the new tokens (a rotated refresh token
 * replaces the old one) and resolve to the updated account, or null when
 * there is no such account. Rejects with an `AuthError` when the account
 * has no refresh token or the provider refuses it.
 * @returns {Promise<object | null>}
 */
async function refreshAccount(userId, provider, config) {
  return accountCall(userId, provider, config, "refreshAccount", "refresh");
}

/**
 * A valid access token for the user's account with a provider, for calling
 * the provider's API: `{ accessToken, expiresAt?, tokenType?, scope? }`, or
 * null when not linked. Refreshed first when it expires within
 * `tokenRefresh.skew` (60 s), once however many calls ask at the same time.
 * A refresh token the provider refused rejects with an AuthError of type
 * `RefreshTokenRevoked` (and calls `events.refreshTokenRevoked`).
 * @returns {Promise<object | null>}
 */
async function getAccessToken(userId, provider, config) {
  return accountCall(userId, provider, config, "getAccessToken", "token");
}

/**
 * The user's passkeys, oldest first (`id`, `name`, `createdAt`, `lastUsedAt`,
 * `deviceType`, `backedUp`, `transports`).
 */
async function listPasskeys(userId, config) {
  return passkeyCall(userId, config, "listPasskeys", { action: "list" });
}

/** Name one of the user's passkeys (`null` clears the name); the renamed passkey. */
async function renamePasskey(userId, passkeyId, name, config) {
  return passkeyCall(userId, config, "renamePasskey", { action: "rename", id: passkeyId, name: name ?? null });
}

/**
 * Delete one of the user's passkeys. Rejects with `LastSignInMethod` when it
 * is the user's last way to sign in.
 */
async function deletePasskey(userId, passkeyId, config) {
  await passkeyCall(userId, config, "deletePasskey", { action: "delete", id: passkeyId });
}

/**
 * The user's database sessions, the current one first, then the most recently
 * active (`id`, `createdAt`, `lastActiveAt`, `expires`, `userAgent`, `device`,
 * `ip` as its network, `current`). `request` (optional: an Express request, a
 * Web `Request` or an event carrying one) says which session is the caller's.
 * Rejects with `UnsupportedStrategy` for JWT sessions.
 * @returns {Promise<object[]>}
 */
async function listSessions(userId, config, request) {
  return sessionCall(userId, config, "listSessions", { action: "list" }, request);
}

/**
 * End one of the user's sessions by its listed `id`. Rejects with
 * `SessionTokenError` when it is not one of theirs.
 */
async function endSession(userId, sessionId, config) {
  if (typeof sessionId !== "string" || !sessionId)
    throw new TypeError("endSession: sessionId must be a listed session id");
  await sessionCall(userId, config, "endSession", { action: "end", id: sessionId });
}

/** End every session of the user but the one `request` carries; how many ended. */
async function endOtherSessions(userId, request, config) {
  const { ended } = await sessionCall(userId, config, "endOtherSessions", { action: "endOthers" }, request);
  return ended;
}

/** End every session of the user (sign out everywhere); how many ended. */
async function endAllSessions(userId, config) {
  const { ended } = await sessionCall(userId, config, "endAllSessions", { action: "endAll" });
  return ended;
}

/**
 * The user's second factor: `{ enabled, pending, enabledAt, recoveryCodesLeft }`.
 * @returns {Promise<object>}
 */
async function twoFactorStatus(userId, config) {
  return twoFactorCall(userId, config, "twoFactorStatus", { action: "status" });
}

/**
 * Start turning a TOTP authenticator on: `{ uri, secret, qrSvg }` to show the
 * user (`label`: what the app shows, e.g. their address). Nothing is on until
 * `confirmTotp` gets a code from it. Rejects with `TwoFactorError` while one
 * is on.
 * @returns {Promise<{ uri: string, secret: string, qrSvg: string }>}
 */
async function beginTotp(userId, label, config) {
  return twoFactorCall(userId, config, "beginTotp", { action: "begin", label: label ?? "" });
}

/** Turn it on with the app's first code: the ten recovery codes, to show once. */
async function confirmTotp(userId, code, config) {
  const { recoveryCodes } = await twoFactorCall(userId, config, "confirmTotp", {
    action: "confirm",
    code: String(code),
  });
  return recoveryCodes;
}

/**
 * Check a code from the app or a recovery code (used up): `"totp"` or
 * `"recoveryCode"`; each is accepted once. Rejects with `TwoFactorError`.
 */
async function verifySecondFactor(userId, code, config) {
  const { factor } = await twoFactorCall(userId, config, "verifySecondFactor", {
    action: "verify",
    code: String(code),
  });
  return factor;
}

/** New recovery codes (the unused ones stop working), after a code. */
async function regenerateRecoveryCodes(userId, code, config) {
  const { recoveryCodes } = await twoFactorCall(userId, config, "regenerateRecoveryCodes", {
    action: "recoveryCodes",
    code: String(code),
  });
  return recoveryCodes;
}

/** Turn TOTP off, after a code from the app or a recovery code. */
async function disableTotp(userId, code, config) {
  await twoFactorCall(userId, config, "disableTotp", { action: "disable", code: String(code ?? "") });
}

function twoFactorCall(userId, config, name, call) {
  return engineForUser(userId, config, name).twoFactor(userId, call);
}

function sessionCall(userId, config, name, call, request) {
  const engine = engineForUser(userId, config, name);
  if (request == null) return engine.sessions(userId, call);
  const { url, headers } = target(request, config, name);
  const cookies = [];
  for (let i = 0; i + 1 < headers.length; i += 2) {
    if (String(headers[i]).toLowerCase() === "cookie") cookies.push(headers[i + 1]);
  }
  return engine.sessions(userId, { ...call, url, cookie: cookies.join("; ") });
}

function passkeyCall(userId, config, name, call) {
  return engineForUser(userId, config, name).passkeys(userId, call);
}

function accountCall(userId, provider, config, name, what) {
  const engine = engineForUser(userId, config, name);
  if (typeof provider !== "string" || !provider) throw new TypeError(`${name}: provider must be a provider id`);
  return engine.account(userId, provider, what);
}

/** The engine of a call about one user, its arguments checked. */
function engineForUser(userId, config, name) {
  if (config === null || typeof config !== "object") throw new TypeError(`${name}: config must be an object`);
  if (typeof userId !== "string" || !userId) throw new TypeError(`${name}: userId must be a non-empty string`);
  return express.engineFor(config);
}

/** The engine and the request as the engine reads it. */
function target(request, config, name) {
  if (config === null || typeof config !== "object") throw new TypeError(`${name}: config must be an object`);
  const web = webRequest(request);
  if (web) {
    const headers = [];
    for (const [k, v] of web.headers) headers.push(k, v);
    return {
      auth: reactive.engineFor(config),
      method: web.method,
      url: web.url,
      headers,
      peer: reactive.clientAddress(request),
    };
  }
  if (!request || typeof request.headers !== "object") {
    throw new TypeError(`${name}: request must be an Express request, a Web Request, or an event with one`);
  }
  const headers = Array.isArray(request.rawHeaders) ? request.rawHeaders : flatten(request.headers);
  const peer = request.socket?.remoteAddress;
  return {
    auth: express.engineFor(config),
    method: request.method ?? "POST",
    url: express.absoluteUrl(request),
    headers,
    peer,
  };
}

function webRequest(request) {
  if (request && typeof request.headers?.get === "function" && typeof request.url === "string") return request;
  const inner = request?.request;
  if (inner && typeof inner.headers?.get === "function" && typeof inner.url === "string") return inner;
  return null;
}

function flatten(headers) {
  const out = [];
  for (const [k, v] of Object.entries(headers ?? {})) {
    for (const value of Array.isArray(v) ? v : [v]) if (value != null) out.push(k, String(value));
  }
  return out;
}

/** FormData / URLSearchParams / object as a plain object (files are left out). */
function plainFields(fields) {
  if (fields == null) return {};
  if (typeof fields.entries === "function" && typeof fields.get === "function") {
    const out = {};
    for (const [k, v] of fields.entries()) if (typeof v === "string") out[k] = v;
    return out;
  }
  if (typeof fields !== "object" || Array.isArray(fields)) {
    throw new TypeError("signIn: fields must be FormData, URLSearchParams or an object");
  }
  return { ...fields };
}

module.exports = {
  signIn,
  signOut,
  signUp,
  requestPasswordReset,
  resetPassword,
  changePassword,
  changeEmail,
  deleteAccount,
  getAccount,
  refreshAccount,
  getAccessToken,
  listPasskeys,
  renamePasskey,
  deletePasskey,
  listSessions,
  endSession,
  endOtherSessions,
  endAllSessions,
  twoFactorStatus,
  beginTotp,
  confirmTotp,
  verifySecondFactor,
  regenerateRecoveryCodes,
  disableTotp,
};
