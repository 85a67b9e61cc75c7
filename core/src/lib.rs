//! libauth-core: the engine behind every libauth binding. It answers every
//! Auth.js v5 auth route from a serialized request ([`Auth::handle`]) and
//! reads the current session ([`Auth::get_session`]).
//!
//! The public API is what the crate root re-exports: [`Auth`], its
//! [`Config`] and [`Settings`], the request and response types, the
//! [`Host`] trait through which the engine reaches host code (with
//! [`HookMap`] for Rust closures), the error types, and the [`store`]
//! module for storage backends. `docs/architecture.md` describes the model.
//!
//! Layout: `config` (options, defaults, validation), `http` (request and
//! response), `routes/` (one module per route family), `session` (session
//! strategies), `jwt` (the encrypted cookie), `csrf`, `cookies`, `callbacks`
//! (host hooks with defaults), `providers/`, `pages` (built-in HTML),
//! `password/` (password hashing, not yet used by a route).
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

/// The password page's example (docs/passwords.md), likewise.
#[cfg(doctest)]
#[doc = include_str!("../../docs/passwords.md")]
struct PasswordsGuideDoctests;

mod admission;
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
mod housekeeping;
pub mod http;
pub mod i18n;
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
mod passkeys;
// The connection pool under PostgreSQL and Redis.
pub mod password;
#[cfg(any(feature = "postgres", feature = "redis"))]
mod pool;
pub mod providers;
#[doc(hidden)]
pub mod random;
pub mod ratelimit;
#[doc(hidden)]
pub mod redirect;
mod routes;
pub mod session;
#[doc(hidden)]
pub mod session_cache;
mod setup;
pub mod sign_outs;
pub mod store;
#[doc(hidden)]
pub mod time;
pub mod tokens;
pub mod two_factor;
mod user_sessions;
pub mod user_two_factor;
pub mod webauthn;

use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

pub use admission::{Admission, Permit, Work};
pub use config::{Config, Env, ProcessEnv, SessionStrategy, Settings};
pub use error::{AuthError, ConfigError, ErrorType, HostError};
pub use host::{Hook, HookMap, Host, NoHooks};
pub use http::{ActionOutcome, AuthRequest, AuthResponse};
pub use identity::Identity;
pub use routes::{Action, PasswordAction};
pub use session::{Session, SessionView, SharedKey};
pub use store::{Adapter, AdapterError, Purged, Stores};
pub use user_sessions::EndScope;
pub use user_two_factor::SecondFactor;

use callbacks::Callbacks;
use cookies::CookieSet;
use csrf::Csrf;
use jwt::JwtCodec;
use providers::Providers;

/// The engine for one configuration. Built once, shared by every thread.
pub struct Auth {
    settings: Settings,
    /// Where records, counts and leases live (shared with a sibling
    /// engine, see [`Auth::new_beside`]).
    stores: Arc<Stores>,
    custom_session_token: bool,
    callbacks: Callbacks,
    providers: Providers,
    codec: JwtCodec,
    /// Decrypted session cookies (`session.cache`): JWT strategy, the
    /// engine's own codec. Dropped with the engine, and with it its secrets.
    session_cache: Option<session_cache::SessionCache>,
    /// Users' sign-out times, for JWT sessions (`session.revocationCheck`):
    /// JWT strategy with a store that keeps them.
    sign_outs: Option<sign_outs::SignOuts>,
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
    overload: admission::OverloadLog,
    /// Rate limits on the routes that cost or leak.
    limiter: ratelimit::Limiter,
    /// Access-token refreshes in flight in this process.
    refreshes: tokens::Flights,
    /// `tokenRefresh.skew` and `tokenRefresh.wait`.
    refresh_skew: std::time::Duration,
    refresh_wait: std::time::Duration,
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

