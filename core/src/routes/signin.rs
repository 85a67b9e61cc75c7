//! `POST signin/<provider>`: start a sign-in. Credentials sign in through
//! `POST callback/credentials`, so their sign-in POST lands on the page.

use super::{Ctx, Reply};
use crate::error::AuthError;
use crate::providers::{Provider, ProviderKind};

pub fn start(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    ctx.require_csrf()?;
    let signin_page = ctx.with_locale(format!("{}/signin", ctx.base_url()));
    if ctx.provider_id.is_none() {
        return Ok(Reply::Redirect(signin_page));
    }
    let provider = ctx.provider()?;
    match &provider.kind {
        ProviderKind::Credentials(_) | ProviderKind::WebAuthn(_) | ProviderKind::Password(_) => {
            Ok(Reply::Redirect(signin_page))
        }
        _ => begin(ctx, provider),
    }
}

/// A sign-in whose request is already trusted (the route checked its CSRF
/// token, or host code called [`crate::Auth::sign_in`]): credentials sign
/// in at once, OAuth goes to the provider, email sends its link.
pub fn begin(ctx: &mut Ctx, provider: &Provider) -> Result<Reply, AuthError> {
    match &provider.kind {
        ProviderKind::Credentials(p) => super::callback::credentials(ctx, provider, p),
        ProviderKind::OAuth(p) => super::oauth::start(ctx, provider, p),
        ProviderKind::Email(p) => super::email::send_link(ctx, provider, p),
        ProviderKind::Password(p) => super::password::sign_in(ctx, provider, p),
        ProviderKind::WebAuthn(_) => Err(AuthError::new(
            crate::error::ErrorType::UnknownAction,
            "a passkey signs in from the browser (the sign-in page, or libauth's webauthn module), not by POST signin",
        )),
    }
}
