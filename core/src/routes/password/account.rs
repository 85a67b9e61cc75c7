//! The signed-in user's own account (its page is `routes::account`):
//! changing the password (`POST password/change`), the address (`POST
//! password/change-email`, confirmed by `GET password/confirm-email`) and
//! deleting it (`POST password/delete`). Each change asks for the current
//! password again, counted as a sign-in attempt (`rateLimit.credentials`).

use serde_json::json;

use super::links::{self, Binding, Purpose};
use super::mail::{self, Mail};
use super::{
    check_new_password, field, hash_new, password_account, refusal_message, refuse, store_hash, stores, Refusal, Step,
};
use crate::config::SessionStrategy;
use crate::cookies::ChunkedCookie;
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::providers::{PasswordProvider, Provider};
use crate::ratelimit::Route;
use crate::routes::email::normalise_email;
use crate::routes::{Ctx, Reply};
use crate::store::{AdapterUser, DataStores, UserUpdate};
use crate::time::now_millis;

/// The signed-in user, once their current password (field
/// `currentPassword`) is checked: `Err(reply)` answers the request
/// instead (not signed in, no password, a wrong one).
fn reauthenticate(
    ctx: &mut Ctx,
    provider: &Provider,
    p: &PasswordProvider,
    step: Step,
) -> Result<Result<AdapterUser, Reply>, AuthError> {
    let db = stores(ctx)?;
    let Some(user) = crate::routes::account::signed_in_user(ctx)? else {
        return Ok(Err(crate::routes::account::to_sign_in(ctx)));
    };
    let key = user.email.clone().unwrap_or_else(|| user.id.clone());
    let counted = crate::routes::limits::check(ctx, Route::Credentials, &[key.as_str()], 1)?;
    let current = field(ctx, "currentPassword");
    let ok = match password_account(db, provider, &user.id)? {
        Some((_, hash)) => super::verify(p, &current, &hash)?.ok,
        None => {
            let message = ctx.messages().text("password-error-none");
            return refuse(ctx, provider, step, Refusal::NoPassword, message).map(Err);
        }
    };
    if !ok {
        let message = ctx.messages().text("password-error-wrong");
        return refuse(ctx, provider, step, Refusal::WrongPassword, message).map(Err);
    }
    crate::routes::limits::refund(ctx, &counted);
    Ok(Ok(user))
}

/// Back to the account page with a notice (or `{ url }` for JSON clients).
fn done(ctx: &Ctx, notice: &str) -> Reply {
    Reply::Redirect(crate::routes::account::url_with_notice(ctx, notice))
}

/// A new password: every other session of the user ends (database
/// sessions; this browser's stays).
pub(super) fn change_password(ctx: &mut Ctx, provider: &Provider, p: &PasswordProvider) -> Result<Reply, AuthError> {
    let user = match reauthenticate(ctx, provider, p, Step::Change)? {
        Ok(user) => user,
        Err(reply) => return Ok(reply),
    };
    let db = stores(ctx)?;
    let password = field(ctx, "newPassword");
    let normalized = match check_new_password(ctx, provider, p, &password, user.email.as_deref())? {
        Ok(normalized) => normalized,
        Err(refused) => {
            let message = refusal_message(ctx, &refused);
            return refuse(ctx, provider, Step::Change, Refusal::PasswordRefused, message);
        }
    };
    store_hash(db, provider, &user.id, hash_new(p, &normalized)?)?;
    end_other_sessions(ctx, db, &user.id)?;
    let json = super::user_value(&user);
    ctx.auth.callbacks.event(&Hook::EVENT_PASSWORD_CHANGED, || json!({ "user": json }));
    Ok(done(ctx, "password-changed"))
}

/// End every session of `user_id` but this browser's. JWT sessions: by a
/// sign-out time, with this browser's cookie re-issued as signed in to at
/// it (nothing where the store keeps no sign-outs).
fn end_other_sessions(ctx: &mut Ctx, db: &DataStores, user_id: &str) -> Result<(), AuthError> {
    if ctx.auth.settings.strategy != SessionStrategy::Database {
        if let Some(before) = ctx.auth.record_sign_out(user_id)? {
            let cookies = ctx.auth.reissue_signed_in_at(ctx.req, user_id, before)?;
            ctx.set_cookies.extend(cookies);
            ctx.auth.sessions_ended(user_id, 0, crate::EndScope::Others, Some(before));
        }
        return Ok(());
    }
    let current = ctx.auth.current_stored_token(ctx.req);
    ctx.auth.end_sessions_but(db, user_id, current.as_deref(), crate::EndScope::Others)?;
    Ok(())
}

