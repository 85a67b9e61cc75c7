//! `GET sessions`: the signed-in user's database sessions (see
//! [`Auth::list_sessions`](crate::Auth::list_sessions)); `POST sessions`
//! with `action=end&id=`, `action=endOthers` or `action=endAll` (and
//! `csrfToken`, checked by the caller) ends them; with `return=account`
//! (the built-in account page's forms) the answer is a redirect back to
//! that page instead of JSON. Signed out (or no
//! adapter): 401. JWT sessions are not stored, so they are not listed or
//! ended one by one (400 `UnsupportedStrategy`); all of them, or all but
//! this browser's, end by a sign-out time ([`crate::sign_outs`]).

use serde_json::{json, Value};

use super::{register, Ctx, Reply};
use crate::config::SessionStrategy;
use crate::cookies::ChunkedCookie;
use crate::error::{AuthError, ErrorType};
use crate::time::iso_millis;
use crate::EndScope;

pub fn list(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    answer(ctx, |ctx, user_id| {
        ctx.auth.list_sessions(user_id, Some(ctx.req)).map(|sessions| json!({ "sessions": sessions }))
    })
}

pub fn manage(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    // The account page's forms: back to it, with a notice when it worked.
    let from_page = super::account::posted_from_page(ctx);
    let reply = end(ctx)?;
    if !from_page {
        return Ok(reply);
    }
    Ok(super::account::back_from(ctx, &reply, |status| (status == 200).then_some("sessions-ended")))
}

fn end(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    let action = ctx.body_str("action");
    let id = ctx.body_str("id");
    answer(ctx, |ctx, user_id| match action.as_deref() {
        Some("end") => {
            let id = id.as_deref().unwrap_or_default();
            ctx.auth.end_session(user_id, id).map(|()| json!({ "ended": 1 }))
        }
        Some("endOthers") if ctx.auth.settings.strategy == SessionStrategy::Jwt => {
            // This browser's cookie is re-issued as signed in to at the
            // sign-out, so it alone outlives it.
            let before = ctx.auth.sign_out_jwt_sessions(user_id)?;
            let cookies = ctx.auth.reissue_signed_in_at(ctx.req, user_id, before)?;
            ctx.set_cookies.extend(cookies);
            ctx.auth.sessions_ended(user_id, 0, EndScope::Others, Some(before));
            Ok(json!({ "ended": 0, "before": iso_millis(before.max(0) as u64) }))
        }
        Some("endOthers") => ctx.auth.end_other_sessions(user_id, Some(ctx.req)).map(|n| json!({ "ended": n })),
        Some("endAll") => {
            let ended = ctx.auth.end_all_sessions(user_id)?;
            // This browser's session is one of them.
            let jar = ChunkedCookie::read(&ctx.cookies.session_token, ctx.req);
            ctx.set_cookies.extend(jar.clear());
            Ok(json!({ "ended": ended }))
        }
        _ => Err(AuthError::new(ErrorType::UnknownAction, "action must be end, endOthers or endAll")),
    })
}

/// Run `f` for the signed-in user; refusals as JSON the page can show.
fn answer(ctx: &mut Ctx, f: impl FnOnce(&mut Ctx, &str) -> Result<Value, AuthError>) -> Result<Reply, AuthError> {
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
            ErrorType::UnknownAction | ErrorType::UnsupportedStrategy | ErrorType::MissingAdapter => {
                Ok(refused(400, &e))
            }
            _ => Err(e),
        },
    }
}

fn refused(status: u16, e: &AuthError) -> Reply {
    Reply::Json { status, body: json!({ "error": e.error_type.as_str(), "message": e.message }), no_store: true }
}
