//! Rate-limit counts in the SQLite file, shared by every process using it:
//! one row per (key, window length, window number) in `rate_limits` (made
//! by migration 3). `consume` is one `INSERT … ON CONFLICT DO UPDATE …
//! RETURNING count`; SQLite runs one writer at a time, so concurrent
//! consumers in any number of processes see distinct counts. Every row
//! carries its expiry (the end of its window); rows past it are deleted at
//! most once a minute per process, by whichever call comes then.

use std::time::Duration;

use rusqlite::{params, OptionalExtension};

use super::{map_error, SqliteAdapter};
use crate::store::counters::{window_of, CounterStore, StoreError, WindowCount, EXPIRY_MARGIN_MS};
use crate::store::AdapterError;

/// A read (cost 0, the check before a password is tried): no write, so no
/// write lock.
const READ: &str = "SELECT count FROM rate_limits WHERE key = ?1 AND window_ms = ?2 AND number = ?3";

/// A refund (see [`CounterStore::refund`]): never below 0.
const REFUND: &str = "UPDATE rate_limits SET count = MAX(count - ?4, 0)
    WHERE key = ?1 AND window_ms = ?2 AND number = ?3";

const CONSUME: &str = "INSERT INTO rate_limits (key, window_ms, number, count, expires)
    VALUES (?1, ?2, ?3, ?4, ?5)
    ON CONFLICT (key, window_ms, number) DO UPDATE SET count = count + excluded.count
    RETURNING count";

/// SQLite integers are signed 64-bit; counts, windows and times are far
/// below 2^63.
fn as_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn failed(e: AdapterError) -> StoreError {
    StoreError(e.to_string())
}

impl SqliteAdapter {
    /// `consume` at `now_ms` (unix ms), for tests that move the clock.
    pub fn consume_at(&self, key: &str, cost: u64, window: Duration, now_ms: u64) -> Result<WindowCount, StoreError> {
        let (number, reset_after) = window_of(now_ms, window);
        let window_ms = as_i64((window.as_millis() as u64).max(1));
        let expires = as_i64(now_ms + reset_after.as_millis() as u64 + EXPIRY_MARGIN_MS);
        let conn = self.conn("rateLimit").map_err(failed)?;
        let count: Option<i64> = if cost == 0 {
            conn.prepare_cached(READ).and_then(|mut stmt| {
                stmt.query_row(params![key, window_ms, as_i64(number)], |row| row.get(0)).optional()
            })
        } else {
            conn.prepare_cached(CONSUME).and_then(|mut stmt| {
                stmt.query_row(params![key, window_ms, as_i64(number), as_i64(cost), expires], |row| row.get(0))
                    .map(Some)
            })
        }
        .map_err(|e| failed(map_error("rateLimit", None)(e)))?;
        drop(conn);
        if cost > 0 {
            self.purge_counters_now_and_then(now_ms);
        }
        Ok(WindowCount { count: u64::try_from(count.unwrap_or(0)).unwrap_or(0), reset_after })
    }

    /// Delete expired rows if none were deleted in the last minute. A
    /// failure is not the request's: the next purge tries again.
    fn purge_counters_now_and_then(&self, now_ms: u64) {
        if self.counter_purge.due(now_ms) {
            let _ = self.purge_counters(now_ms);
        }
    }

    /// Delete every count whose window ended before `now_ms`; how many.
    pub fn purge_counters(&self, now_ms: u64) -> Result<u64, StoreError> {
        let conn = self.conn("rateLimit").map_err(failed)?;
        conn.execute("DELETE FROM rate_limits WHERE expires < ?1", [as_i64(now_ms)])
            .map(|n| n as u64)
            .map_err(|e| failed(map_error("rateLimit", None)(e)))
    }

    /// Rows in the counts table (for tests and monitoring).
    pub fn counter_rows(&self) -> Result<u64, StoreError> {
        let conn = self.conn("rateLimit").map_err(failed)?;
        conn.query_row("SELECT COUNT(*) FROM rate_limits", [], |r| r.get::<_, i64>(0))
            .map(|n| n as u64)
            .map_err(|e| failed(map_error("rateLimit", None)(e)))
    }
}

impl CounterStore for SqliteAdapter {
    fn consume(&self, key: &str, cost: u64, window: Duration) -> Result<WindowCount, StoreError> {
        self.consume_at(key, cost, window, crate::time::now_millis())
    }

    fn refund(&self, key: &str, cost: u64, window: Duration) -> Result<(), StoreError> {
        let (number, _) = window_of(crate::time::now_millis(), window);
        let window_ms = as_i64((window.as_millis() as u64).max(1));
        let conn = self.conn("rateLimit").map_err(failed)?;
        conn.prepare_cached(REFUND)
            .and_then(|mut stmt| stmt.execute(params![key, window_ms, as_i64(number), as_i64(cost)]))
            .map(|_| ())
            .map_err(|e| failed(map_error("rateLimit", None)(e)))
    }
}
