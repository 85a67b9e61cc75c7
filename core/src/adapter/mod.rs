//! Database adapters: where users, linked accounts, database sessions and
//! email verification tokens are stored.
//!
//! [`Adapter`] has the operations of an Auth.js v5 adapter, synchronous (the
//! engine is), with Rust names. Built-in implementations: [`MemoryAdapter`]
//! (tests, prototypes), [`SqliteAdapter`] (one file, the embedded default),
//! [`PostgresAdapter`] (pooled); [`HostAdapter`] forwards every call to host
//! code through the `adapter.<method>` hooks. [`from_config`] builds one from
//! the `adapter` config option.
//!
//! Conventions every implementation follows (the conformance suite in
//! `core/tests/adapters.rs` checks them):
//! - Dates are `i64` unix milliseconds, except `AdapterAccount::expires_at`,
//!   which is in seconds as OAuth token responses have it.
//! - Expired sessions and verification tokens are returned like live ones:
//!   the engine checks `expires` (as Auth.js core does), so it can delete an
//!   expired session and report an expired link as `Verification`.
//! - Deleting a user deletes their accounts and sessions.
//! - Errors never carry tokens, secrets or database key values (a unique
//!   violation names its constraint, not the duplicated value).

mod config;
pub mod date;
pub mod host;
pub mod memory;
pub mod postgres;
pub mod sealed;
pub mod secondary;
pub mod sqlite;
mod sqlite_presence;

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::{AuthError, ErrorType};

pub use config::{from_config, from_config_with_database};
pub use host::HostAdapter;
pub use memory::MemoryAdapter;
pub use postgres::{PostgresAdapter, PostgresOptions};
pub use sqlite::SqliteAdapter;

/// Stable names of the constraints an adapter enforces, as
/// [`AdapterError::Constraint`] reports them. The SQL adapters give their
/// constraints these names, so a database error maps to them directly.
pub mod constraint {
    /// Two users with one id.
    pub const USER_ID: &str = "users_pkey";
    /// Two users with one email address.
    pub const USER_EMAIL: &str = "users_email_key";
    /// One (provider, providerAccountId) linked twice.
    pub const ACCOUNT_PROVIDER: &str = "accounts_provider_account_key";
    /// An account whose `userId` is no user.
    pub const ACCOUNT_USER: &str = "accounts_user_fkey";
    /// Two sessions with one token.
    pub const SESSION_TOKEN: &str = "sessions_pkey";
    /// A session whose `userId` is no user.
    pub const SESSION_USER: &str = "sessions_user_fkey";
    /// One (identifier, token) stored twice.
    pub const VERIFICATION_TOKEN: &str = "verification_tokens_pkey";
    /// One passkey credential id stored twice (for the same user or
    /// another): a credential belongs to one account, ever.
    pub const AUTHENTICATOR_ID: &str = "authenticators_pkey";
    /// A passkey whose `userId` is no user.
    pub const AUTHENTICATOR_USER: &str = "authenticators_user_fkey";
}

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

