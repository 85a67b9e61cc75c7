//! Counters: where rate-limit counts live, behind one atomic operation,
//! `consume`. The backends that serve them: [`MemoryCounters`] (this
//! process, the default), the SQL backends (`rate_limits`, in their
//! schema) and Redis (one key per window).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

/// Where rate-limit counts live: the parsed `rateLimit.store` option
/// (see `crate::ratelimit::config`).
#[derive(Debug, Clone)]
pub enum StoreConfig {
    /// In this process, at most `max_keys` keys (see [`MemoryCounters`]).
    Memory {
        max_keys: usize,
    },
    Sqlite {
        path: String,
    },
    Postgres(super::postgres_options::PostgresOptions),
    Redis(super::redis_options::RedisOptions),
    /// The adapter's own database.
    Database,
}

/// The memory store's default bound (`maxKeys`): about 100 bytes a key plus
/// the key itself, some tens of MB at most.
pub const DEFAULT_MAX_KEYS: usize = 100_000;

impl StoreConfig {
    /// The default: in memory, [`DEFAULT_MAX_KEYS`] keys.
    pub fn memory() -> StoreConfig {
        StoreConfig::Memory { max_keys: DEFAULT_MAX_KEYS }
    }
}

/// How often a SQL backend deletes expired counts, at most (ms).
pub(crate) const PURGE_INTERVAL_MS: u64 = 60_000;

/// Counts outlive their window by this much in the shared backends, so a
/// server whose clock runs a little behind still finds the count others
/// made.
pub(crate) const EXPIRY_MARGIN_MS: u64 = 5_000;

/// When a SQL backend last deleted expired counts, so it does so at most
/// once per [`PURGE_INTERVAL_MS`] per process, by whichever call comes then.
#[derive(Default)]
pub(crate) struct PurgeSchedule(std::sync::atomic::AtomicU64);

impl PurgeSchedule {
    /// Whether a purge is due at `now_ms`; `true` to one caller only.
    pub(crate) fn due(&self, now_ms: u64) -> bool {
        use std::sync::atomic::Ordering::Relaxed;
        let last = self.0.load(Relaxed);
        now_ms.saturating_sub(last) >= PURGE_INTERVAL_MS
            && self.0.compare_exchange(last, now_ms, Relaxed, Relaxed).is_ok()
    }
}

/// A count after `consume`, and how long until its window ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WindowCount {
    pub count: u64,
    pub reset_after: Duration,
}

/// A store could not count (unreachable, timed out).
#[derive(Debug, thiserror::Error)]
#[error("rate-limit store: {0}")]
pub struct StoreError(pub String);

/// Atomically add `cost` to `key`'s count in the current fixed window of
/// length `window` (window number `floor(now / window)`; a key met in a
/// later window starts again from `cost`) and answer the count after. A
/// `cost` of 0 reads. Counts expire with their window: a store never grows
/// without bound.
pub trait CounterStore: Send + Sync {
    fn consume(&self, key: &str, cost: u64, window: Duration) -> Result<WindowCount, StoreError>;

    /// `consume` for a key that `limit` bounds (a rate limit's key). A store
    /// that must make room for new keys never drops one at or over its
    /// `limit` within its window, and answers a new key it has no room for
    /// as over its limit (see [`MemoryCounters`]). Stores whose keys simply
    /// expire with their window (Redis, SQL) count as `consume` does.
    fn consume_bounded(&self, key: &str, cost: u64, window: Duration, limit: u64) -> Result<WindowCount, StoreError> {
        let _ = limit;
        self.consume(key, cost, window)
    }

    /// Give back `cost` that `consume` took in the current window (never
    /// below 0): an attempt reserved before it ran, that turned out not to
    /// count (a password that was right).
    fn refund(&self, key: &str, cost: u64, window: Duration) -> Result<(), StoreError>;
}

/// The window number and the time left in it, for `now_ms`.
pub fn window_of(now_ms: u64, window: Duration) -> (u64, Duration) {
    let length = (window.as_millis() as u64).max(1);
    let number = now_ms / length;
    (number, Duration::from_millis((number + 1) * length - now_ms))
}

