//! Storage: where users, linked accounts, database sessions, email
//! verification tokens, passkeys, refresh leases and rate-limit counts live.
//!
//! **Narrow stores.** Each kind of record has a trait of its own:
//! [`UserStore`], [`AccountStore`] (accounts belong to users, so it extends
//! `UserStore`), [`SessionStore`], [`VerificationStore`], [`LeaseStore`]
//! (named, expiring leases: one process refreshes an access token while the
//! others wait), [`PasskeyStore`] and [`CounterStore`] (rate-limit counts).
//! A new kind of record is one new trait, or one new method, in one place.
//!
//! **Backends.** Each backend implements the stores it serves and owns its
//! whole schema:
//!
//! | backend | serves | schema |
//! |---|---|---|
//! | [`MemoryAdapter`] (tests, prototypes) | users, accounts, sessions, tokens, passkeys, leases | maps |
//! | [`SqliteAdapter`] (one file, the embedded default) | all seven | numbered migrations ([`sqlite::MIGRATIONS`]) |
//! | [`PostgresAdapter`] (pooled) | all seven | numbered migrations ([`postgres::MIGRATIONS`]) |
//! | [`RedisStore`] (`secondaryStorage`, `rateLimit.store`) | sessions, tokens, leases, counters | keys with expiries |
//! | [`MemoryCounters`] (the default counter store) | counters | a bounded map |
//! | [`HostAdapter`] (Node, Python or C code) | users, accounts, sessions, tokens, passkeys | the host's |
//!
//! **The Auth.js contract.** An adapter written in Node, Python or C has
//! Auth.js's method names (`createUser`, `getSessionAndUser`, …); the one
//! module [`host`] maps them onto the stores. [`Adapter`] names the whole
//! of that contract in Rust: every backend serving users, accounts,
//! sessions, tokens and passkeys is one, and the shared conformance suite
//! (`core/tests/adapters.rs`) runs against each through it.
//!
//! **Composition.** [`Stores`] is built once from the config
//! ([`Stores::from_config`]): which backend serves sessions and tokens (the
//! adapter, or Redis with `secondaryStorage`), which serves counters and
//! leases, and whether account tokens are sealed (`encryptTokens`, applied
//! by the backends that store accounts, see [`sealing`]). Nothing forwards
//! one store to another.
//!
//! Conventions every backend follows (the conformance suite checks them):
//! - Expired sessions and verification tokens may be returned like live
//!   ones: the engine checks `expires` (as Auth.js core does), so it can
//!   delete an expired session and report an expired link as
//!   `Verification`.
//! - Deleting a user deletes their accounts, sessions and passkeys.
//! - Errors never carry tokens, secrets or database key values (a unique
//!   violation names its constraint, not the duplicated value).

mod config;
pub mod counters;
pub mod date;
mod errors;
pub mod host;
pub mod memory;
pub mod migrations;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod postgres_options;
mod records;
#[cfg(feature = "redis")]
pub mod redis;
pub mod redis_options;
pub mod sealing;
pub mod sqlite;
mod stores;

use std::time::Duration;

pub use config::{from_config, AdapterOptions, StoresConfig};
pub use counters::{window_of, CounterStore, MemoryCounters, StoreError, WindowCount};
pub use errors::{constraint, AdapterError};
pub use host::HostAdapter;
pub use memory::{MemoryAdapter, MemoryLeases};
#[cfg(feature = "postgres")]
pub use postgres::PostgresAdapter;
pub use postgres_options::PostgresOptions;
pub(crate) use records::new_user_id;
pub use records::{
    AccountType, AdapterAccount, AdapterSession, AdapterUser, Authenticator, Ensured, ListedSession, NewUser, Purged,
    SessionDetails, UserUpdate, VerificationToken,
};
#[cfg(feature = "redis")]
pub use redis::RedisStore;
pub use sealing::Sealing;
pub use sqlite::SqliteAdapter;
pub use stores::{DataStores, Stores};

/// The adapter methods, by their Auth.js names (also the hook names of a
/// host adapter, after `adapter.`).
pub const METHODS: [&str; 14] = [
    "createUser",
    "getUser",
    "getUserByEmail",
    "getUserByAccount",
    "updateUser",
    "deleteUser",
    "linkAccount",
    "unlinkAccount",
    "createSession",
    "getSessionAndUser",
    "updateSession",
    "deleteSession",
    "createVerificationToken",
    "useVerificationToken",
];

