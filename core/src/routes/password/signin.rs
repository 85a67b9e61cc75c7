//! Signing in with an email address and a password: `POST callback/<id>`
//! (Auth.js's credentials wire; `signIn("password", { email, password })`
//! from Auth.js's client lands here), and the server-side sign-in action.

use serde_json::Map;

use super::{field, hash_new, hashing, password_account, public_account, stores, HASH_FIELD};
use crate::error::AuthError;
use crate::password::{normalize, Verified};
use crate::providers::{PasswordProvider, Provider};
use crate::ratelimit::Route;
use crate::routes::email::normalise_email;
use crate::routes::register::{SignInKind, SignInUser};
use crate::routes::{Ctx, Reply};
use crate::store::AdapterUser;

/// Check the password and sign in. An unknown address costs what a wrong
/// password costs (a dummy verification) and answers the same
/// `CredentialsSignin`. Failures count against the address and the IP
/// (`rateLimit.credentials`); a success gives its attempt back. A hash in
/// an old format or with old parameters is replaced now. An account whose
/// address is not proven yet (with `requireEmailVerification`) is told so,
/// and mailed a new link within `rateLimit.passwordReset`.
pub(in crate::routes) fn sign_in(ctx: &mut Ctx, provider: &Provider, p: &PasswordProvider) -> Result<Reply, AuthError> {
    let db = stores(ctx)?;
    let typed = field(ctx, "email");
    let password = field(ctx, "password");
    let email = normalise_email(&typed);
    let key = email.clone().unwrap_or_else(|| typed.trim().to_lowercase());
    let counted = crate::routes::limits::check(ctx, Route::Credentials, &[key.as_str()], 1)?;
    let user = match &email {
        Some(email) => db.users.get_user_by_email(email)?,
        None => None,
    };
    let stored = match &user {
        Some(user) => password_account(db, provider, &user.id)?,
        None => None,
    };
    let verified = match &stored {
        Some((_, hash)) => super::verify(p, &password, hash)?,
        None => {
            let (hasher, typed) = (p.hasher.clone(), password.clone());
            let _wrong = hashing(p, move || hasher.verify_dummy(&typed))?;
            Verified { ok: false, needs_rehash: false }
        }
    };
    let (Some(user), Some((mut account, _)), true) = (user, stored, verified.ok) else {
        return Err(AuthError::credentials_signin(None, "no account with this email and password"));
    };
    crate::routes::limits::refund(ctx, &counted);
    if verified.needs_rehash {
        // Not fatal: the sign-in stands, the old hash still works.
        let upgraded = hash_new(p, &normalize(&password)).and_then(|hash| {
            account.extra.insert(HASH_FIELD.into(), hash.into());
            db.accounts.update_account(&account).map_err(AuthError::from)
        });
        if let Err(e) = upgraded {
            ctx.auth.callbacks.log(&e);
        }
    }
    if p.require_email_verification && user.email_verified.is_none() {
        let email = email.unwrap_or_default();
        // A new link, within its own limit; past it, the answer is the same.
        match crate::routes::limits::check(ctx, Route::PasswordReset, &[email.as_str()], 1) {
            Ok(_) => super::signup::mail_verify_link(ctx, db, provider, p, &user, &email)?,
            Err(_) => ctx.limited = None,
        }
        return Err(AuthError::credentials_signin(
            Some("email_not_verified".into()),
            "the account's email address is not verified yet; a new link was sent",
        ));
    }
    sign_in_user(ctx, provider, &user)
}

/// Sign `user` in through the password provider: the signIn callback, the
/// session, the signIn event, the redirect. The account the callbacks see
/// never holds the hash.
pub(super) fn sign_in_user(ctx: &mut Ctx, provider: &Provider, user: &AdapterUser) -> Result<Reply, AuthError> {
    let raw = crate::routes::register::user_json(user);
    let signed_in =
        SignInUser::from_provider(raw).ok_or_else(AuthError::internal)?.proven(user.email_verified.is_some());
    crate::routes::sign_in::complete_sign_in(
        ctx,
        SignInKind::Password,
        signed_in,
        public_account(provider, &user.id),
        None,
        Map::new(),
        None,
    )
}
