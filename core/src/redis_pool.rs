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
use std::time::Duration;

use r2d2::{Pool, PooledConnection};
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

/// Why a Redis call failed. The message never holds a key or a value
/// (keys hold hashed tokens, but there is no reason to log them either).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("redis: {message}")]
pub struct RedisFailure {
    /// Unreachable, timed out, or the connection broke: retrying later may
    /// work. Otherwise the server answered with an error.
    pub unavailable: bool,
    pub message: String,
}

impl RedisFailure {
    fn from_error(e: &redis::RedisError) -> RedisFailure {
        let unavailable = is_connection_error(e);
        RedisFailure { unavailable, message: e.to_string() }
    }
}

fn is_connection_error(e: &redis::RedisError) -> bool {
    e.is_io_error() || e.is_timeout() || e.is_connection_dropped() || e.is_connection_refusal()
}

/// A connection and whether it may go back to the pool.
pub struct Conn {
    inner: redis::Connection,
    broken: bool,
}

struct Manager {
    client: redis::Client,
    timeout: Duration,
}

impl r2d2::ManageConnection for Manager {
    type Connection = Conn;
    type Error = redis::RedisError;

    fn connect(&self) -> Result<Conn, redis::RedisError> {
        let inner = self.client.get_connection_with_timeout(self.timeout)?;
        inner.set_read_timeout(Some(self.timeout))?;
        inner.set_write_timeout(Some(self.timeout))?;
        Ok(Conn { inner, broken: false })
    }

    fn is_valid(&self, conn: &mut Conn) -> Result<(), redis::RedisError> {
        redis::cmd("PING").query::<()>(&mut conn.inner)
    }

    fn has_broken(&self, conn: &mut Conn) -> bool {
        conn.broken || !redis::ConnectionLike::is_open(&conn.inner)
    }
}

/// A pool of connections to one Redis.
pub struct RedisPool {
    pool: Pool<Manager>,
    /// Stale pooled connections one call may meet: the pool's size.
    max_retries: u32,
    breaker: Breaker,
    timeout: Duration,
    key_prefix: String,
}

/// How long a probe of an unreachable server waits.
const PROBE_TIMEOUT: Duration = Duration::from_millis(500);

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
        let pool = Pool::builder()
            .max_size(options.pool_size)
            // No background thread reconnecting during an outage.
            .min_idle(Some(0))
            .connection_timeout(options.timeout)
            // A checked-out connection is used at once, and a broken one is
            // dropped on return (`has_broken`): no PING per call.
            .test_on_check_out(false)
            .error_handler(Box::new(r2d2::NopErrorHandler))
            .build_unchecked(Manager { client, timeout: options.timeout });
        Ok(RedisPool {
            pool,
            max_retries: options.pool_size,
            breaker: Breaker::default(),
            timeout: options.timeout,
            key_prefix: options.key_prefix.clone(),
        })
    }

    /// `prefix` + `rest`.
    pub fn key(&self, rest: &str) -> String {
        format!("{}{rest}", self.key_prefix)
    }

    fn conn(&self) -> Result<PooledConnection<Manager>, RedisFailure> {
        let admission = self.breaker.admit();
        let checked_out = match admission {
            Admission::Refused => {
                return Err(RedisFailure {
                    unavailable: true,
                    message: "Redis was unreachable moments ago; failing fast until a probe reaches it".into(),
                })
            }
            Admission::Probe => self.pool.get_timeout(self.timeout.min(PROBE_TIMEOUT)),
            Admission::Normal => self.pool.get(),
        };
        match checked_out {
            Ok(conn) => {
                if admission == Admission::Probe || self.breaker.is_open() {
                    self.breaker.succeeded();
                }
                Ok(conn)
            }
            Err(e) => {
                self.breaker.failed(admission);
                Err(RedisFailure { unavailable: true, message: format!("cannot connect: {e}") })
            }
        }
    }

    /// Run `f` on a pooled connection. A pooled connection the server has
    /// closed (a restart, an idle timeout) fails at once, before the
    /// command ran: it is dropped and `f` runs again on another, a fresh one
    /// at the latest. A timeout is not retried (the command may have run,
    /// and the caller must not wait twice); it, or a connection that cannot
    /// be made, opens the breaker.
    pub fn run<T>(
        &self,
        mut f: impl FnMut(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> Result<T, RedisFailure> {
        let mut retries = 0;
        loop {
            let mut conn = self.conn()?;
            match f(&mut conn.inner) {
                Ok(value) => return Ok(value),
                Err(e) if is_connection_error(&e) => {
                    conn.broken = true;
                    if !e.is_timeout() && retries < self.max_retries {
                        retries += 1;
                        continue;
                    }
                    self.breaker.failed(Admission::Normal);
                    return Err(RedisFailure::from_error(&e));
                }
                Err(e) => return Err(RedisFailure::from_error(&e)),
            }
        }
    }
}
