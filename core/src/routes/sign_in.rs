//! The end of every sign-in, whichever route it came through (credentials,
//! OAuth/OIDC, an email link, a passkey): the signIn callback, users and
//! accounts, the session, the signIn event, the redirect. The routes call
//! it; it calls none of them.

use serde_json::{Map, Value};

use super::register::{self, SignInKind, SignInUser};
use super::{Ctx, Reply};
use crate::callbacks::SignInDecision;
use crate::config::SessionStrategy;
use crate::cookies::ChunkedCookie;
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::session::default_token;
use crate::store::{AdapterAccount, AdapterError, AdapterSession, Authenticator, DataStores};
use crate::time::{now_millis, now_seconds};
use crate::webauthn::WebAuthnError;

/// The end of every sign-in: signIn callback, users and accounts (with an
/// adapter), the session (a JWT through the jwt callback, or a database
/// session), the signIn event, the redirect. `new_passkey`: a passkey
/// registration's passkey, stored once the user is known (and the sign-in
/// undone if it cannot be).
pub(super) fn complete_sign_in(
    ctx: &mut Ctx,
    kind: SignInKind,
    signed_in: SignInUser,
    mut account: AdapterAccount,
    profile: Option<Map<String, Value>>,
    extra_sign_in_args: Map<String, Value>,
    new_passkey: Option<crate::store::Authenticator>,
) -> Result<Reply, AuthError> {
    let callback_url = ctx.callback_url();
    let auth = ctx.auth;
    let stores = auth.stores.data();
    let strategy = ctx.auth.settings.strategy;
    // Credentials users are the app's own: stored only when a database
    // session must reference them.
    let use_adapter = stores.is_some() && (kind != SignInKind::Credentials || strategy == SessionStrategy::Database);

    let known = match (stores, use_adapter) {
        (Some(a), true) => register::known_user(a, kind, &account)?,
        _ => None,
    };
    // A passkey registration creates a user or attaches to the signed-in
    // one: an account already stored for its credential id belongs to
    // someone, and presenting the id must not sign in as them (P1).
    if new_passkey.is_some() && known.is_some() {
        return Err(AuthError::new(ErrorType::WebAuthnVerificationError, "this passkey is registered already"));
    }
    let mut sign_in_args = Map::new();
    sign_in_args.insert(
        "user".into(),
        known.as_ref().map_or_else(|| Value::Object(signed_in.raw.clone()), register::user_value),
    );
    sign_in_args.insert("account".into(), account_json(&account));
    if let Some(profile) = &profile {
        sign_in_args.insert("profile".into(), Value::Object(profile.clone()));
    }
    sign_in_args.extend(extra_sign_in_args);
    let decision = ctx.auth.callbacks.sign_in(Value::Object(sign_in_args), &ctx.origin)?;
    if let SignInDecision::Redirect(url) = decision {
        return Ok(Reply::Redirect(url));
    }

    // Without a stored user, the sign-in itself says who this is and
    // whether the address was proven; the provider id keeps equal account
    // ids at two providers apart.
    let unstored_identity = crate::identity::Identity {
        subject: format!("{}:{}", account.provider, account.provider_account_id),
        email: signed_in.email.as_ref().map(|e| e.trim().to_lowercase()),
        email_verified: signed_in.email_verified,
    };
    let (user, is_new_user) = match (stores, use_adapter) {
        (Some(a), true) => {
            let r = register::login_or_register(ctx, a, kind, known, &signed_in, &account, profile.as_ref())?;
            (r.user, r.is_new_user)
        }
        _ => (signed_in.raw, false),
    };
    if use_adapter {
        if let Some(id) = user.get("id").and_then(Value::as_str) {
            account.user_id = id.to_owned();
        }
    }
    let identity = if use_adapter { stored_identity(&user) } else { Some(unstored_identity) };
    // A stored user with a second factor: no session yet, the second step
    // first (a passkey that verified its user is both factors), unless this
    // browser is one the user trusts.
    let first = FirstFactor::of(ctx, kind, &account.provider);
    let user_id = user.get("id").and_then(Value::as_str).map(str::to_owned);
    let mut finish = Finish {
        kind,
        first,
        user,
        account: account_json(&account),
        profile: profile.map(Value::Object),
        is_new_user,
        identity,
        callback_url,
        new_passkey,
    };
    if let (Some(db), true, Some(user_id)) = (stores, use_adapter, user_id) {
        // A passkey added to a user with a second factor is kept only once
        // the second step is passed, whatever the passkey or the browser: a
        // stolen session cannot add a way in (a verifying passkey is both
        // factors) that skips it.
        let adds_passkey = finish.new_passkey.is_some() && !is_new_user;
        let due = if adds_passkey {
            crate::user_two_factor::totp_enabled_at(db, &user_id)?
        } else {
            ctx.auth.second_step_due(db, first, &user_id)?
        };
        if let Some(since) = due {
            if adds_passkey || !super::trusted_device::trusted(ctx, db, &user_id, since) {
                return super::two_factor::start(ctx, finish);
            }
        }
    }
    store_pending_passkey(ctx, &mut finish)?;
    issue_session(ctx, finish, &[first.amr()])
}