/// libauth's own account methods of a host adapter (Auth.js's adapter has
/// neither): `getUserAccount({ userId, provider })` answers the account
/// `userId` linked with `provider` (tokens and extra fields included) or
/// null; `updateAccount(account)` stores an account's new fields (refreshed
/// tokens, a new password hash). The password provider needs both; reading
/// and refreshing provider tokens uses them when present.
pub const ACCOUNT_METHODS: [&str; 2] = ["getUserAccount", "updateAccount"];

/// The passkey methods (Auth.js's authenticator methods, then libauth's
/// management methods). A host adapter needs the first four when a
/// `webauthn` provider is configured; without the last two, renaming and
/// deleting passkeys answer that the adapter cannot.
pub const AUTHENTICATOR_METHODS: [&str; 6] = [
    "getAuthenticator",
    "createAuthenticator",
    "listAuthenticatorsByUserId",
    "updateAuthenticatorCounter",
    "renameAuthenticator",
    "deleteAuthenticator",
];

/// Users. Implementations are shared by every request thread.
pub trait UserStore: Send + Sync {
    /// Store a new user; generates its id unless `user.id` is set.
    /// `Constraint(users_email_key)` when the email is taken.
    fn create_user(&self, user: &NewUser) -> Result<AdapterUser, AdapterError>;

    fn get_user(&self, id: &str) -> Result<Option<AdapterUser>, AdapterError>;

    /// Exact match on the stored address (the engine normalises emails).
    fn get_user_by_email(&self, email: &str) -> Result<Option<AdapterUser>, AdapterError>;

    /// Change the given fields; returns the whole updated user.
    /// `NotFound` for an unknown id.
    fn update_user(&self, update: &UserUpdate) -> Result<AdapterUser, AdapterError>;

    /// Delete the user with their accounts, passkeys and the sessions this
    /// backend stores. Deleting an unknown id is not an error.
    fn delete_user(&self, id: &str) -> Result<(), AdapterError>;

    /// Idempotent `createUser`, for a first sign-in that may run several
    /// times at once (two tabs, a double submit, several worker processes):
    /// store the user, or, when a user with its key exists already (stored
    /// by a concurrent call a moment earlier), return that row with
    /// `created: false`. The key is `user.id` when set, else `user.email`
    /// (a user with neither is always created). A conflict on the other
    /// unique column is still `Constraint`: an id whose email belongs to
    /// another user is not that user.
    ///
    /// The default creates, and on a failure other than `Unavailable`
    /// looks the key up (a host adapter's exception is opaque, so any
    /// failure may be the conflict); the built-in backends insert with
    /// `ON CONFLICT DO NOTHING` and read the winner's row.
    fn ensure_user(&self, user: &NewUser) -> Result<Ensured, AdapterError> {
        let error = match self.create_user(user) {
            Ok(created) => return Ok(Ensured { user: created, created: true }),
            Err(e) if e.is_retryable() => return Err(e),
            Err(e) => e,
        };
        let existing = match (&user.id, &user.email) {
            (Some(id), _) => self.get_user(id)?,
            (None, Some(email)) => self.get_user_by_email(email)?,
            (None, None) => None,
        };
        existing.map(|user| Ensured { user, created: false }).ok_or(error)
    }
}

/// Provider accounts linked to users. Accounts live beside their users
/// (one backend serves both), so the writes that touch both are atomic
/// where the backend can make them so. A backend storing accounts seals
/// their tokens with its [`Sealing`] on the way in and opens them on the
/// way out.
pub trait AccountStore: UserStore {
    /// The user who linked this provider account.
    fn get_user_by_account(
        &self,
        provider: &str,
        provider_account_id: &str,
    ) -> Result<Option<AdapterUser>, AdapterError>;

    /// `Constraint(accounts_provider_account_key)` when this provider account
    /// is linked already; `Constraint(accounts_user_fkey)` for an unknown user.
    fn link_account(&self, account: &AdapterAccount) -> Result<(), AdapterError>;

    /// Unlinking an account that is not linked is not an error.
    fn unlink_account(&self, provider: &str, provider_account_id: &str) -> Result<(), AdapterError>;

    /// The account `user_id` linked with `provider`, tokens included (one
    /// of them if there are several). Not part of Auth.js's adapter
    /// interface: the built-in backends implement it, the default says the
    /// store cannot.
    fn get_account(&self, user_id: &str, provider: &str) -> Result<Option<AdapterAccount>, AdapterError> {
        let _ = (user_id, provider);
        Err(AdapterError::other("getAccount", "this adapter cannot read accounts"))
    }

