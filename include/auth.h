/*
 * libauth: sign-in and sessions (wire-compatible with Auth.js v5) for C and
 * C++ web servers. One engine per configuration (`auth_engine`), fed the
 * HTTP requests under `basePath` (default `/auth`) and asked for the
 * session of any other request.
 *
 * Build and link:  cargo build -p libauth-ffi   (target/debug/libauth.{so,a})
 *                  scripts/c-build.sh writes target/<profile>/pkgconfig/libauth.pc
 *                  cc app.c $(pkg-config --cflags --libs libauth)
 *
 * CONFIGURATION (auth_new): JSON with Auth.js's option names, plus
 * `hooks.implemented`, the hooks the host's `auth_hook_fn` answers:
 *
 *   {"secret": "at least 32 characters of random secret......",
 *    "trustHost": true,
 *    "providers": [{"id": "credentials", "type": "credentials"}],
 *    "hooks": {"implemented": ["providers.credentials.authorize", "callbacks.jwt"],
 *              "timeout": 5, "timeouts": {"callbacks.jwt": 1}, "maxInFlight": 64}}
 *
 * `trustHost: true` (or a canonical `url`) is needed to answer requests whose
 * Host header is not the canonical URL's, e.g. local development.
 *
 * REQUEST (auth_handle, auth_get_session): the request as the client sent it;
 * `url` absolute (as the client saw it: apply your proxy rules first; a url
 * without `http://` or `https://` and a host, or with a `\` before the
 * query, is AUTH_INVALID_JSON), headers
 * as [name, value] pairs (several of one name allowed), `body` the raw body as
 * a UTF-8 string, or absent; `remoteAddress` the connection's peer address
 * (what rate limits count: without it every request shares one limit, and
 * the log says so once):
 *
 *   {"method": "POST",
 *    "url": "http://localhost:8080/auth/callback/credentials",
 *    "headers": [["content-type", "application/x-www-form-urlencoded"],
 *                ["cookie", "authjs.csrf-token=..."]],
 *    "body": "csrfToken=...&username=demo&password=demo",
 *    "remoteAddress": "203.0.113.7"}
 *
 * RESPONSE (auth_handle): write it as is; several `set-cookie` headers may
 * appear, each its own header line; `body` is UTF-8 (JSON or HTML):
 *
 *   {"status": 302,
 *    "headers": [["location", "http://localhost:8080/"],
 *                ["set-cookie", "authjs.session-token=...; Path=/; HttpOnly; SameSite=Lax"],
 *                ["set-cookie", "authjs.callback-url=...; Path=/; HttpOnly; SameSite=Lax"]],
 *    "body": ""}
 *
 * SESSION (auth_get_session): {"user": {"name": ..., "email": ..., "image": ...},
 * "expires": "2026-01-01T00:00:00.000Z", "amr": ["pwd", "otp"]} as the session
 * callback shaped it (`amr`: how the user signed in, where recorded), or
 * no buffer at all (NULL) when the request carries no valid session.
 * auth_session_read answers the same session as a handle to read fields
 * from, no JSON to parse (what a page that shows the user's name needs):
 *
 *   auth_session *s = NULL;
 *   if (auth_session_read(auth, url, url_len, cookie, cookie_len, &s, &err) == AUTH_OK && s) {
 *       size_t len;
 *       const char *name = auth_session_user_field(s, "name", &len);  // NULL: none
 *       if (name) printf("Welcome, %.*s", (int)len, name);  // not NUL-terminated
 *       auth_session_free(s);
 *   }
 *
 * OWNERSHIP
 * - Every buffer and object libauth returns (auth_engine, auth_buffer,
 *   auth_error, auth_session) is released by its own function: auth_free,
 *   auth_buffer_free, auth_error_free, auth_session_free. Each accepts NULL
 *   and does nothing.
 * - libauth never frees nor keeps what the caller passes: inputs are read
 *   during the call (copied when needed) and may be released right after.
 * - Inputs are (pointer, length) pairs: exactly `len` bytes are read, no NUL
 *   is needed. NULL, an impossible length, invalid UTF-8 and invalid JSON are
 *   error codes with a message, never a crash; a length longer than the real
 *   buffer cannot be detected (it is undefined behaviour, as for memcpy).
 * - Outputs come last. On failure nothing is written to them, except the
 *   error (when `error_out` is not NULL, which is always optional). On
 *   success `*error_out` is left untouched.
 * - Strings returned by auth_error_* belong to the error, those returned by
 *   auth_session_* to the session (pointer and length, not NUL-terminated);
 *   auth_version and auth_result_name return static strings.
 * - No Rust panic crosses into C: a bug becomes AUTH_INTERNAL_ERROR.
 *
 * HOOKS (callbacks, events, credentials authorize, email sending, a host
 * database adapter, a logger) reach the host through one `auth_hook_fn`, by
 * name, as in the Node binding: `providers.<id>.authorize`,
 * `providers.<id>.sendVerificationRequest`, `providers.<id>.profile`,
 * `callbacks.signIn`, `callbacks.redirect`, `callbacks.jwt`,
 * `callbacks.session`, `events.signIn`, `events.signOut`, `events.createUser`,
 * `events.updateUser`, `events.linkAccount`, `events.session`, `adapter.<method>`
 * (with `"adapter": {"type": "host"}`), `jwt.encode`, `jwt.decode`,
 * `session.generateSessionToken`, `logger.error|warn|debug`; list the ones
 * the function answers in `hooks.implemented` (only those are called).
 * Arguments and results are JSON with Auth.js's field names; each hook's
 * are listed at `auth_hook_fn` below. The function answers with
 * auth_hook_result_set (copies the result JSON: the host keeps its buffer,
 * nothing to free; text that is not JSON is refused) or
 * auth_hook_result_error (copies a message, an engine error type such as
 * "CredentialsSignin", and a code), and returns AUTH_HOOK_OK or
 * AUTH_HOOK_ERROR. A hook that fails fails as a throwing hook does in
 * Auth.js.
 *
 * THREADS AND DEADLINES
 * - An auth_engine is thread-safe: any number of threads may call
 *   auth_handle and auth_get_session on one engine at once. auth_free must
 *   not race with them.
 * - Hooks run synchronously, on the thread that called auth_handle or
 *   auth_get_session, possibly on many threads at once: the hook function and
 *   `user_data` must be thread-safe.
 * - Every hook call has a deadline (`hooks.timeout`, default 30 s; per hook
 *   `hooks.timeouts`). libauth cannot interrupt a C function: a result that
 *   comes after the deadline is dropped and the call fails as if the hook had
 *   failed. A host whose hooks do I/O (a database, a mail server) must bound
 *   that I/O itself.
 * - Requests that can reach host code are admitted first: past
 *   `hooks.maxInFlight` (default 1024) of them at once, auth_handle answers
 *   503 with Retry-After: 1, and auth_get_session fails with AUTH_OVERLOADED.
 *   Requests that reach no hook (JWT sessions without session hooks) always
 *   run directly.
 */


