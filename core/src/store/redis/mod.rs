//! The Redis backend: database sessions and email verification tokens
//! (the `secondaryStorage` option), rate-limit counts (`rateLimit.store:
//! { type: "redis" }`, see `counters`) and leases, with Redis expiring them,
//! while users, accounts and passkeys stay in the adapter's database.
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
//! | `session:<sha256(token)>` | hash | `userId`, `expires` (unix ms), `token`, and where it was made: `createdAt`, `userAgent`, `ip` | at `expires` |
//! | `user-sessions:<userId>` | set | the user's session key suffixes | with the user's last session |
//! | `sign-out:<userId>` | string | sessions signed in before this (unix ms) are over | when none can be unexpired |
//! | `vt:<sha256(identifier, token)>` | string | `expires` | at `expires` |
//! | `lease:<name>` | string | `1` | after the lease's ttl |
//! | `rl:<window ms>:<window number>:<key>` | string | the count | after its window |
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
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::{
    constraint, AdapterError, AdapterSession, AdapterUser, LeaseStore, ListedSession, SessionDetails, SessionStore,
    VerificationStore, VerificationToken,
};
pub use pool::{FailureKind, RedisFailure, RedisOptions, RedisPool};

mod counters;
pub mod pool;

const CREATE_SESSION: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'userId', ARGV[1], 'expires', ARGV[2], 'token', ARGV[5])
if ARGV[6] ~= '' then redis.call('HSET', KEYS[1], 'createdAt', ARGV[6]) end
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'userAgent', ARGV[7]) end
if ARGV[8] ~= '' then redis.call('HSET', KEYS[1], 'ip', ARGV[8]) end
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

/// Keep the later of the stored and the new sign-out time, and the later
/// expiry: two processes ending one user's sessions, in either order.
const SIGN_OUT_BEFORE: &str = r"
local kept = tonumber(redis.call('GET', KEYS[1]))
if kept and kept >= tonumber(ARGV[1]) then
  if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
";

const DELETE_USER_SESSIONS: &str = r"
local members = redis.call('SMEMBERS', KEYS[1])
for _, m in ipairs(members) do redis.call('DEL', ARGV[1] .. m) end
redis.call('DEL', KEYS[1])
return #members
";

/// Sessions, verification tokens, leases and counts in Redis, on one pool.
pub struct RedisStore {
    pool: Arc<RedisPool>,
    create_session: redis::Script,
    update_session: redis::Script,
    delete_session: redis::Script,
    delete_user_sessions: redis::Script,
    sign_out_before: redis::Script,
    consume: redis::Script,
    refund: redis::Script,
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

impl RedisStore {
    pub fn new(pool: Arc<RedisPool>) -> RedisStore {
        RedisStore {
            pool,
            create_session: redis::Script::new(CREATE_SESSION),
            update_session: redis::Script::new(UPDATE_SESSION),
            delete_session: redis::Script::new(DELETE_SESSION),
            delete_user_sessions: redis::Script::new(DELETE_USER_SESSIONS),
            sign_out_before: redis::Script::new(SIGN_OUT_BEFORE),
            consume: redis::Script::new(counters::CONSUME),
            refund: redis::Script::new(counters::REFUND),
        }
    }

    fn session_key(&self, member: &str) -> String {
        self.pool.key(&format!("session:{member}"))
    }

    fn user_set_prefix(&self) -> String {
        self.pool.key("user-sessions:")
    }

    fn token_key(&self, identifier: &str, token: &str) -> String {
        self.pool.key(&format!("vt:{}", hex_sha256(&[identifier, token])))
    }
}

impl SessionStore for RedisStore {
    /// The user's existence is checked by the composition (see
    /// `DataStores::create_session`): this backend stores no users.
    fn create_session(&self, session: &AdapterSession) -> Result<AdapterSession, AdapterError> {
        self.create_session_with_details(session, &SessionDetails::default())
    }

    /// The stored token is kept in the hash (as SQL keeps it in its row):
    /// a user's list needs it to end one session. It is a hash of the
    /// cookie's token, never the cookie.
    fn create_session_with_details(
        &self,
        session: &AdapterSession,
        details: &SessionDetails,
    ) -> Result<AdapterSession, AdapterError> {
        let op = "createSession";
        let member = hex_sha256(&[&session.session_token]);
        let key = self.session_key(&member);
        let set = format!("{}{}", self.user_set_prefix(), session.user_id);
        let created: i64 = self
            .pool
            .run(|conn| {
                self.create_session
                    .key(&key)
                    .key(&set)
                    .arg(&session.user_id)
                    .arg(session.expires)
                    .arg(ttl_until(session.expires))
                    .arg(&member)
                    .arg(&session.session_token)
                    .arg(details.created_at.map(|ms| ms.to_string()).unwrap_or_default())
                    .arg(details.user_agent.as_deref().unwrap_or_default())
                    .arg(details.ip.as_deref().unwrap_or_default())
                    .invoke(conn)
            })
            .map_err(failed(op))?;
        if created == 0 {
            return Err(AdapterError::constraint(op, constraint::SESSION_TOKEN));
        }
        Ok(session.clone())
    }

