//! Housekeeping: expired sessions, email tokens and passkey challenges are
//! purged now and then by the requests that store them, or by a scheduled
//! call to [`Auth::purge_expired`].

use crate::error::AuthError;
use crate::store::Purged;
use crate::{time, Auth};

/// How often a sign-in also purges expired rows (seconds).
const PURGE_INTERVAL: u64 = 3600;

impl Auth {
    /// Delete every expired database session and email sign-in token from
    /// the stores. Sign-ins already do this at most once an hour; call it
    /// from a scheduled job for a store that sees few sign-ins. Without an
    /// adapter there is nothing to purge.
    pub fn purge_expired(&self) -> Result<Purged, AuthError> {
        let Some(db) = self.stores.data() else { return Ok(Purged::default()) };
        self.last_purge.store(time::now_seconds(), std::sync::atomic::Ordering::Relaxed);
        // Challenges stored from now on set the next due time.
        self.challenge_purge_due.store(0, std::sync::atomic::Ordering::Relaxed);
        db.purge_expired(time::now_millis() as i64).map_err(AuthError::from)
    }

    /// A passkey challenge expiring at `expires_ms` was stored: purge once
    /// it has expired (see [`Auth::purge_expired_now_and_then`]).
    pub(crate) fn challenge_stored(&self, expires_ms: u64) {
        let _ = self.challenge_purge_due.fetch_update(
            std::sync::atomic::Ordering::Relaxed,
            std::sync::atomic::Ordering::Relaxed,
            |due| (due == 0 || expires_ms < due).then_some(expires_ms.max(1)),
        );
    }

    /// [`Auth::purge_expired`], if the last purge was over an hour ago, or
    /// a passkey challenge stored since the last purge has expired;
    /// failures are logged, never the sign-in's concern. Called from
    /// database-session sign-ins, the email route and the passkey routes,
    /// whatever the session strategy. The challenge rule bounds what
    /// anonymous options requests leave stored (about two challenge
    /// lifetimes of them) and purges at most once per challenge lifetime,
    /// since the next due time is set by a challenge stored after a purge.
    pub(crate) fn purge_expired_now_and_then(&self) {
        let last = self.last_purge.load(std::sync::atomic::Ordering::Relaxed);
        let due = self.challenge_purge_due.load(std::sync::atomic::Ordering::Relaxed);
        let challenges_expired = due != 0 && time::now_millis() >= due;
        if !challenges_expired && time::now_seconds() < last.saturating_add(PURGE_INTERVAL) {
            return;
        }
        // One caller purges for a due challenge; the others go on.
        if challenges_expired
            && self
                .challenge_purge_due
                .compare_exchange(due, 0, std::sync::atomic::Ordering::Relaxed, std::sync::atomic::Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        if let Err(e) = self.purge_expired() {
            self.callbacks.log(&e);
        }
    }
}
