//! Users and accounts at sign-in, when an adapter is configured (Auth.js's
//! `handleLoginOrRegister`): find or create the user, link the account,
//! refuse an OAuth account whose email belongs to another user.

use serde_json::{Map, Value};

use super::Ctx;
use crate::config::SessionStrategy;
use crate::cookies::ChunkedCookie;
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::store::{AdapterAccount, AdapterUser, DataStores, NewUser};
use crate::time::now_millis;

/// How the user proved who they are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SignInKind {
    OAuth {
        allow_dangerous_email_account_linking: bool,
    },
    Email,
    Credentials,
    /// A passkey: `account` is the passkey's `webauthn` account.
    WebAuthn,
    /// The password provider: the user is stored already (`account.user_id`).
    Password,
}

/// Who a provider (or the host's `authorize`) says signed in: Auth.js's
/// `User` fields, typed once where the provider's answer arrives, plus that
/// answer as given, which is what the callbacks and events see.
#[derive(Debug, Clone)]
pub struct SignInUser {
    /// The provider's id for the user (a number becomes its decimal string).
    pub id: String,
    pub name: Option<String>,
    pub email: Option<String>,
    pub image: Option<String>,
    /// Whether this sign-in proved `email` (an email link; the provider's
    /// own verified claim; `authorize` saying so). See `crate::identity`.
    pub email_verified: bool,
    /// The answer as given, with `id` as a string.
    pub raw: Map<String, Value>,
}

impl SignInUser {
    /// `None` when the answer has no usable id.
    pub fn from_provider(mut raw: Map<String, Value>) -> Option<SignInUser> {
        let id = match raw.get("id") {
            Some(Value::String(s)) if !s.is_empty() => s.clone(),
            Some(Value::Number(n)) => n.to_string(),
            _ => return None,
        };
        raw.insert("id".into(), Value::String(id.clone()));
        let text = |key: &str| raw.get(key).and_then(Value::as_str).map(str::to_owned);
        Some(SignInUser {
            name: text("name"),
            email: text("email"),
            image: text("image"),
            email_verified: false,
            id,
            raw,
        })
    }

    /// The same user, its email proven (or not) by the sign-in's source.
    /// Without an email there is nothing to prove.
    pub fn proven(mut self, proven: bool) -> SignInUser {
        self.email_verified = proven && self.email.as_deref().is_some_and(|e| !e.trim().is_empty());
        self
    }
}

pub struct Registered {
    pub user: Map<String, Value>,
    pub is_new_user: bool,
}

pub(super) fn user_json(user: &AdapterUser) -> Map<String, Value> {
    match serde_json::to_value(user) {
        Ok(Value::Object(m)) => m,
        _ => Map::new(),
    }
}

/// The `locale` of a provider's user as the `profile` callback maps it
/// (an OpenID Connect `locale` claim, e.g. `fr-CA`), stored on a new user
/// for the pages' `user` resolution step: a tag-shaped string of at most 35
/// bytes, else none. It is only ever matched against the offered locales.
fn profile_locale(user: &Map<String, Value>) -> Option<String> {
    let tag = user.get("locale")?.as_str()?.trim();
    let tag_shaped =
        !tag.is_empty() && tag.len() <= 35 && tag.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    tag_shaped.then(|| tag.to_owned())
}

/// The stored user a sign-in would resolve to before the signIn callback
/// runs (so the callback sees the adapter user, as in Auth.js).
/// Looked up once, and handed on to [`login_or_register`].
pub fn known_user(
    db: &DataStores,
    kind: SignInKind,
    account: &AdapterAccount,
) -> Result<Option<AdapterUser>, AuthError> {
    Ok(match kind {
        SignInKind::OAuth { .. } | SignInKind::WebAuthn => {
            db.accounts.get_user_by_account(&account.provider, &account.provider_account_id)?
        }
        SignInKind::Email => db.users.get_user_by_email(&account.provider_account_id)?,
        SignInKind::Credentials => None,
        SignInKind::Password => db.users.get_user(&account.user_id)?,
    })
}

