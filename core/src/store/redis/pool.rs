//! The Redis backend's connection pool, shared by everything it stores
//! (sessions, verification tokens, leases, rate-limit counts).
//!
//! - `redis://host:port/db` or `rediss://…` (TLS through rustls, verified
//!   against the system's CAs, or against `caFile` for a private CA).
//! - Every connect, every command and every wait for a pooled connection is
//!   bounded by `timeout` (1 s by default): Redis answers in microseconds,
//!   so a longer wait means it is down or overloaded, and a request must
//!   not hang on it.
//! - The engine's connection pool (`crate::pool`, the same as
//!   PostgreSQL's): after a connection failure its circuit breaker fails
//!   calls at once while one caller at a time probes, so an outage costs a
//!   request microseconds, not a timeout; a busy pool is `Overloaded`, never
//!   an outage; a forked child never touches its parent's connections.
//! - A connection that saw an I/O error or a timeout is dropped, never
//!   reused: a reply arriving late would otherwise be read as the answer to
//!   the next command. Connections are not pinged when taken from the pool
//!   (that would double the round trips); one the server closed is
//!   replaced when a call meets it (see [`RedisPool::run`]).

use std::time::Duration;

use crate::pool::{Check, CheckoutError, Limits, Pool};
pub use crate::store::redis_options::{RedisOptions, DEFAULT_KEY_PREFIX, DEFAULT_POOL_SIZE, DEFAULT_TIMEOUT};

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

/// How long a probe of an unreachable server waits.
const PROBE_TIMEOUT: Duration = Duration::from_millis(500);

/// How Redis connections are made, and why one is kept or not.
struct RedisConnector {
    client: redis::Client,
    timeout: Duration,
}

impl crate::pool::Connector for RedisConnector {
    type Conn = redis::Connection;

    fn connect(&self, probe: bool) -> Result<redis::Connection, String> {
        let timeout = if probe { self.timeout.min(PROBE_TIMEOUT) } else { self.timeout };
        let conn = self.client.get_connection_with_timeout(timeout).map_err(|e| format!("cannot connect: {e}"))?;
        conn.set_read_timeout(Some(self.timeout)).map_err(|e| format!("cannot connect: {e}"))?;
        conn.set_write_timeout(Some(self.timeout)).map_err(|e| format!("cannot connect: {e}"))?;
        Ok(conn)
    }

    /// Not pinged (that would double the round trips): a connection the
    /// server closed fails at once under its command, which `run` retries.
    fn check(&self, _conn: &mut redis::Connection) -> Check {
        Check::Untested
    }

    fn is_closed(&self, conn: &redis::Connection) -> bool {
        !redis::ConnectionLike::is_open(conn)
    }
}

/// The shared Redis pool and its key prefix.
pub struct RedisPool {
    pool: Pool<RedisConnector>,
    timeout: Duration,
    key_prefix: String,
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
        // No idle timeout or lifetime: Redis keeps idle clients (its
        // `timeout` is 0 by default), and one it closed is replaced when a
        // call meets it.
        let limits = Limits {
            max: options.pool_size,
            wait: options.timeout,
            probe_wait: PROBE_TIMEOUT,
            idle_timeout: None,
            max_lifetime: None,
        };
        Ok(RedisPool {
            pool: Pool::new(RedisConnector { client, timeout: options.timeout }, limits),
            timeout: options.timeout,
            key_prefix: options.key_prefix.clone(),
        })
    }

    /// Whether Redis answers (`PING`), for a health check such as
    /// `libauth doctor`.
    pub fn ping(&self) -> Result<(), RedisFailure> {
        self.run(|conn| redis::cmd("PING").query::<String>(conn)).map(drop)
    }

    /// `prefix` + `rest`.
    pub fn key(&self, rest: &str) -> String {
        format!("{}{rest}", self.key_prefix)
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
            let mut conn = self.pool.get().map_err(|e| match e {
                CheckoutError::Refused => RedisFailure::unavailable(
                    "Redis was unreachable moments ago; failing fast until a probe reaches it",
                ),
                CheckoutError::Unreachable(reason) => RedisFailure::unavailable(reason),
                CheckoutError::Exhausted { max, .. } => RedisFailure {
                    kind: FailureKind::Overloaded,
                    message: format!("all {max} connections stayed busy for {:?} (poolSize)", self.timeout),
                },
            })?;
            match f(&mut conn) {
                Ok(value) => {
                    conn.answered();
                    return Ok(value);
                }
                Err(e) if is_connection_error(&e) => {
                    // A stale connection (closed by the server) fails before
                    // the command ran: try another. A timeout is not retried
                    // (the command may have run, and the caller must not
                    // wait twice).
                    let retrying = !e.is_timeout() && retries < self.pool.max();
                    conn.failed(retrying);
                    if retrying {
                        retries += 1;
                        continue;
                    }
                    return Err(RedisFailure::from_error(&e));
                }
                // The server answered: it is up.
                Err(e) => {
                    conn.answered();
                    return Err(RedisFailure::from_error(&e));
                }
            }
        }
    }
}
