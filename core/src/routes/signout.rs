//! `POST signout`: end the session and go to the callback URL.

use serde_json::{json, Value};

use super::{Ctx, Reply};
use crate::config::SessionStrategy;
use crate::cookies::ChunkedCookie;
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;

pub fn handle(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    ctx.require_csrf()?;
    end_session(ctx)
}

/// A sign-out whose request is already trusted (the route checked its CSRF
/// token, or host code called [`crate::Auth::sign_out`]).
pub fn end_session(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    let redirect = ctx.callback_url();
    let jar = ChunkedCookie::read(&ctx.cookies.session_token, ctx.req);
    let auth = ctx.auth;
    if let (Some(raw), SessionStrategy::Database, Some(db)) = (jar.value(), auth.settings.strategy, auth.stores.data())
    {
        // The session row goes; the event gets it (null if it was gone).
        // Only this browser's row: another device's session is untouched.
        let session = match db.sessions.delete_session(&crate::session::stored_session_token(raw)) {
            Ok(s) => serde_json::to_value(s).unwrap_or(Value::Null),
            Err(e) => {
                ctx.auth.callbacks.log(&AuthError::new(ErrorType::SignOutError, e.to_string()).with_source(e));
                Value::Null
            }
        };
        ctx.auth.callbacks.event(&Hook::EVENT_SIGN_OUT, || json!({ "session": session }));
        ctx.set_cookies.extend(jar.clear());
    } else if let Some(raw) = jar.value() {
        // The event gets the token if it still decodes, else null; the
        // cookie goes either way.
        let token = match ctx.auth.decode_session_token(raw, &ctx.cookies.session_token.name) {
            Ok(Some(t)) => Value::Object(t),
            Ok(None) => Value::Null,
            Err(e) => {
                ctx.auth.callbacks.log(&e);
                Value::Null
            }
        };
        ctx.auth.callbacks.event(&Hook::EVENT_SIGN_OUT, || json!({ "token": token }));
        ctx.set_cookies.extend(jar.clear());
    }
    Ok(Reply::Redirect(redirect))
}
