//! Signing a user out everywhere, JWT sessions included.
//!
//! A database session ends when its row goes. A JWT session is in no
//! store: the cookie is the session, valid until it expires. To end those,
//! the store keeps one time per user ("every session signed in before this
//! is over", [`SessionStore::sign_out_before`]), written by "end all", a
//! password reset or change, and the engine compares it on every JWT read
//! with the time the session was signed in to, which the engine's identity
//! claim carries (`authTime`, unix ms, kept across re-issues; see
//! [`crate::identity`]).
//!
//! Reading the store on every request would cost JWT sessions what they
//! exist to save, so each engine remembers each user's time for
//! `session.revocationCheck.interval` seconds (default 60): a session ended
//! in another process stops working within that interval, at the cost of
//! at most one store read per user per interval. The engine that ends the
//! sessions knows at once. The memory is bounded (`maxUsers`, least
//! recently used users leave first); a user not remembered costs one read.
//!
//! While the store cannot be read, a user whose time is remembered is
//! judged by it (and the failure logged); a user whose time is not is
//! refused for this request (no session; the cookie is kept), as a
//! database session is when its store is down.
//!
//! A token without the engine's claim (issued by Auth.js, or by a libauth
//! before the claim existed) names its user by `sub` and its sign-in by
//! `iat`, to the second: such a session signed in within the second of the
//! sign-out ends too.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::Arc;

use quick_cache::sync::{Cache, GuardResult};
use serde_json::Value;

use crate::error::{AuthError, ConfigError};
use crate::store::{AdapterError, SessionStore};
use crate::time::now_millis;
use crate::Auth;

/// Default `session.revocationCheck.interval` (seconds).
pub const DEFAULT_INTERVAL: u64 = 60;
/// Default `session.revocationCheck.maxUsers`.
pub const DEFAULT_MAX_USERS: usize = 10_000;
/// Largest `interval` accepted (a day).
pub const MAX_INTERVAL: u64 = 86_400;
/// Largest `maxUsers` accepted.
pub const MAX_MAX_USERS: usize = 10_000_000;

/// `session.revocationCheck` after validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RevocationSettings {
    /// How long a user's sign-out time is trusted before it is read again
    /// (ms; 0: read on every session read).
    pub interval_ms: u64,
    pub max_users: usize,
}

impl Default for RevocationSettings {
    fn default() -> Self {
        RevocationSettings { interval_ms: DEFAULT_INTERVAL * 1000, max_users: DEFAULT_MAX_USERS }
    }
}

/// What `session.revocationCheck` said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RevocationOption {
    /// Left out: on wherever the store can keep sign-out times.
    Default,
    /// `true` or `{ interval, maxUsers }`: on, and a store that cannot is a
    /// configuration error.
    On(RevocationSettings),
    /// `false`: JWT sessions end only when they expire.
    Off,
}

impl RevocationOption {
    pub const OPTION: &'static str = "session.revocationCheck";

    /// `session.revocationCheck`: absent, `true`, `false`, or
    /// `{ interval, maxUsers }` (either may be left out).
    pub fn parse(value: Option<&Value>) -> Result<RevocationOption, ConfigError> {
        let map = match value {
            None | Some(Value::Null) => return Ok(RevocationOption::Default),
            Some(Value::Bool(true)) => return Ok(RevocationOption::On(RevocationSettings::default())),
            Some(Value::Bool(false)) => return Ok(RevocationOption::Off),
            Some(Value::Object(map)) => map,
            Some(_) => return Err(ConfigError::new(Self::OPTION, "must be false, true or { interval, maxUsers }")),
        };
        let mut settings = RevocationSettings::default();
        for (key, value) in map {
            let option = format!("{}.{key}", Self::OPTION);
            let number = |min: u64, max: u64| -> Result<u64, ConfigError> {
                value.as_u64().filter(|n| (min..=max).contains(n)).ok_or_else(|| {
                    ConfigError::new(option.clone(), format!("must be a whole number from {min} to {max}"))
                })
            };
            match key.as_str() {
                "interval" => settings.interval_ms = number(0, MAX_INTERVAL)? * 1000,
                "maxUsers" => settings.max_users = number(1, MAX_MAX_USERS as u64)? as usize,
                _ => return Err(ConfigError::new(option, "unknown option: use interval or maxUsers")),
            }
        }
        Ok(RevocationOption::On(settings))
    }
}

/// One user's sign-out time as this engine last read it.
struct Known {
    /// Sessions signed in before this are over (unix ms); `i64::MIN`: none.
    before: AtomicI64,
    /// When it was read (unix ms).
    read_at: AtomicU64,
    /// One reader refreshes a stale time; the others go on with it.
    refreshing: AtomicBool,
}

impl Known {
    fn new(before: Option<i64>, now: u64) -> Known {
        Known {
            before: AtomicI64::new(before.unwrap_or(i64::MIN)),
            read_at: AtomicU64::new(now),
            refreshing: AtomicBool::new(false),
        }
    }

