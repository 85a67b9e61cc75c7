//! Passkey routes, on Auth.js's wire protocol:
//! - `GET webauthn-options/<id>?action=&email=`: the WebAuthn options
//!   (`{ action, options }`) and the encrypted challenge cookie;
//! - `POST callback/<id>` with `action`, `data` (the credential JSON) and
//!   `csrfToken`: verify, then sign in as any provider does.
//!
//! And libauth's own, for the signed-in user: `GET passkeys` lists their
//! passkeys, `POST passkeys` renames or deletes one; `GET webauthn.js` is
//! the browser module the sign-in page runs.
//!
//! Each challenge is spent once on the server: stored as a verification
//! token (hashed) when the options are made, consumed atomically by the
//! callback. A captured cookie and assertion cannot sign in twice, even
//! with an authenticator whose counter stays 0.

use serde_json::{json, Map, Value};

use super::register::{self, SignInKind, SignInUser};
use super::sign_in::complete_sign_in;
use super::{Ctx, Reply};
use crate::cookies::SetCookie;
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::providers::webauthn::WebAuthnProvider;
use crate::providers::{Provider, ProviderKind};
use crate::ratelimit::Route;
use crate::store::{AccountType, AdapterAccount, Authenticator, DataStores, VerificationToken};
use crate::time::now_millis;
use crate::webauthn::{self as ceremony, Action, NewPasskeyUser, Pending, RelyingParty, WebAuthnError};

/// The verification-token identifier under which challenges are spent.
fn challenge_identifier(provider_id: &str) -> String {
    format!("webauthn-challenge:{provider_id}")
}

/// Stored as a session token is: its SHA-256, so the database never holds
/// a live challenge.
fn challenge_token(challenge: &str) -> String {
    crate::session::stored_session_token(challenge)
}

fn verification_error(e: WebAuthnError) -> AuthError {
    AuthError::from(e)
}

/// 400 `{ error, message }`: what the options route answers a request it
/// cannot serve (Auth.js answers `{ error: "Invalid request" }`).
fn invalid_request(message: &str) -> Reply {
    Reply::Json { status: 400, body: json!({ "error": "Invalid request", "message": message }), no_store: true }
}

fn passkey_provider<'a>(ctx: &Ctx<'a>) -> Result<(&'a Provider, &'a WebAuthnProvider), AuthError> {
    let provider = ctx.provider()?;
    match &provider.kind {
        ProviderKind::WebAuthn(p) => Ok((provider, p)),
        _ => Err(AuthError::new(
            ErrorType::InvalidProviderType,
            format!("provider {:?} is not a passkey (webauthn) provider", provider.id),
        )),
    }
}

fn stores<'a>(ctx: &Ctx<'a>) -> Result<&'a DataStores, AuthError> {
    // Checked at construction: a passkey provider has an adapter.
    let auth = ctx.auth;
    auth.stores.data().ok_or_else(|| AuthError::new(ErrorType::MissingAdapter, "passkeys need an adapter"))
}

fn relying_party(ctx: &Ctx, p: &WebAuthnProvider) -> Result<RelyingParty, AuthError> {
    RelyingParty::resolve(p, &ctx.origin).ok_or_else(|| {
        AuthError::new(ErrorType::InvalidCallbackUrl, "the deployment's origin has no host for the relying party ID")
    })
}

/// Who a passkey request is for: the user (stored, or to create), and
/// whether they are stored.
struct UserInfo {
    user: Map<String, Value>,
    exists: bool,
}

/// The signed-in user and the stores holding them.
type SignedIn<'a> = (&'a DataStores, String);