    /// Store new tokens for a linked account (after a refresh): every field
    /// but the keys (`provider`, `provider_account_id`) and `user_id` is
    /// replaced. `NotFound` when the account is not linked to
    /// `account.user_id`. Built-in backends only, as
    /// [`AccountStore::get_account`].
    fn update_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        let _ = account;
        Err(AdapterError::other("updateAccount", "this adapter cannot update accounts"))
    }

    /// Create a user and link `account` to it, atomically: if the link fails
    /// (e.g. the account is linked already) no user is left behind.
    /// `account.user_id` is ignored.
    ///
    /// The default creates, links, and deletes the user again if linking
    /// fails; SQL backends override it with one transaction.
    fn create_user_and_link_account(
        &self,
        user: &NewUser,
        account: &AdapterAccount,
    ) -> Result<AdapterUser, AdapterError> {
        let created = self.create_user(user)?;
        let linked = AdapterAccount { user_id: created.id.clone(), ..account.clone() };
        match self.link_account(&linked) {
            Ok(()) => Ok(created),
            Err(link_error) => match self.delete_user(&created.id) {
                Ok(()) => Err(link_error),
                // Say so: the caller must know a user may be left behind.
                Err(delete_error) => Err(AdapterError::other(
                    "linkAccount",
                    format!("{link_error}; removing the user created for it also failed: {delete_error}"),
                )),
            },
        }
    }

    /// Idempotent `linkAccount`: link the account to `account.user_id`, or
    /// do nothing when it is linked to that user already (a concurrent
    /// sign-in linked it first). `Ok(true)` when this call linked it.
    /// Linked to another user: `Constraint(accounts_provider_account_key)`,
    /// as [`AccountStore::link_account`].
    fn ensure_account_linked(&self, account: &AdapterAccount) -> Result<bool, AdapterError> {
        let error = match self.link_account(account) {
            Ok(()) => return Ok(true),
            Err(e) if e.is_retryable() => return Err(e),
            Err(e) => e,
        };
        match self.get_user_by_account(&account.provider, &account.provider_account_id)? {
            Some(owner) if owner.id == account.user_id => Ok(false),
            _ => Err(error),
        }
    }

    /// Idempotent [`AccountStore::create_user_and_link_account`], for an
    /// OAuth first sign-in: create the user and link the account
    /// atomically, or, when the account is linked already (a concurrent
    /// first sign-in of the same account won), return the user it is
    /// linked to with `created: false` and leave nothing behind. Any other
    /// conflict (the email belongs to a user without this account) is the
    /// error `create_user_and_link_account` gives.
    ///
    /// The default runs `create_user_and_link_account` and on a failure
    /// other than `Unavailable` looks the account up, a few times over
    /// about 200 ms: a host adapter's racer creates its user and links its
    /// account in two calls, so the account may appear a moment after the
    /// conflict. The built-in backends need no second look.
    fn ensure_user_with_account(&self, user: &NewUser, account: &AdapterAccount) -> Result<Ensured, AdapterError> {
        let error = match self.create_user_and_link_account(user, account) {
            Ok(created) => return Ok(Ensured { user: created, created: true }),
            Err(e) if e.is_retryable() => return Err(e),
            Err(e) => e,
        };
        for pause in WINNER_LOOKUPS {
            std::thread::sleep(pause);
            if let Some(owner) = self.get_user_by_account(&account.provider, &account.provider_account_id)? {
                return Ok(Ensured { user: owner, created: false });
            }
        }
        Err(error)
    }
}

/// How often the default idempotent writes look for a concurrent writer's
/// row before giving up, and how long they wait between looks. Only the
/// default (host adapter) implementations need it: there a racer's user and
/// its account are two host calls, so for a moment the user exists and the
/// account does not. The built-in backends resolve a conflict atomically.
const WINNER_LOOKUPS: [Duration; 4] =
    [Duration::ZERO, Duration::from_millis(10), Duration::from_millis(40), Duration::from_millis(150)];

/// Database sessions.
pub trait SessionStore: Send + Sync {
    /// `Constraint(sessions_pkey)` for a token in use,
    /// `Constraint(sessions_user_fkey)` for an unknown user.
    fn create_session(&self, session: &AdapterSession) -> Result<AdapterSession, AdapterError>;

