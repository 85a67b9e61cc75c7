//! [`Stores`]: which backend serves which kind of record, composed once
//! from the config (see [`Stores::from_config`]) and shared by every
//! request. The few operations that span two stores live here, where the
//! composition is known; everything else is a call on one store.

use std::sync::Arc;

use super::{
    constraint, AccountStore, AdapterError, AdapterSession, AdapterUser, CounterStore, HostAdapter, LeaseStore,
    PasskeyStore, Purged, SessionDetails, SessionStore, UserStore, VerificationStore,
};

/// Every store the engine uses.
pub struct Stores {
    /// Users, accounts, sessions, tokens, passkeys: with an `adapter`.
    data: Option<DataStores>,
    /// Rate-limit counts (`rateLimit.store`).
    pub counters: Arc<dyn CounterStore>,
    /// Named leases (one refresh of an account's tokens at a time).
    pub leases: Arc<dyn LeaseStore>,
}

impl Stores {
    pub fn new(data: Option<DataStores>, counters: Arc<dyn CounterStore>, leases: Arc<dyn LeaseStore>) -> Stores {
        Stores { data, counters, leases }
    }

    /// The record stores, when an `adapter` is configured.
    pub fn data(&self) -> Option<&DataStores> {
        self.data.as_ref()
    }
}

/// The stores of users and what belongs to them. `users` and `accounts`
/// are one backend (the `adapter`), and so are `passkeys`; `sessions` and
/// `tokens` are that backend or Redis (`secondaryStorage`).
///
/// Create and read sessions through [`DataStores::create_session`] and
/// [`DataStores::session_and_user`], and delete users through
/// [`DataStores::delete_user`]: they keep sessions and users consistent
/// when the two live in different backends.
pub struct DataStores {
    pub users: Arc<dyn UserStore>,
    pub accounts: Arc<dyn AccountStore>,
    pub sessions: Arc<dyn SessionStore>,
    pub tokens: Arc<dyn VerificationStore>,
    pub passkeys: Arc<dyn PasskeyStore>,
    /// Sessions in another backend than users (no foreign key, no
    /// cascade): the adapter's own session and token stores, which may
    /// still hold rows from before `secondaryStorage` was turned on.
    apart: Option<(Arc<dyn SessionStore>, Arc<dyn VerificationStore>)>,
    /// The host adapter, when host code is the backend (its optional hooks
    /// may be missing).
    host: Option<Arc<HostAdapter>>,
}

impl DataStores {
    /// The stores of one backend (`accounts` serves users too), with its
    /// sessions and tokens served by `secondary` instead when given.
    pub fn new(
        accounts: Arc<dyn AccountStore>,
        own: (Arc<dyn SessionStore>, Arc<dyn VerificationStore>),
        passkeys: Arc<dyn PasskeyStore>,
        secondary: Option<(Arc<dyn SessionStore>, Arc<dyn VerificationStore>)>,
        host: Option<Arc<HostAdapter>>,
    ) -> DataStores {
        let ((sessions, tokens), apart) = match secondary {
            Some(secondary) => (secondary, Some(own)),
            None => (own, None),
        };
        DataStores { users: accounts.clone(), accounts, sessions, tokens, passkeys, apart, host }
    }

    /// Whether sessions live in another backend than users.
    fn sessions_apart(&self) -> bool {
        self.apart.is_some()
    }

    /// Whether the backend has the Auth.js method `method`: always, except
    /// for a host adapter's missing optional hooks. Sessions and tokens in
    /// Redis are always there.
    pub fn supports(&self, method: &str) -> bool {
        let redis_serves = self.sessions_apart()
            && matches!(
                method,
                "createSession"
                    | "getSessionAndUser"
                    | "updateSession"
                    | "deleteSession"
                    | "createVerificationToken"
                    | "useVerificationToken"
            );
        redis_serves || self.host.as_ref().is_none_or(|host| host.supports(method))
    }

    /// Store a session. Its user must exist: a backend that stores users
    /// checks with its foreign key; for sessions kept apart it is looked up
    /// first (a session for nobody would be a sign-in that reads as signed
    /// out).
    pub fn create_session(&self, session: &AdapterSession) -> Result<AdapterSession, AdapterError> {
        self.create_session_with_details(session, &SessionDetails::default())
    }

    /// [`DataStores::create_session`], recording where the session was made.
    pub fn create_session_with_details(
        &self,
        session: &AdapterSession,
        details: &SessionDetails,
    ) -> Result<AdapterSession, AdapterError> {
        if self.sessions_apart() && self.users.get_user(&session.user_id)?.is_none() {
            return Err(AdapterError::constraint("createSession", constraint::SESSION_USER));
        }
        self.sessions.create_session_with_details(session, details)
    }

    /// The session and its user (Auth.js's `getSessionAndUser`), expired or
    /// not. A session kept apart whose user is gone (deleted outside
    /// libauth) is deleted, as a cascade would have.
    pub fn session_and_user(&self, token: &str) -> Result<Option<(AdapterSession, AdapterUser)>, AdapterError> {
        match self.sessions.get_session(token)? {
            None => Ok(None),
            Some((session, Some(user))) => Ok(Some((session, user))),
            Some((session, None)) => match self.users.get_user(&session.user_id)? {
                Some(user) => Ok(Some((session, user))),
                None => {
                    self.sessions.delete_session(token)?;
                    Ok(None)
                }
            },
        }
    }

    /// Delete a user with everything of theirs. Sessions kept apart go
    /// first: if the database then fails, the user is signed out everywhere
    /// and still exists, which a retry completes; the other order could
    /// leave sessions of a deleted user.
    pub fn delete_user(&self, id: &str) -> Result<(), AdapterError> {
        if self.sessions_apart() {
            self.sessions.delete_user_sessions(id)?;
        }
        self.users.delete_user(id)
    }

    /// Delete every session and verification token that expired before
    /// `now` (unix ms). Sessions and tokens kept in Redis expire there on
    /// their own; the database may still hold ones from before
    /// `secondaryStorage` was turned on, so its own are purged too.
    pub fn purge_expired(&self, now: i64) -> Result<Purged, AdapterError> {
        let mut purged = Purged {
            sessions: self.sessions.delete_expired_sessions(now)?,
            verification_tokens: self.tokens.delete_expired_tokens(now)?,
        };
        if let Some((sessions, tokens)) = &self.apart {
            purged.sessions += sessions.delete_expired_sessions(now)?;
            purged.verification_tokens += tokens.delete_expired_tokens(now)?;
        }
        Ok(purged)
    }
}