/// Who a signed-out visitor names for a sign-up, per Auth.js's
/// `getUserInfo`: the host's function, or by default the `email`
/// parameter. `None`: no one named (a discoverable sign-in).
///
/// The adapter is never asked whether that user exists: a signed-out
/// answer must not depend on it (H1). Even when the host's `getUserInfo`
/// says the user exists, the signed-out visitor gets a sign-up ceremony for
/// a new user, which the callback refuses if the address belongs to
/// someone; an existing user signs in with a discoverable ceremony.
///
/// `Err(reply)`: the named email is not a plausible address (checked as
/// the email provider checks it), so no user is made of it (P2).
fn sign_up_info(
    ctx: &mut Ctx,
    provider: &Provider,
    p: &WebAuthnProvider,
    email: Option<&str>,
) -> Result<Result<Option<UserInfo>, Reply>, AuthError> {
    let mut user = if p.custom_user_info {
        let options = json!({ "provider": { "id": provider.id, "name": provider.name, "type": "webauthn" } });
        let answer = ctx
            .auth
            .callbacks
            .host
            .call(
                &Hook::provider(&provider.id, "getUserInfo"),
                json!({ "options": options, "request": ctx.req.to_record() }),
            )
            .map_err(|e| AuthError::from_host(e, ErrorType::CallbackRouteError))?;
        match answer {
            Value::Null => return Ok(Ok(None)),
            Value::Object(mut info) => match info.remove("user") {
                Some(Value::Object(user)) => user,
                _ => {
                    return Err(AuthError::new(
                        ErrorType::CallbackRouteError,
                        "getUserInfo must return { user, exists } or null",
                    ))
                }
            },
            _ => {
                return Err(AuthError::new(
                    ErrorType::CallbackRouteError,
                    "getUserInfo must return { user, exists } or null",
                ))
            }
        }
    } else {
        let Some(email) = email else { return Ok(Ok(None)) };
        Map::from_iter([("email".into(), Value::String(email.to_owned()))])
    };
    // A new user's id is chosen at the options (it is the WebAuthn user
    // handle): whatever id the host's answer carried names no one here.
    user.remove("id");
    match user.get("email").and_then(Value::as_str) {
        None => Ok(Err(invalid_request("registering a passkey needs the user's email"))),
        Some(raw) => match super::email::normalise_email(raw) {
            Some(email) => {
                user.insert("email".into(), Value::String(email));
                Ok(Ok(Some(UserInfo { user, exists: false })))
            }
            None => Ok(Err(invalid_request("not a valid email address"))),
        },
    }
}

/// Which ceremony: a named action is taken when it fits (registering
/// needs a user: the signed-in one, or a new one named by email); without
/// one, a signed-out visitor registers when they named someone and
/// authenticates (discoverable) otherwise, and a signed-in user must say
/// which. Signed out, `named` depends only on the request, never on
/// whether the user exists, so neither does the answer (unlike Auth.js,
/// which authenticates a known email and refuses to register it).
fn infer_action(signed_in: bool, asked: Option<&str>, named: bool) -> Option<Action> {
    match asked {
        Some("authenticate") => Some(Action::Authenticate),
        Some("register") if signed_in || named => Some(Action::Register),
        None if !signed_in => Some(if named { Action::Register } else { Action::Authenticate }),
        _ => None,
    }
}