/// The user as the callbacks see it.
pub fn user_value(user: &AdapterUser) -> Value {
    Value::Object(user_json(user))
}

/// The user signed in right now in this browser, if any (to link a new
/// OAuth account to them).
pub(super) fn current_user_id(ctx: &Ctx, db: &DataStores) -> Result<Option<String>, AuthError> {
    let jar = ChunkedCookie::read(&ctx.cookies.session_token, ctx.req);
    let Some(raw) = jar.value() else { return Ok(None) };
    match ctx.auth.settings.strategy {
        SessionStrategy::Database => Ok(db
            .session_and_user(&crate::session::stored_session_token(raw))?
            .filter(|(s, _)| s.expires > now_millis() as i64)
            .map(|(_, u)| u.id)),
        SessionStrategy::Jwt => Ok(ctx.auth.jwt_session_user(raw, &ctx.cookies.session_token.name)),
    }
}

/// The result of [`Adapter::ensure_user`]: `createUser` is sent only by
/// the call that created the user.
fn created_user_event(ctx: &Ctx, ensured: &crate::store::Ensured) -> Result<Registered, AuthError> {
    if ensured.created {
        let json = user_json(&ensured.user);
        ctx.auth.callbacks.event(&Hook::EVENT_CREATE_USER, || serde_json::json!({ "user": json }));
    }
    Ok(Registered { user: user_json(&ensured.user), is_new_user: ensured.created })
}

/// The first sign-in that proves `email` meets a stored user made without
/// that proof (a passkey sign-up, a credentials sign-in, an OAuth profile
/// whose provider did not verify the address): whoever made that user may
/// not be the address's owner, so nothing they attached survives the
/// owner's arrival. The user is deleted, and with it (as every adapter's
/// `deleteUser` does) its accounts, passkeys and sessions, in every process
/// and in secondary storage, then made again under the same id with the
/// proven address and nothing else: records the app keeps under that id
/// stay, every way in that the first party set up is gone.
pub(super) fn claim_unproven_user(
    ctx: &Ctx,
    db: &DataStores,
    user: &AdapterUser,
    email: &str,
) -> Result<AdapterUser, AuthError> {
    db.delete_user(&user.id)?;
    let ensured = db.users.ensure_user(&NewUser {
        id: Some(user.id.clone()),
        email: Some(email.to_owned()),
        email_verified: Some(now_millis() as i64),
        ..NewUser::default()
    })?;
    let claimed = ensured.user;
    ctx.auth.callbacks.logger.warn(
        ctx.auth.callbacks.host.as_ref(),
        "unproven-account-claimed",
        "a sign-in proved the email address of a user created without proof of it: that user's accounts, passkeys and sessions were removed",
    );
    let json = user_json(&claimed);
    ctx.auth.callbacks.event(&Hook::EVENT_UPDATE_USER, || serde_json::json!({ "user": json }));
    Ok(claimed)
}

