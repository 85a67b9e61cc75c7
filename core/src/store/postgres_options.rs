//! How to reach PostgreSQL (`adapter: { type: "postgres", … }` and
//! `rateLimit.store: { type: "postgres", … }`): parsed whatever the build,
//! so a build without the `postgres` feature names the option it cannot
//! serve instead of calling it unknown.

use std::time::Duration;

pub const DEFAULT_POOL_SIZE: u32 = 10;
pub const DEFAULT_SCHEMA: &str = "public";
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// How to reach the database.
#[derive(Clone)]
pub struct PostgresOptions {
    /// `postgres://user:pass@host:port/db?…` or `host=… user=…`.
    pub url: String,
    /// Most connections the pool opens.
    pub pool_size: u32,
    /// Schema holding libauth's tables; created if missing.
    pub schema: String,
    /// Limit for opening a connection and for waiting for a pooled one
    /// (a `connect_timeout` in the URL takes precedence for the former).
    pub connect_timeout: Duration,
}

impl PostgresOptions {
    pub fn new(url: impl Into<String>) -> Self {
        PostgresOptions {
            url: url.into(),
            pool_size: DEFAULT_POOL_SIZE,
            schema: DEFAULT_SCHEMA.to_owned(),
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
        }
    }
}

/// The URL holds a password: never print it.
impl std::fmt::Debug for PostgresOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresOptions")
            .field("url", &"[redacted]")
            .field("pool_size", &self.pool_size)
            .field("schema", &self.schema)
            .field("connect_timeout", &self.connect_timeout)
            .finish()
    }
}

/// Whether `name` can be a schema name as given: a plain lowercase SQL
/// identifier (so it needs no case folding surprises) of at most 63 bytes.
pub fn is_valid_schema_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c == '_')
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_')
        && name.len() <= 63
}