/// `GET webauthn-options/<id>`.
pub fn options(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    let (provider, p) = passkey_provider(ctx)?;
    // Counted per address as stored (case and spaces don't make another).
    let raw_email = ctx.query("email").map(|e| e.trim().to_lowercase()).filter(|e| !e.is_empty());
    super::limits::check(ctx, Route::Passkey, raw_email.as_deref().as_slice(), 1)?;
    let db = stores(ctx)?;
    // Each options request stores a challenge, anonymous ones included:
    // expired ones go whatever the session strategy (P4).
    ctx.auth.purge_expired_now_and_then();
    // An unreadable session cookie (tampered, foreign, rotated secret) is
    // no session: the visitor is signed out, not a configuration error.
    let session_user = match register::current_user_id(ctx, db)? {
        Some(id) => db.users.get_user(&id)?,
        None => None,
    };
    let asked = ctx.query("action");
    if asked.as_deref().is_some_and(|a| Action::parse(a).is_none()) {
        return Ok(invalid_request("action must be register or authenticate"));
    }
    let info = match &session_user {
        Some(user) => Some(UserInfo { user: register::user_json(user), exists: true }),
        // A discoverable sign-in names no one: whatever came is ignored.
        None if asked.as_deref() == Some("authenticate") => None,
        None => match sign_up_info(ctx, provider, p, raw_email.as_deref())? {
            Ok(info) => info,
            Err(reply) => return Ok(reply),
        },
    };
    let Some(action) = infer_action(session_user.is_some(), asked.as_deref(), info.is_some()) else {
        return Ok(invalid_request(if session_user.is_some() {
            "signed in: say action=register to add a passkey, or action=authenticate"
        } else {
            "cannot register: no user was named (pass email)"
        }));
    };
    let rp = relying_party(ctx, p)?;
    let now = now_millis() as i64;
    let (options, pending) = match action {
        Action::Authenticate => {
            // Only the signed-in user's own passkeys are ever listed;
            // signed out, the ceremony is discoverable (no credential ids).
            let allowed = match &session_user {
                Some(user) => db.passkeys.list_authenticators_by_user_id(&user.id)?,
                None => Vec::new(),
            };
            let (options, pending) = ceremony::authentication_options(p, &rp, &allowed).map_err(verification_error)?;
            (serde_json::to_value(options), pending)
        }
        Action::Register => {
            let Some(UserInfo { mut user, exists }) = info else {
                return Ok(invalid_request("registering a passkey needs the user's email"));
            };
            let Some(email) = user.get("email").and_then(Value::as_str).map(str::to_lowercase) else {
                return Ok(invalid_request("registering a passkey needs the user's email"));
            };
            // A new user's id is chosen now: it is the WebAuthn user handle
            // and becomes the stored user's id.
            let id = match user.get("id").and_then(Value::as_str) {
                Some(id) if exists => id.to_owned(),
                _ => uuid::Uuid::new_v4().to_string(),
            };
            let exclude = if exists { db.passkeys.list_authenticators_by_user_id(&id)? } else { Vec::new() };
            let display =
                user.get("name").and_then(Value::as_str).filter(|n| !n.is_empty()).unwrap_or(&email).to_owned();
            let new_user = NewPasskeyUser { id: &id, email: &email, display_name: &display };
            let (options, mut pending) =
                ceremony::registration_options(p, &rp, &new_user, &exclude).map_err(verification_error)?;
            user.insert("id".into(), Value::String(id));
            user.insert("email".into(), Value::String(email));
            pending.user = Some(user);
            (serde_json::to_value(options), pending)
        }
    };
    let options = options.map_err(|e| AuthError::new(ErrorType::WebAuthnVerificationError, e.to_string()))?;
    // The server's copy of the challenge, spent by the callback.
    let expires = now + p.timeout.as_millis() as i64;
    db.tokens.create_verification_token(&VerificationToken {
        identifier: challenge_identifier(&provider.id),
        token: challenge_token(&pending.challenge),
        expires,
    })?;
    ctx.auth.challenge_stored(expires.max(0) as u64);
    let sealed = seal(ctx, &pending, p)?;
    let mut cookie = SetCookie::new(&ctx.cookies.webauthn_challenge, sealed);
    cookie.options.max_age = Some(p.timeout.as_secs());
    ctx.set_cookies.push(cookie);
    Ok(Reply::Json { status: 200, body: json!({ "action": action.as_str(), "options": options }), no_store: true })
}

fn seal(ctx: &Ctx, pending: &Pending, p: &WebAuthnProvider) -> Result<String, AuthError> {
    let claims = match serde_json::to_value(pending) {
        Ok(Value::Object(claims)) => claims,
        _ => return Err(AuthError::new(ErrorType::WebAuthnVerificationError, "the challenge state did not serialise")),
    };
    ctx.auth
        .codec
        .encode(&claims, &ctx.cookies.webauthn_challenge.name, p.timeout.as_secs().max(1))
        .map_err(|e| AuthError::new(ErrorType::WebAuthnVerificationError, e.to_string()))
}

/// The challenge cookie's state; the cookie goes either way (one use).
fn open_pending(ctx: &mut Ctx) -> Result<Pending, WebAuthnError> {
    let spec = &ctx.cookies.webauthn_challenge;
    let sealed = ctx.req.cookie(&spec.name);
    if sealed.is_some() {
        ctx.set_cookies.push(SetCookie::expired(&spec.name, &spec.options));
    }
    let claims = sealed.and_then(|s| ctx.auth.codec.decode(&s, &spec.name).ok()).ok_or(WebAuthnError::NoChallenge)?;
    serde_json::from_value(Value::Object(claims)).map_err(|_| WebAuthnError::NoChallenge)
}

