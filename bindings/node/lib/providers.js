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

// The other built-in providers: each is the engine's provider of the same
// name (ids, scopes and profile mapping as Auth.js's); every endpoint and
// option may be overridden, and without `clientId`/`clientSecret` the
// engine reads AUTH_<ID>_ID / AUTH_<ID>_SECRET (and AUTH_<ID>_ISSUER).

/** Google (OIDC). `offlineAccess: true` asks for a refresh token. */
function Google(options = {}) {
  return { builtin: "google", ...options };
}

/**
 * Sign in with Apple (OIDC, `form_post`). Give `teamId`, `keyId` and
 * `privateKey` (the `.p8` file's PEM) and the engine mints the client
 * secret, or a pre-made `clientSecret`.
 */
function Apple(options = {}) {
  return { builtin: "apple", ...options };
}

/** Microsoft Entra ID (OIDC). `issuer`: `https://login.microsoftonline.com/<tenant id>/v2.0` (default `common`). */
function MicrosoftEntraID(options = {}) {
  return { builtin: "microsoft-entra-id", ...options };
}

/** Discord (OAuth 2). */
function Discord(options = {}) {
  return { builtin: "discord", ...options };
}

/** GitLab (OAuth 2). `baseUrl` for a self-managed instance (default `https://gitlab.com`). */
function GitLab(options = {}) {
  return { builtin: "gitlab", ...options };
}

/** X / Twitter (OAuth 2.0 with PKCE, which cannot be turned off). */
function Twitter(options = {}) {
  return { builtin: "twitter", ...options };
}

/** Facebook Login (OAuth 2, a pinned Graph API version). */
function Facebook(options = {}) {
  return { builtin: "facebook", ...options };
}

/** LinkedIn (OIDC, issuer `https://www.linkedin.com/oauth`). */
function LinkedIn(options = {}) {
  return { builtin: "linkedin", ...options };
}

/** Sign in with Slack (OIDC). */
function Slack(options = {}) {
  return { builtin: "slack", ...options };
}

/** Twitch (OIDC). */
function Twitch(options = {}) {
  return { builtin: "twitch", ...options };
}

/** Spotify (OAuth 2). */
function Spotify(options = {}) {
  return { builtin: "spotify", ...options };
}

/** Keycloak (OIDC): `issuer` is the realm's, e.g. `https://kc.example.com/realms/myrealm`. */
function Keycloak(options = {}) {
  return { builtin: "keycloak", ...options };
}

/** Auth0 (OIDC): `issuer` is the tenant's, e.g. `https://example.us.auth0.com`. */
function Auth0(options = {}) {
  return { builtin: "auth0", ...options };
}

/** Okta (OIDC): `issuer` is the org's or an authorization server's. */
function Okta(options = {}) {
  return { builtin: "okta", ...options };
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

/**
 * Email + password accounts kept by the engine (id `password`): sign-up,
 * verification, forgotten password, change of password or address,
 * deletion, with built-in pages under `{basePath}/password/`. Needs an
 * adapter. Mail goes through `server` (SMTP, with `from`) or
 * `sendEmail({ kind, to, url, expires, locale, newEmail })`;
 * `checkPassword({ password, email })` may refuse a new password by
 * returning a message. Auth.js's client signs in with
 * `signIn("password", { email, password })`.
 */
function Password(options = {}) {
  return { type: "password", id: "password", name: "Password", ...options };
}

module.exports = {
  Credentials,
  Password,
  TikTok,
  GitHub,
  Google,
  Apple,
  MicrosoftEntraID,
  Discord,
  GitLab,
  Twitter,
  Facebook,
  LinkedIn,
  Slack,
  Twitch,
  Spotify,
  Keycloak,
  Auth0,
  Okta,
  Email,
  Passkey,
};
