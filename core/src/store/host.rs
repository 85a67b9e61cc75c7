//! An adapter implemented by host code (an Auth.js adapter object in Node, a
//! Python object, C callbacks), reached through the hooks
//! `adapter.<methodName>` with Auth.js's method names.
//!
//! Every Auth.js adapter method takes one argument; the hook's `args` is that
//! argument as JSON, and the hook returns the method's result as JSON
//! (`null` for `null`/`undefined`):
//!
//! | hook | args | result |
//! |---|---|---|
//! | createUser | AdapterUser (always with an `id`) | AdapterUser |
//! | getUser | id (string) | AdapterUser \| null |
//! | getUserByEmail | email (string) | AdapterUser \| null |
//! | getUserByAccount | `{ provider, providerAccountId }` | AdapterUser \| null |
//! | updateUser | `{ id, …fields to change }` | AdapterUser |
//! | deleteUser | id | ignored |
//! | linkAccount | AdapterAccount | ignored |
//! | unlinkAccount | `{ provider, providerAccountId }` | ignored |
//! | createSession | `{ sessionToken, userId, expires }` | AdapterSession (`null`: as given) |
//! | getSessionAndUser | sessionToken (string) | `{ session, user }` \| null |
//! | updateSession | `{ sessionToken, expires }` | AdapterSession \| null |
//! | deleteSession | sessionToken | AdapterSession \| null |
//! | createVerificationToken | `{ identifier, token, expires }` | ignored |
//! | useVerificationToken | `{ identifier, token }` | VerificationToken \| null |
//! | getAuthenticator | credentialID (string) | Authenticator \| null |
//! | createAuthenticator | Authenticator | Authenticator (`null`: as given) |
//! | listAuthenticatorsByUserId | userId (string) | Authenticator[] (`null`: none) |
//! | updateAuthenticatorCounter | `{ credentialID, newCounter, lastUsedAt }` | Authenticator |
//! | renameAuthenticator | `{ credentialID, name }` | Authenticator \| null |
//! | deleteAuthenticator | credentialID (string) | Authenticator \| null |
//!
//! The two-argument passkey hooks are called with positional arguments
//! (`updateAuthenticatorCounter(credentialID, newCounter, lastUsedAt)`, as
//! Auth.js plus libauth's date; `renameAuthenticator(credentialID, name)`):
//! `conventions.rs` turns the object into them.
//!
//! Dates (`expires`, `emailVerified`, `createdAt`, `lastUsedAt`) are
//! ISO-8601 strings, as JavaScript serializes a `Date`; bindings that call
//! Auth.js adapters turn them into `Date`s. Results may use ISO strings or
//! milliseconds.
//!
//! A hook that throws becomes [`AdapterError::Other`]; its message is kept
//! (it is the host's own text) with the tokens of the call cut out.
//!
//! `create_user_and_link_account` is not an Auth.js method: it is the
//! trait's default (create, link, delete the user if linking fails), which
//! is why `deleteUser` is required.
//!
//! This module is the one place where Auth.js's adapter contract meets the
//! engine's narrow stores: `HostAdapter` implements [`UserStore`],
//! [`AccountStore`], [`SessionStore`], [`VerificationStore`] and
//! [`PasskeyStore`] with these hooks. With `encryptTokens`, tokens are
//! sealed before `linkAccount` sees them.

use std::collections::HashSet;
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};

use super::{
    new_user_id, AccountStore, AdapterAccount, AdapterError, AdapterSession, AdapterUser, Authenticator, NewUser,
    PasskeyStore, Sealing, SessionStore, UserStore, UserUpdate, VerificationStore, VerificationToken, ACCOUNT_METHODS,
    AUTHENTICATOR_METHODS, METHODS,
};
use crate::error::HostError;
use crate::host::{Hook, Host};

/// Hooks a host adapter must have: what the engine calls for OAuth sign-in
/// and database sessions, plus `deleteUser` to undo a failed link.
pub const REQUIRED_METHODS: [&str; 11] = [
    "createUser",
    "getUser",
    "getUserByEmail",
    "getUserByAccount",
    "updateUser",
    "deleteUser",
    "linkAccount",
    "createSession",
    "getSessionAndUser",
    "updateSession",
    "deleteSession",
];

pub struct HostAdapter {
    host: Arc<dyn Host>,
    present: HashSet<&'static str>,
    sealing: Sealing,
}

impl HostAdapter {
    /// Fails with the names of the missing required hooks
    /// (`adapter.createSession`, …).
    pub fn new(host: Arc<dyn Host>) -> Result<HostAdapter, Vec<String>> {
        let present: HashSet<&'static str> = METHODS
            .iter()
            .chain(&AUTHENTICATOR_METHODS)
            .chain(&ACCOUNT_METHODS)
            .copied()
            .filter(|m| host.has(&Hook::adapter(m)))
            .collect();
        let missing: Vec<String> =
            REQUIRED_METHODS.iter().filter(|m| !present.contains(*m)).map(|m| format!("adapter.{m}")).collect();
        if missing.is_empty() {
            Ok(HostAdapter { host, present, sealing: Sealing::none() })
        } else {
            Err(missing)
        }
    }

