//! The password provider's routes, `{basePath}/password/<step>`:
//!
//! | step | GET | POST (CSRF-checked) |
//! |---|---|---|
//! | `signup` | the sign-up page | create the account, mail the verification link |
//! | `verify` | the mailed link: prove the address, sign in | |
//! | `forgot` | the forgotten-password page | mail a reset link |
//! | `reset` | the mailed link's page: a new password | set it, end every session, sign in |
//! | `account` | the account page (signed in) | |
//! | `change` | | change the password (the current one again) |
//! | `change-email` | | mail a link to the new address, tell the old one |
//! | `confirm-email` | the mailed link: the new address is proven | |
//! | `delete` | | delete the account (the password again) |
//!
//! Signing in is `POST callback/<id>`, Auth.js's credentials wire
//! (`signin.rs`). Every answer that could tell whether an address has an
//! account is the same either way: sign-up with a taken address mails its
//! owner instead, a forgotten password for an unknown address mails no one,
//! a sign-in for an unknown address costs a dummy verification.
//!
//! Form posts answer the browser (a redirect, or the page again with its
//! error); a client that asks for JSON (`Accept: application/json`, or
//! Auth.js's `X-Auth-Return-Redirect`) gets `{ url }` or 400 `{ error,
//! message }` instead.

mod account;
mod links;
mod mail;
mod page;
mod reset;
mod signin;
mod signup;

pub(super) use page::{account_forms, form_page};
pub(super) use signin::sign_in;

/// A step host code may call itself ([`crate::Auth::password_action`]),
/// with the fields the built-in form would post.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PasswordAction {
    /// `email`, `password`, `name?`, `callbackUrl?`.
    SignUp,
    /// `email`: mail a reset link (the same answer for any address).
    RequestPasswordReset,
    /// `token`, `email`, `password`: from a reset link.
    ResetPassword,
    /// `currentPassword`, `newPassword`: the request's signed-in user.
    ChangePassword,
    /// `currentPassword`, `newEmail`: the request's signed-in user.
    ChangeEmail,
    /// `currentPassword`: the request's signed-in user.
    DeleteAccount,
}

impl PasswordAction {
    pub const ALL: [PasswordAction; 6] = [
        PasswordAction::SignUp,
        PasswordAction::RequestPasswordReset,
        PasswordAction::ResetPassword,
        PasswordAction::ChangePassword,
        PasswordAction::ChangeEmail,
        PasswordAction::DeleteAccount,
    ];

    /// The name the bindings use (`signUp`, `requestPasswordReset`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            PasswordAction::SignUp => "signUp",
            PasswordAction::RequestPasswordReset => "requestPasswordReset",
            PasswordAction::ResetPassword => "resetPassword",
            PasswordAction::ChangePassword => "changePassword",
            PasswordAction::ChangeEmail => "changeEmail",
            PasswordAction::DeleteAccount => "deleteAccount",
        }
    }

    pub fn parse(name: &str) -> Option<PasswordAction> {
        Self::ALL.into_iter().find(|a| a.as_str() == name)
    }

    pub(crate) fn step(self) -> Step {
        match self {
            PasswordAction::SignUp => Step::SignUp,
            PasswordAction::RequestPasswordReset => Step::Forgot,
            PasswordAction::ResetPassword => Step::Reset,
            PasswordAction::ChangePassword => Step::Change,
            PasswordAction::ChangeEmail => Step::ChangeEmail,
            PasswordAction::DeleteAccount => Step::Delete,
        }
    }
}

/// A step called from host code: the POST's work after its CSRF check.
pub(super) fn run_action(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    let (provider, p, step) = target(ctx)?;
    post_step(ctx, provider, p, step)
}

use serde_json::{json, Map, Value};

use super::{Ctx, Reply};
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::password::{PasswordRefused, RefusalReason};
use crate::providers::{PasswordProvider, Provider};
use crate::store::{AccountType, AdapterAccount, AdapterUser, DataStores};

