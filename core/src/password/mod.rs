//! Password hashing for email + password accounts: hashing new passwords
//! (Argon2id), verifying the hashes other systems left behind (bcrypt,
//! Django's PBKDF2, Better Auth's scrypt, any Argon2 PHC string), the
//! password policy (NFKC normalisation, length limits, a host's refusal),
//! and the bounded executor that keeps hashing from exhausting a server.
//!
//! - [`PasswordHasher`] (`hash.rs`): [`PasswordHasher::hash`] makes an
//!   Argon2id PHC string with the configured [`Argon2Params`] (OWASP's by
//!   default); [`PasswordHasher::verify`] answers [`Verified`] for any stored
//!   hash, with `needs_rehash` set when the hash should be replaced by a new
//!   one at this sign-in; [`PasswordHasher::verify_dummy`] costs what a wrong
//!   password costs, for a sign-in whose account does not exist.
//! - [`PasswordPolicy`] (`policy.rs`): what a new password must satisfy,
//!   refused with a [`PasswordRefused`].
//! - [`HashPool`] (`pool.rs`): at most N hashing jobs at once and a bounded
//!   queue behind them; past it [`Busy`] at once (a 503 with `Retry-After`).
//!
//! `docs/passwords.md` describes the formats, defaults and limits for
//! library users.

mod hash;
mod policy;
mod pool;

pub use hash::{
    Argon2Params, HashError, PasswordHasher, Verified, MAX_ARGON2_ITERATIONS, MAX_ARGON2_PARALLELISM, MAX_BCRYPT_COST,
    MAX_PASSWORD_BYTES, MAX_PBKDF2_ITERATIONS, MIN_IMPORTED_ARGON2_MEMORY_CAP_KIB,
};
pub use policy::{normalize, PasswordPolicy, PasswordRefused, RefusalReason, MAX_POLICY_LENGTH};
pub use pool::{Busy, HashPool, PoolLimits};
