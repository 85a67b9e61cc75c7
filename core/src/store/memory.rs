//! An adapter that keeps everything in process memory, for tests and
//! prototypes. It enforces the same constraints as the SQL adapters (unique
//! email, unique provider account, unique passkey credential id, users
//! referenced by accounts, sessions and passkeys), so code tested against it
//! behaves the same on a database.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::{
    constraint, new_user_id, AccountStore, AdapterAccount, AdapterError, AdapterSession, AdapterUser, Authenticator,
    Ensured, LeaseStore, ListedSession, NewUser, PasskeyStore, Sealing, SessionDetails, SessionStore, UserStore,
    UserUpdate, VerificationStore, VerificationToken,
};

type AccountKey = (String, String);

#[derive(Default)]
struct Store {
    users: HashMap<String, AdapterUser>,
    /// email -> user id, the unique index on `users.email`.
    user_by_email: HashMap<String, String>,
    accounts: HashMap<AccountKey, AdapterAccount>,
    /// Each session with what it recorded when made.
    sessions: HashMap<String, (AdapterSession, SessionDetails)>,
    verification_tokens: HashMap<AccountKey, VerificationToken>,
    /// Passkeys by credential id (unique across users).
    authenticators: HashMap<String, Authenticator>,
    /// user id -> (sessions signed in before this are over, kept until).
    sign_outs: HashMap<String, (i64, i64)>,
}

impl Store {
    fn insert_user(&mut self, user: &NewUser) -> Result<AdapterUser, AdapterError> {
        let id = user.id.clone().unwrap_or_else(new_user_id);
        if self.users.contains_key(&id) {
            return Err(AdapterError::constraint("createUser", constraint::USER_ID));
        }
        if let Some(email) = &user.email {
            if self.user_by_email.contains_key(email) {
                return Err(AdapterError::constraint("createUser", constraint::USER_EMAIL));
            }
            self.user_by_email.insert(email.clone(), id.clone());
        }
        let stored = user.with_id(id.clone());
        self.users.insert(id, stored.clone());
        Ok(stored)
    }

    fn insert_account(&mut self, account: &AdapterAccount) -> Result<(), AdapterError> {
        if !self.users.contains_key(&account.user_id) {
            return Err(AdapterError::constraint("linkAccount", constraint::ACCOUNT_USER));
        }
        let key = (account.provider.clone(), account.provider_account_id.clone());
        if self.accounts.contains_key(&key) {
            return Err(AdapterError::constraint("linkAccount", constraint::ACCOUNT_PROVIDER));
        }
        self.accounts.insert(key, account.clone());
        Ok(())
    }
}

/// Everything in a `Mutex`: every operation is a few map look-ups, so one
/// lock is simpler than finer ones and makes multi-map writes atomic.
#[derive(Default)]
pub struct MemoryAdapter {
    store: Mutex<Store>,
    sealing: Sealing,
    leases: MemoryLeases,
}

impl MemoryAdapter {
    pub fn new() -> Self {
        Self::default()
    }

    /// An adapter storing accounts' tokens as `sealing` says.
    pub fn with_sealing(sealing: Sealing) -> Self {
        MemoryAdapter { sealing, ..Self::default() }
    }

