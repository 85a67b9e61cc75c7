//! libauth-core: the engine behind every libauth binding. It answers every
//! Auth.js v5 auth route from a serialized request ([`Auth::handle`]) and
//! reads the current session ([`Auth::get_session`]).
//!
//! The public API is what the crate root re-exports: [`Auth`], its
//! [`Config`] and [`Settings`], the request and response types, the
//! [`Host`] trait through which the engine reaches host code (with
//! [`HookMap`] for Rust closures), the error types, and the [`adapter`]
//! module for database adapters. `docs/architecture.md` describes the model.
//!
//! Layout: `config` (options, defaults, validation), `http` (request and
//! response), `routes/` (one module per route family), `session` (session
//! strategies), `jwt` (the encrypted cookie), `csrf`, `cookies`, `callbacks`
//! (host hooks with defaults), `providers/`, `pages` (built-in HTML).
//! Modules hidden from the docs are internals, public only for the
//! project's own tests, benchmarks and tools, with no stability promise.

// The engine is safe Rust; the unsafe code is in the bindings and the C ABI.
#![forbid(unsafe_code)]

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
struct ReadmeDoctests;

/// The Rust guide's examples (docs/rust.md), likewise. A Rust example in
/// any other page fails scripts/check-docs.py: add the page here.
#[cfg(doctest)]
#[doc = include_str!("../../docs/rust.md")]
struct RustGuideDoctests;

pub mod adapter;
mod callbacks;
pub mod config;
pub mod conventions;
#[doc(hidden)]
pub mod cookies;
#[doc(hidden)]
pub mod csrf;
#[doc(hidden)]
pub mod email;
pub mod error;
pub mod host;
pub mod http;
pub mod identity;
#[doc(hidden)]
pub mod jwt;
mod logger;
#[doc(hidden)]
pub mod oauth;
#[doc(hidden)]
pub mod outbound;
#[doc(hidden)]
pub mod pages;
mod pool;
pub mod providers;
#[doc(hidden)]
pub mod random;
pub mod ratelimit;
#[doc(hidden)]
pub mod redirect;
pub mod redis_pool;
mod routes;
pub mod session;
#[doc(hidden)]
pub mod session_cache;
#[doc(hidden)]
pub mod time;
pub mod tokens;
pub mod webauthn;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub use adapter::{Adapter, AdapterError, Purged};
pub use config::{Config, Env, ProcessEnv, SessionStrategy, Settings};
pub use error::{AuthError, ConfigError, ErrorType, HostError};
pub use host::{Hook, HookMap, Host, NoHooks};
pub use http::{ActionOutcome, AuthRequest, AuthResponse};
pub use identity::Identity;
pub use routes::Action;
pub use session::Session;

use callbacks::Callbacks;
use cookies::CookieSet;
use csrf::Csrf;
use jwt::JwtCodec;
use providers::Providers;

/// The engine for one configuration. Built once, shared by every thread.
pub struct Auth {
    settings: Settings,
    /// The database adapter, when configured.
    adapter: Option<Arc<dyn adapter::Adapter>>,
    custom_session_token: bool,
    callbacks: Callbacks,
    providers: Providers,
    codec: JwtCodec,
    /// Decrypted session cookies (`session.cache`): JWT strategy, the
    /// engine's own codec. Dropped with the engine, and with it its secrets.
    session_cache: Option<session_cache::SessionCache>,
    csrf: Csrf,
    plain_cookies: CookieSet,
    secure_cookies: CookieSet,
    custom_jwt_encode: bool,
    custom_jwt_decode: bool,
    /// When expired rows were last purged (unix seconds; 0: never).
    last_purge: std::sync::atomic::AtomicU64,
    /// When the earliest passkey challenge stored since the last purge
    /// expires (unix milliseconds; 0: none stored since).
    challenge_purge_due: std::sync::atomic::AtomicU64,
    /// Requests admitted (see [`Auth::admit`]) and not yet finished.
    in_flight: Arc<AtomicUsize>,
    /// See [`Auth::session_is_hookless`].
    session_hookless: bool,
    /// No host code can run while a built-in page renders (see [`Dispatch::Inline`]).
    pages_hookless: bool,
    /// Refusals past `hooks.maxInFlight`, for the rate-limited log line.
    overload: OverloadLog,
    /// Rate limits on the routes that cost or leak.
    limiter: ratelimit::Limiter,
    /// Access-token refreshes in flight in this process.
    refreshes: tokens::Flights,
    /// `tokenRefresh.skew` and `tokenRefresh.wait`.
    refresh_skew: std::time::Duration,
    refresh_wait: std::time::Duration,
}

/// How often, at most, refusals past `hooks.maxInFlight` are logged (seconds).
const OVERLOAD_LOG_INTERVAL: u64 = 10;

#[derive(Default)]
struct OverloadLog {
    refused: std::sync::atomic::AtomicU64,
    reported: std::sync::atomic::AtomicU64,
    logged_at: std::sync::atomic::AtomicU64,
}

/// What [`Auth::begin`] did with a request.
#[must_use = "a permit is freed when dropped"]
pub enum Begun {
    /// Answered on the calling thread: the request needed no host code (or
    /// was refused past `hooks.maxInFlight`).
    Answered(AuthResponse),
    /// Admitted: run [`Auth::handle`] where host code may be called.
    Admitted(Permit),
}

/// Where a request runs: [`Auth::dispatch`] and [`Auth::dispatch_session`].
#[must_use = "a permit is freed when dropped"]
pub enum Dispatch<Refusal> {
    /// On the calling thread: no host code, no I/O.
    Inline,
    /// On the binding's worker, holding the permit until done.
    Admitted(Permit),
    /// Answer this at once (past `hooks.maxInFlight`).
    Refused(Refusal),
}

/// A place among the requests in flight that may call host code, taken by
/// [`Auth::admit`]; dropping it frees the place.
#[must_use = "the place is freed when the permit is dropped"]
pub struct Permit {
    in_flight: Arc<AtomicUsize>,
}