    fn set(&self, before: Option<i64>, now: u64) {
        self.before.store(before.unwrap_or(i64::MIN), Ordering::Release);
        self.read_at.store(now, Ordering::Release);
    }
}

/// Each engine's memory of its users' sign-out times.
pub(crate) struct SignOuts {
    interval_ms: u64,
    users: Cache<String, Arc<Known>>,
    /// Store reads, for tests and benchmarks.
    reads: AtomicU64,
}

impl SignOuts {
    pub(crate) fn new(settings: RevocationSettings) -> SignOuts {
        SignOuts { interval_ms: settings.interval_ms, users: Cache::new(settings.max_users), reads: AtomicU64::new(0) }
    }

    /// Whether a session `user_id` signed in to at `signed_in_at` (unix
    /// ms) still stands: no sign-out time after it, as last read from
    /// `store` within the interval. An error only when the store could
    /// not be read and this user's time was never read; a failed refresh
    /// of a time read before goes to `log`, and the old time judges.
    pub(crate) fn stands(
        &self,
        store: &dyn SessionStore,
        user_id: &str,
        signed_in_at: i64,
        now: u64,
        log: impl FnOnce(AdapterError),
    ) -> Result<bool, AdapterError> {
        self.check(store, user_id, signed_in_at, now, false, log)
    }

    /// [`SignOuts::stands`], reading the store whatever this engine
    /// remembers: before re-issuing a token whose sign-in time the
    /// re-issue cannot keep (one without the engine's claim), since the
    /// new token's `iat` would hide it. An error when the store cannot be
    /// read.
    pub(crate) fn stands_now(
        &self,
        store: &dyn SessionStore,
        user_id: &str,
        signed_in_at: i64,
        now: u64,
    ) -> Result<bool, AdapterError> {
        self.check(store, user_id, signed_in_at, now, true, |_| {})
    }

    fn check(
        &self,
        store: &dyn SessionStore,
        user_id: &str,
        signed_in_at: i64,
        now: u64,
        fresh: bool,
        log: impl FnOnce(AdapterError),
    ) -> Result<bool, AdapterError> {
        if fresh {
            let before = self.read(store, user_id)?;
            match self.users.get(user_id) {
                Some(known) => known.set(before, now),
                None => self.users.insert(user_id.to_owned(), Arc::new(Known::new(before, now))),
            }
            return Ok(before.is_none_or(|before| signed_in_at >= before));
        }
        let known = match self.users.get_value_or_guard(user_id, None) {
            GuardResult::Value(known) => known,
            GuardResult::Guard(guard) => {
                // First sight: concurrent readers of this user wait for this read.
                let before = self.read(store, user_id)?;
                let _ = guard.insert(Arc::new(Known::new(before, now)));
                return Ok(before.is_none_or(|before| signed_in_at >= before));
            }
            GuardResult::Timeout => unreachable!("no timeout was given"),
        };
        let stale = now.saturating_sub(known.read_at.load(Ordering::Acquire)) >= self.interval_ms;
        if stale && !known.refreshing.swap(true, Ordering::AcqRel) {
            match self.read(store, user_id) {
                Ok(before) => known.set(before, now),
                Err(e) => log(e),
            }
            known.refreshing.store(false, Ordering::Release);
        }
        Ok(signed_in_at >= known.before.load(Ordering::Acquire))
    }

    /// Remember a sign-out this engine just recorded: it counts here at once.
    pub(crate) fn remember(&self, user_id: &str, before: i64, now: u64) {
        match self.users.get(user_id) {
            Some(known) => {
                known.before.fetch_max(before, Ordering::AcqRel);
            }
            None => self.users.insert(user_id.to_owned(), Arc::new(Known::new(Some(before), now))),
        }
    }

    /// How many times the store was read.
    pub(crate) fn store_reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }

    fn read(&self, store: &dyn SessionStore, user_id: &str) -> Result<Option<i64>, AdapterError> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        store.signed_out_before(user_id)
    }
}

/// A JWT session read's verdict on the sign-out check.
pub(crate) enum Verdict {
    /// No sign-out since the session was signed in to (or no check).
    Stands,
    /// Its user was signed out everywhere since.
    Ended,
    /// The store could not say: no session for this request.
    Unknown(AuthError),
}

impl Auth {
    /// The sign-out check of a JWT session: `signed_in` is whose it is and
    /// when it was signed in to ([`crate::identity::signed_in`]). `fresh`
    /// reads the store whatever the engine remembers (see
    /// [`SignOuts::stands_now`]).
    pub(crate) fn sign_out_verdict(&self, signed_in: Option<&(String, i64)>, fresh: bool) -> Verdict {
        let (Some(checks), Some(db), Some((user_id, at))) = (&self.sign_outs, self.stores.data(), signed_in) else {
            return Verdict::Stands;
        };
        let now = now_millis();
        let store = db.sessions.as_ref();
        let judged = if fresh {
            checks.stands_now(store, user_id, *at, now)
        } else {
            checks.stands(store, user_id, *at, now, |e| self.callbacks.log(&AuthError::from(e)))
        };
        match judged {
            Ok(true) => Verdict::Stands,
            Ok(false) => Verdict::Ended,
            Err(e) => {
                let e = AuthError::from(e);
                self.callbacks.log(&e);
                Verdict::Unknown(e)
            }
        }
    }