    /// The store, even if a thread panicked while holding it: every write
    /// below checks before it mutates, so the maps are never half-updated.
    fn store(&self) -> MutexGuard<'_, Store> {
        self.store.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl UserStore for MemoryAdapter {
    fn create_user(&self, user: &NewUser) -> Result<AdapterUser, AdapterError> {
        self.store().insert_user(user)
    }

    fn get_user(&self, id: &str) -> Result<Option<AdapterUser>, AdapterError> {
        Ok(self.store().users.get(id).cloned())
    }

    fn get_user_by_email(&self, email: &str) -> Result<Option<AdapterUser>, AdapterError> {
        let store = self.store();
        Ok(store.user_by_email.get(email).and_then(|id| store.users.get(id)).cloned())
    }

    fn update_user(&self, update: &UserUpdate) -> Result<AdapterUser, AdapterError> {
        let mut store = self.store();
        let Some(current) = store.users.get(&update.id) else {
            return Err(AdapterError::NotFound { operation: "updateUser", what: "user" });
        };
        let updated = update.apply_to(current);
        if updated.email != current.email {
            if let Some(email) = &updated.email {
                if store.user_by_email.get(email).is_some_and(|owner| owner != &updated.id) {
                    return Err(AdapterError::constraint("updateUser", constraint::USER_EMAIL));
                }
            }
            if let Some(old) = current.email.clone() {
                store.user_by_email.remove(&old);
            }
            if let Some(email) = &updated.email {
                store.user_by_email.insert(email.clone(), updated.id.clone());
            }
        }
        store.users.insert(updated.id.clone(), updated.clone());
        Ok(updated)
    }

    fn delete_user(&self, id: &str) -> Result<(), AdapterError> {
        let mut store = self.store();
        if let Some(user) = store.users.remove(id) {
            if let Some(email) = user.email {
                store.user_by_email.remove(&email);
            }
        }
        store.accounts.retain(|_, a| a.user_id != id);
        store.sessions.retain(|_, (s, _)| s.user_id != id);
        store.authenticators.retain(|_, a| a.user_id != id);
        Ok(())
    }

    /// Look-up and insert under one lock: a concurrent call either finds
    /// the row or inserts it, never both.
    fn ensure_user(&self, user: &NewUser) -> Result<Ensured, AdapterError> {
        let mut store = self.store();
        let existing = match (&user.id, &user.email) {
            (Some(id), _) => store.users.get(id).cloned(),
            (None, Some(email)) => store.user_by_email.get(email).and_then(|id| store.users.get(id)).cloned(),
            (None, None) => None,
        };
        match existing {
            Some(user) => Ok(Ensured { user, created: false }),
            None => store.insert_user(user).map(|user| Ensured { user, created: true }),
        }
    }
}

impl AccountStore for MemoryAdapter {
    fn get_user_by_account(
        &self,
        provider: &str,
        provider_account_id: &str,
    ) -> Result<Option<AdapterUser>, AdapterError> {
        let store = self.store();
        let key = (provider.to_owned(), provider_account_id.to_owned());
        Ok(store.accounts.get(&key).and_then(|a| store.users.get(&a.user_id)).cloned())
    }

    fn link_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        let account = self.sealing.seal_account(account)?;
        self.store().insert_account(&account)
    }

    fn get_account(&self, user_id: &str, provider: &str) -> Result<Option<AdapterAccount>, AdapterError> {
        let store = self.store();
        let found = store.accounts.values().find(|a| a.user_id == user_id && a.provider == provider).cloned();
        found.map(|a| self.sealing.open_account(a)).transpose()
    }

    fn update_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        let account = self.sealing.seal_account(account)?;
        let mut store = self.store();
        let key = (account.provider.clone(), account.provider_account_id.clone());
        let stored = store
            .accounts
            .get_mut(&key)
            .filter(|stored| stored.user_id == account.user_id)
            .ok_or(AdapterError::NotFound { operation: "updateAccount", what: "account" })?;
        *stored = account.into_owned();
        Ok(())
    }

    fn unlink_account(&self, provider: &str, provider_account_id: &str) -> Result<(), AdapterError> {
        self.store().accounts.remove(&(provider.to_owned(), provider_account_id.to_owned()));
        Ok(())
    }

    /// Both inserts under one lock, checking the account before creating the
    /// user, so there is nothing to undo.
    fn create_user_and_link_account(
        &self,
        user: &NewUser,
        account: &AdapterAccount,
    ) -> Result<AdapterUser, AdapterError> {
        let account = self.sealing.seal_account(account)?;
        let mut store = self.store();
        if store.accounts.contains_key(&(account.provider.clone(), account.provider_account_id.clone())) {
            return Err(AdapterError::constraint("linkAccount", constraint::ACCOUNT_PROVIDER));
        }
        let created = store.insert_user(user)?;
        store.insert_account(&AdapterAccount { user_id: created.id.clone(), ..account.into_owned() })?;
        Ok(created)
    }

    fn ensure_account_linked(&self, account: &AdapterAccount) -> Result<bool, AdapterError> {
        let account = self.sealing.seal_account(account)?;
        let mut store = self.store();
        let key = (account.provider.clone(), account.provider_account_id.clone());
        match store.accounts.get(&key) {
            Some(linked) if linked.user_id == account.user_id => Ok(false),
            Some(_) => Err(AdapterError::constraint("linkAccount", constraint::ACCOUNT_PROVIDER)),
            None => store.insert_account(&account).map(|()| true),
        }
    }

    fn ensure_user_with_account(&self, user: &NewUser, account: &AdapterAccount) -> Result<Ensured, AdapterError> {
        let account = self.sealing.seal_account(account)?;
        let mut store = self.store();
        let key = (account.provider.clone(), account.provider_account_id.clone());
        if let Some(owner) = store.accounts.get(&key).and_then(|a| store.users.get(&a.user_id)) {
            return Ok(Ensured { user: owner.clone(), created: false });
        }
        let created = store.insert_user(user)?;
        store.insert_account(&AdapterAccount { user_id: created.id.clone(), ..account.into_owned() })?;
        Ok(Ensured { user: created, created: true })
    }
}