/// Counts in this process (the default): right for one server process;
/// several processes need a shared store, or each admits `max` on its own.
///
/// **Memory bound and eviction.** At most `capacity` keys
/// (`rateLimit.store: { "type": "memory", "maxKeys": … }`, 100,000 by
/// default: about 100 bytes a key plus the key's text, some tens of MB). A key is *protected* while its window
/// lasts and its count is at or over its limit (a refresh lease: while it is
/// held). When a new key finds the store full, room is made in this order,
/// and never by dropping a protected key:
///
/// 1. keys whose window has ended (their count would start again anyway);
/// 2. if the store is still more than seven-eighths full, keys under their
///    limit, lowest count first, then least recently counted (so a flood of
///    one-off keys pushes out other one-off keys before a count that is
///    nearing its limit);
/// 3. if every key left is protected, there is no room: the new key is
///    refused, not counted. Through [`CounterStore::consume_bounded`] it is
///    answered as over its limit (the request gets a 429 until the first
///    protected window ends); through [`CounterStore::consume`] (a lease) it is
///    a [`StoreError`].
///
/// So no flood of other keys can reset a count that already stops requests,
/// nor free a lease that is held. The price is the third case: a client that
/// brings `capacity` keys to their limits within one window (hundreds of
/// thousands of requests from thousands of addresses) makes new clients wait
/// for the first of those windows to end. A shared store (Redis, SQL) has no
/// such bound.
pub struct MemoryCounters {
    inner: Mutex<Entries>,
    capacity: usize,
}

struct Entries {
    map: HashMap<String, Entry>,
    /// Until then (ms) the last attempt to make room found only protected
    /// keys: the earliest end of their windows. A refund clears it.
    full_until_ms: u64,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    window_ms: u64,
    number: u64,
    count: u64,
    /// At or over this within its window, the key is never evicted.
    limit: u64,
    /// When it was last counted, for least-recently-used among the rest.
    touched_ms: u64,
}

impl Entry {
    fn ends_ms(&self) -> u64 {
        self.number.saturating_add(1).saturating_mul(self.window_ms)
    }

    fn live(&self, now_ms: u64) -> bool {
        now_ms < self.ends_ms()
    }

    fn protected(&self, now_ms: u64) -> bool {
        self.live(now_ms) && self.count >= self.limit
    }
}

/// The store is full of protected keys: no new key can be counted before
/// `retry_after`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NoRoom {
    pub retry_after: Duration,
}

impl Default for MemoryCounters {
    fn default() -> Self {
        MemoryCounters::with_capacity(DEFAULT_MAX_KEYS)
    }
}