/// The field of the password account's `extra` that holds the hash (the
/// name Better Auth gives its column).
pub const HASH_FIELD: &str = "password";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    SignUp,
    Verify,
    Forgot,
    Reset,
    Account,
    Change,
    ChangeEmail,
    ConfirmEmail,
    Delete,
}

impl Step {
    fn parse(s: &str) -> Option<Step> {
        Some(match s {
            "signup" => Step::SignUp,
            "verify" => Step::Verify,
            "forgot" => Step::Forgot,
            "reset" => Step::Reset,
            "account" => Step::Account,
            "change" => Step::Change,
            "change-email" => Step::ChangeEmail,
            "confirm-email" => Step::ConfirmEmail,
            "delete" => Step::Delete,
            _ => return None,
        })
    }

    pub(crate) fn path(self) -> &'static str {
        match self {
            Step::SignUp => "signup",
            Step::Verify => "verify",
            Step::Forgot => "forgot",
            Step::Reset => "reset",
            Step::Account => "account",
            Step::Change => "change",
            Step::ChangeEmail => "change-email",
            Step::ConfirmEmail => "confirm-email",
            Step::Delete => "delete",
        }
    }
}

/// The configured password provider and the step the URL names.
fn target<'a>(ctx: &Ctx<'a>) -> Result<(&'a Provider, &'a PasswordProvider, Step), AuthError> {
    let (provider, p) = ctx
        .auth
        .providers
        .password()
        .ok_or_else(|| AuthError::new(ErrorType::UnknownAction, "no password provider is configured"))?;
    let step = ctx.provider_id.as_deref().and_then(Step::parse).ok_or_else(|| {
        AuthError::new(ErrorType::UnknownAction, "no such password step; see password/signup, forgot, reset, account")
    })?;
    Ok((provider, p, step))
}

pub(super) fn get(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    let (provider, p, step) = target(ctx)?;
    match step {
        Step::SignUp => Ok(page::sign_up(ctx, provider, p, None)),
        Step::Forgot => Ok(page::forgot(ctx, None)),
        Step::Reset => Ok(page::reset(ctx, None)),
        Step::Account => super::account::get(ctx, None),
        Step::Verify => signup::verify(ctx, provider, p),
        Step::ConfirmEmail => account::confirm_email(ctx, provider, p),
        Step::Change | Step::ChangeEmail | Step::Delete => {
            Err(AuthError::new(ErrorType::UnknownAction, format!("password/{} only accepts POST", step.path())))
        }
    }
}

pub(super) fn post(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    let (provider, p, step) = target(ctx)?;
    ctx.require_csrf()?;
    post_step(ctx, provider, p, step)
}

fn post_step(ctx: &mut Ctx, provider: &Provider, p: &PasswordProvider, step: Step) -> Result<Reply, AuthError> {
    match step {
        Step::SignUp => signup::sign_up(ctx, provider, p),
        Step::Forgot => reset::forgot(ctx, provider, p),
        Step::Reset => reset::reset(ctx, provider, p),
        Step::Change => account::change_password(ctx, provider, p),
        Step::ChangeEmail => account::change_email(ctx, provider, p),
        Step::Delete => account::delete(ctx, provider, p),
        Step::Verify | Step::ConfirmEmail | Step::Account => {
            Err(AuthError::new(ErrorType::UnknownAction, format!("password/{} only accepts GET", step.path())))
        }
    }
}

/// The stores a password account lives in (checked at construction).
fn stores<'a>(ctx: &Ctx<'a>) -> Result<&'a DataStores, AuthError> {
    ctx.auth
        .stores
        .data()
        .ok_or_else(|| AuthError::new(ErrorType::MissingAdapter, "the password provider needs an adapter"))
}

/// Why a form was refused; nothing was changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Refusal {
    /// The new password: the policy or the host's `checkPassword`.
    PasswordRefused,
    /// The address is not a valid single address.
    InvalidEmail,
    /// The current password, asked again, is wrong.
    WrongPassword,
    /// The account has no password to ask for.
    NoPassword,
}