    /// [`SessionStore::create_session`], recording where the session was
    /// made for its owner's list. A store that cannot record them (a host
    /// adapter, Auth.js's interface has no such fields) drops them.
    fn create_session_with_details(
        &self,
        session: &AdapterSession,
        details: &SessionDetails,
    ) -> Result<AdapterSession, AdapterError> {
        let _ = details;
        self.create_session(session)
    }

    /// Every session of `user_id`, expired or not, in no set order. Not in
    /// Auth.js's interface: the built-in backends implement it, the default
    /// says the store cannot.
    fn list_user_sessions(&self, user_id: &str) -> Result<Vec<ListedSession>, AdapterError> {
        let _ = user_id;
        Err(AdapterError::other("listUserSessions", "this adapter cannot list a user's sessions"))
    }

    /// The session, expired or not, with its user when this backend stores
    /// users too (one read: a join, or a host's `getSessionAndUser`);
    /// `None` for the user when it does not (Redis), and the caller reads
    /// the user from the user store ([`DataStores::session_and_user`]).
    fn get_session(&self, session_token: &str) -> Result<Option<(AdapterSession, Option<AdapterUser>)>, AdapterError>;

    /// Set a new expiry (unix ms); `None` when there is no such session.
    fn update_session(&self, session_token: &str, expires: i64) -> Result<Option<AdapterSession>, AdapterError>;

    /// Delete and return the session; `None` when there was none.
    fn delete_session(&self, session_token: &str) -> Result<Option<AdapterSession>, AdapterError>;

    /// Delete every session of `user_id`; returns how many there were. Not
    /// in Auth.js's interface: the built-in backends implement it, the
    /// default says the store cannot.
    fn delete_user_sessions(&self, user_id: &str) -> Result<u64, AdapterError> {
        let _ = user_id;
        Err(AdapterError::other("deleteUserSessions", "this adapter cannot list a user's sessions"))
    }

    /// Delete the sessions that expired before `now` (unix ms), and the
    /// sign-out times kept until before `now`. A host adapter purges its
    /// own store, so the default deletes nothing.
    fn delete_expired_sessions(&self, now: i64) -> Result<u64, AdapterError> {
        let _ = now;
        Ok(0)
    }

    /// Whether this store keeps sign-out times
    /// ([`SessionStore::sign_out_before`]): the built-in backends do; a
    /// host adapter (Auth.js's interface has no such record) does not.
    fn keeps_sign_outs(&self) -> bool {
        false
    }

    /// Record that every session `user_id` signed in to before `before`
    /// (unix ms) is over: JWT sessions, which no store holds, end by this
    /// record (see [`crate::sign_outs`]). A later time than the one kept
    /// replaces it, an earlier one changes nothing. Kept until
    /// `keep_until` (unix ms), when no session signed in before it can be
    /// unexpired any more.
    fn sign_out_before(&self, user_id: &str, before: i64, keep_until: i64) -> Result<(), AdapterError> {
        let _ = (user_id, before, keep_until);
        Err(AdapterError::other("signOutBefore", "this adapter cannot keep when a user's sessions were ended"))
    }

    /// The time [`SessionStore::sign_out_before`] kept for `user_id`
    /// (unix ms), if any.
    fn signed_out_before(&self, user_id: &str) -> Result<Option<i64>, AdapterError> {
        let _ = user_id;
        Err(AdapterError::other("signedOutBefore", "this adapter cannot keep when a user's sessions were ended"))
    }
}

/// Email sign-in tokens.
pub trait VerificationStore: Send + Sync {
    fn create_verification_token(&self, token: &VerificationToken) -> Result<(), AdapterError>;

    /// Delete and return the token, atomically: of concurrent calls with the
    /// same token exactly one gets it. Expired tokens are returned too (the
    /// engine checks `expires`), and consumed, so a link works at most once.
    fn use_verification_token(&self, identifier: &str, token: &str) -> Result<Option<VerificationToken>, AdapterError>;

    /// Delete the tokens that expired before `now` (unix ms). A host
    /// adapter purges its own store, so the default deletes nothing.
    fn delete_expired_tokens(&self, now: i64) -> Result<u64, AdapterError> {
        let _ = now;
        Ok(0)
    }
}