impl Drop for Permit {
    fn drop(&mut self) {
        self.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

impl Auth {
    /// Build the engine, reading environment fallbacks (`AUTH_SECRET`,
    /// `AUTH_URL`, …) from the process environment.
    pub fn new(config: Config, host: Arc<dyn Host>) -> Result<Auth, ConfigError> {
        Auth::with_env(config, host, &ProcessEnv)
    }

    /// As [`Auth::new`], with the environment given explicitly.
    pub fn with_env(config: Config, host: Arc<dyn Host>, env: &dyn Env) -> Result<Auth, ConfigError> {
        Auth::build(config, host, env, None)
    }

    /// A second engine for the same application, beside `sibling`: for a
    /// binding that must answer one config under several base paths (an
    /// Express app mounting the middleware at several paths). It shares
    /// `sibling`'s database adapter (one pool, one set of connections) and
    /// its admission count, so `hooks.maxInFlight` bounds the requests in
    /// flight across every base path together.
    pub fn new_beside(config: Config, host: Arc<dyn Host>, sibling: &Auth) -> Result<Auth, ConfigError> {
        Auth::build(config, host, &ProcessEnv, Some(sibling))
    }

    fn build(config: Config, host: Arc<dyn Host>, env: &dyn Env, sibling: Option<&Auth>) -> Result<Auth, ConfigError> {
        let settings = Settings::resolve(&config, env)?;
        // Every hook call the engine makes gets its deadline here.
        let host: Arc<dyn Host> =
            Arc::new(host::TimedHost::new(host, settings.hook_timeout, settings.hook_timeouts.clone()));
        let providers = Providers::parse(&config.providers, host.as_ref(), env)?;
        // Hook names first: a misspelt adapter method is named as such,
        // not reported as a missing one.
        check_hook_names(host.as_ref(), &providers, config.adapter.as_ref())?;
        if config.encrypt_tokens && config.adapter.is_none() {
            return Err(ConfigError::new(
                "encryptTokens",
                "encrypts the tokens an adapter stores; configure an adapter",
            )
            .with_kind(ErrorType::MissingAdapter));
        }
        if config.secondary_storage.is_some() && config.adapter.is_none() {
            return Err(ConfigError::new(
                "secondaryStorage",
                "keeps sessions and verification tokens beside an adapter's users and accounts; configure an adapter",
            )
            .with_kind(ErrorType::MissingAdapter));
        }
        // The adapter's SQL database, for a `"database"` rate-limit store.
        let mut database = None;
        let adapter = match (&config.adapter, sibling) {
            (Some(_), Some(sibling)) => sibling.adapter.clone(),
            (Some(value), None) => {
                let (store, sql) = adapter::from_config_with_database(value, host.clone())?;
                database = sql;
                let store = match &config.secondary_storage {
                    Some(secondary) => secondary_storage(secondary, store)?,
                    None => store,
                };
                Some(match config.encrypt_tokens {
                    true => Arc::new(adapter::sealed::SealedTokens::new(store, &settings.secrets)) as Arc<dyn Adapter>,
                    false => store,
                })
            }
            (None, _) => None,
        };
        check_email_adapter(&providers, adapter.as_deref())?;
        let plain_cookies = CookieSet::new(false, &settings.cookies);
        let secure_cookies = CookieSet::new(true, &settings.cookies);
        // Derive the session keys now, for both cookie names a request may
        // use, so no request pays for HKDF.
        let codec = JwtCodec::new(
            settings.secrets.clone(),
            &[plain_cookies.session_token.name.as_str(), secure_cookies.session_token.name.as_str()],
        );
        let session_cache = match settings.session_cache {
            Some(cache) if settings.strategy == SessionStrategy::Jwt && !host.has(&Hook::JWT_DECODE) => {
                Some(session_cache::SessionCache::new(cache))
            }
            _ => None,
        };
        let csrf = Csrf::new(settings.secrets.clone());
        let callbacks = Callbacks::new(host.clone(), settings.debug);
        webauthn::check_config(&providers, adapter.as_deref(), settings.web_authn)?;
        if settings.web_authn {
            callbacks.logger.warn(
                host.as_ref(),
                "experimental-webauthn",
                "WebAuthn (passkeys) is experimental in Auth.js: its wire protocol may still change there",
            );
        }
        let limits = ratelimit::RateLimits::parse(config.rate_limit.as_ref())?;
        let limit_store = match sibling {
            Some(sibling) => sibling.limiter.store(),
            None => ratelimit::config::build(limits.store(), database.as_ref())?,
        };
        let limiter = ratelimit::Limiter::new(
            limits,
            limit_store,
            ratelimit::TrustedProxies::parse(&config.trusted_proxies)?
                .with_header(ratelimit::client_ip::ForwardedHeader::parse(config.forwarded_header.as_ref())?),
            &settings.secrets[0],
        );
        let session_hookless = settings.strategy == SessionStrategy::Jwt
            && adapter.is_none()
            && !reaches_host(host.as_ref(), host::HookKind::reached_by_session_reads);
        let pages_hookless = !reaches_host(host.as_ref(), host::HookKind::reached_by_pages);
        Ok(Auth {
            session_hookless,
            pages_hookless,
            overload: OverloadLog::default(),
            limiter,
            refreshes: tokens::Flights::default(),
            refresh_skew: std::time::Duration::from_secs(config.token_refresh.skew.unwrap_or(60)),
            refresh_wait: std::time::Duration::from_secs(config.token_refresh.wait.unwrap_or(10).clamp(1, 120)),
            adapter,
            custom_session_token: host.has(&Hook::GENERATE_SESSION_TOKEN),
            custom_jwt_encode: host.has(&Hook::JWT_ENCODE),
            custom_jwt_decode: host.has(&Hook::JWT_DECODE),
            last_purge: std::sync::atomic::AtomicU64::new(0),
            challenge_purge_due: std::sync::atomic::AtomicU64::new(0),
            in_flight: sibling.map_or_else(|| Arc::new(AtomicUsize::new(0)), |s| s.in_flight.clone()),
            settings,
            callbacks,
            providers,
            codec,
            session_cache,
            csrf,
            plain_cookies,
            secure_cookies,
        })
    }

    /// Answer one request under `basePath`. Never panics, never fails:
    /// every error becomes the response the spec prescribes.
    pub fn handle(&self, req: &AuthRequest) -> AuthResponse {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| routes::handle(self, req))) {
            Ok(res) => res,
            Err(_) => {
                self.callbacks.log(&AuthError::internal());
                routes::server_error_json()
            }
        }
    }

