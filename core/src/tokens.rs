//! Provider access tokens that never race ([`crate::Auth::get_access_token`]).
//!
//! Many providers hand out single-use refresh tokens (TikTok rotates them on
//! every refresh): when two requests refresh at once, the second spends a
//! token the first already spent, the provider refuses it, and the user is
//! signed out of the provider. So a refresh happens once:
//!
//! - **In one process**, concurrent calls for one account share one refresh
//!   (single flight): the first does it, the others wait for its result.
//! - **Across processes**, the first to take a named lease on the refresh
//!   token about to be spent ([`crate::store::LeaseStore`], in the backend
//!   serving verification tokens: the SQL database or Redis, shared by
//!   every process using it; for a host adapter, the rate-limit store's
//!   backend; [`LEASE`] at most) refreshes; the others re-read the stored
//!   account until the new tokens are there. The leader re-reads the
//!   account after taking the lease, so a later leader never refreshes
//!   tokens another process already refreshed.
//! - A refresh the provider refuses as `invalid_grant` is checked against the
//!   store first: if another process has stored new tokens, those are used;
//!   otherwise the refresh token was revoked: `RefreshTokenRevoked`, with an
//!   `events.refreshTokenRevoked` event, never a silent sign-out.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::store::AdapterAccount;
use crate::{oauth, providers, session, time, Auth};

/// How long the lease of a refresh lasts at most.
pub const LEASE: Duration = Duration::from_secs(30);

/// A refresh lease this process took, released however the refresh ends:
/// after the refresh, and also when the leader finds the tokens already
/// fresh (another engine refreshed them between its first look and the
/// lease) or fails to read the account. A lease left held would make every
/// other process wait out [`LEASE`] for a refresh nobody is doing.
struct HeldLease<'a> {
    auth: &'a Auth,
    key: String,
}

impl Drop for HeldLease<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.auth.stores.leases.release_lease(&self.key) {
            self.auth.callbacks.log(&AuthError::new(ErrorType::AdapterError, e.to_string()));
        }
    }
}

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

/// Token management: the stored account of a user at a provider, and an
/// access token that is refreshed once however many ask.
impl Auth {
    /// The account `user_id` linked with provider `provider_id`, tokens
    /// included, read through the adapter (`None` when not linked). For
    /// server code that calls the provider's API with the stored access
    /// token; the tokens must stay on the server. Needs an adapter
    /// (`MissingAdapter` otherwise) that can read accounts (the built-in
    /// ones; a host adapter cannot).
    pub fn get_account(&self, user_id: &str, provider_id: &str) -> Result<Option<AdapterAccount>, AuthError> {
        let db = self
            .stores
            .data()
            .ok_or_else(|| AuthError::new(ErrorType::MissingAdapter, "reading a stored account needs an adapter"))?;
        db.accounts.get_account(user_id, provider_id).map_err(AuthError::from)
    }

    /// Refresh the stored account of `user_id` with `provider_id`: use its
    /// refresh token at the provider's token endpoint
    /// ([`Auth::refresh_access_token`]), store the new tokens (a rotated
    /// refresh token replaces the old one; fields the provider did not send
    /// again, such as `scope`, are kept) and return the updated account.
    /// `None` when the user has no such account; an error when it has no
    /// refresh token or the provider refuses it.
    pub fn refresh_account(&self, user_id: &str, provider_id: &str) -> Result<Option<AdapterAccount>, AuthError> {
        let Some(account) = self.get_account(user_id, provider_id)? else { return Ok(None) };
        self.refresh_stored(account).map(Some)
    }