impl Refusal {
    /// The error a server-side call gets, and a JSON client's `error`/`code`.
    fn error(self, message: String) -> AuthError {
        match self {
            Refusal::PasswordRefused => AuthError::new(ErrorType::PasswordRefused, message),
            Refusal::InvalidEmail => AuthError::new(ErrorType::InvalidEmail, message),
            Refusal::WrongPassword => AuthError::credentials_signin(None, message),
            Refusal::NoPassword => AuthError::credentials_signin(Some("no_password".into()), message),
        }
    }
}

/// A form refused: the step's page again with the message (status 400),
/// 400 `{ error, code?, message }` for a JSON client, or the typed error
/// for a server-side call. Nothing was changed.
fn refuse(ctx: &mut Ctx, provider: &Provider, step: Step, why: Refusal, message: String) -> Result<Reply, AuthError> {
    if ctx.server_action {
        return Err(why.error(message));
    }
    if ctx.wants_json() {
        let error = why.error(message);
        let body = json!({ "error": error.error_type.as_str(), "code": error.code, "message": error.message });
        return Ok(Reply::Json { status: 400, body, no_store: true });
    }
    let p = match &provider.kind {
        crate::providers::ProviderKind::Password(p) => p.as_ref(),
        _ => unreachable!("only the password provider has password steps"),
    };
    let reply = match step {
        Step::SignUp => page::sign_up(ctx, provider, p, Some(message)),
        Step::Forgot => page::forgot(ctx, Some(message)),
        Step::Reset => page::reset(ctx, Some(message)),
        _ => super::account::get(ctx, Some(message))?,
    };
    Ok(match reply {
        Reply::Html { html, .. } => Reply::Html { status: 400, html },
        other => other,
    })
}

/// The refusal's sentence in the request's language.
fn refusal_message(ctx: &Ctx, refused: &PasswordRefused) -> String {
    let t = ctx.messages();
    match &refused.reason {
        RefusalReason::TooShort { min } => t.text_with("password-error-too-short", &[("min", &min.to_string())]),
        RefusalReason::TooLong { max } => t.text_with("password-error-too-long", &[("max", &max.to_string())]),
        RefusalReason::Refused(message) => message.clone(),
    }
}

/// A new password (sign-up, reset, change): the policy, then the host's
/// `checkPassword` (a string or `{ message }` refuses it; null accepts).
/// Answers the normalised password.
fn check_new_password(
    ctx: &Ctx,
    provider: &Provider,
    p: &PasswordProvider,
    password: &str,
    email: Option<&str>,
) -> Result<Result<String, PasswordRefused>, AuthError> {
    let normalized = match p.policy.check(password) {
        Ok(normalized) => normalized.into_owned(),
        Err(refused) => return Ok(Err(refused)),
    };
    if p.has_check_hook {
        let args = json!({ "password": normalized, "email": email, "request": ctx.req.to_record() });
        let answer = ctx
            .auth
            .callbacks
            .host
            .call(&Hook::provider(&provider.id, "checkPassword"), args)
            .map_err(|e| AuthError::from_host(e, ErrorType::CallbackRouteError))?;
        let message = match &answer {
            Value::Null | Value::Bool(true) => None,
            Value::String(message) => Some(message.clone()),
            Value::Object(o) => Some(o.get("message").and_then(Value::as_str).unwrap_or_default().to_owned()),
            Value::Bool(false) => Some(String::new()),
            _ => {
                return Err(AuthError::new(
                    ErrorType::CallbackRouteError,
                    "checkPassword must return null or a message",
                ))
            }
        };
        if let Some(message) = message {
            let message = if message.trim().is_empty() { "This password cannot be used.".to_owned() } else { message };
            return Ok(Err(PasswordRefused::refused(message)));
        }
    }
    Ok(Ok(normalized))
}

/// Run a hashing job within the provider's bound: past it, `Overloaded`
/// (503 with `Retry-After`).
fn hashing<T: Send + 'static>(p: &PasswordProvider, job: impl FnOnce() -> T + Send + 'static) -> Result<T, AuthError> {
    p.pool.run(job).map_err(|busy| AuthError::new(ErrorType::Overloaded, busy.to_string()))
}