    /// End every JWT session `user_id` signed in to until now, in every
    /// process sharing the store (within `session.revocationCheck.interval`
    /// in the others, at once in this one). When, or `None` when this
    /// engine does not check (database sessions, or the check is off).
    ///
    /// The same record ends the browsers `user_id` trusted to skip the
    /// second step (see `routes::trusted_device`), with database sessions
    /// too: it is written whenever the store keeps sign-outs and either
    /// needs it.
    pub(crate) fn record_sign_out(&self, user_id: &str) -> Result<Option<i64>, AuthError> {
        let Some(db) = self.stores.data().filter(|db| db.sessions.keeps_sign_outs()) else {
            return Ok(None);
        };
        let trusted_for = self.settings.two_factor.trusted_device.max_age;
        if self.sign_outs.is_none() && trusted_for.is_none() {
            return Ok(None);
        }
        let now = now_millis();
        let before = i64::try_from(now).unwrap_or(i64::MAX);
        // No session signed in to before `before` outlives this (one renewed
        // within the check's interval lives `maxAge` from then), nor a
        // browser trusted before it.
        let mut longest = trusted_for.unwrap_or(0).saturating_mul(1000);
        if let Some(checks) = &self.sign_outs {
            let session = self.settings.session_max_age.max(self.settings.jwt_max_age).saturating_mul(1000);
            longest = longest.max(session.saturating_add(checks.interval_ms));
        }
        let keep_until = before.saturating_add(i64::try_from(longest).unwrap_or(i64::MAX));
        db.sessions.sign_out_before(user_id, before, keep_until)?;
        let Some(checks) = &self.sign_outs else { return Ok(None) };
        checks.remember(user_id, before, now);
        Ok(Some(before))
    }

    /// How many times this engine read a user's sign-out time from the
    /// store (`None` without the check): for tests and benchmarks.
    pub fn sign_out_reads(&self) -> Option<u64> {
        self.sign_outs.as_ref().map(SignOuts::store_reads)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::MemoryAdapter;
    use serde_json::json;

    fn no_log(e: AdapterError) {
        panic!("unexpected store error: {e}");
    }

    #[test]
    fn options() {
        assert_eq!(RevocationOption::parse(None).unwrap(), RevocationOption::Default);
        assert_eq!(RevocationOption::parse(Some(&json!(false))).unwrap(), RevocationOption::Off);
        assert_eq!(
            RevocationOption::parse(Some(&json!({ "interval": 5 }))).unwrap(),
            RevocationOption::On(RevocationSettings { interval_ms: 5000, max_users: DEFAULT_MAX_USERS })
        );
        for (bad, named) in [
            (json!({ "interval": -1 }), "session.revocationCheck.interval"),
            (json!({ "interval": 86_401 }), "session.revocationCheck.interval"),
            (json!({ "maxUsers": 0 }), "session.revocationCheck.maxUsers"),
            (json!({ "every": 1 }), "session.revocationCheck.every"),
            (json!("60"), "session.revocationCheck"),
        ] {
            let e = RevocationOption::parse(Some(&bad)).unwrap_err();
            assert_eq!(e.option, named, "{bad}");
        }
    }

    #[test]
    fn one_read_per_user_per_interval() {
        let store = MemoryAdapter::new();
        let checks = SignOuts::new(RevocationSettings { interval_ms: 1000, max_users: 10 });
        for now in [0, 10, 999] {
            assert!(checks.stands(&store, "u1", 5, now, no_log).unwrap());
        }
        assert_eq!(checks.store_reads(), 1);
        // Ended elsewhere: not seen until the interval is over.
        store.sign_out_before("u1", 100, i64::MAX).unwrap();
        assert!(checks.stands(&store, "u1", 5, 999, no_log).unwrap());
        assert!(!checks.stands(&store, "u1", 5, 1000, no_log).unwrap());
        assert!(checks.stands(&store, "u1", 100, 1001, no_log).unwrap(), "signed in at the sign-out: stands");
        assert_eq!(checks.store_reads(), 2);
        // Ended here: at once.
        checks.remember("u1", 200, 1002);
        assert!(!checks.stands(&store, "u1", 150, 1003, no_log).unwrap());
        assert!(checks.stands(&store, "u2", 150, 1003, no_log).unwrap());
    }

    #[test]
    fn a_later_time_wins_whatever_the_order() {
        let store = MemoryAdapter::new();
        store.sign_out_before("u", 500, 10).unwrap();
        store.sign_out_before("u", 300, 20).unwrap();
        assert_eq!(store.signed_out_before("u").unwrap(), Some(500));
        let checks = SignOuts::new(RevocationSettings { interval_ms: 0, max_users: 10 });
        checks.remember("u", 600, 0);
        checks.remember("u", 400, 0);
        // interval 0: every check reads the store again (500).
        assert!(checks.stands(&store, "u", 550, 1, no_log).unwrap());
    }
}
