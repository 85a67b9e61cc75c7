//! Admission: where each piece of work runs, decided once for every
//! binding by one entry, [`Auth::admit`].
//!
//! Work that can reach no host code and block on no I/O runs inline, on the
//! calling thread (an event loop included). Anything else takes a
//! [`Permit`], one of `hooks.maxInFlight` places; past the bound it is
//! refused at once (503 with `Retry-After`, or `Overloaded`) instead of
//! queueing, so hanging host code fills the bound, never the server.

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

/// What a binding is about to run, for [`Auth::admit`].
#[derive(Clone, Copy)]
pub enum Work<'r> {
    /// A request under basePath (then [`Auth::handle`]).
    Request(&'r AuthRequest),
    /// A session read (then [`Auth::get_session`] or
    /// [`Auth::get_session_by_cookie`]).
    SessionRead,
    /// Host code the application calls (form actions, account calls:
    /// sign-in and sign-out actions, passkeys, access tokens).
    HostCall,
}

/// Where to run it, decided by [`Auth::admit`].
#[must_use = "a permit is freed when dropped"]
pub enum Admission {
    /// A request answered on the calling thread: it needed no host code
    /// and no I/O, or it was refused past `hooks.maxInFlight` (this is the
    /// 503 with `Retry-After`). Send it.
    Answered(AuthResponse),
    /// A session read that can reach no host code and no I/O: run it on
    /// the calling thread, an event loop included, with no permit.
    Inline,
    /// It may call host code: run it where the binding runs such work (a
    /// worker thread), holding the [`Permit`] until it is done.
    Admitted(Permit),
    /// A session read or host call refused past `hooks.maxInFlight`
    /// (`Overloaded`): fail it at once instead of queueing.
    Refused(AuthError),
}

impl Admission {
    /// For a [`Work::Request`]: `Ok(response)` to send now, or `Err(permit)`
    /// to run [`Auth::handle`] holding it. Admission answers a request or
    /// admits it, never `Inline` or `Refused`; were it to, the answer is the
    /// engine's own (503 for a refusal, 500 otherwise), so no binding needs
    /// an arm of its own for them.
    pub fn request(self) -> Result<AuthResponse, Permit> {
        match self {
            Admission::Answered(res) => Ok(res),
            Admission::Admitted(permit) => Err(permit),
            // No request at hand here: English, the default's own text.
            Admission::Refused(_) => Ok(routes::overloaded_response(&crate::email::english().default_messages())),
            Admission::Inline => Ok(routes::server_error_json(&crate::email::english().default_messages())),
        }
    }

    /// For a session read or host call: `Ok(None)` to run inline,
    /// `Ok(Some(permit))` to run holding the permit, or the refusal.
    pub fn permit(self) -> Result<Option<Permit>, AuthError> {
        match self {
            Admission::Inline => Ok(None),
            Admission::Admitted(permit) => Ok(Some(permit)),
            Admission::Refused(e) => Err(e),
            // Only a request is answered by admission itself.
            Admission::Answered(_) => Err(AuthError::overloaded()),
        }
    }
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
    /// logger). A binding may then read sessions on its event-loop thread,
    /// with no thread hop ([`Admission::Inline`]). Decided once, at
    /// construction.
    pub fn session_is_hookless(&self) -> bool {
        self.session_hookless
    }

    /// Admission, decided once for every binding: where `work` runs.
    ///
    /// - A [`Work::Request`] that can reach no host code and block on no
    ///   I/O (a malformed request, `GET session`/`csrf`/`providers` under a
    ///   hookless session configuration, the built-in `signin`, `signout`,
    ///   `error` and `verify-request` pages when no redirect callback or
    ///   logger function is configured) is answered here, on the calling
    ///   thread: [`Admission::Answered`]. It needs no permit, so these
    ///   routes keep answering when `hooks.maxInFlight` is reached.
    /// - A [`Work::SessionRead`] under [`Auth::session_is_hookless`] is
    ///   [`Admission::Inline`].
    /// - Anything else may call host code: [`Admission::Admitted`] with a
    ///   [`Permit`], one of `hooks.maxInFlight` places. Past the bound it is
    ///   refused at once instead of queueing (a request gets its 503 as
    ///   [`Admission::Answered`], the rest [`Admission::Refused`] with
    ///   `Overloaded`), so hanging host code fills the bound, never the
    ///   server's memory or threads.
    pub fn admit(&self, work: Work<'_>) -> Admission {
        match work {
            Work::Request(req) => {
                let (inline, target) = self.classify(req);
                if inline {
                    let answered = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        routes::handle_target(self, req, target)
                    }));
                    return Admission::Answered(answered.unwrap_or_else(|_| {
                        self.callbacks.log(&AuthError::internal());
                        routes::server_error_json(&routes::request_messages(self, req))
                    }));
                }
                match self.take_place() {
                    Some(permit) => Admission::Admitted(permit),
                    None => {
                        self.note_overload();
                        Admission::Answered(routes::overloaded_response(&routes::request_messages(self, req)))
                    }
                }
            }
            Work::SessionRead if self.session_hookless => Admission::Inline,
            Work::SessionRead | Work::HostCall => match self.take_place() {
                Some(permit) => Admission::Admitted(permit),
                None => {
                    self.note_overload();
                    Admission::Refused(AuthError::overloaded())
                }
            },
        }
    }

    /// Whether `req` runs inline, and its target, read once.
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
                | routes::Action::VerifyRequest => self.pages_hookless && !self.page_reads_session(req),
                routes::Action::WebAuthnScript => true,
                routes::Action::Callback
                | routes::Action::WebAuthnOptions
                | routes::Action::Passkeys
                | routes::Action::Sessions
                | routes::Action::Password
                | routes::Action::TwoFactor
                | routes::Action::Account => false,
            },
            routes::Target::Route { .. } => false,
        };
        (inline, target)
    }

    /// Whether a built-in page would read the session to find the user's
    /// stored locale (`i18n.resolve` has `user`) in a way that may block on
    /// I/O or call host code: the session is not hookless and the request
    /// carries a session cookie.
    fn page_reads_session(&self, req: &AuthRequest) -> bool {
        self.settings.i18n.uses_user_locale()
            && !self.session_hookless
            && crate::cookies::ChunkedCookie::read(&self.cookies_for_url(&req.url).session_token, req).value().is_some()
    }

    /// One of `hooks.maxInFlight` places, or `None` when all are taken.
    fn take_place(&self) -> Option<Permit> {
        let admitted = self
            .in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < self.settings.max_in_flight).then_some(n + 1))
            .is_ok();
        admitted.then(|| Permit { in_flight: self.in_flight.clone() })
    }

    /// [`Auth::handle`] on the calling thread, as [`Auth::admit`] decides:
    /// for bindings that run the engine where they are called (C, Python
    /// under WSGI).
    pub fn handle_admitted(&self, req: &AuthRequest) -> AuthResponse {
        match self.admit(Work::Request(req)) {
            Admission::Answered(res) => res,
            _admitted => self.handle(req),
        }
    }

    /// [`Auth::get_session`] on the calling thread, as [`Auth::admit`]
    /// decides.
    pub fn get_session_admitted(&self, req: &AuthRequest) -> Result<Option<Session>, AuthError> {
        let _permit = self.admit(Work::SessionRead).permit()?;
        self.get_session(req)
    }

    /// Requests admitted and not yet finished.
    pub fn in_flight(&self) -> usize {
        self.in_flight.load(Ordering::Acquire)
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