/// `POST callback/<id>` for a passkey provider (CSRF checked by the caller).
pub fn callback(ctx: &mut Ctx, provider: &Provider, p: &WebAuthnProvider) -> Result<Reply, AuthError> {
    super::limits::check(ctx, Route::Passkey, &[], 1)?;
    ctx.auth.purge_expired_now_and_then();
    let action = ctx.body_str("action").and_then(|a| Action::parse(&a)).ok_or_else(|| {
        AuthError::new(ErrorType::WebAuthnVerificationError, "the action parameter must be register or authenticate")
    })?;
    let data = ctx
        .body_str("data")
        .ok_or_else(|| AuthError::new(ErrorType::WebAuthnVerificationError, "the data parameter is missing"))?;
    let pending = open_pending(ctx).map_err(verification_error)?;
    if pending.action != action {
        return Err(verification_error(WebAuthnError::WrongAction {
            expected: pending.action.as_str(),
            given: action.as_str(),
        }));
    }
    let db = stores(ctx)?;
    // Parse before spending the challenge, so a malformed body costs the
    // user nothing; verify after, so a replay of a good body fails.
    let rp = relying_party(ctx, p)?;
    match action {
        Action::Register => {
            let credential = ceremony::parse_registration(&data).map_err(verification_error)?;
            spend_challenge(db, provider, &pending)?;
            let user = pending.user.clone().ok_or(WebAuthnError::NoChallenge).map_err(verification_error)?;
            let user_id = user.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
            let now = now_millis() as i64;
            let authenticator = ceremony::verify_registration(p, &rp, &pending, &credential, &user_id, now)
                .map_err(verification_error)?;
            // A registration creates a user or attaches to the signed-in
            // one; it never signs in as the owner of what it presents. A
            // credential id already stored, as a passkey or only as a
            // passkey account (a leftover of a passkey deleted outside
            // libauth), is refused (P1): only `authenticate` signs in with
            // an existing credential, and it needs the stored key.
            if db.passkeys.get_authenticator(&authenticator.credential_id)?.is_some()
                || db.accounts.get_user_by_account(&provider.id, &authenticator.credential_id)?.is_some()
            {
                return Err(verification_error(WebAuthnError::AlreadyRegistered));
            }
            let signed_in =
                SignInUser::from_provider(user).ok_or(WebAuthnError::NoChallenge).map_err(verification_error)?;
            let account = AdapterAccount::new(AccountType::WebAuthn, &provider.id, &authenticator.credential_id);
            complete_sign_in(ctx, SignInKind::WebAuthn, signed_in, account, None, Map::new(), Some(authenticator))
        }
        Action::Authenticate => {
            let credential = ceremony::parse_assertion(&data).map_err(verification_error)?;
            spend_challenge(db, provider, &pending)?;
            let credential_id = ceremony::assertion_credential_id(&credential);
            let stored = db
                .passkeys
                .get_authenticator(&credential_id)?
                .ok_or(WebAuthnError::UnknownCredential)
                .map_err(verification_error)?;
            // A discoverable credential names its user: it must be the owner.
            if let Some(handle) = ceremony::assertion_user_handle(&credential) {
                if handle != stored.user_id {
                    return Err(verification_error(WebAuthnError::Verification(
                        "the user handle is not the passkey's owner".into(),
                    )));
                }
            }
            let counter =
                ceremony::verify_assertion(p, &rp, &pending, &credential, &stored).map_err(verification_error)?;
            db.passkeys.update_authenticator_counter(&credential_id, counter, now_millis() as i64)?;
            let user = db.users.get_user(&stored.user_id)?.ok_or_else(|| {
                verification_error(WebAuthnError::Verification("the passkey's user no longer exists".into()))
            })?;
            let signed_in = SignInUser::from_provider(register::user_json(&user))
                .ok_or_else(|| AuthError::new(ErrorType::AdapterError, "the stored user has no id"))?;
            let account = AdapterAccount::new(AccountType::WebAuthn, &provider.id, &stored.provider_account_id);
            complete_sign_in(ctx, SignInKind::WebAuthn, signed_in, account, None, Map::new(), None)
        }
    }
}

/// Consume the server's copy of the challenge: of any number of uses of one
/// challenge (replays, concurrent submits, other processes), one gets it.
fn spend_challenge(db: &DataStores, provider: &Provider, pending: &Pending) -> Result<(), AuthError> {
    let spent =
        db.tokens.use_verification_token(&challenge_identifier(&provider.id), &challenge_token(&pending.challenge))?;
    match spent {
        Some(token) if token.expires > now_millis() as i64 => Ok(()),
        _ => Err(verification_error(WebAuthnError::ChallengeSpent)),
    }
}