/// Why an adapter call failed. The message names the operation (by its
/// Auth.js name) and never contains a token, a secret or a stored value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdapterError {
    /// The database could not be reached or the connection was lost. The
    /// same call may succeed later: nothing was written.
    #[error("adapter {operation}: database unavailable ({reason})")]
    Unavailable { operation: &'static str, reason: String },
    /// The database is reachable but every connection this process may
    /// open stayed busy for the whole wait (`connect_timeout`): more
    /// concurrent calls than connections. Nothing was written; the same
    /// call may succeed in a moment. The engine answers it with 503 and
    /// `Retry-After`, and it never opens the circuit breaker (load is not
    /// an outage).
    #[error("adapter {operation}: database busy ({reason})")]
    Overloaded { operation: &'static str, reason: String },
    /// The write would break a unique or foreign-key constraint; `constraint`
    /// is one of the names in [`constraint`] (or the database's own name for
    /// a constraint libauth did not create).
    #[error("adapter {operation}: violates constraint {constraint}")]
    Constraint { operation: &'static str, constraint: String },
    /// The record to change does not exist (`updateUser` of an unknown id).
    #[error("adapter {operation}: no such {what}")]
    NotFound { operation: &'static str, what: &'static str },
    /// Anything else: a schema problem, a host adapter that threw, a result
    /// that does not parse.
    #[error("adapter {operation}: {message}")]
    Other { operation: &'static str, message: String },
}

impl AdapterError {
    pub fn unavailable(operation: &'static str, reason: impl Into<String>) -> Self {
        AdapterError::Unavailable { operation, reason: reason.into() }
    }

    pub fn overloaded(operation: &'static str, reason: impl Into<String>) -> Self {
        AdapterError::Overloaded { operation, reason: reason.into() }
    }

    pub fn constraint(operation: &'static str, constraint: impl Into<String>) -> Self {
        AdapterError::Constraint { operation, constraint: constraint.into() }
    }

    pub fn other(operation: &'static str, message: impl Into<String>) -> Self {
        AdapterError::Other { operation, message: message.into() }
    }

    /// The Auth.js name of the method that failed (`createUser`, …).
    pub fn operation(&self) -> &'static str {
        match self {
            AdapterError::Unavailable { operation, .. }
            | AdapterError::Overloaded { operation, .. }
            | AdapterError::Constraint { operation, .. }
            | AdapterError::NotFound { operation, .. }
            | AdapterError::Other { operation, .. } => operation,
        }
    }

    /// Whether retrying the same call later may succeed.
    pub fn is_retryable(&self) -> bool {
        matches!(self, AdapterError::Unavailable { .. } | AdapterError::Overloaded { .. })
    }

    /// The violated constraint, for a [`AdapterError::Constraint`].
    pub fn violated_constraint(&self) -> Option<&str> {
        match self {
            AdapterError::Constraint { constraint, .. } => Some(constraint),
            _ => None,
        }
    }
}

/// An adapter failure reaching the engine's error handling is Auth.js's
/// `AdapterError`; a busy pool is libauth's `Overloaded` (503 with
/// `Retry-After`, as for `hooks.maxInFlight`), since retrying shortly is
/// the right answer to it.
impl From<AdapterError> for AuthError {
    fn from(e: AdapterError) -> Self {
        let error_type = match e {
            AdapterError::Overloaded { .. } => ErrorType::Overloaded,
            _ => ErrorType::AdapterError,
        };
        AuthError::new(error_type, e.to_string()).with_source(e)
    }
}

/// A stored user (Auth.js `AdapterUser`). `email` is optional because some
/// providers (TikTok) have none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterUser {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    /// When the email address was verified (unix ms); `null` until then.
    #[serde(default, with = "date::option_ms")]
    pub email_verified: Option<i64>,
    #[serde(default)]
    pub image: Option<String>,
}

/// A user to create. Without an `id` the adapter generates one (a UUID);
/// with one (Auth.js v5 core may pass its own) the adapter stores it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewUser {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default, with = "date::option_ms")]
    pub email_verified: Option<i64>,
    #[serde(default)]
    pub image: Option<String>,
}

impl NewUser {
    /// The user this becomes once stored under `id`.
    pub fn with_id(&self, id: String) -> AdapterUser {
        AdapterUser {
            id,
            name: self.name.clone(),
            email: self.email.clone(),
            email_verified: self.email_verified,
            image: self.image.clone(),
        }
    }
}

/// A partial update of a user (Auth.js `updateUser(Partial<AdapterUser> &
/// { id })`): for each field, `None` keeps it, `Some(None)` clears it,
/// `Some(Some(v))` sets it. In JSON, an absent key keeps and `null` clears.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserUpdate {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "patch")]
    pub name: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "patch")]
    pub email: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "date::patch_ms")]
    pub email_verified: Option<Option<i64>>,
    #[serde(default, skip_serializing_if = "Option::is_none", with = "patch")]
    pub image: Option<Option<String>>,
}

impl UserUpdate {
    /// `user` with this update applied.
    pub fn apply_to(&self, user: &AdapterUser) -> AdapterUser {
        AdapterUser {
            id: user.id.clone(),
            name: self.name.clone().unwrap_or_else(|| user.name.clone()),
            email: self.email.clone().unwrap_or_else(|| user.email.clone()),
            email_verified: self.email_verified.unwrap_or(user.email_verified),
            image: self.image.clone().unwrap_or_else(|| user.image.clone()),
        }
    }
}

