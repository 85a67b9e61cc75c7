//! The `adapter` config option: which adapter to build, and its settings.
//!
//! ```json
//! { "type": "memory" }
//! { "type": "sqlite", "path": "auth.db" }            // or ":memory:"
//! { "type": "postgres", "url": "postgres://…", "poolSize": 10, "schema": "public", "connectTimeout": 5 }
//! { "type": "host" }                                 // adapter.* hooks
//! ```

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use super::{Adapter, HostAdapter, MemoryAdapter, PostgresAdapter, PostgresOptions, SqliteAdapter};
use crate::error::ConfigError;
use crate::host::Host;
use crate::ratelimit::SqlBackend;

/// Build the adapter the `adapter` option describes. SQLite opens (and
/// migrates) its file now, so a bad path fails here; PostgreSQL connects on
/// first use, so the application can start while its database is down.
pub fn from_config(value: &Value, host: Arc<dyn Host>) -> Result<Arc<dyn Adapter>, ConfigError> {
    from_config_with_database(value, host).map(|(adapter, _)| adapter)
}

/// As [`from_config`], also answering the SQL database behind a SQLite or
/// PostgreSQL adapter, for what else may keep its tables there (the
/// `"database"` rate-limit store) on the same connections.
pub fn from_config_with_database(
    value: &Value,
    host: Arc<dyn Host>,
) -> Result<(Arc<dyn Adapter>, Option<SqlBackend>), ConfigError> {
    let Value::Object(options) = value else {
        return Err(ConfigError::new(
            "adapter",
            "must be an object such as { \"type\": \"sqlite\", \"path\": \"auth.db\" }",
        ));
    };
    let kind = match options.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(_) => return Err(ConfigError::new("adapter.type", "must be a string")),
        None => {
            return Err(ConfigError::new(
                "adapter.type",
                "is required: \"memory\", \"sqlite\", \"postgres\" or \"host\"",
            ))
        }
    };
    match kind {
        "memory" => {
            allow_only(options, &[])?;
            Ok((Arc::new(MemoryAdapter::new()), None))
        }
        "sqlite" => {
            allow_only(options, &["path"])?;
            let path = required_string(options, "path", "a file path such as \"auth.db\", or \":memory:\"")?;
            let adapter = SqliteAdapter::open(path)
                .map_err(|e| ConfigError::new("adapter.path", format!("cannot open the SQLite database: {e}")))?;
            let adapter = Arc::new(adapter);
            Ok((adapter.clone(), Some(SqlBackend::Sqlite(adapter))))
        }
        "postgres" => {
            allow_only(options, &["url", "poolSize", "schema", "connectTimeout"])?;
            let mut pg = PostgresOptions::new(required_string(
                options,
                "url",
                "a connection URL such as \"postgres://user@localhost/db\"",
            )?);
            if let Some(size) = options.get("poolSize") {
                pg.pool_size = size
                    .as_u64()
                    .filter(|n| (1..=1000).contains(n))
                    .ok_or_else(|| ConfigError::new("adapter.poolSize", "must be a whole number from 1 to 1000"))?
                    as u32;
            }
            if let Some(schema) = options.get("schema") {
                pg.schema = schema
                    .as_str()
                    .filter(|s| super::postgres::is_valid_schema_name(s))
                    .ok_or_else(|| {
                        ConfigError::new(
                            "adapter.schema",
                            "must be a lowercase SQL identifier ([a-z_][a-z0-9_]*, at most 63 bytes)",
                        )
                    })?
                    .to_owned();
            }
            if let Some(timeout) = options.get("connectTimeout") {
                let seconds = timeout.as_f64().filter(|s| *s > 0.0 && *s <= 600.0).ok_or_else(|| {
                    ConfigError::new("adapter.connectTimeout", "must be a number of seconds from 0 to 600")
                })?;
                pg.connect_timeout = Duration::from_secs_f64(seconds);
            }
            let adapter = Arc::new(PostgresAdapter::new(&pg).map_err(|e| ConfigError::new("adapter.url", e))?);
            Ok((adapter.clone(), Some(SqlBackend::Postgres(adapter))))
        }
        "host" => {
            allow_only(options, &[])?;
            let adapter = HostAdapter::new(host).map_err(|missing| {
                ConfigError::new("adapter", format!("the host adapter lacks required methods: {}", missing.join(", ")))
            })?;
            Ok((Arc::new(adapter), None))
        }
        other => Err(ConfigError::new(
            "adapter.type",
            format!("unknown adapter type \"{other}\"; use \"memory\", \"sqlite\", \"postgres\" or \"host\""),
        )),
    }
}

/// Refuse unknown keys, so a typo (`"poolsize"`) is not silently ignored.
fn allow_only(options: &Map<String, Value>, allowed: &[&str]) -> Result<(), ConfigError> {
    match options.keys().find(|k| k.as_str() != "type" && !allowed.contains(&k.as_str())) {
        Some(key) => Err(ConfigError::new(
            format!("adapter.{key}"),
            if allowed.is_empty() {
                "unknown option; this adapter type takes none".to_owned()
            } else {
                format!("unknown option; this adapter type takes: {}", allowed.join(", "))
            },
        )),
        None => Ok(()),
    }
}

fn required_string<'a>(options: &'a Map<String, Value>, key: &str, example: &str) -> Result<&'a str, ConfigError> {
    match options.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s),
        Some(_) => Err(ConfigError::new(format!("adapter.{key}"), format!("must be a non-empty string: {example}"))),
        None => Err(ConfigError::new(format!("adapter.{key}"), format!("is required: {example}"))),
    }
}