    /// This adapter, handing accounts' tokens to the host as `sealing` says.
    pub fn with_sealing(mut self, sealing: Sealing) -> HostAdapter {
        self.sealing = sealing;
        self
    }

    /// Call `adapter.<method>`. `secrets` are the tokens in `args`, cut out
    /// of any error message the host returns.
    fn call(&self, method: &'static str, args: Value, secrets: &[&str]) -> Result<Value, AdapterError> {
        if !self.present.contains(method) {
            return Err(AdapterError::other(method, format!("the host adapter has no adapter.{method} hook")));
        }
        self.host.call(&Hook::adapter(method), args).map_err(|e| host_error(method, e, secrets))
    }

    /// Call and parse a nullable result.
    fn call_for<T: DeserializeOwned>(
        &self,
        method: &'static str,
        args: Value,
        secrets: &[&str],
        what: &str,
    ) -> Result<Option<T>, AdapterError> {
        let result = self.call(method, args, secrets)?;
        if result.is_null() {
            return Ok(None);
        }
        serde_json::from_value(result)
            .map(Some)
            .map_err(|e| AdapterError::other(method, redact(&format!("returned an invalid {what}: {e}"), secrets)))
    }

    fn call_for_user(&self, method: &'static str, args: Value) -> Result<Option<AdapterUser>, AdapterError> {
        self.call_for(method, args, &[], "user")
    }
}

fn host_error(method: &'static str, e: HostError, secrets: &[&str]) -> AdapterError {
    AdapterError::other(method, redact(&format!("the host adapter failed: {}", e.message), secrets))
}

/// `message` with every non-empty secret replaced.
fn redact(message: &str, secrets: &[&str]) -> String {
    secrets.iter().filter(|s| !s.is_empty()).fold(message.to_owned(), |m, s| m.replace(s, "[redacted]"))
}

fn to_json<T: serde::Serialize>(method: &'static str, value: &T) -> Result<Value, AdapterError> {
    serde_json::to_value(value).map_err(|e| AdapterError::other(method, format!("cannot serialize the arguments: {e}")))
}

/// The tokens of an account, to keep out of error messages.
fn account_secrets(account: &AdapterAccount) -> Vec<&str> {
    [&account.access_token, &account.refresh_token, &account.id_token, &account.session_state]
        .into_iter()
        .filter_map(|t| t.as_deref())
        .collect()
}

#[derive(Deserialize)]
struct SessionAndUser {
    session: AdapterSession,
    user: AdapterUser,
}

impl UserStore for HostAdapter {
    fn create_user(&self, user: &NewUser) -> Result<AdapterUser, AdapterError> {
        let op = "createUser";
        // Auth.js v5 passes an id to createUser; adapters either store it or
        // strip it and use their own. Give one so both kinds work.
        let with_id = NewUser { id: Some(user.id.clone().unwrap_or_else(new_user_id)), ..user.clone() };
        self.call_for(op, to_json(op, &with_id)?, &[], "user")?
            .ok_or_else(|| AdapterError::other(op, "the host adapter returned no user"))
    }

    fn get_user(&self, id: &str) -> Result<Option<AdapterUser>, AdapterError> {
        self.call_for_user("getUser", json!(id))
    }

    fn get_user_by_email(&self, email: &str) -> Result<Option<AdapterUser>, AdapterError> {
        self.call_for_user("getUserByEmail", json!(email))
    }

    fn update_user(&self, update: &UserUpdate) -> Result<AdapterUser, AdapterError> {
        let op = "updateUser";
        self.call_for(op, to_json(op, update)?, &[], "user")?
            .ok_or(AdapterError::NotFound { operation: op, what: "user" })
    }

    fn delete_user(&self, id: &str) -> Result<(), AdapterError> {
        self.call("deleteUser", json!(id), &[]).map(|_| ())
    }
}

impl AccountStore for HostAdapter {
    fn get_user_by_account(
        &self,
        provider: &str,
        provider_account_id: &str,
    ) -> Result<Option<AdapterUser>, AdapterError> {
        self.call_for_user(
            "getUserByAccount",
            json!({ "provider": provider, "providerAccountId": provider_account_id }),
        )
    }