    /// Refresh `account` at its provider and store the new tokens.
    fn refresh_stored(&self, mut account: AdapterAccount) -> Result<AdapterAccount, AuthError> {
        let provider_id = account.provider.clone();
        let refresh_token = account.refresh_token.clone().filter(|t| !t.is_empty()).ok_or_else(|| {
            AuthError::new(ErrorType::OAuthCallbackError, format!("the {provider_id} account has no refresh token"))
        })?;
        let fresh = self.refresh_access_token(&provider_id, &refresh_token, Some(&account.provider_account_id))?;
        let text = |key: &str| fresh.get(key).and_then(serde_json::Value::as_str).map(str::to_owned);
        if let Some(token) = text("access_token") {
            account.access_token = Some(token);
        }
        if let Some(token) = text("refresh_token") {
            account.refresh_token = Some(token);
        }
        if let Some(kind) = text("token_type") {
            account.token_type = Some(kind);
        }
        if let Some(scope) = text("scope") {
            account.scope = Some(scope);
        }
        if let Some(token) = text("id_token") {
            account.id_token = Some(token);
        }
        account.expires_at = fresh.get("expires_at").and_then(serde_json::Value::as_i64).or(account.expires_at);
        // TikTok also says how long the refresh token lives: keep what the
        // provider sent beside the standard fields, as a sign-in does.
        for (key, value) in &fresh {
            let standard = matches!(
                key.as_str(),
                "provider"
                    | "type"
                    | "providerAccountId"
                    | "access_token"
                    | "refresh_token"
                    | "token_type"
                    | "scope"
                    | "id_token"
                    | "expires_at"
            );
            if !standard {
                account.extra.insert(key.clone(), value.clone());
            }
        }
        let db = self.stores.data().expect("the account was read, so there are stores");
        db.accounts.update_account(&account).map_err(AuthError::from)?;
        Ok(account)
    }

    /// A valid access token for `user_id`'s account with `provider_id`,
    /// refreshed first when it expires within `tokenRefresh.skew` (60 s by
    /// default) and a refresh token is stored; `None` when the user has no
    /// such account. Concurrent calls make one refresh request, in this
    /// process and, with a shared rate-limit store, across processes (see
    /// [`crate::tokens`]). A refresh token the provider refuses is
    /// `RefreshTokenRevoked` (and `events.refreshTokenRevoked`).
    pub fn get_access_token(&self, user_id: &str, provider_id: &str) -> Result<Option<AccessToken>, AuthError> {
        let Some(account) = self.get_account(user_id, provider_id)? else { return Ok(None) };
        if is_fresh(&account, self.refresh_skew, time::now_seconds())
            || account.refresh_token.as_deref().is_none_or(str::is_empty)
        {
            return Ok(AccessToken::of(&account));
        }
        let key = format!("{}:{}", account.provider, account.provider_account_id);
        self.refreshes.single(&key, self.refresh_wait, || self.refresh_once(user_id, provider_id, &key))
    }

