//! Rate-limit counts in SQLite or PostgreSQL, shared by every process using
//! the same database. The store borrows the adapter's connection code
//! ([`SqliteAdapter`]'s connection, [`PostgresAdapter`]'s pool with its TLS,
//! timeouts and circuit breaker): there is one way to reach a database.
//!
//! One row per (key, window length, window number); `consume` is one
//! `INSERT … ON CONFLICT DO UPDATE … RETURNING count`, atomic in both
//! databases (SQLite runs one writer at a time; PostgreSQL locks the row),
//! so concurrent consumers in any number of processes see distinct counts.
//! Every row carries its expiry (the end of its window); rows past it are
//! deleted at most once a minute per process, by whichever call comes
//! then, so the table holds about one window of keys.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rusqlite::OptionalExtension;

use super::store::{window_of, LimitStore, StoreError, WindowCount};
use crate::adapter::{AdapterError, PostgresAdapter, SqliteAdapter};

/// How often expired rows are deleted, at most (ms).
const PURGE_INTERVAL_MS: u64 = 60_000;

/// Rows outlive their window by this much, so a server whose clock runs a
/// little behind still finds the count others made.
const EXPIRY_MARGIN_MS: u64 = 5_000;

/// The database holding the counts.
#[derive(Clone)]
pub enum SqlBackend {
    Sqlite(Arc<SqliteAdapter>),
    Postgres(Arc<PostgresAdapter>),
}

pub struct SqlStore {
    db: Db,
    /// The table exists (created on first use, as the adapter's schema).
    created: AtomicBool,
    creating: Mutex<()>,
    last_purge_ms: AtomicU64,
}

const SQLITE_TABLE: &str = "CREATE TABLE IF NOT EXISTS rate_limits (
    key TEXT NOT NULL,
    window_ms INTEGER NOT NULL,
    number INTEGER NOT NULL,
    count INTEGER NOT NULL,
    expires INTEGER NOT NULL,
    PRIMARY KEY (key, window_ms, number)
);
CREATE INDEX IF NOT EXISTS rate_limits_expires_idx ON rate_limits (expires);";

/// A read (cost 0, the check before a password is tried): no write, so
/// no write lock (SQLite) and no commit to flush (PostgreSQL).
const SQLITE_READ: &str = "SELECT count FROM rate_limits WHERE key = ?1 AND window_ms = ?2 AND number = ?3";

/// A refund (see `LimitStore::refund`): never below 0.
const SQLITE_REFUND: &str = "UPDATE rate_limits SET count = MAX(count - ?4, 0)
    WHERE key = ?1 AND window_ms = ?2 AND number = ?3";

const SQLITE_CONSUME: &str = "INSERT INTO rate_limits (key, window_ms, number, count, expires)
    VALUES (?1, ?2, ?3, ?4, ?5)
    ON CONFLICT (key, window_ms, number) DO UPDATE SET count = count + excluded.count
    RETURNING count";

fn pg_table(schema: &str) -> String {
    format!(
        // UNLOGGED: no write-ahead log, so a count costs no WAL flush at
        // commit (about 5 ms a statement on a busy disk, against 0.2 ms).
        // The price is what a rate limit can afford: the table is emptied
        // after a crash and not copied to replicas, so counts start again
        // after a crash or a failover.
        "CREATE UNLOGGED TABLE IF NOT EXISTS \"{schema}\".rate_limits (
            key text NOT NULL,
            window_ms bigint NOT NULL,
            number bigint NOT NULL,
            count bigint NOT NULL,
            expires bigint NOT NULL,
            PRIMARY KEY (key, window_ms, number)
        );
        CREATE INDEX IF NOT EXISTS rate_limits_expires_idx ON \"{schema}\".rate_limits (expires);"
    )
}

fn pg_consume(schema: &str) -> String {
    format!(
        "INSERT INTO \"{schema}\".rate_limits AS r (key, window_ms, number, count, expires)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (key, window_ms, number) DO UPDATE SET count = r.count + excluded.count
         RETURNING count"
    )
}

