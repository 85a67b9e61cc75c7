//! Abuse protection: rate limits on the routes that cost or leak, on by
//! default.
//!
//! | route | counted | keys | default |
//! |---|---|---|---|
//! | `credentials`: `POST callback/<credentials>` | failed sign-ins only | the account (the provider's declared non-secret fields, hashed) and the client IP | 5 per account, 50 per IP, per 5 min |
//! | `email`: `POST signin/<email>` | every link sent | the address (hashed) and the client IP | 5 per address, 20 per IP, per hour |
//! | `callback`: OAuth/OIDC and email-link callbacks | every request | the client IP | 100 per minute |
//! | `passkey`: passkey options and verification | every request | the client IP | 60 per minute |
//! | `signUp`: `POST password/signup` | every sign-up | the client IP | 10 per IP per hour |
//! | `passwordReset`: `POST password/forgot`, and links resent at sign-in | every link asked for | the address (hashed) and the client IP | 3 per address, 20 per IP, per hour |
//! | `passwordToken`: the password provider's links and forms that carry one | every use | the client IP | 30 per IP per 10 min |
//!
//! Each is configurable, `rateLimit: { window, max, credentials: { window,
//! max, maxPerIp } | false, email: …, callback: … }`, or off as a whole with
//! `rateLimit: false`; `window`/`max` at the top are the default for a
//! route's missing fields.
//!
//! **Fixed windows.** A count lives in the window `floor(now / window)`
//! and starts again at 0 in the next. Every store can do that in one atomic
//! step (a map entry under a lock, one SQL UPSERT, one Redis script), so N
//! processes sharing a store admit exactly `max` per window together. The
//! price is a burst of up to `2 × max` across a window boundary, which a
//! sliding window would smooth at the cost of a second read per request; for
//! the limits here (a handful of password guesses) the bound that matters is
//! the long-run rate, which a fixed window holds exactly.
//!
//! **Keys.** The client IP (see [`client_ip`]; an IPv6 client by its /64, the
//! block one subscriber gets) and, where the route has one, the identifier
//! (username, email address) HMAC-ed with the secret, so neither the store
//! nor the `events.rateLimited` event holds an address or a username. The
//! per-IP limit is higher than the per-identifier one: a botnet cannot guess
//! one account's password from many IPs, and one NAT's many users do not
//! lock each other out. A request whose client IP cannot be known is counted
//! under one shared key (fail closed) and the log says to configure
//! `trustedProxies` or pass the peer address. The credentials account key
//! comes from the provider's declared fields only
//! (`CredentialsProvider::limit_identifiers`), so undeclared decoy fields
//! cannot give each guess a new key. Keys are counted IP first and counting
//! stops at the first that refuses, so a refused request adds no key.
//!
//! **Memory.** The default store is bounded and never forgets a count at its
//! limit to make room (see [`crate::store::MemoryCounters`]).

pub mod client_ip;
pub mod config;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;

use crate::error::ConfigError;
use crate::http::AuthRequest;
#[cfg(test)]
use crate::store::MemoryCounters;
use crate::store::{CounterStore, StoreError};
pub use client_ip::TrustedProxies;
pub use config::StoreConfig;

/// The one key of every request whose client IP is unknown (fail closed).
pub const UNKNOWN_IP: &str = "ip:unknown";

/// A route family with its own limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    Credentials,
    Email,
    Callback,
    /// Passkey options and verification (`webauthn-options`, the passkey
    /// callback): each costs a database write.
    Passkey,
    /// Password sign-ups (`password/signup`): each may mail a link.
    SignUp,
    /// Links the password provider mails on request (forgotten password,
    /// a resent verification link): per address and per IP.
    PasswordReset,
    /// Uses of the password provider's links (verify, reset, confirm an
    /// address): every guess at a token counts.
    PasswordToken,
    /// Codes at a sign-in's second step, per user: a wrong code counts.
    TwoFactor,
}

impl Route {
    pub fn as_str(self) -> &'static str {
        match self {
            Route::Credentials => "credentials",
            Route::Email => "email",
            Route::Callback => "callback",
            Route::Passkey => "passkey",
            Route::SignUp => "signUp",
            Route::PasswordReset => "passwordReset",
            Route::PasswordToken => "passwordToken",
            Route::TwoFactor => "twoFactor",
        }
    }

    const ALL: [Route; 8] = [
        Route::Credentials,
        Route::Email,
        Route::Callback,
        Route::Passkey,
        Route::SignUp,
        Route::PasswordReset,
        Route::PasswordToken,
        Route::TwoFactor,
    ];

    fn default_rule(self) -> Rule {
        match self {
            Route::Credentials => Rule { window: Duration::from_secs(300), max: 5, max_per_ip: 50 },
            Route::Email => Rule { window: Duration::from_secs(3600), max: 5, max_per_ip: 20 },
            Route::Callback => Rule { window: Duration::from_secs(60), max: 100, max_per_ip: 100 },
            Route::Passkey => Rule { window: Duration::from_secs(60), max: 30, max_per_ip: 60 },
            Route::SignUp => Rule { window: Duration::from_secs(3600), max: 10, max_per_ip: 10 },
            Route::PasswordReset => Rule { window: Duration::from_secs(3600), max: 3, max_per_ip: 20 },
            Route::PasswordToken => Rule { window: Duration::from_secs(600), max: 30, max_per_ip: 30 },
            Route::TwoFactor => Rule { window: Duration::from_secs(300), max: 5, max_per_ip: 50 },
        }
    }
}