/// The kind of provider an account links (spec `ProviderType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AccountType {
    #[serde(rename = "oauth")]
    OAuth,
    Oidc,
    Email,
    Credentials,
    /// A passkey's account: `providerAccountId` is the credential id.
    #[serde(rename = "webauthn")]
    WebAuthn,
}

impl AccountType {
    pub fn as_str(self) -> &'static str {
        self.name_ref()
    }

    /// [`AccountType::as_str`] behind a `'static` reference, for the SQL
    /// adapters' parameter arrays (`&dyn ToSql` each).
    pub(crate) fn name_ref(self) -> &'static &'static str {
        match self {
            AccountType::OAuth => &"oauth",
            AccountType::Oidc => &"oidc",
            AccountType::Email => &"email",
            AccountType::Credentials => &"credentials",
            AccountType::WebAuthn => &"webauthn",
        }
    }

    pub fn parse(s: &str) -> Option<AccountType> {
        [Self::OAuth, Self::Oidc, Self::Email, Self::Credentials, Self::WebAuthn].into_iter().find(|t| t.as_str() == s)
    }
}

/// A provider account linked to a user (Auth.js's `AdapterAccount`).
/// Token fields keep their OAuth snake_case names; any other field of the
/// token response (e.g. `expires_in`, `refresh_token_expires_in`) is kept
/// in `extra` and stored as JSON.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct AdapterAccount {
    /// The owner. Ignored by [`Adapter::create_user_and_link_account`],
    /// which fills it in.
    #[serde(rename = "userId", default, skip_serializing_if = "String::is_empty")]
    pub user_id: String,
    #[serde(rename = "type")]
    pub account_type: AccountType,
    pub provider: String,
    #[serde(rename = "providerAccountId")]
    pub provider_account_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// Absolute expiry of the access token, unix seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
    /// Lowercase (`bearer`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id_token: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_state: Option<String>,
    /// Every other field, as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl AdapterAccount {
    /// An account with no tokens.
    pub fn new(account_type: AccountType, provider: &str, provider_account_id: &str) -> Self {
        AdapterAccount {
            user_id: String::new(),
            account_type,
            provider: provider.to_owned(),
            provider_account_id: provider_account_id.to_owned(),
            access_token: None,
            refresh_token: None,
            expires_at: None,
            token_type: None,
            scope: None,
            id_token: None,
            session_state: None,
            extra: Map::new(),
        }
    }
}

/// Tokens are credentials: `Debug` shows whether they are present, never
/// their value, so an account can be logged safely.
impl fmt::Debug for AdapterAccount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdapterAccount")
            .field("user_id", &self.user_id)
            .field("account_type", &self.account_type)
            .field("provider", &self.provider)
            .field("provider_account_id", &self.provider_account_id)
            .field("access_token", &Redacted(&self.access_token))
            .field("refresh_token", &Redacted(&self.refresh_token))
            .field("expires_at", &self.expires_at)
            .field("token_type", &self.token_type)
            .field("scope", &self.scope)
            .field("id_token", &Redacted(&self.id_token))
            .field("session_state", &Redacted(&self.session_state))
            .field("extra", &format_args!("{{{} keys}}", self.extra.len()))
            .finish()
    }
}

/// A passkey: Auth.js's `AdapterAuthenticator`, plus a name the user gives
/// it and when it was created and last used (unix ms; `None` in rows an
/// Auth.js database wrote).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Authenticator {
    /// The credential id, base64url without padding. Unique across users.
    #[serde(rename = "credentialID")]
    pub credential_id: String,
    pub user_id: String,
    /// The linked `webauthn` account's id: the credential id.
    pub provider_account_id: String,
    /// The COSE public key, standard base64 (as Auth.js stores it).
    pub credential_public_key: String,
    /// The signature counter last seen (0 for authenticators without one).
    pub counter: u32,
    /// `singleDevice` or `multiDevice` (backup eligible).
    pub credential_device_type: String,
    pub credential_backed_up: bool,
    /// Comma-separated transports (`internal,hybrid`), as Auth.js stores them.
    #[serde(default)]
    pub transports: Option<String>,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default, with = "date::option_ms")]
    pub created_at: Option<i64>,
    #[serde(default, with = "date::option_ms")]
    pub last_used_at: Option<i64>,
}

