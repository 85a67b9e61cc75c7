//! Admission: where each request runs, decided once for every binding.
//!
//! A request that can reach no host code and block on no I/O runs inline,
//! on the calling thread (an event loop included). Anything else takes a
//! [`Permit`], one of `hooks.maxInFlight` places; past the bound it is
//! refused at once (503, `Retry-After`) instead of queueing, so hanging
//! host code fills the bound, never the server.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use crate::error::AuthError;
use crate::http::{AuthRequest, AuthResponse};
use crate::session::Session;
use crate::{routes, time, Auth};

/// How often, at most, refusals past `hooks.maxInFlight` are logged (seconds).
const OVERLOAD_LOG_INTERVAL: u64 = 10;

#[derive(Default)]
pub(crate) struct OverloadLog {
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
    /// Whether reading the session can neither call host code nor block on
    /// I/O: the JWT strategy with no adapter and no hook that a session
    /// read reaches ([`crate::host::HookKind::reached_by_session_reads`]: jwt and
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
}