    /// Sign in from host code, as a form action does: `fields` are what
    /// the form submitted (`username`, `password`, `email`, `callbackUrl`
    /// or `redirectTo`, …), `request` the host's own request (its URL gives
    /// the origin unless `AUTH_URL` is set; its cookies are read). No CSRF
    /// token: the host's form protection stands in for the route's check.
    ///
    /// Credentials run `authorize`, the signIn callback and the jwt callback
    /// (or create the database session) and return the session cookies and
    /// the callback URL; OAuth and OIDC return the provider's authorization
    /// URL and the state, PKCE and nonce cookies; email sends its link and
    /// returns the verify-request page. A refusal is an error, never a
    /// redirect: `CredentialsSignin` with its `code`, `AccessDenied` when
    /// the signIn callback says no, and so on. An empty `provider_id` sends
    /// the user to the sign-in page.
    pub fn sign_in(
        &self,
        provider_id: &str,
        fields: serde_json::Map<String, serde_json::Value>,
        request: &AuthRequest,
    ) -> Result<ActionOutcome, AuthError> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            routes::sign_in_action(self, provider_id, fields, request)
        }))
        .unwrap_or_else(|_| Err(AuthError::internal()))
    }

    /// Sign out from host code: ends the session of `request`'s cookie (the
    /// database row is deleted), and returns the cookies that clear it and
    /// where to go (the `callbackUrl` of the request's query, else the
    /// callback-url cookie, else the origin). No CSRF token, as
    /// [`Auth::sign_in`].
    pub fn sign_out(&self, request: &AuthRequest) -> Result<ActionOutcome, AuthError> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| routes::sign_out_action(self, request)))
            .unwrap_or_else(|_| Err(AuthError::internal()))
    }

    /// The current session, or `None` for a missing, expired or tampered
    /// cookie. Does not write cookies: a session due for renewal is renewed
    /// by the next `GET {basePath}/session`. With the database strategy, a
    /// failing database is an `AdapterError` (the session may well exist).
    pub fn get_session(&self, req: &AuthRequest) -> Result<Option<Session>, AuthError> {
        self.peek_session(&req.url, req.cookies())
    }

    /// [`Auth::get_session`] from what a session read needs and no more:
    /// the request's absolute URL (its scheme picks the cookie names) and
    /// its `Cookie` header (`None` or `""` when it has none; several
    /// headers joined with `"; "`). No request is built and nothing is
    /// copied; the answer is the one `get_session` gives for a request with
    /// that URL and header.
    pub fn get_session_by_cookie(&self, url: &str, cookie: Option<&str>) -> Result<Option<Session>, AuthError> {
        self.peek_session(url, cookie.into_iter().flat_map(http::cookie_pairs))
    }

    /// What the session cache holds and how many session tokens were
    /// decrypted by reads (`None` without a cache: `session.cache: false`,
    /// the database strategy, or a custom `jwt.decode`). For tests and
    /// benchmarks; walks the whole cache.
    #[doc(hidden)]
    pub fn session_cache_stats(&self) -> Option<session_cache::SessionCacheStats> {
        self.session_cache.as_ref().map(session_cache::SessionCache::stats)
    }

    /// Whether reading the session can neither call host code nor block on
    /// I/O: the JWT strategy with no adapter and no hook that a session
    /// read reaches ([`host::HookKind::reached_by_session_reads`]: jwt and
    /// session callbacks, the session event, custom jwt encode/decode, a
    /// logger). A binding may then run `get_session` (and
    /// [`Auth::is_hookless`] requests) on its event-loop thread, with no
    /// thread hop. Decided once, at construction.
    pub fn session_is_hookless(&self) -> bool {
        self.session_hookless
    }

    /// Whether answering `req` can neither call host code nor block on I/O,
    /// so it may run on an event-loop thread ([`Dispatch::Inline`]).
    pub fn is_hookless(&self, req: &AuthRequest) -> bool {
        self.runs_inline(req)
    }

    /// The auth route `url` names under basePath (`/auth/signin/github` is
    /// `(SignIn, Some("github"))`), or `None` when it names none or is not a
    /// valid request URL. The same parse [`Auth::handle`] routes with
    /// ([`http::parse_request_url`]), so the two always agree.
    pub fn route(&self, url: &str) -> Option<(routes::Action, Option<String>)> {
        let url = http::parse_request_url(url)?;
        routes::parse_action(url.path(), &self.settings.base_path)
    }

    /// Where a request runs, decided once for every binding:
    ///
    /// - [`Dispatch::Inline`]: it can reach no host code and block on no
    ///   I/O (a malformed request, `GET session`/`csrf`/`providers` under a
    ///   hookless session configuration, the built-in `signin`, `signout`,
    ///   `error` and `verify-request` pages when no redirect callback or
    ///   logger function is configured). Run [`Auth::handle`] on the
    ///   calling thread, an event loop included; it needs no permit, so
    ///   these routes keep answering when `hooks.maxInFlight` is reached.
    /// - [`Dispatch::Admitted`]: it may call host code. Run
    ///   [`Auth::handle`] where the binding runs such work (a worker
    ///   thread), holding the [`Permit`] until it is done.
    /// - [`Dispatch::Refused`]: `hooks.maxInFlight` requests are in
    ///   flight; send this response (503, `Retry-After`) at once instead of
    ///   queueing, so hanging host code fills the bound, never the server.
    pub fn dispatch(&self, req: &AuthRequest) -> Dispatch<AuthResponse> {
        if self.classify(req).0 {
            return Dispatch::Inline;
        }
        match self.admit() {
            Some(permit) => Dispatch::Admitted(permit),
            None => Dispatch::Refused(self.overloaded_response()),
        }
    }

    /// [`Auth::admit`] for work that always may call host code (form
    /// actions, account calls): the permit, or [`AuthError::overloaded`].
    pub fn admit_or_refuse(&self) -> Result<Permit, AuthError> {
        self.admit().ok_or_else(|| {
            self.note_overload();
            AuthError::overloaded()
        })
    }

    /// [`Auth::dispatch`] for [`Auth::get_session`]: inline when
    /// [`Auth::session_is_hookless`], else admitted, or refused with
    /// [`AuthError::overloaded`].
    pub fn dispatch_session(&self) -> Dispatch<AuthError> {
        if self.session_hookless {
            return Dispatch::Inline;
        }
        match self.admit_or_refuse() {
            Ok(permit) => Dispatch::Admitted(permit),
            Err(e) => Dispatch::Refused(e),
        }
    }

    /// See [`Dispatch::Inline`].
    fn runs_inline(&self, req: &AuthRequest) -> bool {
        self.classify(req).0
    }

    /// Whether `req` runs inline (see [`Dispatch::Inline`]), and its target,
    /// read once.
    fn classify(&self, req: &AuthRequest) -> (bool, routes::Target) {
        let target = routes::target(self, req);
        let inline = match &target {
            routes::Target::Answer(_) => true, // 400 or 413 before any route runs
            routes::Target::Route { is_post: true, .. } => false,
            routes::Target::Route { action, provider_id: None, .. } => match action {
                routes::Action::Session | routes::Action::Csrf | routes::Action::Providers => self.session_hookless,
                routes::Action::SignIn
                | routes::Action::SignOut
                | routes::Action::Error
                | routes::Action::VerifyRequest => self.pages_hookless,
                routes::Action::WebAuthnScript => true,
                routes::Action::Callback | routes::Action::WebAuthnOptions | routes::Action::Passkeys => false,
            },
            routes::Target::Route { .. } => false,
        };
        (inline, target)
    }

    /// [`Auth::dispatch`] and, for a request that runs inline, its answer,
    /// from one read of the request: what a binding calls first for every
    /// request under basePath. [`Begun::Admitted`] means: run
    /// [`Auth::handle`] where host code may be called, holding the permit.
    pub fn begin(&self, req: &AuthRequest) -> Begun {
        let (inline, target) = self.classify(req);
        if inline {
            let answered =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| routes::handle_target(self, req, target)));
            return Begun::Answered(answered.unwrap_or_else(|_| {
                self.callbacks.log(&AuthError::internal());
                routes::server_error_json()
            }));
        }
        match self.admit() {
            Some(permit) => Begun::Admitted(permit),
            None => Begun::Answered(self.overloaded_response()),
        }
    }

    /// Admission for a request that may call host code (one that is not
    /// [`Auth::is_hookless`]): a [`Permit`] to hold while it runs, or `None`
    /// when `hooks.maxInFlight` requests are in flight already. The binding
    /// then answers at once with [`Auth::overloaded_response`] (or
    /// [`AuthError::overloaded`] for `get_session`) instead of queueing:
    /// hanging host code can fill the bound, never the server's memory or
    /// threads, and hookless requests are never affected.
    pub fn admit(&self) -> Option<Permit> {
        let admitted = self
            .in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < self.settings.max_in_flight).then_some(n + 1))
            .is_ok();
        admitted.then(|| Permit { in_flight: self.in_flight.clone() })
    }

    /// [`Auth::handle`] on the calling thread, as [`Auth::dispatch`] decides:
    /// for bindings that run the engine where they are called (C, Python
    /// under WSGI).
    pub fn handle_admitted(&self, req: &AuthRequest) -> AuthResponse {
        match self.begin(req) {
            Begun::Answered(res) => res,
            Begun::Admitted(_permit) => self.handle(req),
        }
    }

    /// [`Auth::get_session`] on the calling thread, as
    /// [`Auth::dispatch_session`] decides.
    pub fn get_session_admitted(&self, req: &AuthRequest) -> Result<Option<Session>, AuthError> {
        match self.dispatch_session() {
            Dispatch::Inline => self.get_session(req),
            Dispatch::Admitted(_permit) => self.get_session(req),
            Dispatch::Refused(e) => Err(e),
        }
    }

    /// Call a hook through this engine's host exactly as the engine does
    /// (deadline included), with `args` as the engine would pass them: for
    /// the cross-language conformance test of the host conventions and for
    /// tools. Not a way to run hooks in production code.
    #[doc(hidden)]
    pub fn call_hook(&self, hook: &str, args: serde_json::Value) -> Result<serde_json::Value, HostError> {
        self.callbacks.host.call(&Hook::named(hook), args)
    }

    /// Requests admitted and not yet finished.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
    }

    /// `503` with `Retry-After: 1`, for a request [`Auth::admit`] refused.
    pub fn overloaded_response(&self) -> AuthResponse {
        self.note_overload();
        routes::overloaded_response()
    }

    /// Count a refusal past `hooks.maxInFlight`, and say so in the log at
    /// most once per [`OVERLOAD_LOG_INTERVAL`] seconds: under a flood one
    /// line per request would be a second flood, of the logs.
    fn note_overload(&self) {
        let refused = self.overload.refused.fetch_add(1, Ordering::Relaxed) + 1;
        let now = time::now_seconds();
        let last = self.overload.logged_at.load(Ordering::Relaxed);
        if now < last.saturating_add(OVERLOAD_LOG_INTERVAL) {
            return;
        }
        if self.overload.logged_at.compare_exchange(last, now, Ordering::AcqRel, Ordering::Relaxed).is_err() {
            return; // another thread is logging this interval
        }
        let since = refused - self.overload.reported.swap(refused, Ordering::AcqRel);
        self.callbacks.logger.warn(
            self.callbacks.host.as_ref(),
            "overloaded",
            &format!(
                "hooks.maxInFlight requests that need host code are in flight; answered 503 to {since} request(s) since the last report"
            ),
        );
    }

    /// The path of the built-in sign-in page that sends the user back to
    /// `callback_url` afterwards (`/auth/signin?callbackUrl=%2Fdashboard`):
    /// for framework integrations that redirect a signed-out user, so they
    /// build it as the engine reads it.
    pub fn sign_in_url(&self, callback_url: &str) -> String {
        let query =
            url::form_urlencoded::Serializer::new(String::new()).append_pair("callbackUrl", callback_url).finish();
        format!("{}/signin?{query}", self.settings.base_path)
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn providers(&self) -> &Providers {
        &self.providers
    }

    /// Secure cookie names over https (or when `useSecureCookies` says so).
    fn cookies_for_url(&self, url: &str) -> &CookieSet {
        let secure = self.settings.use_secure_cookies.unwrap_or_else(|| match &self.settings.canonical_url {
            Some(canonical) => canonical.scheme() == "https",
            // `get`, not slicing: the URL is client input and may hold
            // multi-byte characters where a slice would split one.
            None => url.get(..8).is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://")),
        });
        if secure {
            &self.secure_cookies
        } else {
            &self.plain_cookies
        }
    }
}

