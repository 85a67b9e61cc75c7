//! `GET session` (read, and renew when due) and `POST session` (the
//! client's `update(data)`).

use serde_json::Value;

use super::{Ctx, Reply};
use crate::error::{AuthError, ErrorType};
use crate::session::ReadMode;

/// A database that cannot be read answers "no session" (the cookie is
/// kept), except a busy one: that is 503 with `Retry-After`, so the client
/// retries instead of seeing its user signed out.
pub fn get(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    let read = ctx.auth.read_session(ctx.req, ctx.cookies, ReadMode::Refresh);
    busy(read.adapter_error)?;
    ctx.set_cookies.extend(read.cookies);
    Ok(Reply::Json { status: 200, body: read.session.unwrap_or(Value::Null), no_store: true })
}

fn busy(adapter_error: Option<AuthError>) -> Result<(), AuthError> {
    match adapter_error {
        Some(e) if e.error_type == ErrorType::Overloaded => Err(e),
        _ => Ok(()),
    }
}

pub fn update(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    ctx.require_csrf()?;
    let data = ctx.body().get("data").cloned().unwrap_or(Value::Null);
    let read = ctx.auth.read_session(ctx.req, ctx.cookies, ReadMode::Update(data));
    busy(read.adapter_error)?;
    ctx.set_cookies.extend(read.cookies);
    Ok(Reply::json(read.session.unwrap_or(Value::Null)))
}