/// Mail a confirmation link to the new address, and tell the old one.
/// An address another account has gets no link, and the same answer.
pub(super) fn change_email(ctx: &mut Ctx, provider: &Provider, p: &PasswordProvider) -> Result<Reply, AuthError> {
    let user = match reauthenticate(ctx, provider, p, Step::ChangeEmail)? {
        Ok(user) => user,
        Err(reply) => return Ok(reply),
    };
    let db = stores(ctx)?;
    let Some(new_email) = normalise_email(&field(ctx, "newEmail")) else {
        let message = ctx.messages().text("password-error-email");
        return refuse(ctx, provider, Step::ChangeEmail, Refusal::InvalidEmail, message);
    };
    if user.email.as_deref() == Some(new_email.as_str()) {
        let message = ctx.messages().text("password-error-same-email");
        return refuse(ctx, provider, Step::ChangeEmail, Refusal::InvalidEmail, message);
    }
    crate::routes::limits::check(ctx, Route::PasswordReset, &[new_email.as_str()], 1)?;
    if db.users.get_user_by_email(&new_email)?.is_none() {
        let subject = format!("{}:{new_email}", user.id);
        let hash = password_account(db, provider, &user.id)?.map(|(_, hash)| hash);
        let binding =
            Binding { purpose: Purpose::NewEmail, subject: &subject, fingerprint: links::fingerprint(hash.as_deref()) };
        let (token, expires) = links::issue(ctx, db, &binding, p.verify_max_age)?;
        let url = super::signup::link_url(
            ctx,
            Step::ConfirmEmail,
            &[("token", &token), ("email", &new_email), ("user", &user.id)],
        );
        mail::send(ctx, provider, p, Mail::ConfirmNewEmail, &new_email, Some((&url, expires)), None)?;
        if let Some(old) = &user.email {
            mail::send(ctx, provider, p, Mail::EmailChanging, old, None, Some(&new_email))?;
        }
    }
    Ok(done(ctx, "email-sent"))
}

/// `GET password/confirm-email?token&email&user`: the new address is
/// proven; it becomes the user's (unless another account took it since).
pub(super) fn confirm_email(ctx: &mut Ctx, provider: &Provider, _p: &PasswordProvider) -> Result<Reply, AuthError> {
    let db = stores(ctx)?;
    crate::routes::limits::check(ctx, Route::PasswordToken, &[], 1)?;
    let invalid = || AuthError::new(ErrorType::Verification, "the link was already used, expired, or never issued");
    let token = ctx.query("token").unwrap_or_default();
    let new_email = ctx.query("email").and_then(|e| normalise_email(&e)).ok_or_else(invalid)?;
    let user_id = ctx.query("user").filter(|id| !id.is_empty() && id.len() <= 255).ok_or_else(invalid)?;
    let user = db.users.get_user(&user_id)?.ok_or_else(invalid)?;
    let subject = format!("{}:{new_email}", user.id);
    let hash = password_account(db, provider, &user.id)?.map(|(_, hash)| hash);
    let binding =
        Binding { purpose: Purpose::NewEmail, subject: &subject, fingerprint: links::fingerprint(hash.as_deref()) };
    if !links::redeem(ctx, db, &binding, &token)? {
        return Err(invalid());
    }
    if db.users.get_user_by_email(&new_email)?.is_some_and(|other| other.id != user.id) {
        return Err(AuthError::new(ErrorType::Verification, "another account took this address meanwhile"));
    }
    let previous = user.email.clone();
    let update = UserUpdate {
        id: user.id.clone(),
        email: Some(Some(new_email)),
        email_verified: Some(Some(now_millis() as i64)),
        ..UserUpdate::default()
    };
    let user = db.users.update_user(&update)?;
    let json = super::user_value(&user);
    ctx.auth.callbacks.event(&Hook::EVENT_EMAIL_CHANGED, || json!({ "user": json, "previousEmail": previous }));
    Ok(done(ctx, "email-changed"))
}

/// Delete the account, with everything the store keeps for it (accounts,
/// passkeys, sessions), and sign this browser out, and with JWT sessions
/// every other browser too.
pub(super) fn delete(ctx: &mut Ctx, provider: &Provider, p: &PasswordProvider) -> Result<Reply, AuthError> {
    let user = match reauthenticate(ctx, provider, p, Step::Delete)? {
        Ok(user) => user,
        Err(reply) => return Ok(reply),
    };
    let db = stores(ctx)?;
    db.delete_user(&user.id)?;
    // Its JWT sessions in other browsers end too.
    ctx.auth.record_sign_out(&user.id)?;
    let jar = ChunkedCookie::read(&ctx.cookies.session_token, ctx.req);
    ctx.set_cookies.extend(jar.clear());
    let json = super::user_value(&user);
    ctx.auth.callbacks.event(&Hook::EVENT_ACCOUNT_DELETED, || json!({ "user": json }));
    Ok(Reply::Redirect(ctx.origin.clone()))
}