/// Named leases that expire on their own: of the processes sharing a
/// backend, one holds a name at a time (the access-token refresh of one
/// account, see [`crate::tokens`]).
pub trait LeaseStore: Send + Sync {
    /// Take `name` for `ttl`: `true` when this call took it, `false` while
    /// someone else holds it. A lease held past its `ttl` is free again, so
    /// a crashed holder blocks the others for `ttl` at most.
    fn take_lease(&self, name: &str, ttl: Duration) -> Result<bool, AdapterError>;

    /// Free `name` before its `ttl` ends. Freeing a free name is not an error.
    fn release_lease(&self, name: &str) -> Result<(), AdapterError>;
}

/// Passkeys (Auth.js's authenticators). The defaults say the store cannot:
/// a host adapter without the authenticator methods.
pub trait PasskeyStore: Send + Sync {
    /// Store a new passkey. `Constraint(authenticators_pkey)` when the
    /// credential id is stored already (whoever owns it),
    /// `Constraint(authenticators_user_fkey)` for an unknown user.
    fn create_authenticator(&self, authenticator: &Authenticator) -> Result<Authenticator, AdapterError> {
        let _ = authenticator;
        Err(no_passkeys("createAuthenticator"))
    }

    /// The passkey with this credential id.
    fn get_authenticator(&self, credential_id: &str) -> Result<Option<Authenticator>, AdapterError> {
        let _ = credential_id;
        Err(no_passkeys("getAuthenticator"))
    }

    /// A user's passkeys, oldest first.
    fn list_authenticators_by_user_id(&self, user_id: &str) -> Result<Vec<Authenticator>, AdapterError> {
        let _ = user_id;
        Err(no_passkeys("listAuthenticatorsByUserId"))
    }

    /// Record a successful use: the new signature counter and when
    /// (`used_at`, unix ms). `NotFound` for an unknown credential id.
    fn update_authenticator_counter(
        &self,
        credential_id: &str,
        counter: u32,
        used_at: i64,
    ) -> Result<Authenticator, AdapterError> {
        let _ = (credential_id, counter, used_at);
        Err(no_passkeys("updateAuthenticatorCounter"))
    }

    /// Set (or with `None` clear) a passkey's name; `None` when there is no
    /// such passkey.
    fn rename_authenticator(
        &self,
        credential_id: &str,
        name: Option<&str>,
    ) -> Result<Option<Authenticator>, AdapterError> {
        let _ = (credential_id, name);
        Err(no_passkeys("renameAuthenticator"))
    }

    /// Delete and return a passkey; `None` when there was none. The
    /// `webauthn` account linked with it is the engine's to unlink.
    fn delete_authenticator(&self, credential_id: &str) -> Result<Option<Authenticator>, AdapterError> {
        let _ = credential_id;
        Err(no_passkeys("deleteAuthenticator"))
    }
}

fn no_passkeys(operation: &'static str) -> AdapterError {
    AdapterError::other(operation, "this adapter cannot store passkeys")
}

/// Auth.js's `Adapter` as one Rust value: a backend serving users,
/// accounts, sessions, verification tokens and passkeys. Every such
/// backend is one (a blanket implementation); the engine itself composes
/// [`Stores`] from the narrow traits instead.
pub trait Adapter: AccountStore + SessionStore + VerificationStore + PasskeyStore {
    /// The session and its user (Auth.js's `getSessionAndUser`), expired
    /// or not.
    fn get_session_and_user(&self, session_token: &str) -> Result<Option<(AdapterSession, AdapterUser)>, AdapterError> {
        match self.get_session(session_token)? {
            None => Ok(None),
            Some((session, Some(user))) => Ok(Some((session, user))),
            Some((session, None)) => Ok(self.get_user(&session.user_id)?.map(|user| (session, user))),
        }
    }

    /// Delete every session and verification token that expired before
    /// `now` (unix ms).
    fn delete_expired(&self, now: i64) -> Result<Purged, AdapterError> {
        Ok(Purged {
            sessions: self.delete_expired_sessions(now)?,
            verification_tokens: self.delete_expired_tokens(now)?,
        })
    }
}

impl<T: AccountStore + SessionStore + VerificationStore + PasskeyStore + ?Sized> Adapter for T {}

/// The store traits, for code that calls a backend's methods directly
/// (`use libauth_core::store::prelude::*;`).
pub mod prelude {
    pub use super::{
        AccountStore, Adapter, CounterStore, LeaseStore, PasskeyStore, SessionStore, UserStore, VerificationStore,
    };
}
