//! A forgotten password: `POST password/forgot` mails a reset link (to an
//! address with an account; the answer is the same for any address), and
//! `POST password/reset` sets the new password from that link's page.

use serde_json::json;

use super::links::{self, Binding, Purpose};
use super::mail::Mail;
use super::{
    check_email, check_new_password, field, hash_new, password_account, refusal_message, refuse, store_hash, stores,
    Refusal, Step,
};
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::providers::{PasswordProvider, Provider};
use crate::ratelimit::Route;
use crate::routes::email::normalise_email;
use crate::routes::{Ctx, Reply};

/// Mail a reset link to an address with an account; answer "check your
/// email" whatever the address. Counted per address and per IP
/// (`rateLimit.passwordReset`), so a mailbox cannot be flooded.
pub(super) fn forgot(ctx: &mut Ctx, provider: &Provider, p: &PasswordProvider) -> Result<Reply, AuthError> {
    let db = stores(ctx)?;
    let Some(email) = normalise_email(&field(ctx, "email")) else {
        let message = ctx.messages().text("password-error-email");
        return refuse(ctx, provider, Step::Forgot, Refusal::InvalidEmail, message);
    };
    crate::routes::limits::check(ctx, Route::PasswordReset, &[email.as_str()], 1)?;
    if let Some(user) = db.users.get_user_by_email(&email)? {
        super::signup::mail_reset_link(ctx, db, provider, p, &user, &email, Mail::ResetPassword)?;
    }
    Ok(check_email(ctx, provider))
}

/// Set a new password with a reset link's token. The password is checked
/// before the token is spent (a refused password leaves the link usable);
/// then the link must match the account's current password, the new hash
/// is stored, the address counts as proven (the link reached it), every
/// database session of the user ends, and this browser is signed in.
pub(super) fn reset(ctx: &mut Ctx, provider: &Provider, p: &PasswordProvider) -> Result<Reply, AuthError> {
    let db = stores(ctx)?;
    crate::routes::limits::check(ctx, Route::PasswordToken, &[], 1)?;
    let invalid =
        || AuthError::new(ErrorType::Verification, "the reset link was already used, expired, or never issued");
    let token = field(ctx, "token");
    let email = normalise_email(&field(ctx, "email")).ok_or_else(invalid)?;
    let password = field(ctx, "password");
    let normalized = match check_new_password(ctx, provider, p, &password, Some(&email))? {
        Ok(normalized) => normalized,
        Err(refused) => {
            let message = refusal_message(ctx, &refused);
            return refuse(ctx, provider, Step::Reset, Refusal::PasswordRefused, message);
        }
    };
    let user = db.users.get_user_by_email(&email)?.ok_or_else(invalid)?;
    let hash = password_account(db, provider, &user.id)?.map(|(_, hash)| hash);
    let binding =
        Binding { purpose: Purpose::Reset, subject: &email, fingerprint: links::fingerprint(hash.as_deref()) };
    if !links::redeem(ctx, db, &binding, &token)? {
        return Err(invalid());
    }
    let new_hash = hash_new(p, &normalized)?;
    // A user made without proof of the address (someone else's sign-up,
    // an unverified provider) keeps nothing of it now that its owner
    // proved it: the owner gets the user back bare, then the password.
    let user = match user.email_verified {
        Some(_) => user,
        None => crate::routes::register::claim_unproven_user(ctx, db, &user, &email)?,
    };
    store_hash(db, provider, &user.id, new_hash)?;
    db.sessions.delete_user_sessions(&user.id)?;
    // JWT sessions: every one signed in to before this reset ends too (the
    // one signed in to below is after it).
    if let Some(before) = ctx.auth.record_sign_out(&user.id)? {
        ctx.auth.sessions_ended(&user.id, 0, crate::EndScope::All, Some(before));
    }
    let json = super::user_value(&user);
    ctx.auth.callbacks.event(&Hook::EVENT_PASSWORD_RESET, || json!({ "user": json }));
    super::signin::sign_in_user(ctx, provider, &user)
}