/// One route's limit: `max` per identifier, `max_per_ip` per client IP,
/// per `window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub window: Duration,
    pub max: u64,
    pub max_per_ip: u64,
}

/// The parsed `rateLimit` option.
#[derive(Debug, Clone)]
pub struct RateLimits {
    rules: [Option<Rule>; Route::ALL.len()],
    store: StoreConfig,
    /// Per route: refuse (true) or admit (false) when the store fails.
    fail_closed: [bool; Route::ALL.len()],
}

impl Default for RateLimits {
    fn default() -> Self {
        RateLimits {
            rules: Route::ALL.map(|r| Some(r.default_rule())),
            store: StoreConfig::memory(),
            fail_closed: Route::ALL.map(|r| matches!(r, Route::Credentials | Route::TwoFactor)),
        }
    }
}

impl RateLimits {
    /// `rateLimit`: absent (the defaults), `false` (off), or an object.
    pub fn parse(value: Option<&Value>) -> Result<RateLimits, ConfigError> {
        let map = match value {
            None | Some(Value::Null) | Some(Value::Bool(true)) => return Ok(RateLimits::default()),
            Some(Value::Bool(false)) => return Ok(RateLimits { rules: [None; Route::ALL.len()], ..RateLimits::default() }),
            Some(Value::Object(map)) => map,
            Some(_) => {
                return Err(ConfigError::new(
                    "rateLimit",
                    "must be false or an object { window, max, credentials, email, callback, passkey, signUp, passwordReset, passwordToken, twoFactor, store }",
                ))
            }
        };
        const KEYS: [&str; 11] = [
            "window",
            "max",
            "credentials",
            "email",
            "callback",
            "passkey",
            "signUp",
            "passwordReset",
            "passwordToken",
            "twoFactor",
            "store",
        ];
        if let Some(key) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(ConfigError::new(
                format!("rateLimit.{key}"),
                format!("unknown option; known: {}", KEYS.join(", ")),
            ));
        }
        let default_window = seconds(map.get("window"), "rateLimit.window")?;
        let default_max = count(map.get("max"), "rateLimit.max")?;
        let mut rules = [None; Route::ALL.len()];
        for (slot, route) in rules.iter_mut().zip(Route::ALL) {
            let option = format!("rateLimit.{}", route.as_str());
            let base = route.default_rule();
            *slot = match map.get(route.as_str()) {
                Some(Value::Bool(false)) => None,
                None | Some(Value::Null) | Some(Value::Bool(true)) => Some(Rule {
                    window: default_window.unwrap_or(base.window),
                    max: default_max.unwrap_or(base.max),
                    max_per_ip: default_max
                        .map_or(base.max_per_ip, |m| m.saturating_mul(base.max_per_ip / base.max.max(1))),
                }),
                Some(Value::Object(rule)) => {
                    if let Some(key) = rule.keys().find(|k| !["window", "max", "maxPerIp"].contains(&k.as_str())) {
                        return Err(ConfigError::new(
                            format!("{option}.{key}"),
                            "unknown option; known: window, max, maxPerIp",
                        ));
                    }
                    let max = count(rule.get("max"), &format!("{option}.max"))?.or(default_max).unwrap_or(base.max);
                    Some(Rule {
                        window: seconds(rule.get("window"), &format!("{option}.window"))?
                            .or(default_window)
                            .unwrap_or(base.window),
                        max,
                        max_per_ip: count(rule.get("maxPerIp"), &format!("{option}.maxPerIp"))?
                            .unwrap_or_else(|| max.saturating_mul(base.max_per_ip / base.max.max(1))),
                    })
                }
                Some(_) => return Err(ConfigError::new(option, "must be false or { window, max, maxPerIp }")),
            };
        }
        let (store, fail_closed) = config::parse(map.get("store"))?;
        Ok(RateLimits { rules, store, fail_closed })
    }

    pub fn rule(&self, route: Route) -> Option<Rule> {
        self.rules[route as usize]
    }

    /// Where the counts live (`rateLimit.store`).
    pub fn store(&self) -> &StoreConfig {
        &self.store
    }

    /// Whether `route` refuses requests while the store fails
    /// (`rateLimit.store.failClosed`).
    pub fn fail_closed(&self, route: Route) -> bool {
        self.fail_closed[route as usize]
    }
}