/// A stable advisory lock key for creating the table, so two processes
/// starting at once do not race on `CREATE TABLE IF NOT EXISTS` (which is
/// not safe against itself in PostgreSQL).
const PG_CREATE_LOCK: i64 = 0x6c69_6261_7574_6872; // "libauthr"

/// The database, and for PostgreSQL the statements with the adapter's
/// schema filled in once.
enum Db {
    Sqlite(Arc<SqliteAdapter>),
    Postgres(Arc<PostgresAdapter>, PgStatements),
}

struct PgStatements {
    create: String,
    consume: String,
    read: String,
    refund: String,
    purge: String,
    rows: String,
}

impl PgStatements {
    fn new(schema: &str) -> PgStatements {
        PgStatements {
            create: pg_table(schema),
            consume: pg_consume(schema),
            read: format!(
                "SELECT count FROM \"{schema}\".rate_limits WHERE key = $1 AND window_ms = $2 AND number = $3"
            ),
            refund: format!(
                "UPDATE \"{schema}\".rate_limits SET count = GREATEST(count - $4, 0)
                 WHERE key = $1 AND window_ms = $2 AND number = $3"
            ),
            purge: format!("DELETE FROM \"{schema}\".rate_limits WHERE expires < $1"),
            rows: format!("SELECT COUNT(*) FROM \"{schema}\".rate_limits"),
        }
    }
}

impl SqlStore {
    pub fn new(backend: SqlBackend) -> SqlStore {
        let db = match backend {
            SqlBackend::Sqlite(db) => Db::Sqlite(db),
            SqlBackend::Postgres(db) => {
                let sql = PgStatements::new(db.schema());
                Db::Postgres(db, sql)
            }
        };
        SqlStore { db, created: AtomicBool::new(false), creating: Mutex::new(()), last_purge_ms: AtomicU64::new(0) }
    }

    fn create_table(&self) -> Result<(), AdapterError> {
        if self.created.load(Ordering::Acquire) {
            return Ok(());
        }
        let _one_at_a_time = self.creating.lock().unwrap_or_else(|p| p.into_inner());
        if self.created.load(Ordering::Acquire) {
            return Ok(());
        }
        match &self.db {
            Db::Sqlite(db) => db.with_connection("rateLimit", |conn| conn.execute_batch(SQLITE_TABLE))?,
            Db::Postgres(db, sql) => db.with_client("rateLimit", |client| {
                let mut tx = client.transaction()?;
                tx.execute("SELECT pg_advisory_xact_lock($1)", &[&PG_CREATE_LOCK])?;
                tx.batch_execute(&sql.create)?;
                tx.commit()
            })?,
        }
        self.created.store(true, Ordering::Release);
        Ok(())
    }

    pub(crate) fn consume_at(
        &self,
        key: &str,
        cost: u64,
        window: Duration,
        now_ms: u64,
    ) -> Result<WindowCount, StoreError> {
        let fail = |e: AdapterError| StoreError(e.to_string());
        self.create_table().map_err(fail)?;
        let (number, reset_after) = window_of(now_ms, window);
        let window_ms = (window.as_millis() as u64).max(1);
        // SQLite and PostgreSQL integers are signed 64-bit; these are far
        // below 2^63 (milliseconds since 1970, costs of a few units).
        let as_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let expires = as_i64(now_ms + reset_after.as_millis() as u64 + EXPIRY_MARGIN_MS);
        let params = (as_i64(window_ms), as_i64(number), as_i64(cost));
        let count: Option<i64> = match (&self.db, cost) {
            (Db::Sqlite(db), 0) => db.with_connection("rateLimit", |conn| {
                conn.prepare_cached(SQLITE_READ)?
                    .query_row(rusqlite::params![key, params.0, params.1], |row| row.get(0))
                    .optional()
            }),
            (Db::Sqlite(db), _) => db.with_connection("rateLimit", |conn| {
                conn.prepare_cached(SQLITE_CONSUME)?
                    .query_row(rusqlite::params![key, params.0, params.1, params.2, expires], |row| row.get(0))
                    .map(Some)
            }),
            (Db::Postgres(db, sql), 0) => db.with_client("rateLimit", |client| {
                client.query_opt(&sql.read, &[&key, &params.0, &params.1]).map(|row| row.map(|r| r.get(0)))
            }),
            (Db::Postgres(db, sql), _) => db.with_client("rateLimit", |client| {
                client
                    .query_one(&sql.consume, &[&key, &params.0, &params.1, &params.2, &expires])
                    .map(|r| Some(r.get(0)))
            }),
        }
        .map_err(fail)?;
        let count = count.unwrap_or(0);
        if cost > 0 {
            self.maybe_purge(now_ms);
        }
        Ok(WindowCount { count: u64::try_from(count).unwrap_or(0), reset_after })
    }