/// A database session (Auth.js `AdapterSession`).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterSession {
    pub session_token: String,
    pub user_id: String,
    /// Unix ms.
    #[serde(with = "date::ms")]
    pub expires: i64,
}

impl fmt::Debug for AdapterSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AdapterSession")
            .field("session_token", &Redacted(&Some(())))
            .field("user_id", &self.user_id)
            .field("expires", &self.expires)
            .finish()
    }
}

/// An email sign-in token (Auth.js `VerificationToken`). `identifier` is the
/// email address; `token` is what the adapter stores (the engine stores a
/// hash of the token it mails).
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerificationToken {
    pub identifier: String,
    pub token: String,
    /// Unix ms.
    #[serde(with = "date::ms")]
    pub expires: i64,
}

impl fmt::Debug for VerificationToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerificationToken")
            .field("identifier", &self.identifier)
            .field("token", &Redacted(&Some(())))
            .field("expires", &self.expires)
            .finish()
    }
}

struct Redacted<'a, T>(&'a Option<T>);

impl<T> fmt::Debug for Redacted<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() { "Some([redacted])" } else { "None" })
    }
}

/// What [`Adapter::delete_expired`] removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Purged {
    pub sessions: u64,
    pub verification_tokens: u64,
}

/// The storage behind users, accounts, database sessions and verification
/// tokens: Auth.js's `Adapter`, synchronous. Implementations are shared by
/// every request thread.
pub trait Adapter: Send + Sync {
    /// Store a new user; generates its id unless `user.id` is set.
    /// `Constraint(users_email_key)` when the email is taken.
    fn create_user(&self, user: &NewUser) -> Result<AdapterUser, AdapterError>;

    fn get_user(&self, id: &str) -> Result<Option<AdapterUser>, AdapterError>;

    /// Exact match on the stored address (the engine normalises emails).
    fn get_user_by_email(&self, email: &str) -> Result<Option<AdapterUser>, AdapterError>;

    /// The user who linked this provider account.
    fn get_user_by_account(
        &self,
        provider: &str,
        provider_account_id: &str,
    ) -> Result<Option<AdapterUser>, AdapterError>;

    /// Change the given fields; returns the whole updated user.
    /// `NotFound` for an unknown id.
    fn update_user(&self, update: &UserUpdate) -> Result<AdapterUser, AdapterError>;

    /// Delete the user with their accounts and sessions. Deleting an unknown
    /// id is not an error.
    fn delete_user(&self, id: &str) -> Result<(), AdapterError>;

    /// `Constraint(accounts_provider_account_key)` when this provider account
    /// is linked already; `Constraint(accounts_user_fkey)` for an unknown user.
    fn link_account(&self, account: &AdapterAccount) -> Result<(), AdapterError>;

    /// Unlinking an account that is not linked is not an error.
    fn unlink_account(&self, provider: &str, provider_account_id: &str) -> Result<(), AdapterError>;

    /// Create a user and link `account` to it, atomically: if the link fails
    /// (e.g. the account is linked already) no user is left behind.
    /// `account.user_id` is ignored.
    ///
    /// The default creates, links, and deletes the user again if linking
    /// fails; SQL adapters override it with one transaction.
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
    /// failure may be the conflict); the built-in adapters insert with
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

    /// Idempotent `linkAccount`: link the account to `account.user_id`, or
    /// do nothing when it is linked to that user already (a concurrent
    /// sign-in linked it first). `Ok(true)` when this call linked it.
    /// Linked to another user: `Constraint(accounts_provider_account_key)`,
    /// as [`Adapter::link_account`].
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

    /// Idempotent [`Adapter::create_user_and_link_account`], for an OAuth
    /// first sign-in: create the user and link the account atomically, or,
    /// when the account is linked already (a concurrent first sign-in of
    /// the same account won), return the user it is linked to with
    /// `created: false` and leave nothing behind. Any other conflict (the
    /// email belongs to a user without this account) is the error
    /// `create_user_and_link_account` gives.
    ///
    /// The default runs `create_user_and_link_account` and on a failure
    /// other than `Unavailable` looks the account up, a few times over
    /// about 200 ms: a host adapter's racer creates its user and links its
    /// account in two calls, so the account may appear a moment after the
    /// conflict. The built-in adapters need no second look.
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