/// Store the passkey a registration brought, once the user is known (and
/// past the second step where there is one); the sign-in is undone if it
/// cannot be.
pub(crate) fn store_pending_passkey(ctx: &Ctx, finish: &mut Finish) -> Result<(), AuthError> {
    let (Some(passkey), Some(db)) = (finish.new_passkey.take(), ctx.auth.stores.data()) else {
        return Ok(());
    };
    let user_id = finish.user.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
    let provider_id = finish.account.get("provider").and_then(Value::as_str).unwrap_or_default().to_owned();
    store_new_passkey(ctx, db, passkey, &user_id, &provider_id, finish.is_new_user)
}

/// How the first factor of a sign-in was proven, for the second step's
/// policy (`twoFactor.signIn`) and the session's `amr` (RFC 8176 values).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FirstFactor {
    Password,
    Credentials,
    OAuth,
    Email,
    /// A passkey whose provider requires user verification: both factors.
    VerifiedPasskey,
    /// A passkey that may not have verified its user.
    Passkey,
}

impl FirstFactor {
    fn of(ctx: &Ctx, kind: SignInKind, provider_id: &str) -> FirstFactor {
        match kind {
            SignInKind::Password => FirstFactor::Password,
            SignInKind::Credentials => FirstFactor::Credentials,
            SignInKind::OAuth { .. } => FirstFactor::OAuth,
            SignInKind::Email => FirstFactor::Email,
            SignInKind::WebAuthn => {
                let required = ctx.auth.providers.iter().any(|p| {
                    p.id == provider_id
                        && matches!(&p.kind, crate::providers::ProviderKind::WebAuthn(w)
                            if w.user_verification == crate::providers::webauthn::UserVerification::Required)
                });
                if required {
                    FirstFactor::VerifiedPasskey
                } else {
                    FirstFactor::Passkey
                }
            }
        }
    }

    /// The `amr` value (RFC 8176): `pwd`, `fed` (a federated sign-in:
    /// OAuth/OIDC), `email` (a link), `hwk` (a passkey), `mfa` for a
    /// passkey that verified its user.
    pub(crate) fn amr(self) -> &'static str {
        match self {
            FirstFactor::Password | FirstFactor::Credentials => "pwd",
            FirstFactor::OAuth => "fed",
            FirstFactor::Email => "email",
            FirstFactor::VerifiedPasskey => "mfa",
            FirstFactor::Passkey => "hwk",
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            FirstFactor::Password => "password",
            FirstFactor::Credentials => "credentials",
            FirstFactor::OAuth => "oauth",
            FirstFactor::Email => "email",
            FirstFactor::VerifiedPasskey | FirstFactor::Passkey => "passkey",
        }
    }
}

/// A sign-in whose user is known: what issuing its session needs (kept in
/// the pending cookie while the second step waits).
pub(crate) struct Finish {
    pub kind: SignInKind,
    pub first: FirstFactor,
    pub user: Map<String, Value>,
    pub account: Value,
    pub profile: Option<Value>,
    pub is_new_user: bool,
    pub identity: Option<crate::identity::Identity>,
    pub callback_url: String,
    /// A registration's new passkey, stored once the sign-in is finished.
    pub new_passkey: Option<Authenticator>,
}