    /// Delete expired rows if none were deleted in the last minute. A
    /// failure is not the request's: the next purge tries again.
    fn maybe_purge(&self, now_ms: u64) {
        let last = self.last_purge_ms.load(Ordering::Relaxed);
        if now_ms.saturating_sub(last) < PURGE_INTERVAL_MS
            || self.last_purge_ms.compare_exchange(last, now_ms, Ordering::Relaxed, Ordering::Relaxed).is_err()
        {
            return;
        }
        let _ = self.purge(now_ms);
    }

    /// Delete every row whose window ended before `now_ms`; how many.
    pub fn purge(&self, now_ms: u64) -> Result<u64, StoreError> {
        let now = i64::try_from(now_ms).unwrap_or(i64::MAX);
        let deleted = match &self.db {
            Db::Sqlite(db) => db
                .with_connection("rateLimit", |conn| conn.execute("DELETE FROM rate_limits WHERE expires < ?1", [now]))
                .map(|n| n as u64),
            Db::Postgres(db, sql) => db.with_client("rateLimit", |client| client.execute(&sql.purge, &[&now])),
        };
        deleted.map_err(|e| StoreError(e.to_string()))
    }

    /// Rows in the table (for tests and monitoring).
    pub fn rows(&self) -> Result<u64, StoreError> {
        self.create_table().map_err(|e| StoreError(e.to_string()))?;
        let counted = match &self.db {
            Db::Sqlite(db) => db.with_connection("rateLimit", |conn| {
                conn.query_row("SELECT COUNT(*) FROM rate_limits", [], |r| r.get(0))
            }),
            Db::Postgres(db, sql) => {
                db.with_client("rateLimit", |client| client.query_one(&sql.rows, &[]).map(|r| r.get(0)))
            }
        };
        counted.map(|n: i64| n as u64).map_err(|e| StoreError(e.to_string()))
    }
}

impl LimitStore for SqlStore {
    fn consume(&self, key: &str, cost: u64, window: Duration) -> Result<WindowCount, StoreError> {
        self.consume_at(key, cost, window, crate::time::now_millis())
    }

    fn refund(&self, key: &str, cost: u64, window: Duration) -> Result<(), StoreError> {
        let (number, _) = window_of(crate::time::now_millis(), window);
        let as_i64 = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
        let params = (as_i64((window.as_millis() as u64).max(1)), as_i64(number), as_i64(cost));
        let done = match &self.db {
            Db::Sqlite(db) => db.with_connection("rateLimit", |conn| {
                conn.prepare_cached(SQLITE_REFUND)?.execute(rusqlite::params![key, params.0, params.1, params.2])
            }),
            Db::Postgres(db, sql) => db.with_client("rateLimit", |client| {
                client.execute(&sql.refund, &[&key, &params.0, &params.1, &params.2]).map(|n| n as usize)
            }),
        };
        done.map(|_| ()).map_err(|e| StoreError(e.to_string()))
    }
}