#ifndef LIBAUTH_AUTH_H
#define LIBAUTH_AUTH_H

/* Generated by cbindgen from ffi/src (scripts/c-header.sh); do not edit by hand. */

#include <stddef.h>
#include <stdint.h>

// The version of libauth this header declares (`auth_version()` gives the
// library's).
#define AUTH_VERSION_MAJOR 0

#define AUTH_VERSION_MINOR 1

#define AUTH_VERSION_PATCH 0

// The hook answered; its result (if any) is in the `auth_hook_result`.
#define AUTH_HOOK_OK 0

// The hook failed; the `auth_hook_result` may say how
// (`auth_hook_result_error`, or `{"message", "type", "code"}` JSON).
#define AUTH_HOOK_ERROR 1

// What every `auth_*` function returns. `AUTH_OK` is success; codes below
// 100 are misuse of the C API (checked before the engine runs); codes from
// 100 are the engine's error types (`auth_error_type` gives the name, as
// `error.type` in the other bindings). Values are stable.
typedef enum auth_result {
    AUTH_OK = 0,
    // A required pointer argument was NULL.
    AUTH_NULL_ARGUMENT = 1,
    // A length no buffer can have (over `PTRDIFF_MAX`).
    AUTH_INVALID_LENGTH = 2,
    // The input is not UTF-8.
    AUTH_INVALID_UTF8 = 3,
    // The input is not JSON, or not JSON of the documented shape (a
    // request whose `url` is not absolute; a hook result that is not JSON).
    AUTH_INVALID_JSON = 4,
    // A bug in libauth (a Rust panic, caught at the boundary).
    AUTH_INTERNAL_ERROR = 5,
    // An invalid configuration option (type `Configuration`).
    AUTH_CONFIGURATION = 100,
    AUTH_ACCESS_DENIED = 101,
    AUTH_ACCOUNT_NOT_LINKED = 102,
    AUTH_ADAPTER_ERROR = 103,
    AUTH_CALLBACK_ROUTE_ERROR = 104,
    AUTH_CREDENTIALS_SIGNIN = 105,
    AUTH_EMAIL_SIGN_IN_ERROR = 106,
    AUTH_ERROR_PAGE_LOOP = 107,
    AUTH_EVENT_ERROR = 108,
    AUTH_INVALID_CALLBACK_URL = 109,
    AUTH_INVALID_CHECK = 110,
    AUTH_INVALID_ENDPOINTS = 111,
    AUTH_INVALID_PROVIDER_TYPE = 112,
    AUTH_JWT_SESSION_ERROR = 113,
    AUTH_MISSING_ADAPTER = 114,
    AUTH_MISSING_ADAPTER_METHODS = 115,
    AUTH_MISSING_AUTHORIZE = 116,
    AUTH_MISSING_CSRF = 117,
    AUTH_MISSING_SECRET = 118,
    AUTH_OAUTH_ACCOUNT_NOT_LINKED = 119,
    AUTH_OAUTH_CALLBACK_ERROR = 120,
    AUTH_OAUTH_PROFILE_PARSE_ERROR = 121,
    AUTH_OAUTH_SIGN_IN_ERROR = 122,
    AUTH_SESSION_TOKEN_ERROR = 123,
    AUTH_SIGN_OUT_ERROR = 124,
    AUTH_UNKNOWN_ACTION = 125,
    AUTH_UNSUPPORTED_STRATEGY = 126,
    AUTH_UNTRUSTED_HOST = 127,
    AUTH_VERIFICATION = 128,
    // `hooks.maxInFlight` requests that may call host code are in flight.
    AUTH_OVERLOADED = 129,
    // A rate limit refused the request (429 with `Retry-After` from
    // `auth_handle`).
    AUTH_RATE_LIMITED = 130,
    // The provider refused the stored refresh token (`auth_get_access_token`):
    // the user must sign in with the provider again.
    AUTH_REFRESH_TOKEN_REVOKED = 131,
    // A passkey registration or assertion failed verification.
    AUTH_WEB_AUTHN_VERIFICATION_ERROR = 132,
    // A `webauthn` provider without `experimental.enableWebAuthn`.
    AUTH_EXPERIMENTAL_FEATURE_NOT_ENABLED = 133,
    // Deleting this passkey would leave the user no way to sign in.
    AUTH_LAST_SIGN_IN_METHOD = 134,
    // A new password was refused (too short or long, or by the host's
    // `checkPassword`); the message says why.
    AUTH_PASSWORD_REFUSED = 135,
    // A form's email address is not a valid single address.
    AUTH_INVALID_EMAIL = 136,
    // A second-factor code that is wrong, stale or used, or a change the
    // user's second factor does not allow.
    AUTH_TWO_FACTOR_ERROR = 137,
} auth_result;

