//! A browser its user trusts to skip the second step of a sign-in: after a
//! right code, a user who ticks "trust this browser" gets a cookie
//! (`authjs.trusted-device`, `twoFactor.trustedDevice.maxAge`, 30 days by
//! default). A later sign-in of the same user in that browser, by a first
//! factor that would ask for the second, gets its session at once.
//!
//! The cookie is sealed with the auth secret under its own key (its name is
//! the key derivation salt) and holds whose it is (`sub`), when it was
//! given (`at`, unix ms) and when that user's second factor was turned on
//! (`since`). It trusts nothing unless all three still hold:
//! - it names the user signing in (another user in the same browser is
//!   asked for their code);
//! - the user's second factor is the one it was given under (turning TOTP
//!   off, or off and on again, ends every trusted browser);
//! - no sign-out of the user's was recorded after it was given: ending the
//!   user's sessions everywhere (or everywhere else), a password change or
//!   reset, deleting the account. The record is the one JWT sessions end
//!   by (`SessionStore::sign_out_before`), written for database sessions
//!   too while trusted browsers are on; a store that cannot keep it (a
//!   host adapter) never offers trust.
//!
//! A store that cannot answer whether a sign-out was recorded trusts
//! nothing: the user is asked for the code.

use serde_json::{Map, Value};

use super::Ctx;
use crate::cookies::ChunkedCookie;
use crate::error::{AuthError, ErrorType};
use crate::store::DataStores;
use crate::time::{now_millis, now_seconds};

/// Whether trusting a browser is offered: on in `twoFactor.trustedDevice`,
/// and the store keeps the sign-outs that end it.
pub(crate) fn offered(ctx: &Ctx) -> bool {
    ctx.auth.settings.two_factor.trusted_device.max_age.is_some()
        && ctx.auth.stores.data().is_some_and(|db| db.sessions.keeps_sign_outs())
}

/// Trust this browser for `user_id`, under the second factor they have on
/// now (nothing without one, or where trust is not offered).
pub(crate) fn trust(ctx: &mut Ctx, user_id: &str) -> Result<(), AuthError> {
    let (Some(max_age), Some(db)) = (ctx.auth.settings.two_factor.trusted_device.max_age, ctx.auth.stores.data())
    else {
        return Ok(());
    };
    if !offered(ctx) {
        return Ok(());
    }
    let Some(since) = crate::user_two_factor::totp_enabled_at(db, user_id)? else { return Ok(()) };
    let mut claims = Map::new();
    claims.insert("sub".into(), Value::from(user_id));
    claims.insert("at".into(), Value::from(now_millis()));
    claims.insert("since".into(), Value::from(since));
    let spec = &ctx.cookies.trusted_device;
    let sealed = ctx
        .auth
        .codec
        .encode(&claims, &spec.name, max_age)
        .map_err(|e| AuthError::new(ErrorType::TwoFactorError, e.to_string()))?;
    let jar = ChunkedCookie::read(spec, ctx.req);
    ctx.set_cookies.extend(jar.write(&sealed, now_seconds().saturating_add(max_age)));
    Ok(())
}

/// Whether this browser is trusted to skip `user_id`'s second step, whose
/// factor was turned on at `since` (unix ms).
pub(crate) fn trusted(ctx: &Ctx, db: &DataStores, user_id: &str, since: i64) -> bool {
    if !offered(ctx) {
        return false;
    }
    let spec = &ctx.cookies.trusted_device;
    let jar = ChunkedCookie::read(spec, ctx.req);
    let Some(claims) = jar.value().and_then(|sealed| ctx.auth.codec.decode(sealed, &spec.name).ok()) else {
        return false;
    };
    let given_at = claims.get("at").and_then(Value::as_i64);
    let names_user = claims.get("sub").and_then(Value::as_str) == Some(user_id);
    let same_factor = claims.get("since").and_then(Value::as_i64) == Some(since);
    let (Some(given_at), true, true) = (given_at, names_user, same_factor) else {
        return false;
    };
    match db.sessions.signed_out_before(user_id) {
        Ok(signed_out) => signed_out.is_none_or(|before| given_at > before),
        Err(e) => {
            ctx.auth.callbacks.log(&AuthError::from(e));
            false
        }
    }
}
