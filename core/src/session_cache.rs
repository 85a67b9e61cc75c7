//! The session cache: a JWT session cookie is decrypted once per engine.
//!
//! A browser sends the same session cookie on every request until it is
//! renewed, and decrypting it (HMAC-SHA-512 over the token, AES-CBC, base64)
//! is most of what a session read costs. The cache remembers, per engine,
//! the decrypted payload of a cookie value that passed every check: the
//! JWE authentication tag and decryption under this engine's keys, the JSON
//! object and its time claims. A later read of exactly the same value (the
//! whole, chunk-joined cookie, under the same cookie name) skips the
//! decryption and nothing else: the claims are parsed and their times
//! (`exp`, `iat`, `nbf`) checked against the clock on every read, and the
//! `jwt` and `session` callbacks run as they always do.
//!
//! What the cache never does:
//! - hold a value that failed a check (a value is stored only after its
//!   claims passed; a hit that fails the time check is removed);
//! - outlive its secrets: it belongs to the engine, and an engine's secrets
//!   never change (rotating a secret builds a new engine, with an empty
//!   cache);
//! - serve a custom `jwt.decode` hook's tokens (the host decides those), or
//!   database sessions (they read the store on every request);
//! - grow past `session.cache.maxEntries` entries or `maxBytes` bytes (the
//!   cookie value and four times the payload of each entry, plus
//!   [`ENTRY_OVERHEAD`]).
//!
//! With no session hook, a hit also skips parsing the claims: an entry
//! keeps, once parsed, the few claims a session shows (the same parse, of
//! the same bytes, the read would otherwise repeat). And since such a
//! session is a function of the token alone (its `user` from the claims,
//! its `expires` from `exp`), the entry keeps it too, built once with its
//! JSON text: a binding's read of a repeated cookie copies that text out
//! (C, Node) or walks that map (Python) and builds nothing else.
//!
//! An attacker cannot put an entry in the cache without a cookie that
//! decrypts under the engine's secret, so the hash table's keys are never
//! attacker-chosen (no hash flooding), and a lookup of any other value is a
//! miss that costs a hash of the value before the usual decryption.

use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use quick_cache::sync::Cache;
use quick_cache::{Equivalent, Weighter};
use serde_json::Value;

use crate::error::ConfigError;

/// Default `session.cache.maxEntries`.
pub const DEFAULT_MAX_ENTRIES: usize = 1024;
/// Default `session.cache.maxBytes` (4 MiB: an entry for a signed-in
/// cookie counts about 2.5 KB, so the default holds the default 1024
/// entries).
pub const DEFAULT_MAX_BYTES: u64 = 4 << 20;
/// Largest `session.cache.maxEntries` accepted.
pub const MAX_MAX_ENTRIES: usize = 10_000_000;
/// Largest `session.cache.maxBytes` accepted (4 GiB).
pub const MAX_MAX_BYTES: u64 = 1 << 32;
/// Bytes counted for each entry beyond its cookie value and four times its
/// payload (the bytes, the claims parsed from them, the session built from
/// those and its JSON text, each at most about as large): the key and
/// value headers, reference counts, the table slot, the parsed claims' and
/// the session's own headers.
pub const ENTRY_OVERHEAD: u64 = 256;

/// `session.cache` after validation: `None` when turned off (`false`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionCacheSettings {
    pub max_entries: usize,
    pub max_bytes: u64,
}

impl Default for SessionCacheSettings {
    fn default() -> Self {
        SessionCacheSettings { max_entries: DEFAULT_MAX_ENTRIES, max_bytes: DEFAULT_MAX_BYTES }
    }
}

impl SessionCacheSettings {
    /// `session.cache`: absent or `true` for the defaults, `false` for no
    /// cache, or `{ maxEntries, maxBytes }` (either may be left out).
    pub fn parse(value: Option<&Value>) -> Result<Option<SessionCacheSettings>, ConfigError> {
        const OPTION: &str = "session.cache";
        let map = match value {
            None | Some(Value::Null) | Some(Value::Bool(true)) => return Ok(Some(SessionCacheSettings::default())),
            Some(Value::Bool(false)) => return Ok(None),
            Some(Value::Object(map)) => map,
            Some(_) => {
                return Err(ConfigError::new(OPTION, "must be false, true or { maxEntries, maxBytes }"));
            }
        };
        let mut settings = SessionCacheSettings::default();
        for (key, value) in map {
            let option = format!("{OPTION}.{key}");
            let number = |max: u64| -> Result<u64, ConfigError> {
                value
                    .as_u64()
                    .filter(|n| (1..=max).contains(n))
                    .ok_or_else(|| ConfigError::new(option.clone(), format!("must be a whole number from 1 to {max}")))
            };
            match key.as_str() {
                "maxEntries" => settings.max_entries = number(MAX_MAX_ENTRIES as u64)? as usize,
                "maxBytes" => settings.max_bytes = number(MAX_MAX_BYTES)?,
                _ => return Err(ConfigError::new(option, "unknown option: use maxEntries or maxBytes")),
            }
        }
        Ok(Some(settings))
    }
}

