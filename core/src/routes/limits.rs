//! Rate limits applied to the routes (the rules and stores are in
//! `crate::ratelimit`): check before the work, count what the rule counts,
//! and refuse with `RateLimited` (the 429 is built in `routes::handle`).

use std::sync::atomic::Ordering;
use std::time::Duration;

use super::Ctx;
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::ratelimit::{Keys, Limited, Route, Verdict};

/// The keys a request was counted under, to count a failure later.
pub(crate) struct Counted {
    route: Route,
    keys: Keys,
}

/// Check `route`'s limit for this request, adding `cost` (0: only look);
/// `Err(RateLimited)` when over it (and `ctx.limited` set for the 429).
pub(crate) fn check(ctx: &mut Ctx, route: Route, identifiers: &[&str], cost: u64) -> Result<Counted, AuthError> {
    let limiter = &ctx.auth.limiter;
    let keys = limiter.keys(route, ctx.req, identifiers);
    // Only worth a warning where a limit counts this route: with rate
    // limits off (or this route's off) nothing is shared.
    let counts = limiter.rule(route).is_some();
    if counts && keys.ip == crate::ratelimit::UNKNOWN_IP && !limiter.logged_no_ip.swap(true, Ordering::Relaxed) {
        ctx.auth.callbacks.logger.warn(
            ctx.auth.callbacks.host.as_ref(),
            "rate-limit-no-client-ip",
            "a request came with no client address: rate limits count such requests under one shared key. \
             Pass the connection's peer address (the bindings do; C hosts set `remoteAddress` in the request JSON) \
             and, behind a proxy, list it in `trustedProxies`",
        );
    }
    let counted = Counted { route, keys };
    match limiter.check(route, &counted.keys, cost) {
        Ok(Verdict::Allowed) => Ok(counted),
        Ok(Verdict::Limited(limited)) => Err(refuse(ctx, limited)),
        Err(e) => {
            let closed = limiter.fail_closed(route);
            let message = format!(
                "{e}; {} requests are {} while the store fails (rateLimit.store.failClosed)",
                route.as_str(),
                if closed { "refused" } else { "admitted uncounted" }
            );
            ctx.auth.callbacks.log(&AuthError::new(ErrorType::RateLimited, message));
            // By default closed for password guessing, open elsewhere: an
            // unreachable store must not let guesses through, nor stop every
            // sign-in (`rateLimit.store.failClosed` changes it per route).
            if !closed {
                return Ok(counted);
            }
            let rule = limiter.rule(route).expect("checked routes have a rule");
            let limited = Limited {
                route,
                key: "store-unavailable".into(),
                limit: rule.max,
                window: rule.window,
                retry_after: Duration::from_secs(1),
            };
            Err(refuse(ctx, limited))
        }
    }
}

/// Give back an attempt `check` reserved (a password that was right: only
/// failures count). Reserving first and refunding after, instead of looking
/// first and counting failures after, means concurrent guesses cannot all
/// pass the check before any of them is counted.
pub(crate) fn refund(ctx: &mut Ctx, counted: &Counted) {
    if let Err(e) = ctx.auth.limiter.refund(counted.route, &counted.keys) {
        ctx.auth.callbacks.log(&AuthError::new(ErrorType::RateLimited, e.to_string()));
    }
}

fn refuse(ctx: &mut Ctx, limited: Limited) -> AuthError {
    ctx.auth.callbacks.event(&Hook::EVENT_RATE_LIMITED, || limited.event());
    let error = AuthError::new(
        ErrorType::RateLimited,
        format!(
            "too many {} attempts for {}; try again in {} s",
            limited.route.as_str(),
            limited.key,
            limited.retry_after.as_secs().max(1)
        ),
    );
    ctx.limited = Some(limited);
    error
}