/// How often a sign-in also purges expired rows (seconds).
const PURGE_INTERVAL: u64 = 3600;

impl Auth {
    /// Delete every expired database session and email sign-in token from
    /// the adapter. Sign-ins already do this at most once an hour; call it
    /// from a scheduled job for a store that sees few sign-ins. Without an
    /// adapter there is nothing to purge.
    pub fn purge_expired(&self) -> Result<adapter::Purged, AuthError> {
        let Some(adapter) = &self.adapter else { return Ok(adapter::Purged::default()) };
        self.last_purge.store(time::now_seconds(), std::sync::atomic::Ordering::Relaxed);
        // Challenges stored from now on set the next due time.
        self.challenge_purge_due.store(0, std::sync::atomic::Ordering::Relaxed);
        adapter.delete_expired(time::now_millis() as i64).map_err(AuthError::from)
    }

    /// A passkey challenge expiring at `expires_ms` was stored: purge once
    /// it has expired (see [`Auth::purge_expired_now_and_then`]).
    pub(crate) fn challenge_stored(&self, expires_ms: u64) {
        let _ = self.challenge_purge_due.fetch_update(
            std::sync::atomic::Ordering::Relaxed,
            std::sync::atomic::Ordering::Relaxed,
            |due| (due == 0 || expires_ms < due).then_some(expires_ms.max(1)),
        );
    }

