//! `rateLimit.store`: where counts live, and what a route does when that
//! store cannot be reached.
//!
//! ```json
//! { "type": "memory", "maxKeys": 100000 }               // the default
//! { "type": "sqlite", "path": "limits.db" }
//! { "type": "postgres", "url": "postgres://…", "poolSize": 10, "schema": "public", "connectTimeout": 5 }
//! { "type": "redis", "url": "redis://…", "timeout": 1, "poolSize": 16, "caFile": "ca.pem", "keyPrefix": "libauth:" }
//! { "type": "database" }                                 // the `adapter`'s SQLite or PostgreSQL
//! ```
//!
//! Each also takes `failClosed`: `["credentials", "twoFactor"]` by default
//! (an unreachable store refuses password sign-ins and second-factor codes,
//! so guessing cannot go on unlimited, and lets magic links and callbacks
//! through, so an outage of
//! the store does not stop every sign-in), `true` for every route, `false`
//! for none, or a list of route names.

use std::time::Duration;

use serde_json::{Map, Value};

use super::Route;
use crate::error::ConfigError;
pub use crate::store::counters::{StoreConfig, DEFAULT_MAX_KEYS};
use crate::store::redis_options::RedisOptions;
use crate::store::PostgresOptions;

const OPTION: &str = "rateLimit.store";

/// Parse `rateLimit.store`; also answers its `failClosed`, per route.
pub fn parse(value: Option<&Value>) -> Result<(StoreConfig, [bool; Route::ALL.len()]), ConfigError> {
    let default_closed = Route::ALL.map(|r| matches!(r, Route::Credentials | Route::TwoFactor));
    let map = match value {
        None | Some(Value::Null) => return Ok((StoreConfig::memory(), default_closed)),
        Some(Value::Object(map)) => map,
        Some(_) => {
            return Err(ConfigError::new(
                OPTION,
                "must be an object such as { \"type\": \"redis\", \"url\": \"redis://127.0.0.1:6379\" }",
            ))
        }
    };
    let fail_closed = match map.get("failClosed") {
        None | Some(Value::Null) => default_closed,
        Some(Value::Bool(all)) => [*all; Route::ALL.len()],
        Some(Value::Array(names)) => {
            let mut closed = [false; Route::ALL.len()];
            for name in names {
                let route = Route::ALL.into_iter().find(|r| Some(r.as_str()) == name.as_str()).ok_or_else(|| {
                    ConfigError::new(
                        format!("{OPTION}.failClosed"),
                        "must be true, false or a list of route names (\"credentials\", \"email\", \"callback\", \"passkey\", \"signUp\", \"passwordReset\", \"passwordToken\")",
                    )
                })?;
                closed[route as usize] = true;
            }
            closed
        }
        Some(_) => {
            return Err(ConfigError::new(
                format!("{OPTION}.failClosed"),
                "must be true, false or a list of route names (\"credentials\", \"email\", \"callback\", \"passkey\", \"signUp\", \"passwordReset\", \"passwordToken\")",
            ))
        }
    };
    let kind = map.get("type").and_then(Value::as_str).ok_or_else(|| {
        ConfigError::new(
            format!("{OPTION}.type"),
            "is required: \"memory\", \"sqlite\", \"postgres\", \"redis\" or \"database\"",
        )
    })?;
    let store = match kind {
        "memory" => {
            allow_only(map, &["maxKeys"])?;
            let max_keys = match map.get("maxKeys") {
                None | Some(Value::Null) => DEFAULT_MAX_KEYS,
                Some(n) => n.as_u64().filter(|n| (1..=100_000_000).contains(n)).ok_or_else(|| {
                    ConfigError::new(format!("{OPTION}.maxKeys"), "must be a whole number from 1 to 100000000")
                })? as usize,
            };
            StoreConfig::Memory { max_keys }
        }
        "database" => {
            allow_only(map, &[])?;
            StoreConfig::Database
        }
        "sqlite" => {
            allow_only(map, &["path"])?;
            match map.get("path").and_then(Value::as_str).filter(|p| !p.is_empty()) {
                Some(path) => StoreConfig::Sqlite { path: path.to_owned() },
                None => return Err(ConfigError::new(format!("{OPTION}.path"), "is required: a file path")),
            }
        }
        "postgres" => {
            allow_only(map, &["url", "poolSize", "schema", "connectTimeout"])?;
            StoreConfig::Postgres(postgres_options(map)?)
        }
        "redis" => StoreConfig::Redis(RedisOptions::parse(map, OPTION, &["type", "failClosed"])?),
        other => {
            return Err(ConfigError::new(
                format!("{OPTION}.type"),
                format!(
                    "unknown store \"{other}\"; use \"memory\", \"sqlite\", \"postgres\", \"redis\" or \"database\""
                ),
            ))
        }
    };
    Ok((store, fail_closed))
}

fn postgres_options(map: &Map<String, Value>) -> Result<PostgresOptions, ConfigError> {
    let url = map
        .get("url")
        .and_then(Value::as_str)
        .filter(|u| !u.is_empty())
        .ok_or_else(|| ConfigError::new(format!("{OPTION}.url"), "is required: a URL such as \"postgres://…\""))?;
    let mut pg = PostgresOptions::new(url);
    if let Some(size) = map.get("poolSize") {
        pg.pool_size =
            size.as_u64().filter(|n| (1..=1000).contains(n)).ok_or_else(|| {
                ConfigError::new(format!("{OPTION}.poolSize"), "must be a whole number from 1 to 1000")
            })? as u32;
    }
    if let Some(schema) = map.get("schema") {
        pg.schema = schema
            .as_str()
            .filter(|s| crate::store::postgres_options::is_valid_schema_name(s))
            .ok_or_else(|| ConfigError::new(format!("{OPTION}.schema"), "must be a lowercase SQL identifier"))?
            .to_owned();
    }
    if let Some(timeout) = map.get("connectTimeout") {
        let seconds = timeout.as_f64().filter(|s| *s > 0.0 && *s <= 600.0).ok_or_else(|| {
            ConfigError::new(format!("{OPTION}.connectTimeout"), "must be a number of seconds from 0 to 600")
        })?;
        pg.connect_timeout = Duration::from_secs_f64(seconds);
    }
    Ok(pg)
}

fn allow_only(map: &Map<String, Value>, allowed: &[&str]) -> Result<(), ConfigError> {
    match map.keys().find(|k| !["type", "failClosed"].contains(&k.as_str()) && !allowed.contains(&k.as_str())) {
        Some(key) => Err(ConfigError::new(
            format!("{OPTION}.{key}"),
            format!(
                "unknown option; this store takes: type, failClosed{}",
                allowed.iter().map(|a| format!(", {a}")).collect::<String>()
            ),
        )),
        None => Ok(()),
    }
}
