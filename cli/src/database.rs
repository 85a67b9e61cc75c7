//! Which database a command works on: `--database URL`, else the
//! configuration's `adapter`, else `DATABASE_URL`.

use std::path::{Path, PathBuf};

use libauth_core::store::{AdapterOptions, PostgresOptions};
use serde_json::Value;

use crate::output::Failure;

/// A database libauth keeps its schema in.
#[derive(Debug)]
pub enum Database {
    Sqlite(PathBuf),
    Postgres(PostgresOptions),
}

impl Database {
    /// What to call it in output: the file, or the PostgreSQL schema (never
    /// the URL, which may hold a password).
    pub fn describe(&self) -> String {
        match self {
            Database::Sqlite(path) => format!("SQLite {}", path.display()),
            Database::Postgres(pg) => format!("PostgreSQL (schema {})", pg.schema),
        }
    }
}

/// `postgres://…`/`postgresql://…`, `sqlite:PATH`/`file:PATH`, or a path.
pub fn from_url(url: &str, schema: Option<&str>) -> Result<Database, Failure> {
    if url.starts_with("postgres://") || url.starts_with("postgresql://") {
        let mut pg = PostgresOptions::new(url);
        if let Some(schema) = schema {
            if !libauth_core::store::postgres_options::is_valid_schema_name(schema) {
                return Err(Failure::Usage(format!(
                    "--schema {schema:?} must be a lowercase SQL identifier ([a-z_][a-z0-9_]*)"
                )));
            }
            pg.schema = schema.to_owned();
        }
        return Ok(Database::Postgres(pg));
    }
    if schema.is_some() {
        return Err(Failure::Usage("--schema is for PostgreSQL databases".into()));
    }
    let path = ["sqlite://", "sqlite:", "file:"].iter().find_map(|p| url.strip_prefix(p)).unwrap_or(url);
    if path.is_empty() || path == ":memory:" {
        return Err(Failure::Usage(format!("{url:?} names no database file")));
    }
    Ok(Database::Sqlite(PathBuf::from(path)))
}

/// The database of a configuration's `adapter`. A relative SQLite path is
/// read from the working directory, as the application reads it.
pub fn from_adapter(adapter: &Value) -> Result<Database, Failure> {
    match AdapterOptions::parse(adapter).map_err(|e| Failure::Usage(format!("config: {e}")))? {
        AdapterOptions::Sqlite(path) if path != ":memory:" => Ok(Database::Sqlite(PathBuf::from(path))),
        AdapterOptions::Sqlite(_) | AdapterOptions::Memory => {
            Err(Failure::Failed("the adapter keeps nothing on disk: there is no schema to migrate".into()))
        }
        AdapterOptions::Postgres(pg) => Ok(Database::Postgres(pg)),
        AdapterOptions::Host => Err(Failure::Failed(
            "the adapter is the application's own (adapter.* functions): its schema is the application's to migrate"
                .into(),
        )),
    }
}

/// Read a JSON configuration file (libauth's options, as passed to the
/// engine).
pub fn read_config(path: &Path) -> Result<Value, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::Usage(format!("cannot read the config {}: {e}", path.display())))?;
    let value: Value = serde_json::from_str(&text)
        .map_err(|e| Failure::Usage(format!("the config {} is not JSON: {e}", path.display())))?;
    if !value.is_object() {
        return Err(Failure::Usage(format!("the config {} must be a JSON object", path.display())));
    }
    Ok(value)
}

/// The database a command names: `--database`, else the config's adapter,
/// else `DATABASE_URL`.
pub fn resolve(database: Option<&str>, config: Option<&Path>, schema: Option<&str>) -> Result<Database, Failure> {
    if let Some(url) = database {
        return from_url(url, schema);
    }
    if let Some(path) = config {
        let config = read_config(path)?;
        return match config.get("adapter") {
            Some(adapter) => from_adapter(adapter),
            None => Err(Failure::Failed(format!("{} has no adapter: nothing to migrate", path.display()))),
        };
    }
    match std::env::var("DATABASE_URL") {
        Ok(url) if !url.is_empty() => from_url(&url, schema),
        _ => Err(Failure::Usage("name the database: --database URL, --config FILE, or DATABASE_URL".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_name_their_backend() {
        assert!(matches!(from_url("sqlite:auth.db", None), Ok(Database::Sqlite(p)) if p == Path::new("auth.db")));
        assert!(matches!(from_url("file:/tmp/a.db", None), Ok(Database::Sqlite(p)) if p == Path::new("/tmp/a.db")));
        assert!(matches!(from_url("data/auth.db", None), Ok(Database::Sqlite(_))));
        assert!(
            matches!(from_url("postgres://u@h/db", Some("auth")), Ok(Database::Postgres(pg)) if pg.schema == "auth")
        );
        assert!(matches!(from_url("postgres://u@h/db", Some("Bad-Name")), Err(Failure::Usage(_))));
        assert!(matches!(from_url("sqlite::memory:", None), Err(Failure::Usage(_))));
        assert!(matches!(from_url("a.db", Some("x")), Err(Failure::Usage(_))));
    }
}
