//! Where rate-limit counts live: one atomic operation, `consume`.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

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
pub trait LimitStore: Send + Sync {
    fn consume(&self, key: &str, cost: u64, window: Duration) -> Result<WindowCount, StoreError>;

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
pub struct MemoryStore {
    counts: Mutex<HashMap<String, (u64, u64)>>,
    /// Past this many keys, the ones from past windows are dropped; if all
    /// are current (a flood of distinct keys within one window), all are.
    capacity: usize,
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::with_capacity(100_000)
    }
}

impl MemoryStore {
    pub fn with_capacity(capacity: usize) -> MemoryStore {
        MemoryStore { counts: Mutex::new(HashMap::new()), capacity }
    }

    pub fn len(&self) -> usize {
        self.counts.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn consume_at(&self, key: &str, cost: u64, window: Duration, now_ms: u64) -> WindowCount {
        let (number, reset_after) = window_of(now_ms, window);
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if counts.len() >= self.capacity && !counts.contains_key(key) {
            // Keys are `<route>:<key>`, windows differ per route: an entry is
            // stale once its window number is behind the current one for
            // its own window, which we do not store; keep only entries of
            // the window being counted now, then, if still full, none.
            counts.retain(|_, (n, _)| *n == number);
            if counts.len() >= self.capacity {
                counts.clear();
            }
        }
        let entry = counts.entry(key.to_owned()).or_insert((number, 0));
        if entry.0 != number {
            *entry = (number, 0);
        }
        entry.1 = entry.1.saturating_add(cost);
        WindowCount { count: entry.1, reset_after }
    }
}

impl LimitStore for MemoryStore {
    fn consume(&self, key: &str, cost: u64, window: Duration) -> Result<WindowCount, StoreError> {
        Ok(self.consume_at(key, cost, window, crate::time::now_millis()))
    }

    fn refund(&self, key: &str, cost: u64, window: Duration) -> Result<(), StoreError> {
        let (number, _) = window_of(crate::time::now_millis(), window);
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(entry) = counts.get_mut(key).filter(|e| e.0 == number) {
            entry.1 = entry.1.saturating_sub(cost);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn windows_count_and_expire() {
        let store = MemoryStore::default();
        let w = Duration::from_secs(10);
        assert_eq!(store.consume_at("k", 1, w, 1_000).count, 1);
        assert_eq!(store.consume_at("k", 1, w, 9_999).count, 2);
        assert_eq!(store.consume_at("k", 0, w, 9_999), WindowCount { count: 2, reset_after: Duration::from_millis(1) });
        assert_eq!(store.consume_at("k", 1, w, 10_000).count, 1, "a new window starts again");
    }

    #[test]
    fn exactly_the_limit_under_concurrency_and_bounded_memory() {
        let store = Arc::new(MemoryStore::with_capacity(1000));
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
            store.consume(&format!("flood-{i}"), 1, Duration::from_secs(60)).unwrap();
        }
        assert!(store.len() <= 1000);
    }
}
