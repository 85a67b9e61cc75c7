//! Numbers for the sessions shared by every read of one cached cookie (see
//! `libauth_core::SharedKey`): JavaScript keeps each such session parsed
//! under its number and hands out copies (`lib/native.js`), so a repeated
//! cookie crosses N-API back as a small integer instead of JSON text that
//! V8 would copy in and parse again on every read.
//!
//! Bounded: past [`SharedIds::MAX`] sessions every number is forgotten and
//! sessions get new ones as they are read. Numbers are never handed out
//! twice for different sessions while JavaScript may still hold the old
//! one: they count up to 2^30 before wrapping, and JavaScript keeps at most
//! `MAX` of them (each new number it meets, it asks about at once).

use std::sync::{Mutex, MutexGuard};

use libauth_core::SharedKey;
use rustc_hash::FxHashMap;

#[derive(Default)]
pub(crate) struct SharedIds {
    inner: Mutex<Inner>,
}

#[derive(Default)]
struct Inner {
    by_key: FxHashMap<SharedKey, u32>,
    by_id: FxHashMap<u32, SharedKey>,
    last: u32,
}

impl SharedIds {
    /// Sessions numbered at once (each holds its session, a few hundred
    /// bytes, until forgotten).
    pub const MAX: usize = 1024;
    /// Numbers stay small integers in V8 (no heap number is allocated).
    const WRAP: u32 = 1 << 30;

    /// The number of this session, given a new one on first sight.
    pub fn id_for(&self, key: SharedKey) -> u32 {
        let mut inner = self.lock();
        if let Some(&id) = inner.by_key.get(&key) {
            return id;
        }
        if inner.by_key.len() >= Self::MAX {
            inner.by_key.clear();
            inner.by_id.clear();
        }
        inner.last = if inner.last >= Self::WRAP { 1 } else { inner.last + 1 };
        let id = inner.last;
        inner.by_id.insert(id, key.clone());
        inner.by_key.insert(key, id);
        id
    }

    /// The session a number names, while it is remembered.
    pub fn get(&self, id: u32) -> Option<SharedKey> {
        self.lock().by_id.get(&id).cloned()
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // Nothing here can panic while holding the lock but an allocation
        // failure; a poisoned map is still a consistent map.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }
}