// One engine for one configuration. Opaque; thread-safe: any number of
// threads may call `auth_handle` and `auth_get_session` on it at once.
// Built by `auth_new`, released by `auth_free`.
typedef struct auth_engine auth_engine;

// An error: a code, a message, the type name, and for a refused
// configuration the option. Opaque; read it with `auth_error_*`, release it
// with `auth_error_free`.
typedef struct auth_error auth_error;

// Where a hook puts its answer. Opaque; filled by `auth_hook_result_set` or
// `auth_hook_result_error`, owned by libauth.
typedef struct auth_hook_result auth_hook_result;

// A session read by `auth_session_read`, to read fields from without
// parsing JSON: `auth_session_user_field`, `auth_session_string`,
// `auth_session_expires`, `auth_session_json`. Opaque and read-only: it
// holds the session the read answered (for a cached cookie, the session
// cache's own copy, shared: nothing is copied). Strings the accessors
// return belong to it and stay valid until `auth_session_free`. It may be
// read from any thread, by several at once, and may outlive the engine.
typedef struct auth_session auth_session;

// The host's one hook function. `hook_name` and `args_json` (NUL-terminated,
// `args_len` bytes without the NUL) are valid only during the call.
// Answer with `auth_hook_result_set(result, json, len)` (the JSON result;
// none means `null`) and return `AUTH_HOOK_OK`, or report a failure with
// `auth_hook_result_error(result, type, message, code)` and return
// `AUTH_HOOK_ERROR`. `result` is valid only during the call.
//
// ARGUMENTS AND RESULTS, by hook: `args_json` is an object with the keys
// shown (`key?`: only in some calls, said below; `…`: other keys too), or
// the JSON value shown; `->` is what the hook answers. Dates (`expires`,
// `emailVerified`) are ISO-8601 strings. What a failing hook (or an answer
// of the wrong kind) does is said per hook, as in Auth.js; events and
// loggers never fail the request.
//
//   callbacks.signIn  {user, account: {type, provider, providerAccountId, …}, profile?, credentials?, email?: {verificationRequest}}
//     -> true to go on; a URL or path to send the user there instead;
//        anything else, or a failure, refuses the sign-in (AccessDenied).
//        `user` is what authorize, the profile function or the adapter
//        gave; `account` has the token response's fields too (OAuth);
//        `profile` for OAuth/OIDC; `credentials` the submitted form fields
//        (credentials); `email` before an email link is sent.
//   callbacks.redirect  {url, baseUrl}
//     -> the URL (absolute http(s), or a path under baseUrl) to go to;
//        anything else, or a failure: baseUrl.
//   callbacks.jwt  {token, user?, account?, profile?, isNewUser?, trigger?, session?}
//     -> the token to store (an object), or null to end the session; a
//        failure fails the sign-in (on a read: ends the session). At
//        sign-in: user, account, profile (OAuth/OIDC), isNewUser, trigger
//        "signIn" or "signUp"; on `update()` (POST session): trigger
//        "update" and session (the client's data); on a session read: the
//        token alone.
//   callbacks.session  {session: {user: {name?, email?, image?}, expires, amr?}, token?, user?, newSession?, trigger?}
//     -> the session the client sees (an object; anything else, or a
//        failure: no session). The session's user has the fields the
//        token or the stored user has. JWT sessions add `token` (and
//        trigger "update" on `update()`); database sessions add `user`
//        (the stored user) and, on `update()`, newSession and trigger.
//   events.signIn  {user, account: {type, provider, providerAccountId, …}, profile?, isNewUser?}
//   events.signOut  {session?, token?}
//     (database sessions: the deleted session or null; JWT: the token or null)
//   events.createUser  {user}
//   events.updateUser  {user}
//   events.linkAccount  {user, account: {type, provider, providerAccountId, …}, profile}
//   events.session  {session, token?}
//     -> events' results are ignored; a failure is logged.
//   providers.<id>.authorize  {credentials, request: {url, method, headers}}
//     -> the user (an object; without `id` one is made up), or null/false:
//        CredentialsSignin (`auth_hook_result_error` with type
//        "CredentialsSignin" and a code passes the code on). `headers` is
//        an object of lowercase names.
//   providers.<id>.sendVerificationRequest  {identifier, url, expires, token, provider: {id, name, type, from, maxAge}, theme: {brandColor, buttonText}, locale, request: {method, url, headers}}
//     -> ignored; a failure is EmailSignInError.
//   providers.<id>.profile  {profile, tokens}
//     -> the user (an object) for the provider's profile and token
//        response; anything else, or a failure, is OAuthProfileParseError.
//   providers.<id>.getUserInfo  {options: {provider: {id, name, type}}, request: {url, method, headers}}
//     -> a passkey provider's user for this request: {user, exists} (user
//        an object with at least `email` to register; exists: whether it
//        is stored), or null for "no one named" (a discoverable sign-in).
//   adapter.createUser  {id, name, email, emailVerified, image}
//   adapter.getUser  string
//   adapter.getUserByEmail  string
//   adapter.getUserByAccount  {provider, providerAccountId}
//   adapter.updateUser  {id, name?, email?, emailVerified?, image?}
//   adapter.deleteUser  string
//   adapter.linkAccount  {userId, type, provider, providerAccountId, …}
//   adapter.unlinkAccount  {provider, providerAccountId}
//   adapter.createSession  {sessionToken, userId, expires}
//   adapter.getSessionAndUser  string
//   adapter.updateSession  {sessionToken, expires}
//   adapter.deleteSession  string
//   adapter.createVerificationToken  {identifier, token, expires}
//   adapter.useVerificationToken  {identifier, token}
//     -> as Auth.js's adapter methods (a string argument is the id, email
//        or session token): createUser and updateUser the user; getUser*
//        the user or null; createSession the session (null: as given);
//        getSessionAndUser {session, user} or null; updateSession and
//        deleteSession the session or null; useVerificationToken the token
//        or null; the others ignored. A failure is AdapterError. The
//        session token an adapter sees is the SHA-256 (hex) of the
//        cookie's; updateUser sends only the fields that change.
//        deleteUser must delete the user's accounts, sessions and
//        passkeys with it (as Auth.js's adapters do): a sign-in that
//        proves the address of a user created without proof of it
//        deletes that user and creates it again under the same id.
//   adapter.getAuthenticator  string
//   adapter.createAuthenticator  {credentialID, userId, providerAccountId, credentialPublicKey, counter, credentialDeviceType, credentialBackedUp, transports, name, createdAt, lastUsedAt}
//   adapter.listAuthenticatorsByUserId  string
//   adapter.updateAuthenticatorCounter  {credentialID, newCounter, lastUsedAt}
//   adapter.renameAuthenticator  {credentialID, name}
//   adapter.deleteAuthenticator  string
//     -> passkeys (optional hooks; a webauthn provider needs all but
//        renameAuthenticator, and adapter.unlinkAccount, so a deleted
//        passkey takes its account with it). A string argument is the credential id, or the user id for
//        listAuthenticatorsByUserId. An authenticator is Auth.js's (counter
//        a number, credentialBackedUp a boolean, transports a comma-separated
//        string or null) plus name, createdAt and lastUsedAt (ISO dates, or
//        null). getAuthenticator, renameAuthenticator (name null clears it)
//        and deleteAuthenticator answer the authenticator or null;
//        createAuthenticator the authenticator (null: as given);
//        listAuthenticatorsByUserId an array (null: none);
//        updateAuthenticatorCounter the updated authenticator (null: no such
//        credential). A credential id already stored must fail the create.
//   jwt.encode  {token, secret, salt, maxAge}
//     -> the cookie value (a string). `secret` is the list of secrets.
//   jwt.decode  {token, secret, salt}
//     -> the token (an object), or null for an invalid one.
//   session.generateSessionToken  null
//     -> a string of 16 to 512 characters (anything else, or a failure,
//        fails the sign-in: SessionTokenError).
//   logger.error  {name, type, message, code, cause}
//   logger.warn  {code, message}
//   logger.debug  {message, metadata}
//     -> ignored; when the hook fails, the line goes to stderr.
typedef int32_t (*auth_hook_fn)(void *user_data,
                                const char *hook_name,
                                const char *args_json,
                                size_t args_len,
                                struct auth_hook_result *result);

