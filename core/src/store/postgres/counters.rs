//! Rate-limit counts in PostgreSQL, shared by every process using the
//! database: one row per (key, window length, window number) in
//! `rate_limits` (made by migration 3, on the adapter's pool). `consume`
//! is one `INSERT … ON CONFLICT DO UPDATE … RETURNING count`, which locks
//! the row, so concurrent consumers in any number of processes see
//! distinct counts. Rows past their window are deleted at most once a
//! minute per process, by whichever call comes then.

use std::time::Duration;

use super::{map_error, PostgresAdapter};
use crate::store::counters::{window_of, CounterStore, StoreError, WindowCount, EXPIRY_MARGIN_MS};
use crate::store::AdapterError;

/// PostgreSQL's bigint is signed 64-bit; counts, windows and times are far
/// below 2^63.
fn as_i64(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn failed(e: AdapterError) -> StoreError {
    StoreError(e.to_string())
}

impl PostgresAdapter {
    /// `consume` at `now_ms` (unix ms), for tests that move the clock.
    pub fn consume_at(&self, key: &str, cost: u64, window: Duration, now_ms: u64) -> Result<WindowCount, StoreError> {
        let op = "rateLimit";
        let (number, reset_after) = window_of(now_ms, window);
        let window_ms = as_i64((window.as_millis() as u64).max(1));
        let expires = as_i64(now_ms + reset_after.as_millis() as u64 + EXPIRY_MARGIN_MS);
        let number = as_i64(number);
        let mut conn = self.conn(op).map_err(failed)?;
        let count: Option<i64> = if cost == 0 {
            conn.query_opt(&self.sql.read_count, &[&key, &window_ms, &number]).map(|row| row.map(|r| r.get(0)))
        } else {
            conn.query_one(&self.sql.consume, &[&key, &window_ms, &number, &as_i64(cost), &expires])
                .map(|r| Some(r.get(0)))
        }
        .map_err(|e| failed(map_error(op, e)))?;
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
        let op = "rateLimit";
        let mut conn = self.conn(op).map_err(failed)?;
        conn.execute(&self.sql.purge_counts, &[&as_i64(now_ms)]).map_err(|e| failed(map_error(op, e)))
    }

    /// Rows in the counts table (for tests and monitoring).
    pub fn counter_rows(&self) -> Result<u64, StoreError> {
        let op = "rateLimit";
        let mut conn = self.conn(op).map_err(failed)?;
        conn.query_one(&self.sql.count_rows, &[])
            .map(|r| r.get::<_, i64>(0) as u64)
            .map_err(|e| failed(map_error(op, e)))
    }
}

impl CounterStore for PostgresAdapter {
    fn consume(&self, key: &str, cost: u64, window: Duration) -> Result<WindowCount, StoreError> {
        self.consume_at(key, cost, window, crate::time::now_millis())
    }

    fn refund(&self, key: &str, cost: u64, window: Duration) -> Result<(), StoreError> {
        let op = "rateLimit";
        let (number, _) = window_of(crate::time::now_millis(), window);
        let window_ms = as_i64((window.as_millis() as u64).max(1));
        let mut conn = self.conn(op).map_err(failed)?;
        conn.execute(&self.sql.refund, &[&key, &window_ms, &as_i64(number), &as_i64(cost)])
            .map(|_| ())
            .map_err(|e| failed(map_error(op, e)))
    }
}