/// One passkey as its owner sees it (never the key or the counter).
pub fn passkey_json(a: &Authenticator) -> Value {
    json!({
        "id": a.credential_id,
        "name": a.name,
        "createdAt": a.created_at.map(crate::store::date::to_iso),
        "lastUsedAt": a.last_used_at.map(crate::store::date::to_iso),
        "deviceType": a.credential_device_type,
        "backedUp": a.credential_backed_up,
        "transports": a.transports.as_deref().map(|t| t.split(',').collect::<Vec<_>>()).unwrap_or_default(),
    })
}

/// `GET passkeys`: the signed-in user's passkeys; 401 when signed out.
pub fn list(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    let Some((db, user_id)) = signed_in_user(ctx)? else { return Ok(unauthorized()) };
    let passkeys: Vec<Value> = db.passkeys.list_authenticators_by_user_id(&user_id)?.iter().map(passkey_json).collect();
    Ok(Reply::Json { status: 200, body: json!({ "passkeys": passkeys }), no_store: true })
}

/// `POST passkeys` with `action=rename&id=&name=` or `action=delete&id=`
/// (and `csrfToken`, checked by the caller). The account page's forms add
/// `return=account`: the answer is then a redirect back to it, with a
/// notice saying what happened.
pub fn manage(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    let from_page = super::account::posted_from_page(ctx);
    let reply = change(ctx)?;
    if !from_page {
        return Ok(reply);
    }
    Ok(super::account::back_from(ctx, &reply, |status| match status {
        200 => Some("passkey-removed"),
        409 => Some("passkey-last"),
        _ => None,
    }))
}

fn change(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    let Some((_, user_id)) = signed_in_user(ctx)? else { return Ok(unauthorized()) };
    let id = ctx.body_str("id").unwrap_or_default();
    let answer = match ctx.body_str("action").as_deref() {
        Some("rename") => {
            let name = ctx.body_str("name");
            ctx.auth.rename_passkey(&user_id, &id, name.as_deref()).map(|p| json!({ "passkey": p }))
        }
        Some("delete") => ctx.auth.delete_passkey(&user_id, &id).map(|()| json!({ "deleted": true })),
        _ => return Ok(invalid_request("action must be rename or delete")),
    };
    match answer {
        Ok(body) => Ok(Reply::Json { status: 200, body, no_store: true }),
        Err(e) => {
            let status = match e.error_type {
                ErrorType::LastSignInMethod => 409,
                ErrorType::WebAuthnVerificationError => 404,
                ErrorType::AdapterError | ErrorType::Overloaded => return Err(e),
                _ => 400,
            };
            Ok(Reply::Json {
                status,
                body: json!({ "error": e.error_type.as_str(), "message": e.message }),
                no_store: true,
            })
        }
    }
}

fn unauthorized() -> Reply {
    Reply::Json { status: 401, body: json!({ "error": "Unauthorized", "message": "sign in first" }), no_store: true }
}

fn signed_in_user<'a>(ctx: &Ctx<'a>) -> Result<Option<SignedIn<'a>>, AuthError> {
    let auth = ctx.auth;
    let Some(db) = auth.stores.data() else { return Ok(None) };
    let id = register::current_user_id(ctx, db)?;
    Ok(id.map(|id| (db, id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_never_depend_on_whether_the_named_user_exists() {
        // Signed out: only what the request says counts.
        assert_eq!(infer_action(false, None, false), Some(Action::Authenticate));
        assert_eq!(infer_action(false, None, true), Some(Action::Register));
        assert_eq!(infer_action(false, Some("register"), true), Some(Action::Register));
        assert_eq!(infer_action(false, Some("register"), false), None);
        assert_eq!(infer_action(false, Some("authenticate"), true), Some(Action::Authenticate));
        // Signed in: the session's user is named; they must say which.
        assert_eq!(infer_action(true, None, true), None);
        assert_eq!(infer_action(true, Some("register"), true), Some(Action::Register));
        assert_eq!(infer_action(true, Some("authenticate"), true), Some(Action::Authenticate));
        assert_eq!(infer_action(false, Some("other"), false), None);
    }
}
