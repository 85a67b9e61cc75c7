//! A local simulator of TikTok Login Kit for Web (OAuth 2.0, API v2) and `/v2/user/info/`, written
//! from `docs/tiktok-login-kit.md` (the "reference"; section numbers in the docs below
//! are its sections).
//!
//! ```no_run
//! use tiktok_sim::{SimConfig, Failure};
//!
//! let sim = tiktok_sim::start(SimConfig {
//!     redirect_uris: vec!["http://127.0.0.1:3000/api/auth/callback/tiktok".into()],
//!     ..SimConfig::default()
//! });
//! let urls = sim.urls(); // authorization / token / revoke / userinfo
//! sim.set_next_failure(Failure::token("server_error", "Simulated outage."));
//! // ... drive the provider under test against `urls` ...
//! drop(sim); // stops the server
//! ```
//!
//! Paths are TikTok's (`/v2/auth/authorize/`, `/v2/oauth/token/`, `/v2/oauth/revoke/`,
//! `/v2/user/info/`), all under one base URL; real TikTok serves the first from
//! `https://www.tiktok.com` and the others from `https://open.tiktokapis.com`.

mod config;
mod hooks;
mod server;
mod util;

pub use config::{
    api_error_status, AuthorizeMode, Endpoint, Failure, OAuthErrorStatus, PkceMode, Platform, RefreshExpiry,
    RevokeBody, ScopeErrorMode, SimConfig, SimUser, CLASSIC_ACCESS_TTL, CLASSIC_REFRESH_TTL, NEWER_ACCESS_TTL,
    NEWER_REFRESH_TTL,
};
pub use server::{DESC_MALFORMED, DESC_PKCE, DESC_REDIRECT_MISMATCH, MSG_TOKEN_INVALID, USER_FIELDS};
pub use util::{new_log_id, new_pkce_verifier, pkce_challenge_base64url, pkce_challenge_hex};

use serde::Serialize;
use server::{Req, Resp, State};
use std::io::Read;
use std::net::{SocketAddr, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

/// Error from [`Simulator::bind`].
pub type StartError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// The endpoint URLs a TikTok provider config needs, pointed at a simulator.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProviderUrls {
    /// `{base}/v2/auth/authorize/` (TikTok: `https://www.tiktok.com/v2/auth/authorize/`).
    pub authorization: String,
    /// `{base}/v2/oauth/token/` (TikTok: `https://open.tiktokapis.com/v2/oauth/token/`).
    pub token: String,
    /// `{base}/v2/oauth/revoke/` (TikTok: `https://open.tiktokapis.com/v2/oauth/revoke/`).
    pub revoke: String,
    /// `{base}/v2/user/info/` (TikTok: `https://open.tiktokapis.com/v2/user/info/`).
    pub userinfo: String,
}

/// The endpoint URLs under `base_url` (e.g. `http://127.0.0.1:8787`; a trailing `/` is ignored).
pub fn provider_urls(base_url: &str) -> ProviderUrls {
    let b = base_url.trim_end_matches('/');
    ProviderUrls {
        authorization: format!("{b}/v2/auth/authorize/"),
        token: format!("{b}/v2/oauth/token/"),
        revoke: format!("{b}/v2/oauth/revoke/"),
        userinfo: format!("{b}/v2/user/info/"),
    }
}

/// `{base}/v2/auth/authorize/?` followed by `params`, form-urlencoded in order (commas in `scope`
/// become `%2C`, which TikTok-compatible clients send too, §3.1).
pub fn authorization_url(base_url: &str, params: &[(&str, &str)]) -> String {
    let mut s = url::form_urlencoded::Serializer::new(String::new());
    for (k, v) in params {
        s.append_pair(k, v);
    }
    format!("{}?{}", provider_urls(base_url).authorization, s.finish())
}

/// Start a simulator for `config` on `127.0.0.1` with an ephemeral port, serving on a background
/// thread. Panics if it cannot bind or if `config` is invalid (see [`SimConfig::validate`]).
pub fn start(config: SimConfig) -> Simulator {
    Simulator::start(config)
}

/// A running simulator. Dropping it stops the server and joins its thread.
pub struct Simulator {
    addr: SocketAddr,
    base_url: String,
    state: Arc<Mutex<State>>,
    server: Arc<tiny_http::Server>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for Simulator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Simulator").field("base_url", &self.base_url).finish_non_exhaustive()
    }
}

impl Simulator {
    /// See [`start`].
    pub fn start(config: SimConfig) -> Simulator {
        Simulator::bind("127.0.0.1:0", config).expect("tiktok-sim: could not start")
    }

