//! Provider access tokens that never race ([`crate::Auth::get_access_token`]).
//!
//! Many providers hand out single-use refresh tokens (TikTok rotates them on
//! every refresh): when two requests refresh at once, the second spends a
//! token the first already spent, the provider refuses it, and the user is
//! signed out of the provider. So a refresh happens once:
//!
//! - **In one process**, concurrent calls for one account share one refresh
//!   (single flight): the first does it, the others wait for its result.
//! - **Across processes**, the first to take a lease on the account in the
//!   rate-limit store (shared when `rateLimit.store` is PostgreSQL, Redis or
//!   the database; a fixed window of [`LEASE`]) refreshes; the others re-read
//!   the stored account until the new tokens are there. The leader re-reads
//!   the account after taking the lease, so a leader of a later window never
//!   refreshes tokens another process already refreshed.
//! - A refresh the provider refuses as `invalid_grant` is checked against the
//!   store first: if another process has stored new tokens, those are used;
//!   otherwise the refresh token was revoked: `RefreshTokenRevoked`, with an
//!   `events.refreshTokenRevoked` event, never a silent sign-out.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::adapter::AdapterAccount;
use crate::error::{AuthError, ErrorType};

/// How long the lease of a refresh lasts (and its fixed window).
pub const LEASE: Duration = Duration::from_secs(30);

/// A usable access token, as `get_access_token` answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AccessToken {
    pub access_token: String,
    /// Unix seconds, when the provider said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub token_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
}

impl AccessToken {
    pub(crate) fn of(account: &AdapterAccount) -> Option<AccessToken> {
        Some(AccessToken {
            access_token: account.access_token.clone().filter(|t| !t.is_empty())?,
            expires_at: account.expires_at,
            token_type: account.token_type.clone(),
            scope: account.scope.clone(),
        })
    }
}

/// Whether the account's access token is good for at least `skew` more.
pub(crate) fn is_fresh(account: &AdapterAccount, skew: Duration, now: u64) -> bool {
    account.access_token.as_deref().is_some_and(|t| !t.is_empty())
        && account.expires_at.is_none_or(|at| at > 0 && (at as u64) > now.saturating_add(skew.as_secs()))
}

/// The outcome of one refresh, shared with everyone who waited for it.
type Shared = Result<Option<AccessToken>, (ErrorType, String)>;

#[derive(Default)]
struct Flight {
    result: Mutex<Option<Shared>>,
    done: Condvar,
}

/// The refreshes in flight in this process, by account.
#[derive(Default)]
pub(crate) struct Flights {
    running: Mutex<HashMap<String, Arc<Flight>>>,
}

impl Flights {
    /// Run `refresh` for `key` unless a call for the same key is already
    /// running; then wait (at most `wait`) for its result instead.
    pub(crate) fn single(
        &self,
        key: &str,
        wait: Duration,
        refresh: impl FnOnce() -> Result<Option<AccessToken>, AuthError>,
    ) -> Result<Option<AccessToken>, AuthError> {
        let (flight, leader) = {
            let mut running = self.running.lock().unwrap_or_else(|e| e.into_inner());
            match running.get(key) {
                Some(flight) => (flight.clone(), false),
                None => {
                    let flight = Arc::new(Flight::default());
                    running.insert(key.to_owned(), flight.clone());
                    (flight, true)
                }
            }
        };
        if leader {
            // Whatever happens (a panic included), the followers are woken.
            struct Publish<'a>(&'a Flights, &'a str, &'a Flight, Option<Shared>);
            impl Drop for Publish<'_> {
                fn drop(&mut self) {
                    let outcome = self
                        .3
                        .take()
                        .unwrap_or_else(|| Err((ErrorType::CallbackRouteError, "the refresh failed".into())));
                    *self.2.result.lock().unwrap_or_else(|e| e.into_inner()) = Some(outcome);
                    self.2.done.notify_all();
                    self.0.running.lock().unwrap_or_else(|e| e.into_inner()).remove(self.1);
                }
            }
            let mut publish = Publish(self, key, &flight, None);
            let result = refresh();
            publish.3 = Some(match &result {
                Ok(token) => Ok(token.clone()),
                Err(e) => Err((e.error_type, e.message.clone())),
            });
            return result;
        }
        let deadline = Instant::now() + wait;
        let mut result = flight.result.lock().unwrap_or_else(|e| e.into_inner());
        while result.is_none() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(AuthError::new(ErrorType::Overloaded, "a refresh of this account is still running"));
            }
            result = flight.done.wait_timeout(result, left).unwrap_or_else(|e| e.into_inner()).0;
        }
        result.clone().expect("checked").map_err(|(t, m)| AuthError::new(t, m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};

    #[test]
    fn concurrent_calls_share_one_refresh() {
        let flights = Arc::new(Flights::default());
        let runs = Arc::new(AtomicU32::new(0));
        let threads: Vec<_> = (0..50)
            .map(|_| {
                let (flights, runs) = (flights.clone(), runs.clone());
                std::thread::spawn(move || {
                    flights.single("k", Duration::from_secs(5), || {
                        runs.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(200));
                        Ok(Some(AccessToken {
                            access_token: "t".into(),
                            expires_at: None,
                            token_type: None,
                            scope: None,
                        }))
                    })
                })
            })
            .collect();
        for t in threads {
            assert_eq!(t.join().unwrap().unwrap().unwrap().access_token, "t");
        }
        assert_eq!(runs.load(Ordering::SeqCst), 1);
    }

    #[test]
    fn freshness_allows_for_the_skew() {
        let mut a = AdapterAccount::new(crate::adapter::AccountType::OAuth, "p", "1");
        assert!(!is_fresh(&a, Duration::from_secs(60), 1000), "no token");
        a.access_token = Some("t".into());
        assert!(is_fresh(&a, Duration::from_secs(60), 1000), "no expiry: fresh");
        a.expires_at = Some(1059);
        assert!(!is_fresh(&a, Duration::from_secs(60), 1000));
        a.expires_at = Some(1061);
        assert!(is_fresh(&a, Duration::from_secs(60), 1000));
    }
}