fn seconds(value: Option<&Value>, option: &str) -> Result<Option<Duration>, ConfigError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64().filter(|s| (1..=31 * 24 * 3600).contains(s)) {
            Some(s) => Ok(Some(Duration::from_secs(s))),
            None => Err(ConfigError::new(option, "must be a whole number of seconds from 1 to 2678400 (31 days)")),
        },
    }
}

fn count(value: Option<&Value>, option: &str) -> Result<Option<u64>, ConfigError> {
    match value {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|n| *n >= 1)
            .map(Some)
            .ok_or_else(|| ConfigError::new(option, "must be a whole number from 1")),
    }
}

/// What a limit check decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// Over the limit: answer 429 (or the error page).
    Limited(Limited),
}

/// A refusal: which key and rule, and when to come back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limited {
    pub route: Route,
    /// `ip:<…>` or `id:<hmac>`: safe to log (no address or username).
    pub key: String,
    pub limit: u64,
    pub window: Duration,
    pub retry_after: Duration,
}

impl Limited {
    /// `Retry-After` and the IETF `RateLimit` / `RateLimit-Policy` fields.
    pub fn headers(&self) -> Vec<(String, String)> {
        let reset = self.retry_after.as_secs().max(1);
        vec![
            ("retry-after".into(), reset.to_string()),
            (
                "ratelimit-policy".into(),
                format!("\"{}\";q={};w={}", self.route.as_str(), self.limit, self.window.as_secs()),
            ),
            ("ratelimit".into(), format!("\"{}\";r=0;t={reset}", self.route.as_str())),
        ]
    }

    /// The `events.rateLimited` message.
    pub fn event(&self) -> Value {
        json!({ "route": self.route.as_str(), "key": self.key, "limit": self.limit,
                "window": self.window.as_secs(), "retryAfter": self.retry_after.as_secs().max(1) })
    }
}

/// The limiter of one engine: rules, a store, the proxies to believe, and
/// the key for identifiers.
pub struct Limiter {
    limits: RateLimits,
    store: Arc<dyn CounterStore>,
    proxies: TrustedProxies,
    hmac_key: Vec<u8>,
    /// The log has said once that client IPs are unknown.
    pub(crate) logged_no_ip: AtomicBool,
}

/// Failures of the store: logged by the caller, then the route's
/// configured behaviour (closed for credentials) applies.
pub type CheckResult = Result<Verdict, StoreError>;

impl Limiter {
    pub fn new(limits: RateLimits, store: Arc<dyn CounterStore>, proxies: TrustedProxies, secret: &str) -> Limiter {
        Limiter { limits, store, proxies, hmac_key: secret.as_bytes().to_vec(), logged_no_ip: AtomicBool::new(false) }
    }

    pub fn rule(&self, route: Route) -> Option<Rule> {
        self.limits.rule(route)
    }

    /// See [`RateLimits::fail_closed`].
    pub fn fail_closed(&self, route: Route) -> bool {
        self.limits.fail_closed(route)
    }

    /// The store, to share with another engine of the same application.
    pub fn store(&self) -> Arc<dyn CounterStore> {
        self.store.clone()
    }

    /// The client's address as the limits see it: the peer, or what a
    /// trusted proxy says it forwarded for.
    pub fn client_ip(&self, req: &AuthRequest) -> Option<std::net::IpAddr> {
        self.proxies.client_ip(req)
    }

