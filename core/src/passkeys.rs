//! Passkey management for their owner: list, rename and delete the
//! passkeys of a signed-in user, from host code ([`Auth::passkeys`] and
//! the methods beside it) and from the `passkeys` route.

use crate::error::{AuthError, ErrorType};
use crate::store::DataStores;
use crate::{providers, routes, Auth};

impl Auth {
    /// `user_id`'s passkeys, oldest first, as their owner sees them (`id`,
    /// `name`, `createdAt`, `lastUsedAt`, `deviceType`, `backedUp`,
    /// `transports`; never the key). Empty without a passkey provider.
    pub fn list_passkeys(&self, user_id: &str) -> Result<Vec<serde_json::Value>, AuthError> {
        let Some(db) = self.passkey_stores() else { return Ok(Vec::new()) };
        Ok(db.passkeys.list_authenticators_by_user_id(user_id)?.iter().map(routes::passkey_json).collect())
    }

    /// Name (or with `None` unname) one of `user_id`'s passkeys; the passkey
    /// as [`Auth::list_passkeys`] shows it. A passkey that is not theirs is
    /// `WebAuthnVerificationError` ("no such passkey"), as an unknown one.
    pub fn rename_passkey(
        &self,
        user_id: &str,
        credential_id: &str,
        name: Option<&str>,
    ) -> Result<serde_json::Value, AuthError> {
        let db = self.owned_passkey(user_id, credential_id)?;
        // Names are shown in pages: short, one line, no control characters.
        let name = name.map(|n| n.trim()).filter(|n| !n.is_empty());
        if name.is_some_and(|n| n.chars().count() > 64 || n.chars().any(char::is_control)) {
            return Err(AuthError::new(
                ErrorType::WebAuthnVerificationError,
                "a passkey name is at most 64 characters, on one line",
            ));
        }
        let renamed = db.passkeys.rename_authenticator(credential_id, name)?.ok_or_else(no_such_passkey)?;
        Ok(routes::passkey_json(&renamed))
    }

    /// Delete one of `user_id`'s passkeys (and its `webauthn` account).
    /// Refused with `LastSignInMethod` when it is the user's last way to
    /// sign in: no other passkey, no linked OAuth account, and no email
    /// provider with an address to send a link to.
    pub fn delete_passkey(&self, user_id: &str, credential_id: &str) -> Result<(), AuthError> {
        let db = self.owned_passkey(user_id, credential_id)?;
        let others = db
            .passkeys
            .list_authenticators_by_user_id(user_id)?
            .iter()
            .filter(|a| a.credential_id != credential_id)
            .count();
        if others == 0 && !self.has_other_sign_in(db, user_id)? {
            return Err(AuthError::new(
                ErrorType::LastSignInMethod,
                "this passkey is the user's last way to sign in: add another passkey or sign-in method first",
            ));
        }
        // The account goes first: if a step fails, what is left is a passkey
        // without its account (which signs in no one, and which a new
        // registration of the same credential id cannot claim), never an
        // account without its passkey, which a registration presenting that
        // credential id could otherwise sign in to (P1). Its account is under
        // the passkey provider that registered it (not recorded with the
        // passkey); unlinking elsewhere changes nothing.
        let stored = db.passkeys.get_authenticator(credential_id)?.ok_or_else(no_such_passkey)?;
        for provider in self.providers.iter().filter(|p| matches!(p.kind, providers::ProviderKind::WebAuthn(_))) {
            db.accounts.unlink_account(&provider.id, &stored.provider_account_id)?;
        }
        db.passkeys.delete_authenticator(credential_id)?.ok_or_else(no_such_passkey)?;
        Ok(())
    }

    /// The passkey calls as one entry point for the bindings: `call` is
    /// `{ "action": "list" }`, `{ "action": "rename", "id", "name" }` or
    /// `{ "action": "delete", "id" }`; the answer is the list, the renamed
    /// passkey, or `null`. Each binding's `listPasskeys` / `renamePasskey` /
    /// `deletePasskey` is this call with its arguments.
    pub fn passkeys(&self, user_id: &str, call: &serde_json::Value) -> Result<serde_json::Value, AuthError> {
        let text = |key: &str| call.get(key).and_then(serde_json::Value::as_str);
        let id = || {
            text("id").ok_or_else(|| AuthError::new(ErrorType::WebAuthnVerificationError, "a passkey id is required"))
        };
        match text("action") {
            Some("list") => Ok(serde_json::Value::Array(self.list_passkeys(user_id)?)),
            Some("rename") => self.rename_passkey(user_id, id()?, text("name")),
            Some("delete") => self.delete_passkey(user_id, id()?).map(|()| serde_json::Value::Null),
            _ => Err(AuthError::new(ErrorType::UnknownAction, "a passkey call is list, rename or delete")),
        }
    }

    fn passkey_stores(&self) -> Option<&DataStores> {
        let has_passkeys = self.providers.iter().any(|p| matches!(p.kind, providers::ProviderKind::WebAuthn(_)));
        self.stores.data().filter(|_| has_passkeys)
    }

    /// The stores, once `credential_id` is known to be one of `user_id`'s
    /// passkeys.
    fn owned_passkey(&self, user_id: &str, credential_id: &str) -> Result<&DataStores, AuthError> {
        let db = self.passkey_stores().ok_or_else(no_such_passkey)?;
        match db.passkeys.get_authenticator(credential_id)? {
            Some(a) if a.user_id == user_id => Ok(db),
            _ => Err(no_such_passkey()),
        }
    }

    /// Whether the user can sign in without a passkey: a linked OAuth
    /// account, or an email provider and an address.
    fn has_other_sign_in(&self, db: &DataStores, user_id: &str) -> Result<bool, AuthError> {
        for provider in self.providers.iter() {
            match &provider.kind {
                providers::ProviderKind::OAuth(_) | providers::ProviderKind::Password(_) => {
                    // A host adapter may not read accounts: then this
                    // account cannot be counted on.
                    if let Ok(Some(_)) = db.accounts.get_account(user_id, &provider.id) {
                        return Ok(true);
                    }
                }
                providers::ProviderKind::Email(_)
                    if db.users.get_user(user_id)?.is_some_and(|u| u.email.is_some_and(|e| !e.is_empty())) =>
                {
                    return Ok(true);
                }
                _ => {}
            }
        }
        Ok(false)
    }
}

fn no_such_passkey() -> AuthError {
    AuthError::new(ErrorType::WebAuthnVerificationError, "no such passkey")
}