    /// `Constraint(sessions_pkey)` for a token in use,
    /// `Constraint(sessions_user_fkey)` for an unknown user.
    fn create_session(&self, session: &AdapterSession) -> Result<AdapterSession, AdapterError>;

    /// The session and its user, expired or not.
    fn get_session_and_user(&self, session_token: &str) -> Result<Option<(AdapterSession, AdapterUser)>, AdapterError>;

    /// Set a new expiry (unix ms); `None` when there is no such session.
    fn update_session(&self, session_token: &str, expires: i64) -> Result<Option<AdapterSession>, AdapterError>;

    /// Delete and return the session; `None` when there was none.
    fn delete_session(&self, session_token: &str) -> Result<Option<AdapterSession>, AdapterError>;

    fn create_verification_token(&self, token: &VerificationToken) -> Result<(), AdapterError>;

    /// Delete and return the token, atomically: of concurrent calls with the
    /// same token exactly one gets it. Expired tokens are returned too (the
    /// engine checks `expires`), and consumed, so a link works at most once.
    fn use_verification_token(&self, identifier: &str, token: &str) -> Result<Option<VerificationToken>, AdapterError>;

    /// Delete every session and verification token that expired before
    /// `now` (unix ms). Built-in adapters implement it; a host adapter
    /// purges its own store, so the default deletes nothing.
    fn delete_expired(&self, now: i64) -> Result<Purged, AdapterError> {
        let _ = now;
        Ok(Purged::default())
    }

    /// The account `user_id` linked with `provider`, tokens included (one
    /// of them if there are several). Not part of Auth.js's
    /// adapter interface: the built-in adapters implement it, the default
    /// says the adapter cannot.
    fn get_account(&self, user_id: &str, provider: &str) -> Result<Option<AdapterAccount>, AdapterError> {
        let _ = (user_id, provider);
        Err(AdapterError::other("getAccount", "this adapter cannot read accounts"))
    }

    /// Store new tokens for a linked account (after a refresh): every field
    /// but the keys (`provider`, `provider_account_id`) and `user_id` is
    /// replaced. `NotFound` when the account is not linked to
    /// `account.user_id`. Built-in adapters only, as [`Adapter::get_account`].
    fn update_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        let _ = account;
        Err(AdapterError::other("updateAccount", "this adapter cannot update accounts"))
    }

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

    /// Whether the method (by its Auth.js name, see [`METHODS`]) is
    /// implemented. Built-in adapters implement all of them; a host adapter
    /// may lack the optional ones (e.g. verification tokens when there is no
    /// email provider), which the engine checks when it is built.
    fn supports(&self, method: &str) -> bool {
        METHODS.contains(&method) || AUTHENTICATOR_METHODS.contains(&method)
    }
}

/// What an idempotent write ([`Adapter::ensure_user`],
/// [`Adapter::ensure_user_with_account`]) resolved to: the stored user, and
/// whether this call created it (`false`: a concurrent call, or an earlier
/// one, stored it first, and this is that row).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ensured {
    pub user: AdapterUser,
    pub created: bool,
}

/// How often the default idempotent writes look for a concurrent writer's
/// row before giving up, and how long they wait between looks. Only the
/// default (host adapter) implementations need it: there a racer's user and
/// its account are two host calls, so for a moment the user exists and the
/// account does not. The built-in adapters resolve a conflict atomically.
const WINNER_LOOKUPS: [std::time::Duration; 4] = [
    std::time::Duration::ZERO,
    std::time::Duration::from_millis(10),
    std::time::Duration::from_millis(40),
    std::time::Duration::from_millis(150),
];

/// `#[serde(default, skip_serializing_if = "Option::is_none", with = "patch")]`
/// for any other field of a partial update: absent = keep, `null` = clear.
mod patch {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer, T: Serialize>(change: &Option<Option<T>>, s: S) -> Result<S::Ok, S::Error> {
        match change {
            Some(value) => value.serialize(s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
        Option::<T>::deserialize(d).map(Some)
    }
}

fn no_passkeys(operation: &'static str) -> AdapterError {
    AdapterError::other(operation, "this adapter cannot store passkeys")
}

/// A new user id: a random UUID, as Auth.js generates.
pub(crate) fn new_user_id() -> String {
    uuid::Uuid::new_v4().to_string()
}