/// An entry's key: the cookie value and which of the engine's two session
/// cookie names (the plain and the `__Secure-` one, two different key
/// derivation salts) it came under.
#[derive(Clone, PartialEq, Eq)]
struct Key {
    secure: bool,
    value: Box<str>,
}

/// A lookup's key, borrowed from the request (hashes as [`Key`] does,
/// through [`hash_key`]).
struct KeyRef<'a> {
    secure: bool,
    value: &'a str,
}

impl Hash for KeyRef<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_key(self.secure, self.value, state);
    }
}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_key(self.secure, &self.value, state);
    }
}

/// How many bytes at the end of a cookie value are hashed.
const HASHED_TAIL: usize = 64;

/// A key's hash: the cookie name, the value's length and its last
/// [`HASHED_TAIL`] bytes, which for every value the cache can hold are the
/// token's authentication tag (32 random-looking bytes, base64url) and the
/// end of its ciphertext: hashing the whole value (often 500 bytes or
/// more, chunks joined) would cost more than the rest of a lookup. Equality
/// still compares whole values; the hasher is randomly seeded per process.
fn hash_key<H: Hasher>(secure: bool, value: &str, state: &mut H) {
    let bytes = value.as_bytes();
    state.write_u8(secure as u8);
    state.write_usize(bytes.len());
    state.write(&bytes[bytes.len().saturating_sub(HASHED_TAIL)..]);
}

/// Compared in constant time: the value is a session token (the project's
/// rule for every token comparison), though only a lookup whose hash
/// matched an entry gets this far.
impl Equivalent<Key> for KeyRef<'_> {
    fn equivalent(&self, key: &Key) -> bool {
        self.secure == key.secure && constant_time_eq::constant_time_eq(self.value.as_bytes(), key.value.as_bytes())
    }
}

/// The weight of an entry: its bytes, but never less than
/// `max_bytes / max_entries` of a shard, so that a weight bound of
/// `max_bytes` also bounds the number of entries by `max_entries`.
#[derive(Clone)]
struct Weigh {
    floor: u64,
}

impl Weighter<Key, Arc<Entry>> for Weigh {
    fn weight(&self, key: &Key, entry: &Arc<Entry>) -> u64 {
        entry_bytes(&key.value, &entry.payload).max(self.floor)
    }
}

fn entry_bytes(value: &str, payload: &[u8]) -> u64 {
    (value.len() + 4 * payload.len()) as u64 + ENTRY_OVERHEAD
}

/// What the cache holds for a cookie value: its decrypted payload, and the
/// claims a session shows, parsed from it on the first hit that needs them
/// (`None` inside when the payload is not a plain claims object: the full
/// path reads it).
/// What the plain session read takes from a token's claims (parsed by
/// `session.rs`): the time claims as the token holds them (a present `null`
/// stays `Some(Null)`), the user the session shows, and the identity.
#[derive(Clone)]
pub(crate) struct PlainClaims {
    pub(crate) exp: Option<Value>,
    pub(crate) iat: Option<Value>,
    pub(crate) nbf: Option<Value>,
    pub(crate) user: serde_json::Map<String, Value>,
    pub(crate) identity: Option<crate::identity::Identity>,
    /// How the user signed in (the engine's claim's `amr`).
    pub(crate) amr: Option<Value>,
    /// Whose session it is and when it was signed in to, for the sign-out
    /// check ([`crate::identity::signed_in`]).
    pub(crate) signed_in: Option<(String, i64)>,
}

pub(crate) struct Entry {
    /// As decrypted (moved here, not copied).
    pub payload: Vec<u8>,
    pub plain: OnceLock<Option<PlainClaims>>,
    /// The session a read without hooks shows for this token, built on the
    /// first hit that needs it; `None` inside when the token has no usable
    /// `exp` (`expires` then follows the clock, so each read builds its own).
    pub session: OnceLock<Option<Arc<SharedSession>>>,
}

