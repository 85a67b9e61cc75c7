//! Secondary storage (the `secondaryStorage` option): database sessions and
//! email verification tokens in Redis, with Redis expiring them, while
//! users and accounts stay in the adapter's database.
//!
//! Sessions are the hot, short-lived, write-heavy rows (every session read
//! may extend one); keeping them in Redis takes those writes off the SQL
//! database and lets expiry happen without a purge. Every server process
//! using the same Redis sees the same sessions, so signing out on one is
//! signing out on all.
//!
//! Layout (every key after the configured prefix, `libauth:` by default):
//!
//! | key | type | holds | expires |
//! |---|---|---|---|
//! | `session:<sha256(token)>` | hash | `userId`, `expires` (unix ms) | at `expires` |
//! | `user-sessions:<userId>` | set | the user's session key suffixes | with the user's last session |
//! | `vt:<sha256(identifier, token)>` | string | `expires` | at `expires` |
//!
//! Session tokens are hashed in keys, so a `KEYS`/`MONITOR` listing or a
//! Redis snapshot holds no usable cookie. Every change is one Redis round
//! trip (a command or a Lua script, which Redis runs atomically), and
//! `useVerificationToken` is `GETDEL`: of concurrent uses of one link,
//! exactly one gets it.
//!
//! Differences from the SQL adapters: an expired session or token is gone
//! (Redis expired it) rather than returned for the engine to reject, which
//! the engine treats the same way (no session; an invalid link).

use std::sync::Arc;

use sha2::{Digest, Sha256};

use super::{
    constraint, Adapter, AdapterAccount, AdapterError, AdapterSession, AdapterUser, Authenticator, Ensured, NewUser,
    Purged, UserUpdate, VerificationToken,
};
use crate::redis_pool::{FailureKind, RedisFailure, RedisPool};

const CREATE_SESSION: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'userId', ARGV[1], 'expires', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('SADD', KEYS[2], ARGV[4])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return 1
";

