//! `GET|POST callback/<provider>`: finish a sign-in.

use serde_json::{json, Map, Value};

use super::register::{SignInKind, SignInUser};
use super::{Ctx, Reply};
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::providers::{CredentialsProvider, Provider, ProviderKind};
use crate::ratelimit::Route;
use crate::store::{AccountType, AdapterAccount};

pub fn handle(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    let provider = ctx.provider()?;
    let is_post = ctx.req.method.eq_ignore_ascii_case("POST");
    match &provider.kind {
        ProviderKind::Credentials(p) if is_post => {
            ctx.require_csrf()?;
            credentials(ctx, provider, p)
        }
        ProviderKind::Credentials(_) => {
            Err(AuthError::new(ErrorType::UnknownAction, "the credentials callback only accepts POST"))
        }
        // State, PKCE and nonce protect this route; the provider can't send
        // our CSRF token. Each callback costs a token request: counted per IP.
        ProviderKind::OAuth(p) => {
            super::limits::check(ctx, Route::Callback, &[], 1)?;
            super::oauth::callback(ctx, provider, p)
        }
        ProviderKind::Email(p) => {
            super::limits::check(ctx, Route::Callback, &[], 1)?;
            super::email::callback(ctx, provider, p)
        }
        // Auth.js checks no CSRF token here; a passkey sign-in changes
        // state like any other, so libauth does.
        ProviderKind::WebAuthn(p) if is_post => {
            ctx.require_csrf()?;
            super::webauthn::callback(ctx, provider, p)
        }
        ProviderKind::WebAuthn(_) => {
            Err(AuthError::new(ErrorType::UnknownAction, "the passkey callback only accepts POST"))
        }
        ProviderKind::Password(p) if is_post => {
            ctx.require_csrf()?;
            super::password::sign_in(ctx, provider, p)
        }
        ProviderKind::Password(_) => {
            Err(AuthError::new(ErrorType::UnknownAction, "the password callback only accepts POST"))
        }
    }
}

/// The credentials flow: `authorize` -> signIn callback -> session. The
/// submitted fields are the body (less `csrfToken`).
pub(super) fn credentials(
    ctx: &mut Ctx,
    provider: &Provider,
    declared: &CredentialsProvider,
) -> Result<Reply, AuthError> {
    let mut credentials = ctx.body().clone();
    credentials.remove("csrfToken");
    // Failed sign-ins are counted per account (the provider's declared
    // fields, less its secrets: see `limit_identifiers`) and per client IP;
    // past the limit `authorize` is not even called. The attempt is
    // reserved before `authorize` runs and given back if it succeeds.
    let identifiers = declared.limit_identifiers(&credentials);
    let identifiers: Vec<&str> = identifiers.iter().map(String::as_str).collect();
    let counted = super::limits::check(ctx, Route::Credentials, &identifiers, 1)?;
    let request = ctx.req.to_record();
    let host = &ctx.auth.callbacks.host;
    let authorized = host
        .call(&Hook::provider(&provider.id, "authorize"), json!({ "credentials": credentials, "request": request }))
        .map_err(|e| AuthError::from_host(e, ErrorType::CallbackRouteError));
    if matches!(&authorized, Ok(Value::Object(_))) {
        super::limits::refund(ctx, &counted);
    }
    let user = match authorized? {
        Value::Object(user) => user,
        Value::Null | Value::Bool(false) => {
            return Err(AuthError::credentials_signin(None, "authorize returned no user"));
        }
        _ => {
            // The value itself is not logged: it may hold what the user typed.
            return Err(AuthError::new(ErrorType::CallbackRouteError, "authorize must return a user object or null"));
        }
    };
    // A user without an id gets one (as Auth.js does): the account needs it.
    let mut user = user;
    if SignInUser::from_provider(user.clone()).is_none() {
        user.insert("id".into(), Value::String(uuid::Uuid::new_v4().to_string()));
    }
    let proven = crate::identity::host_says_verified(&user);
    let user = SignInUser::from_provider(user).expect("the id was just set").proven(proven);
    let account = AdapterAccount::new(AccountType::Credentials, &provider.id, &user.id);

    let mut extra = Map::new();
    extra.insert("credentials".into(), Value::Object(credentials));
    super::sign_in::complete_sign_in(ctx, SignInKind::Credentials, user, account, None, extra, None)
}
