//! `GET sessions`: the signed-in user's database sessions (see
//! [`Auth::list_sessions`](crate::Auth::list_sessions)); `POST sessions`
//! with `action=end&id=`, `action=endOthers` or `action=endAll` (and
//! `csrfToken`, checked by the caller) ends them. Signed out (or no
//! adapter): 401. JWT sessions are not stored: 400 `UnsupportedStrategy`.

use serde_json::{json, Value};

use super::{register, Ctx, Reply};
use crate::error::{AuthError, ErrorType};

pub fn list(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    answer(ctx, |ctx, user_id| {
        ctx.auth.list_sessions(user_id, Some(ctx.req)).map(|sessions| json!({ "sessions": sessions }))
    })
}

pub fn manage(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    let action = ctx.body_str("action");
    let id = ctx.body_str("id");
    answer(ctx, |ctx, user_id| match action.as_deref() {
        Some("end") => {
            let id = id.as_deref().unwrap_or_default();
            ctx.auth.end_session(user_id, id).map(|()| json!({ "ended": 1 }))
        }
        Some("endOthers") => ctx.auth.end_other_sessions(user_id, Some(ctx.req)).map(|n| json!({ "ended": n })),
        Some("endAll") => ctx.auth.end_all_sessions(user_id).map(|n| json!({ "ended": n })),
        _ => Err(AuthError::new(ErrorType::UnknownAction, "action must be end, endOthers or endAll")),
    })
}

/// Run `f` for the signed-in user; refusals as JSON the page can show.
fn answer(ctx: &mut Ctx, f: impl FnOnce(&Ctx, &str) -> Result<Value, AuthError>) -> Result<Reply, AuthError> {
    // Who is signed in, with either strategy: the calls below refuse JWT
    // sessions themselves (`UnsupportedStrategy`).
    let user_id = match ctx.auth.stores.data() {
        Some(db) => register::current_user_id(ctx, db)?,
        None => None,
    };
    let Some(user_id) = user_id else {
        return Ok(Reply::Json {
            status: 401,
            body: json!({ "error": "Unauthorized", "message": "sign in first" }),
            no_store: true,
        });
    };
    match f(ctx, &user_id) {
        Ok(body) => Ok(Reply::Json { status: 200, body, no_store: true }),
        Err(e) => match e.error_type {
            ErrorType::SessionTokenError => Ok(refused(404, &e)),
            ErrorType::UnknownAction | ErrorType::UnsupportedStrategy => Ok(refused(400, &e)),
            _ => Err(e),
        },
    }
}

fn refused(status: u16, e: &AuthError) -> Reply {
    Reply::Json { status, body: json!({ "error": e.error_type.as_str(), "message": e.message }), no_store: true }
}