    /// The keys a request is counted under for `route`: the client's IP
    /// (or the shared unknown key) and each identifier's HMAC.
    pub fn keys(&self, route: Route, req: &AuthRequest, identifiers: &[&str]) -> Keys {
        let ip = match self.proxies.client_ip(req) {
            Some(ip) => format!("ip:{}", client_ip::bucket(ip)),
            None => UNKNOWN_IP.to_owned(),
        };
        let ids = identifiers
            .iter()
            .map(|identifier| {
                let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.hmac_key).expect("any key length");
                mac.update(route.as_str().as_bytes());
                mac.update(b"\0");
                mac.update(identifier.trim().to_lowercase().as_bytes());
                let digest = mac.finalize().into_bytes();
                format!("id:{}", digest[..16].iter().map(|b| format!("{b:02x}")).collect::<String>())
            })
            .collect();
        Keys { ip, ids }
    }

    /// Give back one attempt on the route's keys (see [`CounterStore::refund`]).
    pub fn refund(&self, route: Route, keys: &Keys) -> Result<(), StoreError> {
        let Some(rule) = self.rule(route) else { return Ok(()) };
        for key in keys.all() {
            self.store.refund(&format!("{}:{key}", route.as_str()), 1, rule.window)?;
        }
        Ok(())
    }

    /// Count `cost` against the route's keys (0 only looks) and decide: the
    /// request is limited when a key's count is past its limit (with
    /// `cost` 0: at it, so the next failure would be one too many).
    ///
    /// The keys are counted in order, the IP first, and counting stops at
    /// the first key that refuses: a refused request adds no key after it,
    /// so a client already over its IP limit cannot fill the store with
    /// one new identifier per request.
    pub fn check(&self, route: Route, keys: &Keys, cost: u64) -> CheckResult {
        let Some(rule) = self.rule(route) else { return Ok(Verdict::Allowed) };
        let limits = std::iter::once(rule.max_per_ip).chain(std::iter::repeat(rule.max));
        for (key, limit) in keys.all().zip(limits) {
            let store_key = format!("{}:{key}", route.as_str());
            let counted = self.store.consume_bounded(&store_key, cost, rule.window, limit)?;
            let over = if cost == 0 { counted.count >= limit } else { counted.count > limit };
            if over {
                return Ok(Verdict::Limited(Limited {
                    route,
                    key: key.to_owned(),
                    limit,
                    window: rule.window,
                    retry_after: counted.reset_after,
                }));
            }
        }
        Ok(Verdict::Allowed)
    }
}

/// The keys a request is counted under: its client IP's, then one per
/// identifier (each `id:<hmac>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keys {
    pub ip: String,
    pub ids: Vec<String>,
}

impl Keys {
    /// The IP key, then the identifiers' keys.
    pub fn all(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.ip.as_str()).chain(self.ids.iter().map(String::as_str))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_parse_with_defaults_and_name_what_is_wrong() {
        let defaults = RateLimits::parse(None).unwrap();
        assert_eq!(defaults.rule(Route::Credentials), Some(Route::Credentials.default_rule()));
        let off = RateLimits::parse(Some(&json!(false))).unwrap();
        assert!(Route::ALL.iter().all(|r| off.rule(*r).is_none()));
        let custom =
            RateLimits::parse(Some(&json!({ "window": 10, "credentials": { "max": 3 }, "email": false }))).unwrap();
        assert_eq!(
            custom.rule(Route::Credentials),
            Some(Rule { window: Duration::from_secs(10), max: 3, max_per_ip: 30 })
        );
        assert_eq!(custom.rule(Route::Email), None);
        assert_eq!(custom.rule(Route::Callback).unwrap().window, Duration::from_secs(10));
        for (bad, option) in [
            (json!({ "credentials": { "max": 0 } }), "rateLimit.credentials.max"),
            (json!({ "window": -1 }), "rateLimit.window"),
            (json!({ "email": { "windw": 1 } }), "rateLimit.email.windw"),
            (json!({ "passwords": {} }), "rateLimit.passwords"),
            (json!(3), "rateLimit"),
        ] {
            assert_eq!(RateLimits::parse(Some(&bad)).unwrap_err().option, option, "{bad}");
        }
    }

    #[test]
    fn a_username_is_limited_across_ips_and_an_ip_across_usernames() {
        let limits =
            RateLimits::parse(Some(&json!({ "credentials": { "window": 60, "max": 2, "maxPerIp": 3 } }))).unwrap();
        let limiter = Limiter::new(limits, Arc::new(MemoryCounters::default()), TrustedProxies::none(), "secret");
        let from = |ip: &str| AuthRequest { remote_address: Some(ip.into()), ..AuthRequest::get("http://x/") };
        // One username from many IPs: the identifier key stops the third failure.
        for (i, ip) in ["1.1.1.1", "2.2.2.2", "3.3.3.3"].iter().enumerate() {
            let keys = limiter.keys(Route::Credentials, &from(ip), &["Ada "]);
            let verdict = limiter.check(Route::Credentials, &keys, 1).unwrap();
            assert_eq!(matches!(verdict, Verdict::Limited(_)), i == 2, "{ip}");
        }
        // One IP, many usernames: the IP key stops the fourth.
        for (i, user) in ["a", "b", "c", "d"].iter().enumerate() {
            let keys = limiter.keys(Route::Credentials, &from("9.9.9.9"), &[user]);
            let verdict = limiter.check(Route::Credentials, &keys, 1).unwrap();
            assert_eq!(matches!(verdict, Verdict::Limited(_)), i == 3, "{user}");
        }
        // The key names neither the username nor the address in clear.
        let keys = limiter.keys(Route::Credentials, &from("9.9.9.9"), &["ada@example.com"]);
        assert!(keys.ids.len() == 1 && keys.ids[0].starts_with("id:") && !keys.ids[0].contains("ada"));
    }
}
