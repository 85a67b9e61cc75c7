//! Why a store call failed: [`AdapterError`], named for Auth.js's error
//! class, with the constraint names the SQL backends give their keys.

use crate::error::{AuthError, ErrorType};

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