/// The session of a finished sign-in (a JWT through the jwt callback, or a
/// database session), the signIn event, the redirect. `amr`: how the user
/// signed in, carried in a JWT session's identity claim or a database
/// session's cookie.
pub(crate) fn issue_session(ctx: &mut Ctx, finish: Finish, amr: &[&str]) -> Result<Reply, AuthError> {
    let Finish { kind, user, account, profile, is_new_user, identity, callback_url, .. } = finish;
    let strategy = ctx.auth.settings.strategy;
    let stores = ctx.auth.stores.data();
    let jar = ChunkedCookie::read(&ctx.cookies.session_token, ctx.req);
    match (strategy, stores) {
        (SessionStrategy::Database, Some(db)) => {
            let token = ctx.auth.new_session_cookie_value(amr)?;
            let expires_ms = (now_millis() as i64).saturating_add(ctx.auth.settings.session_max_age as i64 * 1000);
            let user_id = user.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
            let stored = crate::session::stored_session_token(&token);
            let details = ctx.auth.session_details(ctx.req);
            db.create_session_with_details(
                &AdapterSession { session_token: stored, user_id, expires: expires_ms },
                &details,
            )?;
            // No fixation: a session this browser held before (planted or
            // not) ends now; the new cookie replaces it.
            if let Some(previous) = jar.value() {
                if let Err(e) = db.sessions.delete_session(&crate::session::stored_session_token(previous)) {
                    ctx.auth.callbacks.log(&AuthError::from(e));
                }
            }
            ctx.set_cookies.extend(jar.write(&token, (expires_ms / 1000) as u64));
            ctx.auth.purge_expired_now_and_then();
        }
        _ => {
            let mut args = Map::new();
            args.insert("user".into(), Value::Object(user.clone()));
            args.insert("account".into(), account.clone());
            if let Some(profile) = &profile {
                args.insert("profile".into(), profile.clone());
            }
            args.insert("isNewUser".into(), Value::Bool(is_new_user));
            args.insert("trigger".into(), if is_new_user { "signUp" } else { "signIn" }.into());
            let token = ctx
                .auth
                .callbacks
                .jwt(default_token(&user), args)
                .map_err(|e| AuthError::new(ErrorType::CallbackRouteError, e.message.clone()).with_source(e))?;
            match token {
                None => ctx.set_cookies.extend(jar.clear()),
                Some(mut token) => {
                    // The engine's own claim, whatever the callback returned.
                    match identity {
                        Some(identity) => token.insert(
                            crate::identity::CLAIM.into(),
                            crate::identity::session_claim(&identity, now_millis() as i64, amr),
                        ),
                        None => token.remove(crate::identity::CLAIM),
                    };
                    let encoded = ctx.auth.encode_session_token(&token, &ctx.cookies.session_token.name)?;
                    let expires = now_seconds() + ctx.auth.settings.session_max_age;
                    ctx.set_cookies.extend(jar.write(&encoded, expires));
                }
            }
        }
    }
    ctx.auth.callbacks.event(&Hook::EVENT_SIGN_IN, || {
        let mut message = Map::new();
        message.insert("user".into(), Value::Object(user));
        message.insert("account".into(), account);
        if let Some(profile) = profile {
            message.insert("profile".into(), profile);
        }
        if kind != SignInKind::Credentials {
            message.insert("isNewUser".into(), Value::Bool(is_new_user));
        }
        Value::Object(message)
    });
    if is_new_user {
        if let Some(page) = &ctx.auth.settings.pages.new_user {
            let sep = if page.contains('?') { '&' } else { '?' };
            let params =
                url::form_urlencoded::Serializer::new(String::new()).append_pair("callbackUrl", &callback_url).finish();
            return Ok(Reply::Redirect(format!("{}{sep}{params}", super::page_url(&ctx.origin, page))));
        }
    }
    Ok(Reply::Redirect(callback_url))
}

/// The identity of a stored user (as `user_json` gives it): its id, and its
/// email as proven when the row says when it was verified.
fn stored_identity(user: &Map<String, Value>) -> Option<crate::identity::Identity> {
    let subject = user.get("id").and_then(Value::as_str).filter(|id| !id.is_empty())?.to_owned();
    let email = user.get("email").and_then(Value::as_str).map(str::to_owned);
    let verified = user.get("emailVerified").is_some_and(|v| !v.is_null());
    Some(crate::identity::Identity { subject, email_verified: verified && email.is_some(), email })
}

/// The account as callbacks and events see it (Auth.js's `Account`).
pub(super) fn account_json(account: &AdapterAccount) -> Value {
    serde_json::to_value(account).unwrap_or(Value::Null)
}

/// After the user is resolved at a registration: store the passkey. If that
/// fails, nothing of the sign-in stays: a user created for it is deleted,
/// an account linked for it unlinked.
fn store_new_passkey(
    ctx: &Ctx,
    db: &DataStores,
    mut authenticator: Authenticator,
    user_id: &str,
    provider_id: &str,
    is_new_user: bool,
) -> Result<(), AuthError> {
    authenticator.user_id = user_id.to_owned();
    let error = match db.passkeys.create_authenticator(&authenticator) {
        Ok(_) => return Ok(()),
        Err(e) => e,
    };
    let undo = if is_new_user {
        db.delete_user(user_id)
    } else {
        db.accounts.unlink_account(provider_id, &authenticator.provider_account_id)
    };
    if let Err(undo_error) = undo {
        ctx.auth.callbacks.log(&AuthError::from(undo_error));
    }
    Err(match error {
        AdapterError::Constraint { .. } => WebAuthnError::AlreadyRegistered.into(),
        other => other.into(),
    })
}