    /// Start on `addr` (e.g. `"127.0.0.1:8787"`, or port 0 for an ephemeral one).
    pub fn bind(addr: impl ToSocketAddrs, config: SimConfig) -> Result<Simulator, StartError> {
        config.validate()?;
        let addr = addr.to_socket_addrs()?.next().ok_or("no address to bind")?;
        let server = Arc::new(tiny_http::Server::http(addr)?);
        let bound = server.server_addr().to_ip().ok_or("not an IP listener")?;
        let host = if bound.ip().is_unspecified() {
            if bound.is_ipv4() {
                "127.0.0.1".to_string()
            } else {
                "[::1]".to_string()
            }
        } else if bound.is_ipv6() {
            format!("[{}]", bound.ip())
        } else {
            bound.ip().to_string()
        };
        let base_url = format!("http://{host}:{}", bound.port());
        let state = Arc::new(Mutex::new(State::new(config, base_url.clone())));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (server, state, stop) = (server.clone(), state.clone(), stop.clone());
            std::thread::Builder::new().name("tiktok-sim".into()).spawn(move || serve(&server, &state, &stop))?
        };
        Ok(Simulator { addr: bound, base_url, state, server, stop, thread: Some(thread) })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// The bound socket address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint URLs for a provider config pointed at this simulator.
    pub fn urls(&self) -> ProviderUrls {
        provider_urls(&self.base_url)
    }

    /// An authorize URL for the configured `client_key` with `response_type=code`, and, if given,
    /// `code_challenge` with `code_challenge_method=S256`.
    pub fn authorization_url(
        &self,
        redirect_uri: &str,
        scope: &str,
        state: &str,
        code_challenge: Option<&str>,
    ) -> String {
        let key = self.lock().config.client_key.clone();
        let mut p = vec![
            ("client_key", key.as_str()),
            ("response_type", "code"),
            ("scope", scope),
            ("redirect_uri", redirect_uri),
            ("state", state),
        ];
        if let Some(c) = code_challenge {
            p.push(("code_challenge", c));
            p.push(("code_challenge_method", "S256"));
        }
        authorization_url(&self.base_url, &p)
    }

    /// Queue `failure` for the next request to its endpoint (see [`Failure`]).
    pub fn set_next_failure(&self, failure: Failure) {
        self.lock().push_failure(failure);
    }

    /// Drop all queued failures.
    pub fn clear_failures(&self) {
        self.lock().clear_failures();
    }

    /// Failures still queued.
    pub fn pending_failures(&self) -> Vec<Failure> {
        self.lock().pending_failures()
    }

    /// Replace the test user's profile (served by user info from the next request on; codes issued
    /// later carry its `open_id`).
    pub fn set_user(&self, user: SimUser) {
        self.lock().config.user = user;
    }

    /// The test user's profile.
    pub fn user(&self) -> SimUser {
        self.lock().config.user.clone()
    }

    /// A copy of the current config.
    pub fn config(&self) -> SimConfig {
        self.lock().config.clone()
    }

    /// Change the config at run time; refused (and nothing changed) if the result is invalid.
    pub fn update_config(&self, f: impl FnOnce(&mut SimConfig)) -> Result<(), String> {
        let mut st = self.lock();
        let mut c = st.config.clone();
        f(&mut c);
        c.validate()?;
        st.config = c;
        Ok(())
    }

    /// Move the simulator's clock forward (codes and tokens expire as if `by` had passed).
    pub fn advance_clock(&self, by: Duration) {
        self.lock().advance(by);
    }

    /// Back to the config and user given at start; forget codes, tokens, failures, clock offset.
    pub fn reset(&self) {
        self.lock().reset();
    }

    /// The same summary as `GET /__sim/state` (counts of codes and tokens, pending failures, …).
    pub fn state_summary(&self) -> serde_json::Value {
        self.lock().summary()
    }

    /// Block the calling thread while the simulator serves (for the binary).
    pub fn wait(mut self) {
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }

    /// Stop serving (the same as dropping it).
    pub fn stop(self) {}
}

impl Drop for Simulator {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

const MAX_BODY: u64 = 1 << 20;

fn serve(server: &tiny_http::Server, state: &Mutex<State>, stop: &AtomicBool) {
    loop {
        let rq = server.recv();
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(mut rq) = rq else { continue };
        let req = to_req(&mut rq);
        let resp = {
            let mut st = lock(state);
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| server::handle(&mut st, &req)));
            let r = r.unwrap_or_else(|_| Resp {
                status: 500,
                headers: vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
                body: b"tiktok-sim: internal error (handler panicked)\n".to_vec(),
            });
            if st.config.log_requests {
                eprintln!("tiktok-sim: {} {} -> {}", req.method, req.path, r.status);
            }
            r
        };
        let mut out = tiny_http::Response::from_data(resp.body).with_status_code(resp.status);
        for (k, v) in &resp.headers {
            if let Ok(h) = tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()) {
                out.add_header(h);
            }
        }
        let _ = rq.respond(out);
    }
}

fn to_req(rq: &mut tiny_http::Request) -> Req {
    let method = rq.method().as_str().to_ascii_uppercase();
    let url = rq.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((&url, ""));
    let query = url::form_urlencoded::parse(query.as_bytes()).into_owned().collect();
    let headers = rq
        .headers()
        .iter()
        .map(|h| (h.field.as_str().as_str().to_ascii_lowercase(), h.value.as_str().to_string()))
        .collect();
    let mut body = Vec::new();
    let _ = rq.as_reader().take(MAX_BODY).read_to_end(&mut body);
    Req { method, path: path.to_string(), query, headers, body }
}