impl SessionStore for MemoryAdapter {
    fn create_session(&self, session: &AdapterSession) -> Result<AdapterSession, AdapterError> {
        self.create_session_with_details(session, &SessionDetails::default())
    }

    fn create_session_with_details(
        &self,
        session: &AdapterSession,
        details: &SessionDetails,
    ) -> Result<AdapterSession, AdapterError> {
        let mut store = self.store();
        if !store.users.contains_key(&session.user_id) {
            return Err(AdapterError::constraint("createSession", constraint::SESSION_USER));
        }
        if store.sessions.contains_key(&session.session_token) {
            return Err(AdapterError::constraint("createSession", constraint::SESSION_TOKEN));
        }
        store.sessions.insert(session.session_token.clone(), (session.clone(), details.clone()));
        Ok(session.clone())
    }

    fn get_session(&self, session_token: &str) -> Result<Option<(AdapterSession, Option<AdapterUser>)>, AdapterError> {
        let store = self.store();
        Ok(store
            .sessions
            .get(session_token)
            .and_then(|(s, _)| store.users.get(&s.user_id).map(|u| (s.clone(), Some(u.clone())))))
    }

    fn update_session(&self, session_token: &str, expires: i64) -> Result<Option<AdapterSession>, AdapterError> {
        Ok(self.store().sessions.get_mut(session_token).map(|(s, _)| {
            s.expires = expires;
            s.clone()
        }))
    }

    fn delete_session(&self, session_token: &str) -> Result<Option<AdapterSession>, AdapterError> {
        Ok(self.store().sessions.remove(session_token).map(|(s, _)| s))
    }

    fn delete_user_sessions(&self, user_id: &str) -> Result<u64, AdapterError> {
        let mut store = self.store();
        let before = store.sessions.len();
        store.sessions.retain(|_, (s, _)| s.user_id != user_id);
        Ok((before - store.sessions.len()) as u64)
    }

    fn list_user_sessions(&self, user_id: &str) -> Result<Vec<ListedSession>, AdapterError> {
        Ok(self
            .store()
            .sessions
            .values()
            .filter(|(s, _)| s.user_id == user_id)
            .map(|(s, details)| ListedSession {
                session_token: s.session_token.clone(),
                expires: s.expires,
                details: details.clone(),
            })
            .collect())
    }

    fn delete_expired_sessions(&self, now: i64) -> Result<u64, AdapterError> {
        let mut store = self.store();
        let before = store.sessions.len();
        store.sessions.retain(|_, (s, _)| s.expires >= now);
        store.sign_outs.retain(|_, (_, keep_until)| *keep_until >= now);
        Ok((before - store.sessions.len()) as u64)
    }

    fn keeps_sign_outs(&self) -> bool {
        true
    }

    fn sign_out_before(&self, user_id: &str, before: i64, keep_until: i64) -> Result<(), AdapterError> {
        let mut store = self.store();
        let kept = store.sign_outs.entry(user_id.to_owned()).or_insert((before, keep_until));
        *kept = (kept.0.max(before), kept.1.max(keep_until));
        Ok(())
    }

    fn signed_out_before(&self, user_id: &str) -> Result<Option<i64>, AdapterError> {
        Ok(self.store().sign_outs.get(user_id).map(|(before, _)| *before))
    }
}

impl VerificationStore for MemoryAdapter {
    fn create_verification_token(&self, token: &VerificationToken) -> Result<(), AdapterError> {
        let mut store = self.store();
        let key = (token.identifier.clone(), token.token.clone());
        if store.verification_tokens.contains_key(&key) {
            return Err(AdapterError::constraint("createVerificationToken", constraint::VERIFICATION_TOKEN));
        }
        store.verification_tokens.insert(key, token.clone());
        Ok(())
    }

    fn use_verification_token(&self, identifier: &str, token: &str) -> Result<Option<VerificationToken>, AdapterError> {
        Ok(self.store().verification_tokens.remove(&(identifier.to_owned(), token.to_owned())))
    }