    fn link_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        let op = "linkAccount";
        let account = self.sealing.seal_account(account)?;
        self.call(op, to_json(op, &*account)?, &account_secrets(&account)).map(|_| ())
    }

    fn unlink_account(&self, provider: &str, provider_account_id: &str) -> Result<(), AdapterError> {
        let args = json!({ "provider": provider, "providerAccountId": provider_account_id });
        self.call("unlinkAccount", args, &[]).map(|_| ())
    }

    /// libauth's `getUserAccount({ userId, provider })` (optional).
    fn get_account(&self, user_id: &str, provider: &str) -> Result<Option<AdapterAccount>, AdapterError> {
        let found: Option<AdapterAccount> =
            self.call_for("getUserAccount", json!({ "userId": user_id, "provider": provider }), &[], "account")?;
        found.map(|account| self.sealing.open_account(account)).transpose()
    }

    /// libauth's `updateAccount(account)` (optional): the account's new
    /// fields, keyed by `provider` and `providerAccountId`.
    fn update_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        let op = "updateAccount";
        let account = self.sealing.seal_account(account)?;
        self.call(op, to_json(op, &*account)?, &account_secrets(&account)).map(|_| ())
    }
}

impl SessionStore for HostAdapter {
    fn create_session(&self, session: &AdapterSession) -> Result<AdapterSession, AdapterError> {
        let op = "createSession";
        let secrets = [session.session_token.as_str()];
        Ok(self.call_for(op, to_json(op, session)?, &secrets, "session")?.unwrap_or_else(|| session.clone()))
    }

    fn get_session(&self, session_token: &str) -> Result<Option<(AdapterSession, Option<AdapterUser>)>, AdapterError> {
        let found: Option<SessionAndUser> =
            self.call_for("getSessionAndUser", json!(session_token), &[session_token], "{ session, user }")?;
        Ok(found.map(|f| (f.session, Some(f.user))))
    }

    fn update_session(&self, session_token: &str, expires: i64) -> Result<Option<AdapterSession>, AdapterError> {
        let args = json!({ "sessionToken": session_token, "expires": super::date::to_iso(expires) });
        self.call_for("updateSession", args, &[session_token], "session")
    }

    fn delete_session(&self, session_token: &str) -> Result<Option<AdapterSession>, AdapterError> {
        self.call_for("deleteSession", json!(session_token), &[session_token], "session")
    }
}

impl VerificationStore for HostAdapter {
    fn create_verification_token(&self, token: &VerificationToken) -> Result<(), AdapterError> {
        let op = "createVerificationToken";
        self.call(op, to_json(op, token)?, &[token.token.as_str()]).map(|_| ())
    }

    fn use_verification_token(&self, identifier: &str, token: &str) -> Result<Option<VerificationToken>, AdapterError> {
        let args = json!({ "identifier": identifier, "token": token });
        self.call_for("useVerificationToken", args, &[token], "verification token")
    }
}

impl PasskeyStore for HostAdapter {
    fn create_authenticator(&self, authenticator: &Authenticator) -> Result<Authenticator, AdapterError> {
        let op = "createAuthenticator";
        let secrets = [authenticator.credential_id.as_str()];
        Ok(self
            .call_for(op, to_json(op, authenticator)?, &secrets, "authenticator")?
            .unwrap_or_else(|| authenticator.clone()))
    }

    fn get_authenticator(&self, credential_id: &str) -> Result<Option<Authenticator>, AdapterError> {
        self.call_for("getAuthenticator", json!(credential_id), &[credential_id], "authenticator")
    }

    fn list_authenticators_by_user_id(&self, user_id: &str) -> Result<Vec<Authenticator>, AdapterError> {
        let op = "listAuthenticatorsByUserId";
        let mut list: Vec<Authenticator> =
            self.call_for(op, json!(user_id), &[], "list of authenticators")?.unwrap_or_default();
        // The contract is oldest first; a host's order is not to be relied on.
        list.sort_by(|a, b| (a.created_at, &a.credential_id).cmp(&(b.created_at, &b.credential_id)));
        Ok(list)
    }

    fn update_authenticator_counter(
        &self,
        credential_id: &str,
        counter: u32,
        used_at: i64,
    ) -> Result<Authenticator, AdapterError> {
        let op = "updateAuthenticatorCounter";
        let args = json!({
            "credentialID": credential_id,
            "newCounter": counter,
            "lastUsedAt": super::date::to_iso(used_at),
        });
        self.call_for(op, args, &[credential_id], "authenticator")?
            .ok_or(AdapterError::NotFound { operation: op, what: "authenticator" })
    }

    fn rename_authenticator(
        &self,
        credential_id: &str,
        name: Option<&str>,
    ) -> Result<Option<Authenticator>, AdapterError> {
        let args = json!({ "credentialID": credential_id, "name": name });
        self.call_for("renameAuthenticator", args, &[credential_id], "authenticator")
    }

    fn delete_authenticator(&self, credential_id: &str) -> Result<Option<Authenticator>, AdapterError> {
        self.call_for("deleteAuthenticator", json!(credential_id), &[credential_id], "authenticator")
    }
}

impl HostAdapter {
    /// Whether the host has the `adapter.<method>` hook (by its Auth.js
    /// name): the engine checks the optional ones it needs when it is built
    /// (verification tokens for an email provider, the authenticator
    /// methods for passkeys).
    pub fn supports(&self, method: &str) -> bool {
        self.present.contains(method)
    }
}
