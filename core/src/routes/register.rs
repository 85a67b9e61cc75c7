//! Users and accounts at sign-in, when an adapter is configured (Auth.js's
//! `handleLoginOrRegister`): find or create the user, link the account,
//! refuse an OAuth account whose email belongs to another user.

use serde_json::{Map, Value};

use super::Ctx;
use crate::adapter::{AccountType, Adapter, AdapterAccount, AdapterUser, NewUser, UserUpdate};
use crate::config::SessionStrategy;
use crate::cookies::ChunkedCookie;
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::time::now_millis;

/// How the user proved who they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignInKind {
    OAuth { allow_dangerous_email_account_linking: bool },
    Email,
    Credentials,
}

pub struct Registered {
    pub user: Map<String, Value>,
    pub is_new_user: bool,
}

fn user_json(user: &AdapterUser) -> Map<String, Value> {
    match serde_json::to_value(user) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

fn str_field(map: &Map<String, Value>, key: &str) -> Option<String> {
    map.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The stored user a sign-in would resolve to before the signIn callback
/// runs (so the callback sees the adapter user, as in Auth.js).
/// Looked up once, and handed on to [`login_or_register`].
pub fn known_user(
    adapter: &dyn Adapter,
    kind: SignInKind,
    account: &Map<String, Value>,
) -> Result<Option<AdapterUser>, AuthError> {
    let provider = str_field(account, "provider").unwrap_or_default();
    let provider_account_id = str_field(account, "providerAccountId").unwrap_or_default();
    Ok(match kind {
        SignInKind::OAuth { .. } => adapter.get_user_by_account(&provider, &provider_account_id)?,
        SignInKind::Email => adapter.get_user_by_email(&provider_account_id)?,
        SignInKind::Credentials => None,
    })
}

/// The user as the callbacks see it.
pub fn user_value(user: &AdapterUser) -> Value {
    Value::Object(user_json(user))
}

/// The user signed in right now in this browser, if any (to link a new
/// OAuth account to them).
fn current_user_id(ctx: &Ctx, adapter: &dyn Adapter) -> Result<Option<String>, AuthError> {
    let jar = ChunkedCookie::read(&ctx.cookies.session_token, ctx.req);
    let Some(raw) = jar.value() else { return Ok(None) };
    match ctx.auth.settings.strategy {
        SessionStrategy::Database => Ok(adapter
            .get_session_and_user(&crate::session::stored_session_token(raw))?
            .filter(|(s, _)| s.expires > now_millis() as i64)
            .map(|(_, u)| u.id)),
        SessionStrategy::Jwt => Ok(ctx
            .auth
            .decode_session_token(raw, &ctx.cookies.session_token.name)
            .ok()
            .flatten()
            .and_then(|t| str_field(&t, "sub"))),
    }
}

fn adapter_account(account: &Map<String, Value>, user_id: &str) -> Result<AdapterAccount, AuthError> {
    let mut value = Value::Object(account.clone());
    value["userId"] = Value::String(user_id.to_owned());
    serde_json::from_value(value).map_err(|e| AuthError::new(ErrorType::AdapterError, format!("account: {e}")))
}

/// `known` is what [`known_user`] found for this sign-in.
pub fn login_or_register(
    ctx: &Ctx,
    adapter: &dyn Adapter,
    kind: SignInKind,
    known: Option<AdapterUser>,
    profile_user: &Map<String, Value>,
    account: &Map<String, Value>,
    profile: Option<&Value>,
) -> Result<Registered, AuthError> {
    let events = &ctx.auth.callbacks;
    let new_user = |email_verified: Option<i64>| NewUser {
        id: None,
        name: str_field(profile_user, "name"),
        email: str_field(profile_user, "email").map(|e| e.to_lowercase()),
        email_verified,
        image: str_field(profile_user, "image"),
    };
    match kind {
        SignInKind::Email => {
            let email = str_field(account, "providerAccountId").unwrap_or_default();
            let now = now_millis() as i64;
            if let Some(user) = known {
                if user.email_verified.is_some() {
                    return Ok(Registered { user: user_json(&user), is_new_user: false });
                }
                let update =
                    UserUpdate { id: user.id.clone(), email_verified: Some(Some(now)), ..UserUpdate::default() };
                let user = adapter.update_user(&update)?;
                let json = user_json(&user);
                events.event(&Hook::EVENT_UPDATE_USER, || serde_json::json!({ "user": json }));
                return Ok(Registered { user: user_json(&user), is_new_user: false });
            }
            let user = adapter.create_user(&NewUser {
                email: Some(email),
                email_verified: Some(now),
                ..NewUser::default()
            })?;
            let json = user_json(&user);
            events.event(&Hook::EVENT_CREATE_USER, || serde_json::json!({ "user": json }));
            Ok(Registered { user: user_json(&user), is_new_user: true })
        }
        SignInKind::Credentials => {
            // The app's own user id: keep it, so sessions reference it.
            let id = str_field(profile_user, "id").unwrap_or_default();
            if let Some(user) = adapter.get_user(&id)? {
                return Ok(Registered { user: user_json(&user), is_new_user: false });
            }
            let user = adapter.create_user(&NewUser { id: Some(id), ..new_user(None) })?;
            let json = user_json(&user);
            events.event(&Hook::EVENT_CREATE_USER, || serde_json::json!({ "user": json }));
            Ok(Registered { user: user_json(&user), is_new_user: true })
        }
        SignInKind::OAuth { allow_dangerous_email_account_linking } => {
            let current = current_user_id(ctx, adapter)?;
            let link = |user: &AdapterUser| -> Result<(), AuthError> {
                let linked = adapter_account(account, &user.id)?;
                adapter.link_account(&linked)?;
                let (u, a) = (user_json(user), Value::Object(account.clone()));
                let p = profile.cloned().unwrap_or(Value::Null);
                events
                    .event(&Hook::EVENT_LINK_ACCOUNT, || serde_json::json!({ "user": u, "account": a, "profile": p }));
                Ok(())
            };
            if let Some(user) = known {
                if current.as_deref().is_some_and(|c| c != user.id) {
                    return Err(AuthError::new(
                        ErrorType::OAuthAccountNotLinked,
                        "the account is already linked to another user",
                    ));
                }
                return Ok(Registered { user: user_json(&user), is_new_user: false });
            }
            // Signed in already: link this account to the current user.
            if let Some(current_id) = current {
                if let Some(user) = adapter.get_user(&current_id)? {
                    link(&user)?;
                    return Ok(Registered { user: user_json(&user), is_new_user: false });
                }
            }
            if let Some(email) = str_field(profile_user, "email").filter(|e| !e.is_empty()) {
                if let Some(user) = adapter.get_user_by_email(&email.to_lowercase())? {
                    if !allow_dangerous_email_account_linking {
                        return Err(AuthError::new(
                            ErrorType::OAuthAccountNotLinked,
                            "another account already uses this email address; sign in with it first",
                        ));
                    }
                    link(&user)?;
                    return Ok(Registered { user: user_json(&user), is_new_user: false });
                }
            }
            // A new user and their account, atomically.
            let mut linked = adapter_account(account, "")?;
            linked.account_type = match str_field(account, "type").as_deref() {
                Some("oidc") => AccountType::Oidc,
                _ => AccountType::OAuth,
            };
            let user = adapter.create_user_and_link_account(&new_user(None), &linked)?;
            let json = user_json(&user);
            events.event(&Hook::EVENT_CREATE_USER, || serde_json::json!({ "user": json }));
            let (u, a) = (user_json(&user), Value::Object(account.clone()));
            let p = profile.cloned().unwrap_or(Value::Null);
            events.event(&Hook::EVENT_LINK_ACCOUNT, || serde_json::json!({ "user": u, "account": a, "profile": p }));
            Ok(Registered { user: user_json(&user), is_new_user: true })
        }
    }
}