/// A new hash of `password` (already normalised), within the bound.
fn hash_new(p: &PasswordProvider, password: &str) -> Result<String, AuthError> {
    let (hasher, password) = (p.hasher.clone(), password.to_owned());
    hashing(p, move || hasher.hash(&password))?
        .map_err(|e| AuthError::new(ErrorType::CallbackRouteError, format!("hashing the password failed: {e}")))
}

/// The user's password account and its stored hash, if any.
fn password_account(
    db: &DataStores,
    provider: &Provider,
    user_id: &str,
) -> Result<Option<(AdapterAccount, String)>, AuthError> {
    let Some(account) = db.accounts.get_account(user_id, &provider.id)? else { return Ok(None) };
    let hash = account.extra.get(HASH_FIELD).and_then(Value::as_str).map(str::to_owned);
    Ok(hash.map(|hash| (account, hash)))
}

/// Whether `password` matches `stored`, within the bound.
fn verify(p: &PasswordProvider, password: &str, stored: &str) -> Result<crate::password::Verified, AuthError> {
    let (hasher, password, stored) = (p.hasher.clone(), password.to_owned(), stored.to_owned());
    hashing(p, move || hasher.verify(&password, &stored))
}

/// Store `hash` as the user's password: on their password account, made
/// now if they have none (a reset by a user who signed up otherwise).
fn store_hash(db: &DataStores, provider: &Provider, user_id: &str, hash: String) -> Result<(), AuthError> {
    match db.accounts.get_account(user_id, &provider.id)? {
        Some(mut account) => {
            account.extra.insert(HASH_FIELD.into(), Value::String(hash));
            db.accounts.update_account(&account)?;
        }
        None => db.accounts.link_account(&new_account(provider, user_id, hash))?,
    }
    Ok(())
}

/// A password account: provider `<id>`, type `credentials`, keyed by the
/// user's id (an address change keeps it), the hash in `extra`.
fn new_account(provider: &Provider, user_id: &str, hash: String) -> AdapterAccount {
    let mut account = AdapterAccount::new(AccountType::Credentials, &provider.id, user_id);
    account.user_id = user_id.to_owned();
    account.extra = Map::from_iter([(HASH_FIELD.to_owned(), Value::String(hash))]);
    account
}

/// The account as callbacks see it: never the hash.
fn public_account(provider: &Provider, user_id: &str) -> AdapterAccount {
    let mut account = AdapterAccount::new(AccountType::Credentials, &provider.id, user_id);
    account.user_id = user_id.to_owned();
    account
}

fn user_value(user: &AdapterUser) -> Value {
    super::register::user_value(user)
}

/// Whether `password` is `user_id`'s password; `None` without a password
/// provider or a password of theirs. The account page takes it instead of
/// a code to turn the second factor off (the caller counts the attempt).
pub(crate) fn password_matches(ctx: &Ctx, user_id: &str, password: &str) -> Result<Option<bool>, AuthError> {
    let Some((provider, p)) = ctx.auth.providers.password() else { return Ok(None) };
    let db = stores(ctx)?;
    let Some((_, hash)) = password_account(db, provider, user_id)? else { return Ok(None) };
    Ok(Some(verify(p, password, &hash)?.ok))
}

/// Whether `user_id` has a password of `provider`'s.
pub(super) fn has_password(db: &DataStores, provider: &Provider, user_id: &str) -> Result<bool, AuthError> {
    Ok(password_account(db, provider, user_id)?.is_some())
}

/// `{basePath}/password/<step>`, with this request's explicit locale.
fn step_url(ctx: &Ctx, step: Step) -> String {
    ctx.with_locale(format!("{}/password/{}", ctx.base_url(), step.path()))
}

/// Where a mailed link sends the browser: "check your email".
fn check_email(ctx: &Ctx, provider: &Provider) -> Reply {
    Reply::Redirect(ctx.with_locale(format!(
        "{}/verify-request?provider={}&type=password",
        ctx.base_url(),
        provider.id
    )))
}

/// A field of the posted form, as text.
fn field(ctx: &mut Ctx, name: &str) -> String {
    ctx.body_str(name).unwrap_or_default()
}