const UPDATE_SESSION: &str = r"
local uid = redis.call('HGET', KEYS[1], 'userId')
if not uid then return false end
redis.call('HSET', KEYS[1], 'expires', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local set = ARGV[3] .. uid
if redis.call('PTTL', set) < tonumber(ARGV[2]) then redis.call('PEXPIRE', set, ARGV[2]) end
return uid
";

const DELETE_SESSION: &str = r"
local v = redis.call('HMGET', KEYS[1], 'userId', 'expires')
if not v[1] then return false end
redis.call('DEL', KEYS[1])
redis.call('SREM', ARGV[1] .. v[1], ARGV[2])
return v
";

const DELETE_USER_SESSIONS: &str = r"
local members = redis.call('SMEMBERS', KEYS[1])
for _, m in ipairs(members) do redis.call('DEL', ARGV[1] .. m) end
redis.call('DEL', KEYS[1])
return #members
";

/// An adapter keeping sessions and verification tokens in Redis; every
/// other call goes to the inner adapter.
pub struct RedisSecondary {
    inner: Arc<dyn Adapter>,
    redis: Arc<RedisPool>,
    create_session: redis::Script,
    update_session: redis::Script,
    delete_session: redis::Script,
    delete_user_sessions: redis::Script,
}

fn hex_sha256(parts: &[&str]) -> String {
    let mut hash = Sha256::new();
    for part in parts {
        // Length-prefixed, so ("ab", "c") and ("a", "bc") differ.
        hash.update((part.len() as u64).to_be_bytes());
        hash.update(part.as_bytes());
    }
    hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

fn failed(operation: &'static str) -> impl Fn(RedisFailure) -> AdapterError {
    move |e| match e.kind {
        FailureKind::Unavailable => AdapterError::unavailable(operation, e.message),
        FailureKind::Overloaded => AdapterError::overloaded(operation, e.message),
        FailureKind::Command => AdapterError::other(operation, e.message),
    }
}

/// Milliseconds from now until `expires`, at least 1 (Redis refuses 0).
fn ttl_until(expires: i64) -> i64 {
    expires.saturating_sub(crate::time::now_millis() as i64).max(1)
}

impl RedisSecondary {
    pub fn new(inner: Arc<dyn Adapter>, redis: Arc<RedisPool>) -> RedisSecondary {
        RedisSecondary {
            inner,
            redis,
            create_session: redis::Script::new(CREATE_SESSION),
            update_session: redis::Script::new(UPDATE_SESSION),
            delete_session: redis::Script::new(DELETE_SESSION),
            delete_user_sessions: redis::Script::new(DELETE_USER_SESSIONS),
        }
    }

    fn session_key(&self, member: &str) -> String {
        self.redis.key(&format!("session:{member}"))
    }

    fn user_set_prefix(&self) -> String {
        self.redis.key("user-sessions:")
    }

    fn token_key(&self, identifier: &str, token: &str) -> String {
        self.redis.key(&format!("vt:{}", hex_sha256(&[identifier, token])))
    }
}

impl Adapter for RedisSecondary {
    fn create_user(&self, user: &NewUser) -> Result<AdapterUser, AdapterError> {
        self.inner.create_user(user)
    }
    fn get_user(&self, id: &str) -> Result<Option<AdapterUser>, AdapterError> {
        self.inner.get_user(id)
    }
    fn get_user_by_email(&self, email: &str) -> Result<Option<AdapterUser>, AdapterError> {
        self.inner.get_user_by_email(email)
    }
    fn get_user_by_account(&self, provider: &str, id: &str) -> Result<Option<AdapterUser>, AdapterError> {
        self.inner.get_user_by_account(provider, id)
    }
    fn update_user(&self, update: &UserUpdate) -> Result<AdapterUser, AdapterError> {
        self.inner.update_user(update)
    }

    /// The user's sessions go first: if the database then fails, the user
    /// is signed out everywhere and still exists, which a retry completes;
    /// the other order could leave sessions of a deleted user.
    fn delete_user(&self, id: &str) -> Result<(), AdapterError> {
        let op = "deleteUser";
        let set = format!("{}{id}", self.user_set_prefix());
        let prefix = self.session_key("");
        self.redis
            .run(|conn| self.delete_user_sessions.key(&set).arg(&prefix).invoke::<i64>(conn))
            .map_err(failed(op))?;
        self.inner.delete_user(id)
    }
    fn link_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        self.inner.link_account(account)
    }
    // The idempotent first sign-in writes go to the inner adapter's own
    // (atomic) versions, not to the trait's defaults built from the calls
    // here.
    fn ensure_user(&self, user: &NewUser) -> Result<Ensured, AdapterError> {
        self.inner.ensure_user(user)
    }
    fn ensure_account_linked(&self, account: &AdapterAccount) -> Result<bool, AdapterError> {
        self.inner.ensure_account_linked(account)
    }
    fn ensure_user_with_account(&self, user: &NewUser, account: &AdapterAccount) -> Result<Ensured, AdapterError> {
        self.inner.ensure_user_with_account(user, account)
    }
    fn unlink_account(&self, provider: &str, id: &str) -> Result<(), AdapterError> {
        self.inner.unlink_account(provider, id)
    }
    fn create_user_and_link_account(
        &self,
        user: &NewUser,
        account: &AdapterAccount,
    ) -> Result<AdapterUser, AdapterError> {
        self.inner.create_user_and_link_account(user, account)
    }

    /// The user must exist (as the SQL adapters' foreign key demands): a
    /// session for nobody would be a sign-in that reads as signed out.
    fn create_session(&self, session: &AdapterSession) -> Result<AdapterSession, AdapterError> {
        let op = "createSession";
        if self.inner.get_user(&session.user_id)?.is_none() {
            return Err(AdapterError::constraint(op, constraint::SESSION_USER));
        }
        let member = hex_sha256(&[&session.session_token]);
        let key = self.session_key(&member);
        let set = format!("{}{}", self.user_set_prefix(), session.user_id);
        let created: i64 = self
            .redis
            .run(|conn| {
                self.create_session
                    .key(&key)
                    .key(&set)
                    .arg(&session.user_id)
                    .arg(session.expires)
                    .arg(ttl_until(session.expires))
                    .arg(&member)
                    .invoke(conn)
            })
            .map_err(failed(op))?;
        if created == 0 {
            return Err(AdapterError::constraint(op, constraint::SESSION_TOKEN));
        }
        Ok(session.clone())
    }

    fn get_session_and_user(&self, token: &str) -> Result<Option<(AdapterSession, AdapterUser)>, AdapterError> {
        let op = "getSessionAndUser";
        let key = self.session_key(&hex_sha256(&[token]));
        let (user_id, expires): (Option<String>, Option<i64>) = self
            .redis
            .run(|conn| redis::cmd("HMGET").arg(&key).arg("userId").arg("expires").query(conn))
            .map_err(failed(op))?;
        let (Some(user_id), Some(expires)) = (user_id, expires) else { return Ok(None) };
        match self.inner.get_user(&user_id)? {
            Some(user) => Ok(Some((AdapterSession { session_token: token.to_owned(), user_id, expires }, user))),
            None => {
                // The user was deleted outside this adapter: the session
                // is of nobody, as a SQL cascade would have made it.
                self.delete_session(token)?;
                Ok(None)
            }
        }
    }

    fn update_session(&self, token: &str, expires: i64) -> Result<Option<AdapterSession>, AdapterError> {
        let op = "updateSession";
        let key = self.session_key(&hex_sha256(&[token]));
        let prefix = self.user_set_prefix();
        let user_id: Option<String> = self
            .redis
            .run(|conn| self.update_session.key(&key).arg(expires).arg(ttl_until(expires)).arg(&prefix).invoke(conn))
            .map_err(failed(op))?;
        Ok(user_id.map(|user_id| AdapterSession { session_token: token.to_owned(), user_id, expires }))
    }

    fn delete_session(&self, token: &str) -> Result<Option<AdapterSession>, AdapterError> {
        let op = "deleteSession";
        let member = hex_sha256(&[token]);
        let key = self.session_key(&member);
        let prefix = self.user_set_prefix();
        let deleted: Option<(String, i64)> = self
            .redis
            .run(|conn| self.delete_session.key(&key).arg(&prefix).arg(&member).invoke(conn))
            .map_err(failed(op))?;
        Ok(deleted.map(|(user_id, expires)| AdapterSession { session_token: token.to_owned(), user_id, expires }))
    }

    fn create_verification_token(&self, token: &VerificationToken) -> Result<(), AdapterError> {
        let op = "createVerificationToken";
        let key = self.token_key(&token.identifier, &token.token);
        let stored: Option<String> = self
            .redis
            .run(|conn| {
                redis::cmd("SET")
                    .arg(&key)
                    .arg(token.expires)
                    .arg("NX")
                    .arg("PX")
                    .arg(ttl_until(token.expires))
                    .query(conn)
            })
            .map_err(failed(op))?;
        match stored {
            Some(_) => Ok(()),
            None => Err(AdapterError::constraint(op, constraint::VERIFICATION_TOKEN)),
        }
    }

    /// `GETDEL`: finding and consuming are one step, so a link works once.
    fn use_verification_token(&self, identifier: &str, token: &str) -> Result<Option<VerificationToken>, AdapterError> {
        let op = "useVerificationToken";
        let key = self.token_key(identifier, token);
        let expires: Option<i64> =
            self.redis.run(|conn| redis::cmd("GETDEL").arg(&key).query(conn)).map_err(failed(op))?;
        Ok(expires.map(|expires| VerificationToken {
            identifier: identifier.to_owned(),
            token: token.to_owned(),
            expires,
        }))
    }

    /// Redis expires sessions and tokens itself; the database may still
    /// hold ones from before secondary storage was turned on.
    fn delete_expired(&self, now: i64) -> Result<Purged, AdapterError> {
        self.inner.delete_expired(now)
    }
    fn get_account(&self, user_id: &str, provider: &str) -> Result<Option<AdapterAccount>, AdapterError> {
        self.inner.get_account(user_id, provider)
    }
    fn update_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        self.inner.update_account(account)
    }
    // Passkeys are long-lived rows that belong with their user: they stay
    // in the database, not in Redis.
    fn create_authenticator(&self, authenticator: &Authenticator) -> Result<Authenticator, AdapterError> {
        self.inner.create_authenticator(authenticator)
    }
    fn get_authenticator(&self, credential_id: &str) -> Result<Option<Authenticator>, AdapterError> {
        self.inner.get_authenticator(credential_id)
    }
    fn list_authenticators_by_user_id(&self, user_id: &str) -> Result<Vec<Authenticator>, AdapterError> {
        self.inner.list_authenticators_by_user_id(user_id)
    }
    fn update_authenticator_counter(
        &self,
        credential_id: &str,
        counter: u32,
        used_at: i64,
    ) -> Result<Authenticator, AdapterError> {
        self.inner.update_authenticator_counter(credential_id, counter, used_at)
    }
    fn rename_authenticator(
        &self,
        credential_id: &str,
        name: Option<&str>,
    ) -> Result<Option<Authenticator>, AdapterError> {
        self.inner.rename_authenticator(credential_id, name)
    }
    fn delete_authenticator(&self, credential_id: &str) -> Result<Option<Authenticator>, AdapterError> {
        self.inner.delete_authenticator(credential_id)
    }
    fn supports(&self, method: &str) -> bool {
        matches!(
            method,
            "createSession"
                | "getSessionAndUser"
                | "updateSession"
                | "deleteSession"
                | "createVerificationToken"
                | "useVerificationToken"
        ) || self.inner.supports(method)
    }
}