impl MemoryCounters {
    pub fn with_capacity(capacity: usize) -> MemoryCounters {
        MemoryCounters {
            inner: Mutex::new(Entries { map: HashMap::new(), full_until_ms: 0 }),
            capacity: capacity.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `key`'s count in its current window, without counting (0 when the
    /// key is not stored).
    pub fn count_at(&self, key: &str, window: Duration, now_ms: u64) -> u64 {
        self.consume_bounded_at(key, 0, window, u64::MAX, now_ms).map_or(0, |c| c.count)
    }

    /// [`CounterStore::consume_bounded`] at `now_ms`; `Err(NoRoom)` when `key`
    /// is new and there is no room for it (see the type's documentation).
    /// A read (`cost` 0) of an absent key answers 0 and stores nothing.
    pub fn consume_bounded_at(
        &self,
        key: &str,
        cost: u64,
        window: Duration,
        limit: u64,
        now_ms: u64,
    ) -> Result<WindowCount, NoRoom> {
        let (number, reset_after) = window_of(now_ms, window);
        let window_ms = (window.as_millis() as u64).max(1);
        let mut entries = self.lock();
        if let Some(entry) = entries.map.get_mut(key) {
            let current = entry.number == number && entry.window_ms == window_ms;
            if cost == 0 {
                return Ok(WindowCount { count: if current { entry.count } else { 0 }, reset_after });
            }
            if !current {
                *entry = Entry { window_ms, number, count: 0, limit, touched_ms: now_ms };
            }
            entry.limit = limit;
            entry.count = entry.count.saturating_add(cost);
            entry.touched_ms = now_ms;
            return Ok(WindowCount { count: entry.count, reset_after });
        }
        if cost == 0 {
            return Ok(WindowCount { count: 0, reset_after });
        }
        if entries.map.len() >= self.capacity {
            entries.make_room(self.capacity, now_ms)?;
        }
        entries.map.insert(key.to_owned(), Entry { window_ms, number, count: cost, limit, touched_ms: now_ms });
        Ok(WindowCount { count: cost, reset_after })
    }

    fn refund_at(&self, key: &str, cost: u64, window: Duration, now_ms: u64) {
        let (number, _) = window_of(now_ms, window);
        let window_ms = (window.as_millis() as u64).max(1);
        let mut entries = self.lock();
        if let Some(entry) = entries.map.get_mut(key).filter(|e| e.number == number && e.window_ms == window_ms) {
            entry.count = entry.count.saturating_sub(cost);
            // The key may be under its limit now: evictable again.
            entries.full_until_ms = 0;
        }
    }
}

impl Entries {
    /// Make room for one new key in a full map, never dropping a protected
    /// key; `Err` when every key is protected. Frees down to seven-eighths of
    /// `capacity` when it has to evict live keys, so the scan is not repeated
    /// for every new key.
    fn make_room(&mut self, capacity: usize, now_ms: u64) -> Result<(), NoRoom> {
        if now_ms < self.full_until_ms {
            return Err(NoRoom { retry_after: Duration::from_millis(self.full_until_ms - now_ms) });
        }
        self.map.retain(|_, e| e.live(now_ms));
        let target = capacity - (capacity / 8).max(1);
        if self.map.len() > target {
            let mut evictable: Vec<(u64, u64, String)> = self
                .map
                .iter()
                .filter(|(_, e)| !e.protected(now_ms))
                .map(|(k, e)| (e.count, e.touched_ms, k.clone()))
                .collect();
            let excess = self.map.len() - target;
            if evictable.len() > excess {
                evictable.select_nth_unstable_by(excess - 1, |a, b| (a.0, a.1).cmp(&(b.0, b.1)));
                evictable.truncate(excess);
            }
            for (_, _, key) in evictable {
                self.map.remove(&key);
            }
        }
        if self.map.len() >= capacity {
            let first_end = self.map.values().map(Entry::ends_ms).min().unwrap_or(now_ms + 1);
            self.full_until_ms = first_end;
            return Err(NoRoom { retry_after: Duration::from_millis(first_end.saturating_sub(now_ms).max(1)) });
        }
        Ok(())
    }
}

impl CounterStore for MemoryCounters {
    fn consume(&self, key: &str, cost: u64, window: Duration) -> Result<WindowCount, StoreError> {
        // A lease (or any unbounded count): held while its count is 1 or more.
        self.consume_bounded_at(key, cost, window, 1, crate::time::now_millis()).map_err(|full| {
            StoreError(format!(
                "the in-memory store is full of counts at their limit; room in {} s",
                full.retry_after.as_secs().max(1)
            ))
        })
    }

    fn consume_bounded(&self, key: &str, cost: u64, window: Duration, limit: u64) -> Result<WindowCount, StoreError> {
        // No room: the new key is answered as over its limit (refused), so a
        // full store fails closed instead of forgetting counts.
        Ok(self.consume_bounded_at(key, cost, window, limit, crate::time::now_millis()).unwrap_or_else(|full| {
            WindowCount { count: limit.saturating_add(cost.max(1)), reset_after: full.retry_after }
        }))
    }

    fn refund(&self, key: &str, cost: u64, window: Duration) -> Result<(), StoreError> {
        self.refund_at(key, cost, window, crate::time::now_millis());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::sync::Arc;

    #[test]
    fn windows_count_and_expire() {
        let store = MemoryCounters::default();
        let w = Duration::from_secs(10);
        let at = |cost, now| store.consume_bounded_at("k", cost, w, 5, now).unwrap();
        assert_eq!(at(1, 1_000).count, 1);
        assert_eq!(at(1, 9_999).count, 2);
        assert_eq!(at(0, 9_999), WindowCount { count: 2, reset_after: Duration::from_millis(1) });
        assert_eq!(at(1, 10_000).count, 1, "a new window starts again");
        assert_eq!(store.consume_bounded_at("absent", 0, w, 5, 10_000).unwrap().count, 0);
        assert_eq!(store.len(), 1, "a read adds no key");
    }

    #[test]
    fn exactly_the_limit_under_concurrency_and_bounded_memory() {
        let store = Arc::new(MemoryCounters::with_capacity(1000));
        let threads: Vec<_> = (0..64)
            .map(|_| {
                let store = store.clone();
                std::thread::spawn(move || store.consume("k", 1, Duration::from_secs(3600)).unwrap().count)
            })
            .collect();
        let mut counts: Vec<u64> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        counts.sort();
        assert_eq!(counts, (1..=64).collect::<Vec<_>>(), "every consumer saw a distinct count");
        for i in 0..5000 {
            store.consume_bounded(&format!("flood-{i}"), 1, Duration::from_secs(60), 5).unwrap();
        }
        assert!(store.len() <= 1000);
        assert_eq!(store.consume("k", 0, Duration::from_secs(3600)).unwrap().count, 64, "the held key survived");
    }

    /// R1: a store full of keys at their limit refuses new keys (answered as
    /// over their limit, or an error for a lease) until the first window
    /// ends; it never forgets them to make room.
    #[test]
    fn a_store_full_of_keys_at_their_limit_refuses_new_keys_and_forgets_none() {
        let store = MemoryCounters::with_capacity(8);
        let w = Duration::from_secs(3600);
        let t0 = crate::time::now_millis();
        let (_, left) = window_of(t0, w);
        for i in 0..8 {
            assert_eq!(store.consume_bounded_at(&format!("at-limit-{i}"), 2, w, 2, t0).unwrap().count, 2);
        }
        let refused = store.consume_bounded_at("new", 1, w, 5, t0).unwrap_err();
        assert_eq!(refused.retry_after, left, "room when the first window ends");
        let via_trait = store.consume_bounded("new", 1, w, 5).unwrap();
        assert!(via_trait.count > 5, "answered as over its limit: {via_trait:?}");
        assert!(store.consume("lease:new", 1, w).is_err(), "a new lease is an error, not a reset");
        for i in 0..8 {
            assert_eq!(store.count_at(&format!("at-limit-{i}"), w, t0), 2);
        }
        // A refund brings one under its limit: it may make room now.
        store.refund_at("at-limit-3", 1, w, t0);
        assert_eq!(store.consume_bounded_at("new", 1, w, 5, t0).unwrap().count, 1);
        assert_eq!(store.count_at("at-limit-3", w, t0), 0, "the one under its limit made room");
        assert_eq!(store.count_at("at-limit-4", w, t0), 2);
        // Once the windows end there is room again.
        let later = t0 + left.as_millis() as u64;
        assert_eq!(store.consume_bounded_at("later", 1, w, 5, later).unwrap().count, 1);
    }

    #[test]
    fn room_is_made_from_ended_windows_then_the_lowest_counts() {
        let store = MemoryCounters::with_capacity(8);
        let (short, long) = (Duration::from_secs(1), Duration::from_secs(3600));
        store.consume_bounded_at("ended", 1, short, 5, 0).unwrap();
        store.consume_bounded_at("four", 4, long, 5, 0).unwrap();
        for i in 0..6 {
            store.consume_bounded_at(&format!("one-{i}"), 1, long, 5, i).unwrap();
        }
        // Full: the ended window alone makes room (no live key goes).
        store.consume_bounded_at("new", 1, long, 5, 2_000).unwrap();
        assert_eq!(store.count_at("ended", short, 2_000), 0);
        assert_eq!(store.count_at("one-0", long, 2_000), 1);
        // Full again, nothing ended: the lowest count, least recently counted, goes.
        store.consume_bounded_at("newer", 1, long, 5, 3_000).unwrap();
        assert_eq!(store.count_at("one-0", long, 3_000), 0, "the least recently counted of the lowest went first");
        assert_eq!(store.count_at("four", long, 3_000), 4, "a count near its limit outlives the one-off keys");
        assert_eq!(store.count_at("one-1", long, 3_000), 1);
        assert_eq!(store.count_at("newer", long, 3_000), 1);
        assert_eq!(store.len(), 8);
    }

    #[derive(Debug, Clone)]
    enum Op {
        /// A key of the junk space (or a victim's), with a cost; each key
        /// has its own limit, as a route's key does.
        Consume {
            key: u16,
            cost: u64,
        },
        Lease {
            key: u8,
        },
        Advance {
            ms: u64,
        },
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (0u16..400, 0u64..4).prop_map(|(key, cost)| Op::Consume { key, cost }),
            1 => (0u8..4).prop_map(|key| Op::Lease { key }),
            1 => (0u64..20_000).prop_map(|ms| Op::Advance { ms }),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// R1, the class: whatever keys arrive (any number, costs, limits,
        /// interleaved with leases and the clock), a key at or over its limit
        /// in its window keeps its count, a held lease stays held, and the
        /// store stays within its capacity.
        #[test]
        fn no_sequence_of_keys_resets_a_count_at_its_limit_or_a_lease(ops in proptest::collection::vec(op(), 1..600)) {
            let capacity = 32;
            let store = MemoryCounters::with_capacity(capacity);
            let w = Duration::from_secs(60);
            let mut now = 0u64;
            // key -> (window number, count, limit) as last seen at or over its limit.
            let mut protected: HashMap<String, (u64, u64)> = HashMap::new();
            for op in ops {
                match op {
                    Op::Advance { ms } => now += ms,
                    Op::Consume { key, cost } => {
                        let limit = u64::from(key % 5) + 1;
                        let key = format!("k{key}");
                        if let Ok(c) = store.consume_bounded_at(&key, cost, w, limit, now) {
                            if c.count >= limit && cost > 0 {
                                protected.insert(key, (now / 60_000, c.count));
                            }
                        }
                    }
                    Op::Lease { key } => {
                        let key = format!("lease{key}");
                        if let Ok(c) = store.consume_bounded_at(&key, 1, w, 1, now) {
                            protected.insert(key, (now / 60_000, c.count));
                        }
                    }
                }
                prop_assert!(store.len() <= capacity);
                let window = now / 60_000;
                protected.retain(|_, (number, _)| *number == window);
                for (key, (_, count)) in &protected {
                    let stored = store.count_at(key, w, now);
                    prop_assert!(stored >= *count, "{key} fell from {count} to {stored}");
                }
            }
        }
    }
}