    /// [`Auth::purge_expired`], if the last purge was over an hour ago, or
    /// a passkey challenge stored since the last purge has expired;
    /// failures are logged, never the sign-in's concern. Called from
    /// database-session sign-ins, the email route and the passkey routes,
    /// whatever the session strategy. The challenge rule bounds what
    /// anonymous options requests leave stored (about two challenge
    /// lifetimes of them) and purges at most once per challenge lifetime,
    /// since the next due time is set by a challenge stored after a purge.
    pub(crate) fn purge_expired_now_and_then(&self) {
        let last = self.last_purge.load(std::sync::atomic::Ordering::Relaxed);
        let due = self.challenge_purge_due.load(std::sync::atomic::Ordering::Relaxed);
        let challenges_expired = due != 0 && time::now_millis() >= due;
        if !challenges_expired && time::now_seconds() < last.saturating_add(PURGE_INTERVAL) {
            return;
        }
        // One caller purges for a due challenge; the others go on.
        if challenges_expired
            && self
                .challenge_purge_due
                .compare_exchange(due, 0, std::sync::atomic::Ordering::Relaxed, std::sync::atomic::Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        if let Err(e) = self.purge_expired() {
            self.callbacks.log(&e);
        }
    }

    /// The account `user_id` linked with provider `provider_id`, tokens
    /// included, read through the adapter (`None` when not linked). For
    /// server code that calls the provider's API with the stored access
    /// token; the tokens must stay on the server. Needs an adapter
    /// (`MissingAdapter` otherwise) that can read accounts (the built-in
    /// ones; a host adapter cannot).
    pub fn get_account(&self, user_id: &str, provider_id: &str) -> Result<Option<adapter::AdapterAccount>, AuthError> {
        let adapter = self
            .adapter
            .as_ref()
            .ok_or_else(|| AuthError::new(ErrorType::MissingAdapter, "reading a stored account needs an adapter"))?;
        adapter.get_account(user_id, provider_id).map_err(AuthError::from)
    }

    /// Refresh the stored account of `user_id` with `provider_id`: use its
    /// refresh token at the provider's token endpoint
    /// ([`Auth::refresh_access_token`]), store the new tokens (a rotated
    /// refresh token replaces the old one; fields the provider did not send
    /// again, such as `scope`, are kept) and return the updated account.
    /// `None` when the user has no such account; an error when it has no
    /// refresh token or the provider refuses it.
    pub fn refresh_account(
        &self,
        user_id: &str,
        provider_id: &str,
    ) -> Result<Option<adapter::AdapterAccount>, AuthError> {
        let Some(account) = self.get_account(user_id, provider_id)? else { return Ok(None) };
        self.refresh_stored(account).map(Some)
    }

    /// Refresh `account` at its provider and store the new tokens.
    fn refresh_stored(&self, mut account: adapter::AdapterAccount) -> Result<adapter::AdapterAccount, AuthError> {
        let provider_id = account.provider.clone();
        let refresh_token = account.refresh_token.clone().filter(|t| !t.is_empty()).ok_or_else(|| {
            AuthError::new(ErrorType::OAuthCallbackError, format!("the {provider_id} account has no refresh token"))
        })?;
        let fresh = self.refresh_access_token(&provider_id, &refresh_token, Some(&account.provider_account_id))?;
        let text = |key: &str| fresh.get(key).and_then(serde_json::Value::as_str).map(str::to_owned);
        if let Some(token) = text("access_token") {
            account.access_token = Some(token);
        }
        if let Some(token) = text("refresh_token") {
            account.refresh_token = Some(token);
        }
        if let Some(kind) = text("token_type") {
            account.token_type = Some(kind);
        }
        if let Some(scope) = text("scope") {
            account.scope = Some(scope);
        }
        if let Some(token) = text("id_token") {
            account.id_token = Some(token);
        }
        account.expires_at = fresh.get("expires_at").and_then(serde_json::Value::as_i64).or(account.expires_at);
        // TikTok also says how long the refresh token lives: keep what the
        // provider sent beside the standard fields, as a sign-in does.
        for (key, value) in &fresh {
            let standard = matches!(
                key.as_str(),
                "provider"
                    | "type"
                    | "providerAccountId"
                    | "access_token"
                    | "refresh_token"
                    | "token_type"
                    | "scope"
                    | "id_token"
                    | "expires_at"
            );
            if !standard {
                account.extra.insert(key.clone(), value.clone());
            }
        }
        let adapter = self.adapter.as_ref().expect("the account was read, so there is an adapter");
        adapter.update_account(&account).map_err(AuthError::from)?;
        Ok(account)
    }

    /// `user_id`'s passkeys, oldest first, as their owner sees them (`id`,
    /// `name`, `createdAt`, `lastUsedAt`, `deviceType`, `backedUp`,
    /// `transports`; never the key). Empty without a passkey provider.
    pub fn list_passkeys(&self, user_id: &str) -> Result<Vec<serde_json::Value>, AuthError> {
        let Some(adapter) = self.passkey_adapter() else { return Ok(Vec::new()) };
        Ok(adapter.list_authenticators_by_user_id(user_id)?.iter().map(routes::passkey_json).collect())
    }

    /// Name (or with `None` unname) one of `user_id`'s passkeys; the passkey
    /// as [`Auth::list_passkeys`] shows it. A passkey that is not theirs is
    /// `WebAuthnVerificationError` ("no such passkey"), as an unknown one.
    pub fn rename_passkey(
        &self,
        user_id: &str,
        credential_id: &str,
        name: Option<&str>,
    ) -> Result<serde_json::Value, AuthError> {
        let adapter = self.owned_passkey(user_id, credential_id)?;
        // Names are shown in pages: short, one line, no control characters.
        let name = name.map(|n| n.trim()).filter(|n| !n.is_empty());
        if name.is_some_and(|n| n.chars().count() > 64 || n.chars().any(char::is_control)) {
            return Err(AuthError::new(
                ErrorType::WebAuthnVerificationError,
                "a passkey name is at most 64 characters, on one line",
            ));
        }
        let renamed = adapter.rename_authenticator(credential_id, name)?.ok_or_else(no_such_passkey)?;
        Ok(routes::passkey_json(&renamed))
    }

    /// Delete one of `user_id`'s passkeys (and its `webauthn` account).
    /// Refused with `LastSignInMethod` when it is the user's last way to
    /// sign in: no other passkey, no linked OAuth account, and no email
    /// provider with an address to send a link to.
    pub fn delete_passkey(&self, user_id: &str, credential_id: &str) -> Result<(), AuthError> {
        let adapter = self.owned_passkey(user_id, credential_id)?;
        let others = adapter
            .list_authenticators_by_user_id(user_id)?
            .iter()
            .filter(|a| a.credential_id != credential_id)
            .count();
        if others == 0 && !self.has_other_sign_in(adapter.as_ref(), user_id)? {
            return Err(AuthError::new(
                ErrorType::LastSignInMethod,
                "this passkey is the user's last way to sign in: add another passkey or sign-in method first",
            ));
        }
        // The account goes first: if a step fails, what is left is a passkey
        // without its account (which signs in no one, and which a new
        // registration of the same credential id cannot claim), never an
        // account without its passkey, which a registration presenting that
        // credential id could otherwise sign in to (P1). Its account is under
        // the passkey provider that registered it (not recorded with the
        // passkey); unlinking elsewhere changes nothing.
        let stored = adapter.get_authenticator(credential_id)?.ok_or_else(no_such_passkey)?;
        for provider in self.providers.iter().filter(|p| matches!(p.kind, providers::ProviderKind::WebAuthn(_))) {
            adapter.unlink_account(&provider.id, &stored.provider_account_id)?;
        }
        adapter.delete_authenticator(credential_id)?.ok_or_else(no_such_passkey)?;
        Ok(())
    }

    /// The passkey calls as one entry point for the bindings: `call` is
    /// `{ "action": "list" }`, `{ "action": "rename", "id", "name" }` or
    /// `{ "action": "delete", "id" }`; the answer is the list, the renamed
    /// passkey, or `null`. Each binding's `listPasskeys` / `renamePasskey` /
    /// `deletePasskey` is this call with its arguments.
    pub fn passkeys(&self, user_id: &str, call: &serde_json::Value) -> Result<serde_json::Value, AuthError> {
        let text = |key: &str| call.get(key).and_then(serde_json::Value::as_str);
        let id = || {
            text("id").ok_or_else(|| AuthError::new(ErrorType::WebAuthnVerificationError, "a passkey id is required"))
        };
        match text("action") {
            Some("list") => Ok(serde_json::Value::Array(self.list_passkeys(user_id)?)),
            Some("rename") => self.rename_passkey(user_id, id()?, text("name")),
            Some("delete") => self.delete_passkey(user_id, id()?).map(|()| serde_json::Value::Null),
            _ => Err(AuthError::new(ErrorType::UnknownAction, "a passkey call is list, rename or delete")),
        }
    }

    fn passkey_adapter(&self) -> Option<&Arc<dyn Adapter>> {
        let has_passkeys = self.providers.iter().any(|p| matches!(p.kind, providers::ProviderKind::WebAuthn(_)));
        self.adapter.as_ref().filter(|_| has_passkeys)
    }

    /// The adapter, once `credential_id` is known to be one of `user_id`'s
    /// passkeys.
    fn owned_passkey(&self, user_id: &str, credential_id: &str) -> Result<&Arc<dyn Adapter>, AuthError> {
        let adapter = self.passkey_adapter().ok_or_else(no_such_passkey)?;
        match adapter.get_authenticator(credential_id)? {
            Some(a) if a.user_id == user_id => Ok(adapter),
            _ => Err(no_such_passkey()),
        }
    }

    /// Whether the user can sign in without a passkey: a linked OAuth
    /// account, or an email provider and an address.
    fn has_other_sign_in(&self, adapter: &dyn Adapter, user_id: &str) -> Result<bool, AuthError> {
        for provider in self.providers.iter() {
            match &provider.kind {
                providers::ProviderKind::OAuth(_) => {
                    // A host adapter may not read accounts: then this
                    // account cannot be counted on.
                    if let Ok(Some(_)) = adapter.get_account(user_id, &provider.id) {
                        return Ok(true);
                    }
                }
                providers::ProviderKind::Email(_)
                    if adapter.get_user(user_id)?.is_some_and(|u| u.email.is_some_and(|e| !e.is_empty())) =>
                {
                    return Ok(true);
                }
                _ => {}
            }
        }
        Ok(false)
    }

    /// A valid access token for `user_id`'s account with `provider_id`,
    /// refreshed first when it expires within `tokenRefresh.skew` (60 s by
    /// default) and a refresh token is stored; `None` when the user has no
    /// such account. Concurrent calls make one refresh request, in this
    /// process and, with a shared rate-limit store, across processes (see
    /// [`tokens`]). A refresh token the provider refuses is
    /// `RefreshTokenRevoked` (and `events.refreshTokenRevoked`).
    pub fn get_access_token(&self, user_id: &str, provider_id: &str) -> Result<Option<tokens::AccessToken>, AuthError> {
        let Some(account) = self.get_account(user_id, provider_id)? else { return Ok(None) };
        if tokens::is_fresh(&account, self.refresh_skew, time::now_seconds())
            || account.refresh_token.as_deref().is_none_or(str::is_empty)
        {
            return Ok(tokens::AccessToken::of(&account));
        }
        let key = format!("{}:{}", account.provider, account.provider_account_id);
        self.refreshes.single(&key, self.refresh_wait, || self.refresh_once(user_id, provider_id, &key))
    }

    /// The refresh of one account, led by this process if it takes the
    /// lease. The lease is on the refresh token about to be spent (a
    /// compare-and-swap on it, through the store): one process spends a
    /// given refresh token, whoever else meets it waits for the tokens that
    /// replace it.
    fn refresh_once(
        &self,
        user_id: &str,
        provider_id: &str,
        key: &str,
    ) -> Result<Option<tokens::AccessToken>, AuthError> {
        let Some(account) = self.get_account(user_id, provider_id)? else { return Ok(None) };
        let spending = format!("{key}\0{}", account.refresh_token.as_deref().unwrap_or_default());
        let lease_key = format!("lease:refresh:{}", session::stored_session_token(&spending));
        let leader = match self.limiter.store().consume(&lease_key, 1, tokens::LEASE) {
            Ok(count) => count.count == 1,
            // No store to coordinate through: refresh here (one process's
            // calls are still one refresh).
            Err(e) => {
                self.callbacks.log(&AuthError::new(ErrorType::AdapterError, e.to_string()));
                true
            }
        };
        let deadline = std::time::Instant::now() + self.refresh_wait;
        loop {
            // Read again: another process may have refreshed meanwhile.
            let Some(account) = self.get_account(user_id, provider_id)? else { return Ok(None) };
            if tokens::is_fresh(&account, self.refresh_skew, time::now_seconds()) {
                return Ok(tokens::AccessToken::of(&account));
            }
            if leader {
                let spent = account.refresh_token.clone();
                let outcome = self.refresh_stored(account);
                // The lease ends with the refresh: a provider that does not
                // rotate refresh tokens hands the same one to the next
                // refresh, which must be able to lead (it finds the tokens
                // fresh first if they still are).
                if let Err(e) = self.limiter.store().refund(&lease_key, 1, tokens::LEASE) {
                    self.callbacks.log(&AuthError::new(ErrorType::AdapterError, e.to_string()));
                }
                return match outcome {
                    Ok(account) => Ok(tokens::AccessToken::of(&account)),
                    Err(e) if e.error_type == ErrorType::RefreshTokenRevoked => {
                        // Spent by someone else who stored the new tokens?
                        match self.get_account(user_id, provider_id)? {
                            Some(now) if now.refresh_token != spent => Ok(tokens::AccessToken::of(&now)),
                            now => {
                                let account_id = now.map(|a| a.provider_account_id).unwrap_or_default();
                                self.callbacks.event(&Hook::EVENT_REFRESH_TOKEN_REVOKED, || {
                                    serde_json::json!({ "userId": user_id, "provider": provider_id, "providerAccountId": account_id })
                                });
                                self.callbacks.log(&e);
                                Err(e)
                            }
                        }
                    }
                    Err(e) => Err(e),
                };
            }
            if std::time::Instant::now() >= deadline {
                return Err(AuthError::new(
                    ErrorType::Overloaded,
                    format!("another process is refreshing the {provider_id} token and has not finished"),
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Use a refresh token at an OAuth provider's token endpoint. Returns the
    /// new tokens as an Account-shaped object (`expires_at` computed,
    /// `token_type` lowercased). Providers that rotate refresh tokens
    /// (TikTok) return a new one: store it.
    ///
    /// `providerAccountId`: a provider whose token responses name the
    /// account (TikTok's `open_id`) is believed; a standard token response
    /// does not, so the caller's `provider_account_id` (the stored
    /// account's) is used. If both are known and differ, the refresh token
    /// belongs to another account than the caller said: that is an error.
    /// When neither is known the key is left out, never set to `""`.
    pub fn refresh_access_token(
        &self,
        provider_id: &str,
        refresh_token: &str,
        provider_account_id: Option<&str>,
    ) -> Result<serde_json::Map<String, serde_json::Value>, AuthError> {
        let provider = self.providers.get(provider_id).ok_or_else(|| {
            AuthError::new(ErrorType::InvalidProviderType, format!("no provider with id {provider_id:?}"))
        })?;
        let providers::ProviderKind::OAuth(p) = &provider.kind else {
            return Err(AuthError::new(
                ErrorType::InvalidProviderType,
                format!("{provider_id:?} is not an OAuth provider"),
            ));
        };
        let tokens = oauth::refresh_tokens(p, refresh_token).map_err(|e| {
            // `invalid_grant`: the refresh token is revoked, expired or spent.
            let revoked = matches!(&e, oauth::OAuthError::Token { error, .. } if error == "invalid_grant");
            let kind = if revoked { ErrorType::RefreshTokenRevoked } else { ErrorType::OAuthCallbackError };
            AuthError::new(kind, e.to_string()).with_source(e)
        })?;
        let given = provider_account_id.filter(|id| !id.is_empty());
        let account_id = match (p.behaviour.account_id_from_tokens(&tokens), given) {
            (Some(said), Some(given)) if said != given => {
                return Err(AuthError::new(
                    ErrorType::OAuthCallbackError,
                    format!("the refreshed tokens are for another {provider_id} account than the one given"),
                ))
            }
            (Some(said), _) => Some(said),
            (None, given) => given.map(str::to_owned),
        };
        let mut account = oauth::account_from_tokens(
            provider_id,
            provider.provider_type().as_str(),
            account_id.as_deref().unwrap_or_default(),
            &tokens,
        );
        if account_id.is_none() {
            account.remove("providerAccountId");
        }
        Ok(account)
    }
}

/// Whether some hook the host registered is of a kind `reached` says a
/// request can call.
fn reaches_host(host: &dyn Host, reached: fn(&host::HookKind) -> bool) -> bool {
    match host.hook_names() {
        Some(names) => names.iter().filter_map(|n| host::HookKind::parse(n)).any(|kind| reached(&kind)),
        // A host that cannot list its hooks: ask for each fixed hook name.
        None => Hook::FIXED
            .iter()
            .any(|hook| host.has(hook) && host::HookKind::parse(hook.name()).is_some_and(|k| reached(&k))),
    }
}

/// Every hook the host registered must be one the engine calls: a known
/// name ([`host::HookKind::parse`]), a provider hook for a configured
/// provider of the right type, adapter hooks only for a host adapter. A
/// misspelt callback is refused here, as a misspelt option is.
fn check_hook_names(
    host: &dyn Host,
    providers: &Providers,
    adapter: Option<&serde_json::Value>,
) -> Result<(), ConfigError> {
    use host::{HookKind, ProviderMethod};
    let Some(mut names) = host.hook_names() else { return Ok(()) };
    names.sort();
    let host_adapter = adapter.and_then(|a| a.get("type")).and_then(serde_json::Value::as_str) == Some("host");
    for name in names {
        let kind = HookKind::parse(&name).ok_or_else(|| {
            ConfigError::new(name.clone(), format!("unknown hook: {}", host::known_hooks_hint(&name)))
        })?;
        match kind {
            HookKind::Provider { id, method } => {
                let provider = providers.get(&id).ok_or_else(|| {
                    ConfigError::new(name.clone(), format!("there is no provider with id {id:?} for this function"))
                })?;
                let fits = matches!(
                    (&provider.kind, method),
                    (providers::ProviderKind::Credentials(_), ProviderMethod::Authorize)
                        | (providers::ProviderKind::Email(_), ProviderMethod::SendVerificationRequest)
                        | (providers::ProviderKind::OAuth(_), ProviderMethod::Profile)
                        | (providers::ProviderKind::WebAuthn(_), ProviderMethod::GetUserInfo)
                );
                if !fits {
                    return Err(ConfigError::new(
                        name.clone(),
                        format!("a {} provider does not call this function", provider.provider_type().as_str()),
                    ));
                }
            }
            HookKind::Adapter(_) if !host_adapter => {
                return Err(ConfigError::new(
                    name.clone(),
                    "adapter functions are called only for a host adapter (`adapter: { \"type\": \"host\" }`)",
                ));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Wrap `inner` in the `secondaryStorage` the option describes.
fn secondary_storage(value: &serde_json::Value, inner: Arc<dyn Adapter>) -> Result<Arc<dyn Adapter>, ConfigError> {
    let serde_json::Value::Object(map) = value else {
        return Err(ConfigError::new(
            "secondaryStorage",
            "must be an object such as { \"type\": \"redis\", \"url\": \"redis://127.0.0.1:6379\" }",
        ));
    };
    match map.get("type").and_then(serde_json::Value::as_str) {
        Some("redis") => {}
        Some(other) => {
            return Err(ConfigError::new(
                "secondaryStorage.type",
                format!("unknown secondary storage \"{other}\"; the one type is \"redis\""),
            ))
        }
        None => return Err(ConfigError::new("secondaryStorage.type", "is required: \"redis\"")),
    }
    let options = redis_pool::RedisOptions::parse(map, "secondaryStorage", &["type"])?;
    let pool = redis_pool::RedisPool::new(&options).map_err(|e| ConfigError::new("secondaryStorage.url", e))?;
    Ok(Arc::new(adapter::secondary::RedisSecondary::new(inner, Arc::new(pool))))
}

/// The email provider stores its tokens through the adapter.
fn check_email_adapter(providers: &Providers, adapter: Option<&dyn adapter::Adapter>) -> Result<(), ConfigError> {
    let Some((index, p)) =
        providers.iter().enumerate().find(|(_, p)| matches!(p.kind, providers::ProviderKind::Email(_)))
    else {
        return Ok(());
    };
    match adapter {
        None => Err(ConfigError::new(
            "adapter",
            format!("the email provider {:?} (providers[{index}]) stores its sign-in tokens through an adapter; configure one", p.id),
        )
        .with_kind(ErrorType::MissingAdapter)),
        Some(a) if !(a.supports("createVerificationToken") && a.supports("useVerificationToken")) => Err(ConfigError::new(
            "adapter",
            "the email provider needs the adapter methods createVerificationToken and useVerificationToken",
        )
        .with_kind(ErrorType::MissingAdapterMethods)),
        Some(_) => Ok(()),
    }
}

fn no_such_passkey() -> AuthError {
    AuthError::new(ErrorType::WebAuthnVerificationError, "no such passkey")
}
