//! One Redis connection pool, shared by the Redis rate-limit store
//! (`ratelimit::redis`) and Redis secondary storage (`adapter::secondary`).
//!
//! - `redis://host:port/db` or `rediss://…` (TLS through rustls, verified
//!   against the system's CAs, or against `caFile` for a private CA).
//! - Every connect, every command and every wait for a pooled connection is
//!   bounded by `timeout` (1 s by default): Redis answers in microseconds,
//!   so a longer wait means it is down or overloaded, and a request must
//!   not hang on it.
//! - After a connection failure the same circuit breaker as PostgreSQL's
//!   (`adapter::breaker`) fails calls at once while one caller at a time
//!   probes, so an outage costs a request microseconds, not a timeout.
//! - A connection that saw an I/O error or a timeout is dropped, never
//!   reused: a reply arriving late would otherwise be read as the answer to
//!   the next command. Connections are not pinged when taken from the pool
//!   (that would double the round trips); one the server closed is
//!   replaced when a call meets it (see [`RedisPool::run`]).

use std::path::PathBuf;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::adapter::breaker::{Admission, Breaker};
use crate::error::ConfigError;

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(1);
pub const DEFAULT_POOL_SIZE: u32 = 16;
pub const DEFAULT_KEY_PREFIX: &str = "libauth:";

/// How to reach Redis.
#[derive(Clone)]
pub struct RedisOptions {
    pub url: String,
    pub pool_size: u32,
    pub timeout: Duration,
    /// PEM file of the CA(s) to verify a `rediss://` server with, instead
    /// of the system's.
    pub ca_file: Option<PathBuf>,
    /// Prepended to every key, so applications can share one Redis.
    pub key_prefix: String,
}

impl RedisOptions {
    pub fn new(url: impl Into<String>) -> RedisOptions {
        RedisOptions {
            url: url.into(),
            pool_size: DEFAULT_POOL_SIZE,
            timeout: DEFAULT_TIMEOUT,
            ca_file: None,
            key_prefix: DEFAULT_KEY_PREFIX.to_owned(),
        }
    }

    /// Read `url`, `poolSize`, `timeout` (seconds), `caFile`, `keyPrefix`
    /// from an option object; `option` names it in errors
    /// (`rateLimit.store`, `secondaryStorage`). Keys not listed in `others`
    /// or the ones above are refused.
    pub fn parse(map: &Map<String, Value>, option: &str, others: &[&str]) -> Result<RedisOptions, ConfigError> {
        const KEYS: [&str; 5] = ["url", "poolSize", "timeout", "caFile", "keyPrefix"];
        if let Some(key) = map.keys().find(|k| !KEYS.contains(&k.as_str()) && !others.contains(&k.as_str())) {
            let known: Vec<&str> = others.iter().chain(KEYS.iter()).copied().collect();
            return Err(ConfigError::new(
                format!("{option}.{key}"),
                format!("unknown option; known: {}", known.join(", ")),
            ));
        }
        let url = match map.get("url") {
            Some(Value::String(url)) if url.starts_with("redis://") || url.starts_with("rediss://") => url,
            _ => {
                return Err(ConfigError::new(
                    format!("{option}.url"),
                    "is required: a URL such as \"redis://127.0.0.1:6379\" (\"rediss://…\" for TLS)",
                ))
            }
        };
        let mut options = RedisOptions::new(url.clone());
        if let Some(size) = map.get("poolSize") {
            options.pool_size = size.as_u64().filter(|n| (1..=1000).contains(n)).ok_or_else(|| {
                ConfigError::new(format!("{option}.poolSize"), "must be a whole number from 1 to 1000")
            })? as u32;
        }
        if let Some(timeout) = map.get("timeout") {
            let seconds = timeout.as_f64().filter(|s| *s > 0.0 && *s <= 60.0).ok_or_else(|| {
                ConfigError::new(format!("{option}.timeout"), "must be a number of seconds above 0, at most 60")
            })?;
            options.timeout = Duration::from_secs_f64(seconds);
        }
        if let Some(ca) = map.get("caFile") {
            let path = ca
                .as_str()
                .filter(|s| !s.is_empty())
                .ok_or_else(|| ConfigError::new(format!("{option}.caFile"), "must be a path to a PEM file"))?;
            options.ca_file = Some(PathBuf::from(path));
        }
        if let Some(prefix) = map.get("keyPrefix") {
            options.key_prefix = prefix
                .as_str()
                .ok_or_else(|| ConfigError::new(format!("{option}.keyPrefix"), "must be a string"))?
                .to_owned();
        }
        Ok(options)
    }
}