// Bytes libauth returns: `data` points at `len` bytes of UTF-8 JSON followed
// by a NUL (so `data` is also a C string). Read-only; released by
// `auth_buffer_free`.
typedef struct auth_buffer {
    const char *data;
    size_t len;
} auth_buffer;

#ifdef __cplusplus
extern "C" {
#endif // __cplusplus

// Build an engine from a configuration: `config_json` (`config_len` bytes,
// UTF-8 JSON, Auth.js option names, see the top of this header) and the
// host's hook function (`hook_fn`, NULL when `hooks.implemented` is empty)
// with its `user_data`, passed back on every hook call.
//
// On success writes the engine to `*auth_out`. On failure writes nothing
// there, and (when `error_out` is not NULL) an error to `*error_out`: a
// refused configuration names its option (`auth_error_option`) and has the
// engine's type (`AUTH_CONFIGURATION`, `AUTH_MISSING_SECRET`, …), e.g.
// `session.strategy` for a wrong type inside `session`. An unknown or
// misspelt hook name is refused naming it, in `hooks.implemented` or as a
// key under `callbacks`, `events` or `logger` (`callbacks.sesion`); so is a
// right name there that `hooks.implemented` does not list.
enum auth_result auth_new(const char *config_json,
                          size_t config_len,
                          auth_hook_fn hook_fn,
                          void *user_data,
                          struct auth_engine **auth_out,
                          struct auth_error **error_out);

// Answer one request under `basePath` (every Auth.js route: sign-in pages,
// csrf, providers, session, callbacks, sign-out, …). `request_json` is the
// request (`request_len` bytes, the shape at the top of this header). On
// success writes the response (status, headers with every Set-Cookie,
// body; shape at the top) to `*response_out`; release it with
// `auth_buffer_free`. Engine failures are responses (redirects to the error
// page, 4xx, 503 when overloaded), not errors: an error code means the call
// itself was wrong (NULL, bad length, not UTF-8, not a request, or a `url`
// that is not absolute: `AUTH_INVALID_JSON`).
enum auth_result auth_handle(const struct auth_engine *auth,
                             const char *request_json,
                             size_t request_len,
                             struct auth_buffer **response_out,
                             struct auth_error **error_out);

// The current session of a request (its cookies; usually a page of the
// app, not an auth route). On success writes the session JSON
// (`{"user": {...}, "expires": "..."}`, after the session callback) to
// `*session_out`, or NULL when there is no valid session. Fails with the
// engine's error: `AUTH_ADAPTER_ERROR` (database strategy, the database
// failed: the session may well exist), `AUTH_OVERLOADED` (`hooks.maxInFlight`
// reached), or a misuse code (as for `auth_handle`: a `url` that is not
// absolute is `AUTH_INVALID_JSON`).
enum auth_result auth_get_session(const struct auth_engine *auth,
                                  const char *request_json,
                                  size_t request_len,
                                  struct auth_buffer **session_out,
                                  struct auth_error **error_out);

// `auth_get_session` from what a session read needs and no more: the
// request's absolute URL (`url`, `url_len` bytes of UTF-8, as for
// `auth_handle`: its scheme picks the secure or plain cookie names) and its
// `Cookie` header value (`cookie`, `cookie_len` bytes; NULL with length 0,
// or an empty string, when the request has none; several `Cookie` headers
// joined with "; "). No request JSON is built or parsed; the answer (the
// session JSON or NULL in `*session_out`, the result code, the error) is
// the one `auth_get_session` gives for a request with that URL and header.
// A `url` that is not absolute fails with `AUTH_INVALID_JSON`, as in
// `auth_get_session`.
enum auth_result auth_get_session_by_cookie(const struct auth_engine *auth,
                                            const char *url,
                                            size_t url_len,
                                            const char *cookie,
                                            size_t cookie_len,
                                            struct auth_buffer **session_out,
                                            struct auth_error **error_out);

// `auth_get_session_by_cookie`, answered as a handle instead of JSON text:
// the same arguments, checks, result codes and errors. On success writes a
// new `auth_session` to `*session_out` (read it with
// `auth_session_user_field` and the other `auth_session_*` accessors,
// release it with `auth_session_free`), or NULL when the request has no
// valid session (none, expired, tampered: `AUTH_OK` all the same). For a
// cookie the session cache holds (the same cookie read again, no session
// hooks) nothing is copied or serialized: the handle shares the cached
// session.
enum auth_result auth_session_read(const struct auth_engine *auth,
                                   const char *url,
                                   size_t url_len,
                                   const char *cookie,
                                   size_t cookie_len,
                                   struct auth_session **session_out,
                                   struct auth_error **error_out);

// The string at `key` of the session (`subkey` NULL: `"expires"`, or a
// field a session callback added) or at `key.subkey` (`"user"`,
// `"email"`); `key` and `subkey` are NUL-terminated UTF-8. Returns its
// first byte and writes its length in bytes to `*len_out`; the string is
// NOT NUL-terminated (print it with `"%.*s", (int)len, s`; a JSON string
// may even hold NUL bytes), belongs to the session and is valid until
// `auth_session_free`. Returns NULL, and writes nothing, when the field is
// absent or not a string, or when `session`, `key` or `len_out` is NULL.
const char *auth_session_string(const struct auth_session *session,
                                const char *key,
                                const char *subkey,
                                size_t *len_out);

// A string field of the session's user (`auth_session_string(session,
// "user", name, len_out)`): `name` is `"id"`, `"name"`, `"email"`,
// `"image"`, or a field a session callback added. The same answer: the
// bytes (NOT NUL-terminated, valid until `auth_session_free`) with their
// length in `*len_out`, or NULL when absent or not a string (a user
// without a name has none, a passkey user often) or for a NULL argument.
const char *auth_session_user_field(const struct auth_session *session,
                                    const char *name,
                                    size_t *len_out);

// When the session expires, in Unix seconds (its `expires` field, an ISO
// 8601 date); -1 when it has none that is a date, or for NULL.
int64_t auth_session_expires(const struct auth_session *session);

// The whole session as JSON text, the bytes `auth_get_session_by_cookie`
// would return (`{"user": {...}, "expires": "..."}`): returns its first
// byte and writes its length to `*len_out`. NOT NUL-terminated; belongs to
// the session, valid until `auth_session_free`. A session shared with the
// cache has its text already; one built for this read (session hooks, the
// database strategy) is serialized once, on the first call. NULL for a
// NULL argument.
const char *auth_session_json(const struct auth_session *session, size_t *len_out);

// Release a session from `auth_session_read`; every string read from it
// goes with it. NULL is ignored. No accessor may be running on it.
void auth_session_free(struct auth_session *session);

// A valid access token for the user's account with `provider` (both
// UTF-8), for calling the provider's API: on success writes
// `{"accessToken": "...", "expiresAt": 1767225600, "tokenType": "bearer",
// "scope": "..."}` to `*token_out`, or NULL when the user has no such
// account. A token that expires within `tokenRefresh.skew` (60 s) is
// refreshed first, once however many threads (and, with a shared
// rate-limit store, processes) ask at the same time. Fails with
// `AUTH_REFRESH_TOKEN_REVOKED` when the provider refuses the stored refresh
// token (the user must sign in with the provider again),
// `AUTH_MISSING_ADAPTER` without an adapter, `AUTH_ADAPTER_ERROR`,
// `AUTH_OAUTH_CALLBACK_ERROR` for another provider error, or
// `AUTH_OVERLOADED`. It may call the provider: don't call it where a
// blocking network call is not allowed. Admitted as `auth_handle` is.
enum auth_result auth_get_access_token(const struct auth_engine *auth,
                                       const char *user_id,
                                       size_t user_id_len,
                                       const char *provider,
                                       size_t provider_len,
                                       struct auth_buffer **token_out,
                                       struct auth_error **error_out);

// A passkey call for the user `user_id` (UTF-8): `call` is JSON (UTF-8),
// `{"action": "list"}`, `{"action": "rename", "id": "...", "name": "..."}`
// or `{"action": "delete", "id": "..."}`. On success writes the answer as
// JSON to `*result_out`: the list of passkeys (`id`, `name`, `createdAt`,
// `lastUsedAt`, `deviceType`, `backedUp`, `transports`), the renamed
// passkey, or `null`. Fails with `AUTH_LAST_SIGN_IN_METHOD` when a delete
// would leave the user no way to sign in, `AUTH_WEB_AUTHN_VERIFICATION_ERROR`
// for a passkey that is not the user's, `AUTH_INVALID_JSON`,
// `AUTH_ADAPTER_ERROR` or `AUTH_OVERLOADED`. Reads the database; admitted
// as `auth_handle` is.
enum auth_result auth_passkeys(const struct auth_engine *auth,
                               const char *user_id,
                               size_t user_id_len,
                               const char *call,
                               size_t call_len,
                               struct auth_buffer **result_out,
                               struct auth_error **error_out);

// A session call for the user `user_id` (UTF-8): `call` is JSON (UTF-8),
// `{"action": "list"}`, `{"action": "end", "id": "..."}`,
// `{"action": "endOthers"}` or `{"action": "endAll"}`, with `"url"` and
// `"cookie"` (the request's URL and `Cookie` header) to say which session
// is the caller's. On success writes the answer as JSON to `*result_out`:
// the user's database sessions (`id`, `createdAt`, `lastActiveAt`,
// `expires`, `userAgent`, `device`, `ip` as its network, `current`), `null`
// for `end`, or `{"ended": n}`. Fails with `AUTH_SESSION_TOKEN_ERROR` for an
// id that is not one of the user's sessions, `AUTH_UNSUPPORTED_STRATEGY`
// for JWT sessions, `AUTH_INVALID_JSON`, `AUTH_ADAPTER_ERROR` or
// `AUTH_OVERLOADED`. Reads the database; admitted as `auth_handle` is.
enum auth_result auth_sessions(const struct auth_engine *auth,
                               const char *user_id,
                               size_t user_id_len,
                               const char *call,
                               size_t call_len,
                               struct auth_buffer **result_out,
                               struct auth_error **error_out);

// A user's second factor: `call` is `{"action": "status"}`, `{"action":
// "begin", "label"?}`, `{"action": "confirm", "code"}`, `{"action":
// "verify", "code"}`, `{"action": "recoveryCodes", "code"}` or
// `{"action": "disable", "code"}`; `*result_out` receives the status
// (`{"enabled", "pending", "enabledAt", "recoveryCodesLeft"}`), the
// enrolment (`{"uri", "secret", "qrSvg"}`), `{"recoveryCodes": [...]}`,
// `{"factor": "totp" | "recoveryCode"}` or `null`. Fails with
// `AUTH_TWO_FACTOR_ERROR` for a wrong, stale or used code (or a change the
// user's state does not allow), `AUTH_UNKNOWN_ACTION`, `AUTH_INVALID_JSON`,
// `AUTH_ADAPTER_ERROR` or `AUTH_OVERLOADED`. Reads the database; admitted
// as `auth_handle` is.
enum auth_result auth_two_factor(const struct auth_engine *auth,
                                 const char *user_id,
                                 size_t user_id_len,
                                 const char *call,
                                 size_t call_len,
                                 struct auth_buffer **result_out,
                                 struct auth_error **error_out);

// A step of the password provider from host code (a form of the app's
// own): `action` (UTF-8) is `signUp`, `requestPasswordReset`,
// `resetPassword`, `changePassword`, `changeEmail` or `deleteAccount`;
// `request_json` the host's request (the shape of `auth_handle`'s; its
// cookies name the signed-in user); `fields_json` a JSON object of the
// form's fields (`email`, `password`, `name`; `token`; `currentPassword`,
// `newPassword`, `newEmail`). No CSRF token: the host's own form protection
// applies (a request whose `Origin` or `Sec-Fetch-Site` names another site
// fails with `AUTH_MISSING_CSRF`). On success writes `{"url": "...",
// "cookies": ["Set-Cookie value", ...]}` to `*result_out`: where the
// built-in flow goes next, and the cookies to set. Fails with
// `AUTH_PASSWORD_REFUSED` (the message says why), `AUTH_INVALID_EMAIL`,
// `AUTH_CREDENTIALS_SIGNIN` (a wrong current password), `AUTH_VERIFICATION`
// (a bad reset token), `AUTH_RATE_LIMITED`, `AUTH_UNKNOWN_ACTION`,
// `AUTH_INVALID_JSON`, `AUTH_ADAPTER_ERROR` or `AUTH_OVERLOADED`. Hashes a
// password and may send mail: admitted as `auth_handle` is.
enum auth_result auth_password_action(const struct auth_engine *auth,
                                      const char *action,
                                      size_t action_len,
                                      const char *request_json,
                                      size_t request_len,
                                      const char *fields_json,
                                      size_t fields_len,
                                      struct auth_buffer **result_out,
                                      struct auth_error **error_out);

// Release an engine. NULL is ignored. No call on it may be running or
// follow.
void auth_free(struct auth_engine *auth);

// Release a buffer libauth returned. NULL is ignored.
void auth_buffer_free(struct auth_buffer *buf);

// Release an error. NULL is ignored.
void auth_error_free(struct auth_error *err);

// The error's code (`AUTH_NULL_ARGUMENT` for a NULL error).
enum auth_result auth_error_code(const struct auth_error *err);

// The error's message, a NUL-terminated UTF-8 string owned by the error
// (valid until `auth_error_free`); "" for a NULL error.
const char *auth_error_message(const struct auth_error *err);

// The error's type name: the engine's (`Configuration`, `MissingSecret`,
// `CredentialsSignin`, `Overloaded`, …) or the C API's (`NullArgument`,
// `InvalidLength`, `InvalidUtf8`, `InvalidJson`, `InternalError`). Owned by
// the error; "" for a NULL error.
const char *auth_error_type(const struct auth_error *err);

// The configuration option a refused `auth_new` names (`secret`,
// `providers[1].type`, `callbacks.sesion`, …), owned by the error; NULL
// when the error is not about an option.
const char *auth_error_option(const struct auth_error *err);

// The type name of a result code (as `auth_error_type`), a static string;
// "Unknown" for a value that is no `auth_result`.
const char *auth_result_name(int32_t code);

// Answer a hook call: copy `len` bytes of UTF-8 JSON from `json` as the
// hook's result (the caller keeps its buffer). Call it from inside the
// hook, then return `AUTH_HOOK_OK`; a second call replaces the first.
// Text that is not one JSON value is refused with `AUTH_INVALID_JSON`
// (`AUTH_INVALID_UTF8`, `AUTH_NULL_ARGUMENT` for those) and nothing is
// recorded: an earlier answer stands, and with none the result is `null`.
enum auth_result auth_hook_result_set(struct auth_hook_result *result,
                                      const char *json,
                                      size_t len);

// Report a hook failure: `message` (required), `type` (an engine error type
// such as `CredentialsSignin` or `AccessDenied`, or NULL) and `code` (the
// `CredentialsSignin` code shown in the redirect's `code` parameter, or
// NULL), all NUL-terminated UTF-8, copied. Then return `AUTH_HOOK_ERROR`.
// A `CredentialsSignin` from `authorize` sends the user back to the sign-in
// page with `error=CredentialsSignin&code=<code>`, as in Auth.js.
enum auth_result auth_hook_result_error(struct auth_hook_result *result,
                                        const char *error_type,
                                        const char *message,
                                        const char *code);

// The library's version, e.g. "0.1.0" (static; compare with
// `AUTH_VERSION_MAJOR` … to check the header matches the library).
const char *auth_version(void);

#ifdef __cplusplus
}  // extern "C"
#endif  // __cplusplus

#endif  /* LIBAUTH_AUTH_H */