    /// Answer one request under `basePath`. Never panics, never fails:
    /// every error becomes the response the spec prescribes.
    pub fn handle(&self, req: &AuthRequest) -> AuthResponse {
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| routes::handle(self, req))) {
            Ok(res) => res,
            Err(_) => {
                self.callbacks.log(&AuthError::internal());
                routes::server_error_json(&routes::request_messages(self, req))
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

    /// A password-account step from host code (`password` provider): the
    /// fields the built-in form posts (see [`PasswordAction`]), the host's
    /// own request (its cookies name the signed-in user for the account
    /// steps). No CSRF token, as [`Auth::sign_in`]. Returns the cookies to
    /// set and where the built-in flow would go next; a refusal is its
    /// typed error: `PasswordRefused`, `InvalidEmail`, `CredentialsSignin`
    /// (a wrong current password), `Verification` (a bad reset token),
    /// `RateLimited`.
    pub fn password_action(
        &self,
        action: PasswordAction,
        fields: serde_json::Map<String, serde_json::Value>,
        request: &AuthRequest,
    ) -> Result<ActionOutcome, AuthError> {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            routes::password_action(self, action, fields, request)
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
        Ok(self.get_session_view(req)?.map(SessionView::into_session))
    }

    /// [`Auth::get_session`] for a binding: the session as a
    /// [`SessionView`], shared with the session cache when a read without
    /// hooks hit it (its JSON text and map built once per cookie), so the
    /// binding copies out only what its host needs.
    pub fn get_session_view(&self, req: &AuthRequest) -> Result<Option<SessionView>, AuthError> {
        self.peek_session(self.cookies_for_url(&req.url), req.cookies())
    }

    /// [`Auth::get_session`] from what a session read needs and no more:
    /// the request's absolute URL (its scheme picks the cookie names) and
    /// its `Cookie` header (`None` or `""` when it has none; several
    /// headers joined with `"; "`). No request is built and nothing is
    /// copied; the answer is the one `get_session` gives for a request with
    /// that URL and header.
    pub fn get_session_by_cookie(&self, url: &str, cookie: Option<&str>) -> Result<Option<Session>, AuthError> {
        Ok(self.get_session_view_by_cookie(url, cookie)?.map(SessionView::into_session))
    }

    /// [`Auth::get_session_by_cookie`] as a [`SessionView`] (see
    /// [`Auth::get_session_view`]): what every binding's session read calls.
    pub fn get_session_view_by_cookie(
        &self,
        url: &str,
        cookie: Option<&str>,
    ) -> Result<Option<SessionView>, AuthError> {
        self.peek_session(self.cookies_for_url(url), cookie.into_iter().flat_map(http::cookie_pairs))
    }

    /// [`Auth::get_session_view_by_cookie`] for a host that knows whether
    /// the request came over HTTPS but has not built its URL: the scheme is
    /// all of the URL a session read uses (it picks the cookie names, unless
    /// `useSecureCookies` or the configured URL decides), so this answers
    /// what `get_session_view_by_cookie` answers for any URL with that
    /// scheme. Node's session read calls it (building and copying the URL
    /// cost a fifth of a repeated read there).
    pub fn get_session_view_by_scheme(
        &self,
        https: bool,
        cookie: Option<&str>,
    ) -> Result<Option<SessionView>, AuthError> {
        self.peek_session(self.cookies_for_scheme(https), cookie.into_iter().flat_map(http::cookie_pairs))
    }

    /// What the session cache holds and how many session tokens were
    /// decrypted by reads (`None` without a cache: `session.cache: false`,
    /// the database strategy, or a custom `jwt.decode`). For tests and
    /// benchmarks; walks the whole cache.
    #[doc(hidden)]
    pub fn session_cache_stats(&self) -> Option<session_cache::SessionCacheStats> {
        self.session_cache.as_ref().map(session_cache::SessionCache::stats)
    }

    /// The auth route `url` names under basePath (`/auth/signin/github` is
    /// `(SignIn, Some("github"))`), or `None` when it names none or is not a
    /// valid request URL. The same parse [`Auth::handle`] routes with
    /// ([`http::parse_request_url`]), so the two always agree.
    pub fn route(&self, url: &str) -> Option<(routes::Action, Option<String>)> {
        let url = http::parse_request_url(url)?;
        routes::parse_action(url.path(), &self.settings.base_path)
    }

    /// Call a hook through this engine's host exactly as the engine does
    /// (deadline included), with `args` as the engine would pass them: for
    /// the cross-language conformance test of the host conventions and for
    /// tools. Not a way to run hooks in production code.
    #[doc(hidden)]
    pub fn call_hook(&self, hook: &str, args: serde_json::Value) -> Result<serde_json::Value, HostError> {
        self.callbacks.host.call(&Hook::named(hook), args)
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
        // `get`, not slicing: the URL is client input and may hold
        // multi-byte characters where a slice would split one.
        self.cookies_for_scheme(url.get(..8).is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://")))
    }

    /// The cookie names of a request that came over HTTPS or not.
    fn cookies_for_scheme(&self, https: bool) -> &CookieSet {
        let secure = self.settings.use_secure_cookies.unwrap_or_else(|| match &self.settings.canonical_url {
            Some(canonical) => canonical.scheme() == "https",
            None => https,
        });
        if secure {
            &self.secure_cookies
        } else {
            &self.plain_cookies
        }
    }
}
