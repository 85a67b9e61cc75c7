//! `POST signin/<provider>`: start a sign-in. Credentials sign in through
//! `POST callback/credentials`, so their sign-in POST lands on the page.

use super::{Ctx, Reply};
use crate::error::AuthError;
use crate::providers::ProviderKind;

pub fn start(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    ctx.require_csrf()?;
    let signin_page = format!("{}/signin", ctx.base_url());
    if ctx.provider_id.is_none() {
        return Ok(Reply::Redirect(signin_page));
    }
    let provider = ctx.provider()?;
    match &provider.kind {
        ProviderKind::Credentials(_) => Ok(Reply::Redirect(signin_page)),
        ProviderKind::OAuth(p) => super::oauth::start(ctx, provider, p),
        ProviderKind::Email(p) => super::email::send_link(ctx, provider, p),
    }
}
