//! How to reach Redis (`secondaryStorage` and `rateLimit.store: { type:
//! "redis", … }`): parsed whatever the build, so a build without the
//! `redis` feature names the option it cannot serve.

use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Map, Value};

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
