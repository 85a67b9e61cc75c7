//! Rate-limit counts in Redis, shared by every server process using it.
//!
//! One key per (key, window length, window number), so a new window is a
//! new key and nothing needs resetting. One round trip per `consume`: a
//! Lua script runs INCRBY and, when the key has no expiry yet (it was just
//! made), PEXPIRE to the end of its window plus a margin. Redis runs a
//! script atomically, so N processes incrementing one key see N distinct
//! counts, and every key vanishes on its own once its window is over. A
//! read (cost 0) is a plain GET.

use std::time::Duration;

use super::RedisStore;
use crate::store::counters::{window_of, CounterStore, StoreError, WindowCount, EXPIRY_MARGIN_MS};

pub(super) const CONSUME: &str = r"
local n = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return n
";

/// A refund: DECRBY, never below 0, only on a key that exists.
pub(super) const REFUND: &str = r"
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then
  redis.call('DECRBY', KEYS[1], math.min(n, tonumber(ARGV[1])))
end
return 0
";

impl RedisStore {
    /// The Redis key of `key`'s count in window `number` of `window_ms`.
    fn redis_key(&self, key: &str, window_ms: u64, number: u64) -> String {
        self.pool.key(&format!("rl:{window_ms}:{number}:{key}"))
    }

    pub(crate) fn consume_at(
        &self,
        key: &str,
        cost: u64,
        window: Duration,
        now_ms: u64,
    ) -> Result<WindowCount, StoreError> {
        let (number, reset_after) = window_of(now_ms, window);
        let window_ms = (window.as_millis() as u64).max(1);
        let ttl = reset_after.as_millis() as u64 + EXPIRY_MARGIN_MS;
        let redis_key = self.redis_key(key, window_ms, number);
        let count: Option<i64> = if cost == 0 {
            // A read (the check before a password is tried) makes no key.
            self.pool.run(|conn| redis::cmd("GET").arg(&redis_key).query(conn))
        } else {
            // `invoke` sends EVALSHA and, the first time on a server that
            // lacks the script, EVAL: one round trip after the first.
            self.pool.run(|conn| self.consume.key(&redis_key).arg(cost).arg(ttl).invoke(conn).map(Some))
        }
        .map_err(|e| StoreError(e.to_string()))?;
        let count = count.unwrap_or(0);
        Ok(WindowCount { count: u64::try_from(count).unwrap_or(0), reset_after })
    }

    /// Milliseconds `key`'s current count has left in Redis (-2: gone).
    pub fn ttl_ms(&self, key: &str, window: Duration, now_ms: u64) -> Result<i64, StoreError> {
        let (number, _) = window_of(now_ms, window);
        let redis_key = self.redis_key(key, (window.as_millis() as u64).max(1), number);
        self.pool.run(|conn| redis::cmd("PTTL").arg(&redis_key).query(conn)).map_err(|e| StoreError(e.to_string()))
    }
}

impl CounterStore for RedisStore {
    fn consume(&self, key: &str, cost: u64, window: Duration) -> Result<WindowCount, StoreError> {
        self.consume_at(key, cost, window, crate::time::now_millis())
    }

    fn refund(&self, key: &str, cost: u64, window: Duration) -> Result<(), StoreError> {
        let (number, _) = window_of(crate::time::now_millis(), window);
        let redis_key = self.redis_key(key, (window.as_millis() as u64).max(1), number);
        self.pool
            .run(|conn| self.refund.key(&redis_key).arg(cost).invoke::<i64>(conn))
            .map(|_| ())
            .map_err(|e| StoreError(e.to_string()))
    }
}
