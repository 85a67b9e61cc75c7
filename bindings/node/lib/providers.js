"use strict";
// Provider factories. Each returns plain provider configuration; functions
// in it (authorize, profile, sendVerificationRequest) become engine hooks.

/**
 * Sign-in with a username/password (or any fields) checked by `authorize`.
 * `authorize(credentials, request)` returns a user, `null`, or throws
 * `CredentialsSignin`.
 */
function Credentials(options = {}) {
  // Every option goes through: the engine refuses one it does not know (a
  // misspelt `authorise` is an error, not silently dropped).
  return { type: "credentials", ...options, credentials: options.credentials ?? {} };
}

/**
 * TikTok Login Kit (the engine's built-in provider `tiktok`). `clientId` is
 * the app's Client Key. Every endpoint and option of the built-in
 * configuration may be overridden here. Without `clientId`/`clientSecret`,
 * `AUTH_TIKTOK_ID` / `AUTH_TIKTOK_SECRET` are read.
 */
function TikTok(options = {}) {
  return { builtin: "tiktok", ...options };
}

/**
 * GitHub (the engine's built-in provider `github`): an OAuth App's or a
 * GitHub App's client id and secret. Scope `read:user user:email`; a user
 * without a public email gets the primary verified one. Every endpoint and
 * option of the built-in configuration may be overridden here. Without
 * `clientId`/`clientSecret`, `AUTH_GITHUB_ID` / `AUTH_GITHUB_SECRET` are read.
 */
function GitHub(options = {}) {
  return { builtin: "github", ...options };
}

/** Magic-link sign-in by email (`sendVerificationRequest` sends the link). */
function Email(options = {}) {
  return { type: "email", id: "email", name: "Email", ...options };
}

/**
 * Passkeys (WebAuthn): register and sign in with a device's authenticator.
 * Needs `experimental: { enableWebAuthn: true }` and an adapter that stores
 * passkeys. Options: `id` (default "passkey"), `name`, `relayingParty: { id,
 * name, origin }` (default: the request's host), `timeout`,
 * `enableConditionalUI`, `userVerification` ("required" or "preferred"),
 * `getUserInfo` (a hook).
 */
function Passkey(options = {}) {
  return { type: "webauthn", id: "passkey", name: "Passkey", ...options };
}

module.exports = { Credentials, TikTok, GitHub, Email, Passkey };