    fn get_session(&self, token: &str) -> Result<Option<(AdapterSession, Option<AdapterUser>)>, AdapterError> {
        let op = "getSessionAndUser";
        let key = self.session_key(&hex_sha256(&[token]));
        let (user_id, expires): (Option<String>, Option<i64>) = self
            .pool
            .run(|conn| redis::cmd("HMGET").arg(&key).arg("userId").arg("expires").query(conn))
            .map_err(failed(op))?;
        let (Some(user_id), Some(expires)) = (user_id, expires) else { return Ok(None) };
        Ok(Some((AdapterSession { session_token: token.to_owned(), user_id, expires }, None)))
    }

    fn update_session(&self, token: &str, expires: i64) -> Result<Option<AdapterSession>, AdapterError> {
        let op = "updateSession";
        let key = self.session_key(&hex_sha256(&[token]));
        let prefix = self.user_set_prefix();
        let user_id: Option<String> = self
            .pool
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
            .pool
            .run(|conn| self.delete_session.key(&key).arg(&prefix).arg(&member).invoke(conn))
            .map_err(failed(op))?;
        Ok(deleted.map(|(user_id, expires)| AdapterSession { session_token: token.to_owned(), user_id, expires }))
    }

    fn delete_user_sessions(&self, user_id: &str) -> Result<u64, AdapterError> {
        let op = "deleteUserSessions";
        let set = format!("{}{user_id}", self.user_set_prefix());
        let prefix = self.session_key("");
        self.pool
            .run(|conn| self.delete_user_sessions.key(&set).arg(&prefix).invoke::<i64>(conn))
            .map(|n| u64::try_from(n).unwrap_or(0))
            .map_err(failed(op))
    }

    /// The user's set, then each session's fields in one pipeline.
    /// Sessions made before the token was kept in the hash cannot be ended
    /// one by one and are not listed; ending all of them still ends them.
    fn list_user_sessions(&self, user_id: &str) -> Result<Vec<ListedSession>, AdapterError> {
        let op = "listUserSessions";
        let set = format!("{}{user_id}", self.user_set_prefix());
        type Fields = (Option<String>, Option<String>, Option<i64>, Option<i64>, Option<String>, Option<String>);
        let rows: Vec<Fields> = self
            .pool
            .run(|conn| {
                let members: Vec<String> = redis::cmd("SMEMBERS").arg(&set).query(conn)?;
                if members.is_empty() {
                    // Redis refuses an empty pipeline.
                    return Ok(Vec::new());
                }
                let mut pipe = redis::pipe();
                for member in &members {
                    pipe.cmd("HMGET")
                        .arg(self.session_key(member))
                        .arg("userId")
                        .arg("token")
                        .arg("expires")
                        .arg("createdAt")
                        .arg("userAgent")
                        .arg("ip");
                }
                pipe.query(conn)
            })
            .map_err(failed(op))?;
        Ok(rows
            .into_iter()
            .filter_map(|(owner, token, expires, created_at, user_agent, ip)| {
                if owner.as_deref() != Some(user_id) {
                    return None;
                }
                Some(ListedSession {
                    session_token: token?,
                    expires: expires?,
                    details: SessionDetails { created_at, user_agent, ip },
                })
            })
            .collect())
    }

    // Redis expires sessions itself: nothing to purge
    // (`delete_expired_sessions` keeps its default).

    fn keeps_sign_outs(&self) -> bool {
        true
    }

    fn sign_out_before(&self, user_id: &str, before: i64, keep_until: i64) -> Result<(), AdapterError> {
        let op = "signOutBefore";
        let key = self.pool.key(&format!("sign-out:{user_id}"));
        self.pool
            .run(|conn| self.sign_out_before.key(&key).arg(before).arg(ttl_until(keep_until)).invoke::<i64>(conn))
            .map(|_| ())
            .map_err(failed(op))
    }

    fn signed_out_before(&self, user_id: &str) -> Result<Option<i64>, AdapterError> {
        let op = "signedOutBefore";
        let key = self.pool.key(&format!("sign-out:{user_id}"));
        self.pool.run(|conn| redis::cmd("GET").arg(&key).query::<Option<i64>>(conn)).map_err(failed(op))
    }
}

impl VerificationStore for RedisStore {
    fn create_verification_token(&self, token: &VerificationToken) -> Result<(), AdapterError> {
        let op = "createVerificationToken";
        let key = self.token_key(&token.identifier, &token.token);
        let stored: Option<String> = self
            .pool
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
            self.pool.run(|conn| redis::cmd("GETDEL").arg(&key).query(conn)).map_err(failed(op))?;
        Ok(expires.map(|expires| VerificationToken {
            identifier: identifier.to_owned(),
            token: token.to_owned(),
            expires,
        }))
    }
}

/// `SET NX PX`: one holder at a time, gone on its own after the ttl.
impl LeaseStore for RedisStore {
    fn take_lease(&self, name: &str, ttl: Duration) -> Result<bool, AdapterError> {
        let key = self.pool.key(&format!("lease:{name}"));
        let ttl_ms = u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1);
        let taken: Option<String> = self
            .pool
            .run(|conn| redis::cmd("SET").arg(&key).arg(1).arg("NX").arg("PX").arg(ttl_ms).query(conn))
            .map_err(failed("takeLease"))?;
        Ok(taken.is_some())
    }

    fn release_lease(&self, name: &str) -> Result<(), AdapterError> {
        let key = self.pool.key(&format!("lease:{name}"));
        self.pool.run(|conn| redis::cmd("DEL").arg(&key).query::<i64>(conn)).map(|_| ()).map_err(failed("releaseLease"))
    }
}