    /// The refresh of one account, led by this process if it takes the
    /// lease. The lease is on the refresh token about to be spent (a
    /// compare-and-swap on it, through the store): one process spends a
    /// given refresh token, whoever else meets it waits for the tokens that
    /// replace it.
    fn refresh_once(&self, user_id: &str, provider_id: &str, key: &str) -> Result<Option<AccessToken>, AuthError> {
        let Some(account) = self.get_account(user_id, provider_id)? else { return Ok(None) };
        let spending = format!("{key}\0{}", account.refresh_token.as_deref().unwrap_or_default());
        let lease_key = format!("lease:refresh:{}", session::stored_session_token(&spending));
        let (leader, held) = match self.stores.leases.take_lease(&lease_key, LEASE) {
            Ok(taken) => (taken, taken.then(|| HeldLease { auth: self, key: lease_key })),
            // No store to coordinate through: refresh here (one process's
            // calls are still one refresh).
            Err(e) => {
                self.callbacks.log(&AuthError::new(ErrorType::AdapterError, e.to_string()));
                (true, None)
            }
        };
        let deadline = std::time::Instant::now() + self.refresh_wait;
        loop {
            // Read again: another process may have refreshed meanwhile.
            let Some(account) = self.get_account(user_id, provider_id)? else { return Ok(None) };
            if is_fresh(&account, self.refresh_skew, time::now_seconds()) {
                return Ok(AccessToken::of(&account));
            }
            if leader {
                let spent = account.refresh_token.clone();
                let outcome = self.refresh_stored(account);
                // The lease ends with the refresh: a provider that does not
                // rotate refresh tokens hands the same one to the next
                // refresh, which must be able to lead (it finds the tokens
                // fresh first if they still are).
                drop(held);
                return match outcome {
                    Ok(account) => Ok(AccessToken::of(&account)),
                    Err(e) if e.error_type == ErrorType::RefreshTokenRevoked => {
                        // Spent by someone else who stored the new tokens?
                        match self.get_account(user_id, provider_id)? {
                            Some(now) if now.refresh_token != spent => Ok(AccessToken::of(&now)),
                            now => {
                                let account_id = now.map(|a| a.provider_account_id).unwrap_or_default();
                                self.callbacks.event(&Hook::EVENT_REFRESH_TOKEN_REVOKED, || {
                                    serde_json::json!({ "userId": user_id, "provider": provider_id, "providerAccountId": account_id })
                                });
                                self.callbacks.log(&e);
                                Err(e)
                            }
                        }
                    }
                    Err(e) => Err(e),
                };
            }
            if std::time::Instant::now() >= deadline {
                return Err(AuthError::new(
                    ErrorType::Overloaded,
                    format!("another process is refreshing the {provider_id} token and has not finished"),
                ));
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// Use a refresh token at an OAuth provider's token endpoint. Returns the
    /// new tokens as an Account-shaped object (`expires_at` computed,
    /// `token_type` lowercased). Providers that rotate refresh tokens
    /// (TikTok) return a new one: store it.
    ///
    /// `providerAccountId`: a provider whose token responses name the
    /// account (TikTok's `open_id`) is believed; a standard token response
    /// does not, so the caller's `provider_account_id` (the stored
    /// account's) is used. If both are known and differ, the refresh token
    /// belongs to another account than the caller said: that is an error.
    /// When neither is known the key is left out, never set to `""`.
    pub fn refresh_access_token(
        &self,
        provider_id: &str,
        refresh_token: &str,
        provider_account_id: Option<&str>,
    ) -> Result<serde_json::Map<String, serde_json::Value>, AuthError> {
        let provider = self.providers.get(provider_id).ok_or_else(|| {
            AuthError::new(ErrorType::InvalidProviderType, format!("no provider with id {provider_id:?}"))
        })?;
        let providers::ProviderKind::OAuth(p) = &provider.kind else {
            return Err(AuthError::new(
                ErrorType::InvalidProviderType,
                format!("{provider_id:?} is not an OAuth provider"),
            ));
        };
        let tokens = oauth::refresh_tokens(p, refresh_token).map_err(|e| {
            // `invalid_grant`: the refresh token is revoked, expired or spent.
            let revoked = matches!(&e, oauth::OAuthError::Token { error, .. } if error == "invalid_grant");
            let kind = if revoked { ErrorType::RefreshTokenRevoked } else { ErrorType::OAuthCallbackError };
            AuthError::new(kind, e.to_string()).with_source(e)
        })?;
        let given = provider_account_id.filter(|id| !id.is_empty());
        let account_id = match (p.behaviour.account_id_from_tokens(&tokens), given) {
            (Some(said), Some(given)) if said != given => {
                return Err(AuthError::new(
                    ErrorType::OAuthCallbackError,
                    format!("the refreshed tokens are for another {provider_id} account than the one given"),
                ))
            }
            (Some(said), _) => Some(said),
            (None, given) => given.map(str::to_owned),
        };
        let mut account = oauth::account_from_tokens(
            provider_id,
            provider.provider_type().as_str(),
            account_id.as_deref().unwrap_or_default(),
            &tokens,
        );
        if account_id.is_none() {
            account.remove("providerAccountId");
        }
        Ok(account)
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
        let mut a = AdapterAccount::new(crate::store::AccountType::OAuth, "p", "1");
        assert!(!is_fresh(&a, Duration::from_secs(60), 1000), "no token");
        a.access_token = Some("t".into());
        assert!(is_fresh(&a, Duration::from_secs(60), 1000), "no expiry: fresh");
        a.expires_at = Some(1059);
        assert!(!is_fresh(&a, Duration::from_secs(60), 1000));
        a.expires_at = Some(1061);
        assert!(is_fresh(&a, Duration::from_secs(60), 1000));
    }
}