/// `known` is what [`known_user`] found for this sign-in.
pub fn login_or_register(
    ctx: &Ctx,
    db: &DataStores,
    kind: SignInKind,
    known: Option<AdapterUser>,
    signed_in: &SignInUser,
    account: &AdapterAccount,
    profile: Option<&Map<String, Value>>,
) -> Result<Registered, AuthError> {
    let events = &ctx.auth.callbacks;
    let proven_at = signed_in.email_verified.then(|| now_millis() as i64);
    let new_user = |email_verified: Option<i64>| NewUser {
        id: None,
        name: signed_in.name.clone(),
        email: signed_in.email.as_ref().map(|e| e.to_lowercase()),
        email_verified,
        image: signed_in.image.clone(),
        locale: profile_locale(&signed_in.raw),
    };
    let account_json = || serde_json::to_value(account).unwrap_or(Value::Null);
    let profile_json = || profile.cloned().map(Value::Object).unwrap_or(Value::Null);
    match kind {
        SignInKind::Password => known
            .map(|user| Registered { user: user_json(&user), is_new_user: false })
            .ok_or_else(|| AuthError::new(ErrorType::CredentialsSignin, "the account was deleted meanwhile")),
        SignInKind::Email => {
            let email = account.provider_account_id.clone();
            let now = now_millis() as i64;
            if let Some(user) = known {
                if user.email_verified.is_some() {
                    return Ok(Registered { user: user_json(&user), is_new_user: false });
                }
                // The link proves the address, and the stored user was made
                // without that proof: its owner claims it now.
                let user = claim_unproven_user(ctx, db, &user, &email)?;
                return Ok(Registered { user: user_json(&user), is_new_user: false });
            }
            // Idempotent: a concurrent first sign-in with the same address
            // (another link, another tab) may have created the user.
            let ensured = db.users.ensure_user(&NewUser {
                email: Some(email),
                email_verified: Some(now),
                ..NewUser::default()
            })?;
            created_user_event(ctx, &ensured)
        }
        SignInKind::Credentials => {
            // The app's own user id: keep it, so sessions reference it.
            let id = signed_in.id.clone();
            if let Some(user) = db.users.get_user(&id)? {
                return Ok(Registered { user: user_json(&user), is_new_user: false });
            }
            // Idempotent: concurrent first sign-ins of this user (several
            // workers, a double submit) all get the one row.
            let ensured = db.users.ensure_user(&NewUser { id: Some(id), ..new_user(proven_at) })?;
            created_user_event(ctx, &ensured)
        }
        // Auth.js's rules for passkeys: a known passkey signs its user in
        // (not while another user is signed in); a new one is added to the
        // signed-in user, or creates a user, whose id the options chose.
        SignInKind::WebAuthn => {
            let current = current_user_id(ctx, db)?;
            if let Some(user) = known {
                if current.as_deref().is_some_and(|c| c != user.id) {
                    return Err(AuthError::new(
                        ErrorType::AccountNotLinked,
                        "the passkey belongs to another user than the one signed in",
                    ));
                }
                return Ok(Registered { user: user_json(&user), is_new_user: false });
            }
            if let Some(current_id) = current {
                if current_id != signed_in.id {
                    return Err(AuthError::new(
                        ErrorType::AccountNotLinked,
                        "the passkey was started for another user than the one signed in",
                    ));
                }
                let user = db.users.get_user(&current_id)?.ok_or_else(|| {
                    AuthError::new(ErrorType::AccountNotLinked, "the signed-in user no longer exists")
                })?;
                let linked = AdapterAccount { user_id: user.id.clone(), ..account.clone() };
                if db.accounts.ensure_account_linked(&linked)? {
                    let (u, a) = (user_json(&user), account_json());
                    events.event(&Hook::EVENT_LINK_ACCOUNT, || serde_json::json!({ "user": u, "account": a }));
                }
                return Ok(Registered { user: user_json(&user), is_new_user: false });
            }
            if let Some(email) = signed_in.email.as_ref().filter(|e| !e.is_empty()) {
                if db.users.get_user_by_email(&email.to_lowercase())?.is_some() {
                    return Err(AuthError::new(
                        ErrorType::AccountNotLinked,
                        "another account already uses this email address; sign in to it and add the passkey there",
                    ));
                }
            }
            let ensured = db
                .accounts
                .ensure_user_with_account(&NewUser { id: Some(signed_in.id.clone()), ..new_user(None) }, account)?;
            if !ensured.created {
                // Stored meanwhile by someone else: never sign in as its
                // owner by presenting its credential id (P1).
                return Err(AuthError::new(
                    ErrorType::AccountNotLinked,
                    "this passkey's account belongs to a user already",
                ));
            }
            let user = ensured.user;
            let json = user_json(&user);
            events.event(&Hook::EVENT_CREATE_USER, || serde_json::json!({ "user": json }));
            let (u, a) = (user_json(&user), account_json());
            events.event(&Hook::EVENT_LINK_ACCOUNT, || serde_json::json!({ "user": u, "account": a }));
            Ok(Registered { user: user_json(&user), is_new_user: true })
        }
        SignInKind::OAuth { allow_dangerous_email_account_linking } => {
            let current = current_user_id(ctx, db)?;
            let link = |user: &AdapterUser| -> Result<(), AuthError> {
                let linked = AdapterAccount { user_id: user.id.clone(), ..account.clone() };
                // Linked to this user by a concurrent sign-in already: done,
                // and that sign-in sent the event.
                if db.accounts.ensure_account_linked(&linked)? {
                    let (u, a, p) = (user_json(user), account_json(), profile_json());
                    events.event(
                        &Hook::EVENT_LINK_ACCOUNT,
                        || serde_json::json!({ "user": u, "account": a, "profile": p }),
                    );
                }
                Ok(())
            };
            if let Some(user) = known {
                if current.as_deref().is_some_and(|c| c != user.id) {
                    return Err(AuthError::new(
                        ErrorType::OAuthAccountNotLinked,
                        "the account is already linked to another user",
                    ));
                }
                // The user's own linked account proves the user's address
                // (users made before the proof was recorded, or by a sign-in
                // that did not prove it): record it, so a later email link
                // finds a proven user and claims nothing.
                let proves_it = signed_in.email_verified
                    && user.email_verified.is_none()
                    && matches!((&user.email, &signed_in.email), (Some(a), Some(b)) if crate::identity::same_address(a, b));
                if proves_it {
                    let update = crate::store::UserUpdate {
                        id: user.id.clone(),
                        email_verified: Some(Some(now_millis() as i64)),
                        ..crate::store::UserUpdate::default()
                    };
                    let user = db.users.update_user(&update)?;
                    let json = user_json(&user);
                    events.event(&Hook::EVENT_UPDATE_USER, || serde_json::json!({ "user": json }));
                    return Ok(Registered { user: user_json(&user), is_new_user: false });
                }
                return Ok(Registered { user: user_json(&user), is_new_user: false });
            }
            // Signed in already: link this account to the current user.
            if let Some(current_id) = current {
                if let Some(user) = db.users.get_user(&current_id)? {
                    link(&user)?;
                    return Ok(Registered { user: user_json(&user), is_new_user: false });
                }
            }
            if let Some(email) = signed_in.email.as_ref().filter(|e| !e.is_empty()) {
                if let Some(user) = db.users.get_user_by_email(&email.to_lowercase())? {
                    // A concurrent first sign-in of this same account may have
                    // created that user, and linked the account, since `known`
                    // was looked up: then this is simply its user.
                    if let Some(owner) =
                        db.accounts.get_user_by_account(&account.provider, &account.provider_account_id)?
                    {
                        return Ok(Registered { user: user_json(&owner), is_new_user: false });
                    }
                    // Linking by email needs the deployer's consent and the
                    // provider's proof of the address: an address the
                    // provider did not verify links nothing.
                    if !allow_dangerous_email_account_linking || !signed_in.email_verified {
                        return Err(AuthError::new(
                            ErrorType::OAuthAccountNotLinked,
                            if allow_dangerous_email_account_linking {
                                "another account already uses this email address, and the provider did not verify it here; sign in with that account first"
                            } else {
                                "another account already uses this email address; sign in with it first"
                            },
                        ));
                    }
                    // The provider proved the address; a stored user made
                    // without proof of it is claimed first.
                    let user = match user.email_verified {
                        Some(_) => user,
                        None => claim_unproven_user(ctx, db, &user, &email.to_lowercase())?,
                    };
                    link(&user)?;
                    return Ok(Registered { user: user_json(&user), is_new_user: false });
                }
            }
            // A new user and their account, atomically; a concurrent first
            // sign-in of the same account that won gives its user.
            let ensured = db.accounts.ensure_user_with_account(&new_user(proven_at), account)?;
            if !ensured.created {
                return Ok(Registered { user: user_json(&ensured.user), is_new_user: false });
            }
            let user = ensured.user;
            let json = user_json(&user);
            events.event(&Hook::EVENT_CREATE_USER, || serde_json::json!({ "user": json }));
            let (u, a, p) = (user_json(&user), account_json(), profile_json());
            events.event(&Hook::EVENT_LINK_ACCOUNT, || serde_json::json!({ "user": u, "account": a, "profile": p }));
            Ok(Registered { user: user_json(&user), is_new_user: true })
        }
    }
}
