//! The engine's `Host` over one C function, `auth_hook_fn`.
//!
//! The engine calls a hook synchronously on the thread that called
//! `auth_handle` / `auth_get_session`; so does this host: it calls the C
//! function right there, with the hook name and the arguments as
//! NUL-terminated JSON, and a result slot (`auth_hook_result`) the function
//! fills through the setters, which copy. Deadlines: the engine's default
//! `Host::call_with_timeout` applies (a C function cannot be interrupted; a
//! result that comes too late is dropped and the call fails as if the hook
//! had failed).

use std::collections::HashSet;
use std::ffi::{c_char, c_void, CString};

use libauth_core::{Hook, Host, HostError};
use serde_json::Value;

/// The hook answered; its result (if any) is in the `auth_hook_result`.
pub const AUTH_HOOK_OK: i32 = 0;
/// The hook failed; the `auth_hook_result` may say how
/// (`auth_hook_result_error`, or `{"message", "type", "code"}` JSON).
pub const AUTH_HOOK_ERROR: i32 = 1;

/// The host's one hook function. `hook_name` and `args_json` (NUL-terminated,
/// `args_len` bytes without the NUL) are valid only during the call.
/// Answer with `auth_hook_result_set(result, json, len)` (the JSON result;
/// none means `null`) and return `AUTH_HOOK_OK`, or report a failure with
/// `auth_hook_result_error(result, type, message, code)` and return
/// `AUTH_HOOK_ERROR`. `result` is valid only during the call.
///
/// ARGUMENTS AND RESULTS, by hook: `args_json` is an object with the keys
/// shown (`key?`: only in some calls, said below; `…`: other keys too), or
/// the JSON value shown; `->` is what the hook answers. Dates (`expires`,
/// `emailVerified`) are ISO-8601 strings. What a failing hook (or an answer
/// of the wrong kind) does is said per hook, as in Auth.js; events and
/// loggers never fail the request.
///
///   callbacks.signIn  {user, account: {type, provider, providerAccountId, …}, profile?, credentials?, email?: {verificationRequest}}
///     -> true to go on; a URL or path to send the user there instead;
///        anything else, or a failure, refuses the sign-in (AccessDenied).
///        `user` is what authorize, the profile function or the adapter
///        gave; `account` has the token response's fields too (OAuth);
///        `profile` for OAuth/OIDC; `credentials` the submitted form fields
///        (credentials); `email` before an email link is sent.
///   callbacks.redirect  {url, baseUrl}
///     -> the URL (absolute http(s), or a path under baseUrl) to go to;
///        anything else, or a failure: baseUrl.
///   callbacks.jwt  {token, user?, account?, profile?, isNewUser?, trigger?, session?}
///     -> the token to store (an object), or null to end the session; a
///        failure fails the sign-in (on a read: ends the session). At
///        sign-in: user, account, profile (OAuth/OIDC), isNewUser, trigger
///        "signIn" or "signUp"; on `update()` (POST session): trigger
///        "update" and session (the client's data); on a session read: the
///        token alone.
///   callbacks.session  {session: {user: {name?, email?, image?}, expires, amr?}, token?, user?, newSession?, trigger?}
///     -> the session the client sees (an object; anything else, or a
///        failure: no session). The session's user has the fields the
///        token or the stored user has. JWT sessions add `token` (and
///        trigger "update" on `update()`); database sessions add `user`
///        (the stored user) and, on `update()`, newSession and trigger.
///   events.signIn  {user, account: {type, provider, providerAccountId, …}, profile?, isNewUser?}
///   events.signOut  {session?, token?}
///     (database sessions: the deleted session or null; JWT: the token or null)
///   events.createUser  {user}
///   events.updateUser  {user}
///   events.linkAccount  {user, account: {type, provider, providerAccountId, …}, profile}
///   events.session  {session, token?}
///     -> events' results are ignored; a failure is logged.
///   providers.<id>.authorize  {credentials, request: {url, method, headers}}
///     -> the user (an object; without `id` one is made up), or null/false:
///        CredentialsSignin (`auth_hook_result_error` with type
///        "CredentialsSignin" and a code passes the code on). `headers` is
///        an object of lowercase names.
///   providers.<id>.sendVerificationRequest  {identifier, url, expires, token, provider: {id, name, type, from, maxAge}, theme: {brandColor, buttonText}, locale, request: {method, url, headers}}
///     -> ignored; a failure is EmailSignInError.
///   providers.<id>.profile  {profile, tokens}
///     -> the user (an object) for the provider's profile and token
///        response; anything else, or a failure, is OAuthProfileParseError.
///   providers.<id>.getUserInfo  {options: {provider: {id, name, type}}, request: {url, method, headers}}
///     -> a passkey provider's user for this request: {user, exists} (user
///        an object with at least `email` to register; exists: whether it
///        is stored), or null for "no one named" (a discoverable sign-in).
///   adapter.createUser  {id, name, email, emailVerified, image}
///   adapter.getUser  string
///   adapter.getUserByEmail  string
///   adapter.getUserByAccount  {provider, providerAccountId}
///   adapter.updateUser  {id, name?, email?, emailVerified?, image?}
///   adapter.deleteUser  string
///   adapter.linkAccount  {userId, type, provider, providerAccountId, …}
///   adapter.unlinkAccount  {provider, providerAccountId}
///   adapter.createSession  {sessionToken, userId, expires}
///   adapter.getSessionAndUser  string
///   adapter.updateSession  {sessionToken, expires}
///   adapter.deleteSession  string
///   adapter.createVerificationToken  {identifier, token, expires}
///   adapter.useVerificationToken  {identifier, token}
///     -> as Auth.js's adapter methods (a string argument is the id, email
///        or session token): createUser and updateUser the user; getUser*
///        the user or null; createSession the session (null: as given);
///        getSessionAndUser {session, user} or null; updateSession and
///        deleteSession the session or null; useVerificationToken the token
///        or null; the others ignored. A failure is AdapterError. The
///        session token an adapter sees is the SHA-256 (hex) of the
///        cookie's; updateUser sends only the fields that change.
///        deleteUser must delete the user's accounts, sessions and
///        passkeys with it (as Auth.js's adapters do): a sign-in that
///        proves the address of a user created without proof of it
///        deletes that user and creates it again under the same id.
///   adapter.getAuthenticator  string
///   adapter.createAuthenticator  {credentialID, userId, providerAccountId, credentialPublicKey, counter, credentialDeviceType, credentialBackedUp, transports, name, createdAt, lastUsedAt}
///   adapter.listAuthenticatorsByUserId  string
///   adapter.updateAuthenticatorCounter  {credentialID, newCounter, lastUsedAt}
///   adapter.renameAuthenticator  {credentialID, name}
///   adapter.deleteAuthenticator  string
///     -> passkeys (optional hooks; a webauthn provider needs all but
///        renameAuthenticator, and adapter.unlinkAccount, so a deleted
///        passkey takes its account with it). A string argument is the credential id, or the user id for
///        listAuthenticatorsByUserId. An authenticator is Auth.js's (counter
///        a number, credentialBackedUp a boolean, transports a comma-separated
///        string or null) plus name, createdAt and lastUsedAt (ISO dates, or
///        null). getAuthenticator, renameAuthenticator (name null clears it)
///        and deleteAuthenticator answer the authenticator or null;
///        createAuthenticator the authenticator (null: as given);
///        listAuthenticatorsByUserId an array (null: none);
///        updateAuthenticatorCounter the updated authenticator (null: no such
///        credential). A credential id already stored must fail the create.
///   jwt.encode  {token, secret, salt, maxAge}
///     -> the cookie value (a string). `secret` is the list of secrets.
///   jwt.decode  {token, secret, salt}
///     -> the token (an object), or null for an invalid one.
///   session.generateSessionToken  null
///     -> a string of 16 to 512 characters (anything else, or a failure,
///        fails the sign-in: SessionTokenError).
///   logger.error  {name, type, message, code, cause}
///   logger.warn  {code, message}
///   logger.debug  {message, metadata}
///     -> ignored; when the hook fails, the line goes to stderr.
#[allow(non_camel_case_types)]
pub type auth_hook_fn = Option<
    unsafe extern "C" fn(
        user_data: *mut c_void,
        hook_name: *const c_char,
        args_json: *const c_char,
        args_len: usize,
        result: *mut auth_hook_result,
    ) -> i32,