/// The URL may hold a password: never print it.
impl std::fmt::Debug for RedisOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisOptions")
            .field("url", &"[redacted]")
            .field("pool_size", &self.pool_size)
            .field("timeout", &self.timeout)
            .field("ca_file", &self.ca_file)
            .field("key_prefix", &self.key_prefix)
            .finish()
    }
}

/// What kind of failure a [`RedisFailure`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// Unreachable, timed out, or the connection broke: retrying later may
    /// work.
    Unavailable,
    /// Every connection of this process stayed busy for the whole
    /// `timeout`: Redis is fine, there are more concurrent calls than
    /// `poolSize`.
    Overloaded,
    /// Redis answered with an error.
    Command,
}

/// Why a Redis call failed. The message never holds a key or a value
/// (keys hold hashed tokens, but there is no reason to log them either).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("redis: {message}")]
pub struct RedisFailure {
    pub kind: FailureKind,
    pub message: String,
}

impl RedisFailure {
    fn from_error(e: &redis::RedisError) -> RedisFailure {
        let kind = if is_connection_error(e) { FailureKind::Unavailable } else { FailureKind::Command };
        RedisFailure { kind, message: e.to_string() }
    }

    fn unavailable(message: impl Into<String>) -> RedisFailure {
        RedisFailure { kind: FailureKind::Unavailable, message: message.into() }
    }
}

fn is_connection_error(e: &redis::RedisError) -> bool {
    e.is_io_error() || e.is_timeout() || e.is_connection_dropped() || e.is_connection_refusal()
}

/// Idle connections, and how many this process has open.
struct State {
    idle: Vec<redis::Connection>,
    open: u32,
    /// The process the connections belong to (see [`RedisPool::state`]).
    pid: u32,
}

/// A pool of at most `poolSize` connections to one Redis, each made on the
/// thread of the call that needs it (as the PostgreSQL adapter's pool, and
/// for its reasons: a refused connect fails that call at once instead of
/// after a checkout timeout, no threads, fork-aware). Connections are not
/// pinged when taken (that would double the round trips): one the server
/// closed is replaced when a call meets it (see [`RedisPool::run`]).
pub struct RedisPool {
    client: redis::Client,
    state: Mutex<State>,
    /// Signalled when a connection is returned or a slot frees up.
    freed: Condvar,
    max: u32,
    breaker: Breaker,
    timeout: Duration,
    key_prefix: String,
}

/// How long a probe of an unreachable server waits.
const PROBE_TIMEOUT: Duration = Duration::from_millis(500);

/// A connection taken from the pool; back into it when dropped, unless
/// `broken`.
struct Checked<'a> {
    pool: &'a RedisPool,
    conn: Option<redis::Connection>,
    broken: bool,
    /// What the breaker said: a probe's outcome closes or reopens it.
    admission: Admission,
}

impl Drop for Checked<'_> {
    fn drop(&mut self) {
        let Some(conn) = self.conn.take() else { return };
        let mut state = self.pool.state();
        if self.broken || !redis::ConnectionLike::is_open(&conn) {
            state.open = state.open.saturating_sub(1);
        } else {
            state.idle.push(conn);
        }
        self.pool.freed.notify_one();
    }
}

impl RedisPool {
    /// Set up the pool. Does not connect (the first call does), so the
    /// application starts while Redis is down. Fails for a URL that does
    /// not parse or a CA file that cannot be read.
    pub fn new(options: &RedisOptions) -> Result<RedisPool, String> {
        let client = match &options.ca_file {
            None => redis::Client::open(options.url.as_str()),
            Some(path) => {
                if !options.url.starts_with("rediss://") {
                    return Err("caFile is for TLS: the URL must start with rediss://".to_owned());
                }
                let pem =
                    std::fs::read(path).map_err(|e| format!("cannot read the CA file {}: {e}", path.display()))?;
                redis::Client::build_with_tls(
                    options.url.as_str(),
                    redis::TlsCertificates { client_tls: None, root_cert: Some(pem) },
                )
            }
        }
        // The error names what is wrong with the URL; it does not repeat it.
        .map_err(|e| format!("invalid Redis URL ({})", e.category()))?;
        Ok(RedisPool {
            client,
            state: Mutex::new(State { idle: Vec::new(), open: 0, pid: std::process::id() }),
            freed: Condvar::new(),
            max: options.pool_size.max(1),
            breaker: Breaker::default(),
            timeout: options.timeout,
            key_prefix: options.key_prefix.clone(),
        })
    }

    /// `prefix` + `rest`.
    pub fn key(&self, rest: &str) -> String {
        format!("{}{rest}", self.key_prefix)
    }