/// A session built once for every read of one token: `{ user, expires }`,
/// the same as JSON text, and who it belongs to.
pub(crate) struct SharedSession {
    pub map: serde_json::Map<String, Value>,
    pub json: Box<str>,
    pub identity: Option<crate::identity::Identity>,
}

/// The cache of one engine (see the module documentation).
pub(crate) struct SessionCache {
    cache: Cache<Key, Arc<Entry>, Weigh>,
    settings: SessionCacheSettings,
    /// Tokens decrypted by a session read (cache misses), for tests and
    /// benchmarks: a hit never touches it.
    decryptions: AtomicU64,
}

impl SessionCache {
    pub fn new(settings: SessionCacheSettings) -> SessionCache {
        // Each shard has its own lock and its own share of both bounds.
        // Shards are a power of two that divides the weight capacity
        // evenly, with at least 32 entries each (quick_cache halves the
        // count further when a shard would hold fewer, which keeps the
        // division exact).
        let wanted = std::thread::available_parallelism().map_or(4, |n| n.get() * 4).min(64);
        let mut shards = wanted.next_power_of_two();
        while shards > 1 && (settings.max_entries / shards < 32 || settings.max_bytes / (shards as u64) < 1024) {
            shards /= 2;
        }
        let shard_entries = (settings.max_entries / shards).max(1) as u64;
        let shard_bytes = settings.max_bytes / shards as u64;
        // A shard's weight capacity is `shard_bytes`; an entry weighs at
        // least `floor`, more than `shard_bytes / (shard_entries + 1)`, so
        // a shard holds at most `shard_entries` entries. (Not
        // `shard_bytes / shard_entries`: with one entry a shard, that entry
        // would weigh the whole shard, more than quick_cache admits.)
        let floor = shard_bytes / (shard_entries + 1) + 1;
        let options = quick_cache::OptionsBuilder::new()
            .shards(shards)
            .estimated_items_capacity(settings.max_entries)
            .weight_capacity(shard_bytes * shards as u64)
            .build()
            .expect("shards, items and weight are set");
        let cache = Cache::with_options(options, Weigh { floor }, Default::default(), Default::default());
        SessionCache { cache, settings, decryptions: AtomicU64::new(0) }
    }

    /// The entry of a cookie value stored earlier.
    pub fn get(&self, secure: bool, value: &str) -> Option<Arc<Entry>> {
        self.cache.get(&KeyRef { secure, value })
    }

    /// Remember the payload of a cookie value whose claims passed every check.
    pub fn insert(&self, secure: bool, value: &str, payload: Vec<u8>) {
        // Larger than half a shard's share: not worth evicting half the
        // shard for (quick_cache refuses anything near its whole share).
        let shard_bytes = self.settings.max_bytes / self.cache.num_shards() as u64;
        if entry_bytes(value, &payload) > shard_bytes / 2 {
            return;
        }
        let entry = Entry { payload, plain: OnceLock::new(), session: OnceLock::new() };
        self.cache.insert(Key { secure, value: value.into() }, Arc::new(entry));
    }

    /// Forget a value (its claims failed a check on a hit).
    pub fn remove(&self, secure: bool, value: &str) {
        self.cache.remove(&KeyRef { secure, value });
    }

    pub fn count_decryption(&self) {
        self.decryptions.fetch_add(1, Ordering::Relaxed);
    }

    pub fn stats(&self) -> SessionCacheStats {
        let (mut entries, mut bytes) = (0, 0);
        for (key, entry) in self.cache.iter() {
            entries += 1;
            bytes += entry_bytes(&key.value, &entry.payload);
        }
        SessionCacheStats {
            entries,
            bytes,
            decryptions: self.decryptions.load(Ordering::Relaxed),
            max_entries: self.settings.max_entries,
            max_bytes: self.settings.max_bytes,
        }
    }
}

/// What an engine's session cache holds, for tests and benchmarks
/// ([`crate::Auth::session_cache_stats`]).
#[doc(hidden)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionCacheStats {
    pub entries: usize,
    /// The cookie values and four times the payloads held, plus
    /// [`ENTRY_OVERHEAD`] each.
    pub bytes: u64,
    /// Session tokens decrypted by session reads so far (every read that
    /// was not a cache hit).
    pub decryptions: u64,
    pub max_entries: usize,
    pub max_bytes: u64,
}