>;

/// Where a hook puts its answer. Opaque; filled by `auth_hook_result_set` or
/// `auth_hook_result_error`, owned by libauth.
#[derive(Default)]
pub struct auth_hook_result {
    /// What `auth_hook_result_set` recorded, already parsed.
    pub(crate) json: Option<Value>,
    pub(crate) error: Option<HostError>,
}

pub struct CHost {
    hook_fn: auth_hook_fn,
    user_data: *mut c_void,
    hooks: HashSet<String>,
}

// SAFETY: the header's contract: `hook_fn` is called from any thread that
// calls into the engine, so the host makes `user_data` (and what the
// function touches) thread-safe. The pointer itself is only passed back.
unsafe impl Send for CHost {}
// SAFETY: as for `Send`; `CHost` itself is never mutated after construction.
unsafe impl Sync for CHost {}

impl CHost {
    pub fn new(hook_fn: auth_hook_fn, user_data: *mut c_void, hooks: Vec<String>) -> CHost {
        CHost { hook_fn, user_data, hooks: hooks.into_iter().collect() }
    }
}

impl Host for CHost {
    fn has(&self, hook: &Hook) -> bool {
        self.hooks.contains(hook.name())
    }

    fn hook_names(&self) -> Option<Vec<String>> {
        Some(self.hooks.iter().cloned().collect())
    }

