//! `GET session` (read, and renew when due) and `POST session` (the
//! client's `update(data)`).

use serde_json::Value;

use super::{Ctx, Reply};
use crate::error::AuthError;
use crate::session::ReadMode;

pub fn get(ctx: &mut Ctx) -> Reply {
    let read = ctx.auth.read_session(ctx.req, ctx.cookies, ReadMode::Refresh);
    ctx.set_cookies.extend(read.cookies);
    Reply::Json { status: 200, body: read.session.unwrap_or(Value::Null), no_store: true }
}

pub fn update(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    ctx.require_csrf()?;
    let data = ctx.body().get("data").cloned().unwrap_or(Value::Null);
    let read = ctx.auth.read_session(ctx.req, ctx.cookies, ReadMode::Update(data));
    ctx.set_cookies.extend(read.cookies);
    Ok(Reply::json(read.session.unwrap_or(Value::Null)))
}