    /// The pool's state, for this process. In a child after `fork()` the
    /// parent's connections are forgotten, never used (two processes on one
    /// socket would read each other's replies) nor closed (a TLS connection
    /// would send its close alert on the parent's session): the child makes
    /// its own.
    fn state(&self) -> MutexGuard<'_, State> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let pid = std::process::id();
        if state.pid != pid {
            for conn in state.idle.drain(..) {
                std::mem::forget(conn);
            }
            state.open = 0;
            state.pid = pid;
        }
        state
    }

    /// A connection: an idle one, a new one (made here, bounded by
    /// `timeout`), or one returned by another call within `timeout`.
    fn checkout(&self) -> Result<Checked<'_>, RedisFailure> {
        let admission = self.breaker.admit();
        if admission == Admission::Refused {
            return Err(RedisFailure::unavailable(
                "Redis was unreachable moments ago; failing fast until a probe reaches it",
            ));
        }
        let deadline = Instant::now() + self.timeout;
        let mut state = self.state();
        loop {
            if let Some(conn) = state.idle.pop() {
                // A pooled connection proves nothing about the server yet:
                // the call made on it does (see `run`).
                return Ok(Checked { pool: self, conn: Some(conn), broken: false, admission });
            }
            if state.open < self.max {
                state.open += 1;
                drop(state);
                return match self.connect(admission) {
                    Ok(conn) => {
                        if admission == Admission::Probe || self.breaker.is_open() {
                            self.breaker.succeeded();
                        }
                        Ok(Checked { pool: self, conn: Some(conn), broken: false, admission: Admission::Normal })
                    }
                    Err(e) => {
                        self.breaker.failed(admission);
                        let mut state = self.state();
                        state.open = state.open.saturating_sub(1);
                        drop(state);
                        // The waiters try (and fail) at once, not after
                        // their timeout.
                        self.freed.notify_all();
                        Err(RedisFailure::unavailable(format!("cannot connect: {e}")))
                    }
                };
            }
            let now = Instant::now();
            if now >= deadline {
                if admission == Admission::Probe {
                    self.breaker.probe_abandoned();
                }
                return Err(RedisFailure {
                    kind: FailureKind::Overloaded,
                    message: format!("all {} connections stayed busy for {:?} (poolSize)", self.max, self.timeout),
                });
            }
            state = self.freed.wait_timeout(state, deadline - now).unwrap_or_else(|p| p.into_inner()).0;
        }
    }

    fn connect(&self, admission: Admission) -> redis::RedisResult<redis::Connection> {
        let timeout = if admission == Admission::Probe { self.timeout.min(PROBE_TIMEOUT) } else { self.timeout };
        let conn = self.client.get_connection_with_timeout(timeout)?;
        conn.set_read_timeout(Some(self.timeout))?;
        conn.set_write_timeout(Some(self.timeout))?;
        Ok(conn)
    }

    /// Run `f` on a pooled connection. A pooled connection the server has
    /// closed (a restart, an idle timeout) fails at once, before the
    /// command ran: it is dropped and `f` runs again on another, a fresh one
    /// at the latest. A timeout is not retried (the command may have run,
    /// and the caller must not wait twice); it, like a connection that
    /// cannot be made, opens the breaker. A connection that saw an I/O
    /// error or a timeout is never reused: a reply arriving late would be
    /// read as the answer to the next command.
    pub fn run<T>(
        &self,
        mut f: impl FnMut(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, RedisFailure> {
        let mut retries = 0;
        loop {
            let mut checked = self.checkout()?;
            let Some(conn) = checked.conn.as_mut() else {
                return Err(RedisFailure::unavailable("no connection"));
            };
            let admission = checked.admission;
            match f(conn) {
                Ok(value) => {
                    if admission == Admission::Probe || self.breaker.is_open() {
                        self.breaker.succeeded();
                    }
                    return Ok(value);
                }
                Err(e) if is_connection_error(&e) => {
                    checked.broken = true;
                    if !e.is_timeout() && retries < self.max {
                        if admission == Admission::Probe {
                            // A stale connection said nothing about the
                            // server: the retry probes instead.
                            self.breaker.probe_abandoned();
                        }
                        retries += 1;
                        continue;
                    }
                    self.breaker.failed(admission);
                    return Err(RedisFailure::from_error(&e));
                }
                // The server answered: it is up.
                Err(e) => {
                    if admission == Admission::Probe || self.breaker.is_open() {
                        self.breaker.succeeded();
                    }
                    return Err(RedisFailure::from_error(&e));
                }
            }
        }
    }
}
