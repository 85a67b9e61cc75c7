//! Reading another library's tables as JSON rows, from PostgreSQL or
//! SQLite, whatever the column types: each row becomes an object of its
//! columns (PostgreSQL's `row_to_json`, so dates come as ISO strings).

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::output::Failure;

/// A database to read from.
pub enum Source {
    Postgres { client: Box<postgres::Client>, schema: String },
    Sqlite(rusqlite::Connection),
}

impl Source {
    /// `postgres://…` (tables in `schema`), or a SQLite file
    /// (`sqlite:PATH`, `file:PATH` or a path), opened read-only.
    pub fn open(url: &str, schema: &str) -> Result<Source, Failure> {
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            let client = postgres::Client::connect(url, postgres::NoTls)
                .map_err(|e| Failure::Failed(format!("--from: cannot connect to PostgreSQL: {}", reason(&e))))?;
            return Ok(Source::Postgres { client: Box::new(client), schema: schema.to_owned() });
        }
        let path = ["sqlite://", "sqlite:", "file:"].iter().find_map(|p| url.strip_prefix(p)).unwrap_or(url);
        let path = PathBuf::from(path);
        if !path.exists() {
            return Err(Failure::Failed(format!("--from: {} does not exist", path.display())));
        }
        let conn = rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .map_err(|e| Failure::Failed(format!("--from: cannot open {}: {e}", path.display())))?;
        Ok(Source::Sqlite(conn))
    }

    /// The first of `names` that is a table here.
    pub fn find_table(&mut self, names: &[&str]) -> Result<Option<String>, Failure> {
        for name in names {
            let exists = match self {
                Source::Postgres { client, schema } => client
                    .query_one(
                        "SELECT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = $1 AND table_name = $2)",
                        &[schema, name],
                    )
                    .map_err(|e| Failure::Failed(format!("--from: {}", reason(&e))))?
                    .get::<_, bool>(0),
                Source::Sqlite(conn) => conn
                    .query_row(
                        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1)",
                        [name],
                        |r| r.get::<_, bool>(0),
                    )
                    .map_err(|e| Failure::Failed(format!("--from: {e}")))?,
            };
            if exists {
                return Ok(Some((*name).to_owned()));
            }
        }
        Ok(None)
    }

    /// Every row of `table` as a JSON object.
    pub fn rows(&mut self, table: &str) -> Result<Vec<Map<String, Value>>, Failure> {
        let quoted = format!("\"{}\"", table.replace('"', "\"\""));
        match self {
            Source::Postgres { client, schema } => {
                let schema = format!("\"{}\"", schema.replace('"', "\"\""));
                let rows = client
                    .query(&format!("SELECT row_to_json(t)::text FROM {schema}.{quoted} t"), &[])
                    .map_err(|e| Failure::Failed(format!("--from: reading {table}: {}", reason(&e))))?;
                rows.iter()
                    .map(|row| match serde_json::from_str(row.get::<_, &str>(0)) {
                        Ok(Value::Object(map)) => Ok(map),
                        _ => Err(Failure::Failed(format!("--from: a row of {table} is not an object"))),
                    })
                    .collect()
            }
            Source::Sqlite(conn) => {
                let fail = |e: rusqlite::Error| Failure::Failed(format!("--from: reading {table}: {e}"));
                let mut statement = conn.prepare(&format!("SELECT * FROM {quoted}")).map_err(fail)?;
                let names: Vec<String> = statement.column_names().map(str::to_owned).collect();
                let rows = statement
                    .query_map([], |row| {
                        let mut map = Map::new();
                        for (i, name) in names.iter().enumerate() {
                            let value = match row.get_ref(i)? {
                                rusqlite::types::ValueRef::Null => Value::Null,
                                rusqlite::types::ValueRef::Integer(n) => Value::from(n),
                                rusqlite::types::ValueRef::Real(f) => Value::from(f),
                                rusqlite::types::ValueRef::Text(t) => Value::from(String::from_utf8_lossy(t)),
                                // No Auth.js column is a blob; keep its length
                                // out of the way rather than guess an encoding.
                                rusqlite::types::ValueRef::Blob(_) => Value::Null,
                            };
                            map.insert(name.clone(), value);
                        }
                        Ok(map)
                    })
                    .map_err(fail)?;
                rows.collect::<Result<_, _>>().map_err(fail)
            }
        }
    }
}

/// A PostgreSQL error's reason, without the URL.
fn reason(e: &postgres::Error) -> String {
    e.as_db_error().map_or_else(|| e.to_string(), |db| db.message().to_owned())
}