    fn delete_expired_tokens(&self, now: i64) -> Result<u64, AdapterError> {
        let mut store = self.store();
        let before = store.verification_tokens.len();
        store.verification_tokens.retain(|_, t| t.expires >= now);
        Ok((before - store.verification_tokens.len()) as u64)
    }
}

impl PasskeyStore for MemoryAdapter {
    /// The credential id is checked before the user, as the SQL adapters
    /// report it (their primary key fails before the foreign key).
    fn create_authenticator(&self, authenticator: &Authenticator) -> Result<Authenticator, AdapterError> {
        let op = "createAuthenticator";
        let mut store = self.store();
        if store.authenticators.contains_key(&authenticator.credential_id) {
            return Err(AdapterError::constraint(op, constraint::AUTHENTICATOR_ID));
        }
        if !store.users.contains_key(&authenticator.user_id) {
            return Err(AdapterError::constraint(op, constraint::AUTHENTICATOR_USER));
        }
        store.authenticators.insert(authenticator.credential_id.clone(), authenticator.clone());
        Ok(authenticator.clone())
    }

    fn get_authenticator(&self, credential_id: &str) -> Result<Option<Authenticator>, AdapterError> {
        Ok(self.store().authenticators.get(credential_id).cloned())
    }

    fn list_authenticators_by_user_id(&self, user_id: &str) -> Result<Vec<Authenticator>, AdapterError> {
        let store = self.store();
        let mut list: Vec<Authenticator> =
            store.authenticators.values().filter(|a| a.user_id == user_id).cloned().collect();
        // As the SQL adapters order them: by `created_at`, rows without one
        // (written by Auth.js) first, ties by credential id (bytewise).
        list.sort_by(|a, b| (a.created_at, &a.credential_id).cmp(&(b.created_at, &b.credential_id)));
        Ok(list)
    }

    fn update_authenticator_counter(
        &self,
        credential_id: &str,
        counter: u32,
        used_at: i64,
    ) -> Result<Authenticator, AdapterError> {
        let mut store = self.store();
        let stored = store
            .authenticators
            .get_mut(credential_id)
            .ok_or(AdapterError::NotFound { operation: "updateAuthenticatorCounter", what: "authenticator" })?;
        stored.counter = counter;
        stored.last_used_at = Some(used_at);
        Ok(stored.clone())
    }

    fn rename_authenticator(
        &self,
        credential_id: &str,
        name: Option<&str>,
    ) -> Result<Option<Authenticator>, AdapterError> {
        Ok(self.store().authenticators.get_mut(credential_id).map(|stored| {
            stored.name = name.map(str::to_owned);
            stored.clone()
        }))
    }

    fn delete_authenticator(&self, credential_id: &str) -> Result<Option<Authenticator>, AdapterError> {
        Ok(self.store().authenticators.remove(credential_id))
    }
}

impl LeaseStore for MemoryAdapter {
    fn take_lease(&self, name: &str, ttl: Duration) -> Result<bool, AdapterError> {
        self.leases.take_lease(name, ttl)
    }

    fn release_lease(&self, name: &str) -> Result<(), AdapterError> {
        self.leases.release_lease(name)
    }
}

/// Leases held in this process: right for one server process (and the
/// leases of a backend that is itself in-process). At most
/// [`MemoryLeases::CAPACITY`] names are held at once; past it, a new name
/// is refused (`take_lease` is `false`) until one expires, so a flood of
/// names cannot grow memory.
#[derive(Default)]
pub struct MemoryLeases {
    held: Mutex<HashMap<String, Instant>>,
}

impl MemoryLeases {
    pub const CAPACITY: usize = 10_000;

    pub fn new() -> Self {
        Self::default()
    }
}

impl LeaseStore for MemoryLeases {
    fn take_lease(&self, name: &str, ttl: Duration) -> Result<bool, AdapterError> {
        let now = Instant::now();
        let mut held = self.held.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if held.get(name).is_some_and(|until| *until > now) {
            return Ok(false);
        }
        if held.len() >= Self::CAPACITY {
            held.retain(|_, until| *until > now);
            if held.len() >= Self::CAPACITY {
                return Ok(false);
            }
        }
        held.insert(name.to_owned(), now + ttl);
        Ok(true)
    }

    fn release_lease(&self, name: &str) -> Result<(), AdapterError> {
        self.held.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).remove(name);
        Ok(())
    }
}
