//! Sign-up (`POST password/signup`) and the verification link (`GET
//! password/verify`).

use serde_json::json;

use super::links::{self, Binding, Purpose};
use super::mail::{self, Mail};
use super::{
    check_email, check_new_password, field, hash_new, new_account, password_account, refusal_message, refuse, stores,
    Refusal, Step,
};
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::providers::{PasswordProvider, Provider};
use crate::ratelimit::Route;
use crate::routes::email::normalise_email;
use crate::routes::{Ctx, Reply};
use crate::store::{AdapterError, AdapterUser, DataStores, NewUser, UserUpdate};
use crate::time::now_millis;

/// The longest display name kept from the sign-up form (characters).
const MAX_NAME_CHARS: usize = 200;

/// Create the account and mail its verification link. An address that has
/// an account already gets the same answer, at the same cost (the hash is
/// made either way), and its owner is mailed a reset link instead: nothing
/// in the answer says which happened.
pub(super) fn sign_up(ctx: &mut Ctx, provider: &Provider, p: &PasswordProvider) -> Result<Reply, AuthError> {
    let db = stores(ctx)?;
    crate::routes::limits::check(ctx, Route::SignUp, &[], 1)?;
    let password = field(ctx, "password");
    let name: Option<String> = ctx
        .body_str("name")
        .map(|n| n.trim().chars().filter(|c| !c.is_control()).take(MAX_NAME_CHARS).collect::<String>())
        .filter(|n| !n.is_empty());
    let Some(email) = normalise_email(&field(ctx, "email")) else {
        let message = ctx.messages().text("password-error-email");
        return refuse(ctx, provider, Step::SignUp, Refusal::InvalidEmail, message);
    };
    let normalized = match check_new_password(ctx, provider, p, &password, Some(&email))? {
        Ok(normalized) => normalized,
        Err(refused) => {
            let message = refusal_message(ctx, &refused);
            return refuse(ctx, provider, Step::SignUp, Refusal::PasswordRefused, message);
        }
    };
    let hash = hash_new(p, &normalized)?;
    let callback_url = ctx.callback_url();
    let created = match db.users.get_user_by_email(&email)? {
        Some(_) => None,
        None => create(db, provider, &email, name, hash)?,
    };
    let Some(user) = created else {
        // Taken (or taken meanwhile): the owner hears of it, with a way in.
        if let Some(owner) = db.users.get_user_by_email(&email)? {
            mail_reset_link(ctx, db, provider, p, &owner, &email, Mail::AccountExists)?;
        }
        return Ok(if p.require_email_verification {
            check_email(ctx, provider)
        } else {
            Reply::Redirect(callback_url)
        });
    };
    let json = super::user_value(&user);
    ctx.auth.callbacks.event(&Hook::EVENT_CREATE_USER, || json!({ "user": json }));
    mail_verify_link(ctx, db, provider, p, &user, &email)?;
    if p.require_email_verification {
        return Ok(check_email(ctx, provider));
    }
    super::signin::sign_in_user(ctx, provider, &user)
}

/// The user and their password account, together; `None` when the
/// address was taken meanwhile (a concurrent sign-up).
fn create(
    db: &DataStores,
    provider: &Provider,
    email: &str,
    name: Option<String>,
    hash: String,
) -> Result<Option<AdapterUser>, AuthError> {
    let id = uuid::Uuid::new_v4().to_string();
    let user = NewUser { id: Some(id.clone()), name, email: Some(email.to_owned()), ..NewUser::default() };
    match db.accounts.create_user_and_link_account(&user, &new_account(provider, &id, hash)) {
        Ok(user) => Ok(Some(user)),
        Err(AdapterError::Constraint { .. }) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// Mail `user` a link proving `email`, bound to their current password.
pub(super) fn mail_verify_link(
    ctx: &Ctx,
    db: &DataStores,
    provider: &Provider,
    p: &PasswordProvider,
    user: &AdapterUser,
    email: &str,
) -> Result<(), AuthError> {
    let hash = password_account(db, provider, &user.id)?.map(|(_, hash)| hash);
    let binding =
        Binding { purpose: Purpose::Verify, subject: email, fingerprint: links::fingerprint(hash.as_deref()) };
    let (token, expires) = links::issue(ctx, db, &binding, p.verify_max_age)?;
    let url = link_url(ctx, Step::Verify, &[("token", &token), ("email", email)]);
    mail::send(ctx, provider, p, Mail::VerifyEmail, email, Some((&url, expires)), None)
}

/// Mail `user` a reset link for `email`, bound to their current password.
pub(super) fn mail_reset_link(
    ctx: &Ctx,
    db: &DataStores,
    provider: &Provider,
    p: &PasswordProvider,
    user: &AdapterUser,
    email: &str,
    mail: Mail,
) -> Result<(), AuthError> {
    let hash = password_account(db, provider, &user.id)?.map(|(_, hash)| hash);
    let binding = Binding { purpose: Purpose::Reset, subject: email, fingerprint: links::fingerprint(hash.as_deref()) };
    let (token, expires) = links::issue(ctx, db, &binding, p.reset_max_age)?;
    let url = link_url(ctx, Step::Reset, &[("token", &token), ("email", email)]);
    mail::send(ctx, provider, p, mail, email, Some((&url, expires)), None)
}

/// `{basePath}/password/<step>?<params>`, with the request's explicit locale.
pub(super) fn link_url(ctx: &Ctx, step: Step, params: &[(&str, &str)]) -> String {
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    for (name, value) in params {
        query.append_pair(name, value);
    }
    if let Some(tag) = ctx.explicit_locale() {
        query.append_pair("locale", tag);
    }
    format!("{}/password/{}?{}", ctx.base_url(), step.path(), query.finish())
}

/// `GET password/verify?token&email`: the address is proven, and its
/// owner signed in. The link must have been issued under the password the
/// account has now.
pub(super) fn verify(ctx: &mut Ctx, provider: &Provider, _p: &PasswordProvider) -> Result<Reply, AuthError> {
    let db = stores(ctx)?;
    crate::routes::limits::check(ctx, Route::PasswordToken, &[], 1)?;
    let invalid = || AuthError::new(ErrorType::Verification, "the link was already used, expired, or never issued");
    let token = ctx.query("token").unwrap_or_default();
    let email = ctx.query("email").and_then(|e| normalise_email(&e)).ok_or_else(invalid)?;
    let user = db.users.get_user_by_email(&email)?.ok_or_else(invalid)?;
    let hash = password_account(db, provider, &user.id)?.map(|(_, hash)| hash);
    let binding =
        Binding { purpose: Purpose::Verify, subject: &email, fingerprint: links::fingerprint(hash.as_deref()) };
    if !links::redeem(ctx, db, &binding, &token)? {
        return Err(invalid());
    }
    let user = match user.email_verified {
        Some(_) => user,
        None => {
            let update = UserUpdate {
                id: user.id.clone(),
                email_verified: Some(Some(now_millis() as i64)),
                ..UserUpdate::default()
            };
            let user = db.users.update_user(&update)?;
            let json = super::user_value(&user);
            ctx.auth.callbacks.event(&Hook::EVENT_EMAIL_VERIFIED, || json!({ "user": json }));
            user
        }
    };
    super::signin::sign_in_user(ctx, provider, &user)
}