    fn call(&self, hook: &Hook, args: Value) -> Result<Value, HostError> {
        let (Some(f), true) = (self.hook_fn, self.hooks.contains(hook.name())) else {
            return Err(HostError::new(format!("hook {hook} is not registered by the host")));
        };
        let name = CString::new(hook.name())
            .map_err(|_| HostError::new(format!("the hook name {hook:?} holds a NUL byte")))?;
        let mut args = serde_json::to_vec(&args).map_err(|e| HostError::new(e.to_string()))?;
        let args_len = args.len();
        args.push(0);
        let mut result = auth_hook_result::default();
        // SAFETY: `f` is the host's function, called as the header documents:
        // every pointer is valid (NUL-terminated name and arguments, a live
        // result slot) until it returns, and none is kept afterwards.
        let status = unsafe { f(self.user_data, name.as_ptr(), args.as_ptr().cast(), args_len, &mut result) };
        answer(hook, status, result)
    }
}

/// What the hook's status and result slot mean.
pub(crate) fn answer(hook: &Hook, status: i32, result: auth_hook_result) -> Result<Value, HostError> {
    if let Some(error) = result.error {
        return Err(error);
    }
    match status {
        AUTH_HOOK_OK => Ok(result.json.unwrap_or(Value::Null)),
        AUTH_HOOK_ERROR => Err(match result.json {
            Some(json) => serde_json::from_value::<HostError>(json.clone())
                .unwrap_or_else(|_| HostError::new(format!("{hook} failed: {json}"))),
            None => HostError::new(format!("{hook} failed")),
        }),
        other => Err(HostError::new(format!("{hook} returned the unknown status {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(json: Option<&str>) -> auth_hook_result {
        auth_hook_result { json: json.map(|j| serde_json::from_str(j).unwrap()), error: None }
    }

    #[test]
    fn statuses() {
        let hook = Hook::JWT;
        assert_eq!(answer(&hook, AUTH_HOOK_OK, slot(None)).unwrap(), Value::Null);
        assert_eq!(answer(&hook, AUTH_HOOK_OK, slot(Some("{\"a\":1}"))).unwrap()["a"], 1);
        let e = answer(&hook, AUTH_HOOK_ERROR, slot(Some("\"boom\""))).unwrap_err();
        assert!(e.message.contains("boom"), "{e}");
        let e = answer(&hook, AUTH_HOOK_ERROR, slot(Some(r#"{"message":"m","type":"CredentialsSignin","code":"c"}"#)))
            .unwrap_err();
        assert_eq!((e.error_type.as_deref(), e.code.as_deref()), (Some("CredentialsSignin"), Some("c")));
        assert!(answer(&hook, 7, slot(None)).unwrap_err().message.contains("unknown status 7"));
    }
}
