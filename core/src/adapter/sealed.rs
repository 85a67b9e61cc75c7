//! Provider tokens encrypted at rest (the `encryptTokens` option).
//!
//! An account's `access_token`, `refresh_token` and `id_token` are
//! credentials for the user's account at the provider: whoever reads the
//! database (a backup, a read replica, an SQL injection elsewhere in the
//! app) could call the provider's API as every user. With `encryptTokens`
//! the adapter stores them sealed with AES-256-GCM under a key derived
//! (HKDF-SHA-256) from the secret; the provider and account id are the
//! associated data, so a sealed token copied onto another account row does
//! not open.
//!
//! Rotation: tokens are sealed with the first secret and opened with any
//! of them, as session cookies are. Tokens stored before the option was
//! turned on (plain text, without the `enc:v1:` prefix) are read as they
//! are and sealed the next time they are written (a refresh).

use std::sync::Arc;

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;

use super::{
    Adapter, AdapterAccount, AdapterError, AdapterSession, AdapterUser, Authenticator, Ensured, NewUser, Purged,
    UserUpdate, VerificationToken,
};

/// Marks a sealed value; anything else is a token stored in plain text.
const PREFIX: &str = "enc:v1:";
const NONCE_LEN: usize = 12;

/// An adapter whose accounts' tokens are sealed on the way in and opened on
/// the way out; every other call goes to the inner adapter unchanged.
pub struct SealedTokens {
    inner: Arc<dyn Adapter>,
    /// One cipher per secret, the first seals.
    ciphers: Vec<Aes256Gcm>,
}

impl SealedTokens {
    pub fn new(inner: Arc<dyn Adapter>, secrets: &[String]) -> SealedTokens {
        let ciphers = secrets
            .iter()
            .map(|secret| {
                let mut key = [0u8; 32];
                hkdf::Hkdf::<sha2::Sha256>::new(Some(b"libauth account tokens"), secret.as_bytes())
                    .expand(b"AES-256-GCM v1", &mut key)
                    .expect("32 bytes is a valid HKDF-SHA-256 output length");
                Aes256Gcm::new(&key.into())
            })
            .collect();
        SealedTokens { inner, ciphers }
    }

    fn seal_account(&self, account: &AdapterAccount) -> Result<AdapterAccount, AdapterError> {
        let mut sealed = account.clone();
        for (field, value) in token_fields(&mut sealed) {
            if let Some(token) = value.as_mut().filter(|t| !t.starts_with(PREFIX)) {
                *token = self.seal(&associated_data(&account.provider, &account.provider_account_id, field), token)?;
            }
        }
        Ok(sealed)
    }

    fn open_account(&self, mut account: AdapterAccount) -> Result<AdapterAccount, AdapterError> {
        let (provider, id) = (account.provider.clone(), account.provider_account_id.clone());
        for (field, value) in token_fields(&mut account) {
            if let Some(token) = value.as_mut().filter(|t| t.starts_with(PREFIX)) {
                *token = self.open(&associated_data(&provider, &id, field), token)?;
            }
        }
        Ok(account)
    }

    fn seal(&self, aad: &[u8], token: &str) -> Result<String, AdapterError> {
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::getrandom(&mut nonce)
            .map_err(|e| AdapterError::other("linkAccount", format!("no randomness to seal a token: {e}")))?;
        let cipher = self.ciphers.first().expect("the engine always has a secret");
        let sealed = cipher
            .encrypt(Nonce::from_slice(&nonce), Payload { msg: token.as_bytes(), aad })
            .map_err(|_| AdapterError::other("linkAccount", "sealing a token failed"))?;
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        Ok(format!("{PREFIX}{}", B64.encode(bytes)))
    }

    fn open(&self, aad: &[u8], sealed: &str) -> Result<String, AdapterError> {
        let unreadable = || {
            AdapterError::other(
                "getAccount",
                "a stored provider token cannot be decrypted with any configured secret (was the secret replaced instead of rotated?)",
            )
        };
        let bytes = B64.decode(&sealed[PREFIX.len()..]).map_err(|_| unreadable())?;
        if bytes.len() < NONCE_LEN + 16 {
            return Err(unreadable());
        }
        let (nonce, ciphertext) = bytes.split_at(NONCE_LEN);
        self.ciphers
            .iter()
            .find_map(|cipher| cipher.decrypt(Nonce::from_slice(nonce), Payload { msg: ciphertext, aad }).ok())
            .and_then(|plain| String::from_utf8(plain).ok())
            .ok_or_else(unreadable)
    }
}

fn token_fields(account: &mut AdapterAccount) -> [(&'static str, &mut Option<String>); 3] {
    [
        ("access_token", &mut account.access_token),
        ("refresh_token", &mut account.refresh_token),
        ("id_token", &mut account.id_token),
    ]
}

/// Binds a sealed token to its account and field.
fn associated_data(provider: &str, provider_account_id: &str, field: &str) -> Vec<u8> {
    format!("{}\0{provider}\0{provider_account_id}\0{field}", provider.len()).into_bytes()
}

impl Adapter for SealedTokens {
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
    fn delete_user(&self, id: &str) -> Result<(), AdapterError> {
        self.inner.delete_user(id)
    }
    fn link_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        self.inner.link_account(&self.seal_account(account)?)
    }
    fn unlink_account(&self, provider: &str, id: &str) -> Result<(), AdapterError> {
        self.inner.unlink_account(provider, id)
    }
    fn create_user_and_link_account(
        &self,
        user: &NewUser,
        account: &AdapterAccount,
    ) -> Result<AdapterUser, AdapterError> {
        self.inner.create_user_and_link_account(user, &self.seal_account(account)?)
    }
    // The idempotent first sign-in writes go to the inner adapter's own
    // (atomic) versions, not to the trait's defaults built from the calls
    // above.
    fn ensure_user(&self, user: &NewUser) -> Result<Ensured, AdapterError> {
        self.inner.ensure_user(user)
    }
    fn ensure_account_linked(&self, account: &AdapterAccount) -> Result<bool, AdapterError> {
        self.inner.ensure_account_linked(&self.seal_account(account)?)
    }
    fn ensure_user_with_account(&self, user: &NewUser, account: &AdapterAccount) -> Result<Ensured, AdapterError> {
        self.inner.ensure_user_with_account(user, &self.seal_account(account)?)
    }
    fn create_session(&self, session: &AdapterSession) -> Result<AdapterSession, AdapterError> {
        self.inner.create_session(session)
    }
    fn get_session_and_user(&self, token: &str) -> Result<Option<(AdapterSession, AdapterUser)>, AdapterError> {
        self.inner.get_session_and_user(token)
    }
    fn update_session(&self, token: &str, expires: i64) -> Result<Option<AdapterSession>, AdapterError> {
        self.inner.update_session(token, expires)
    }
    fn delete_session(&self, token: &str) -> Result<Option<AdapterSession>, AdapterError> {
        self.inner.delete_session(token)
    }
    fn create_verification_token(&self, token: &VerificationToken) -> Result<(), AdapterError> {
        self.inner.create_verification_token(token)
    }
    fn use_verification_token(&self, identifier: &str, token: &str) -> Result<Option<VerificationToken>, AdapterError> {
        self.inner.use_verification_token(identifier, token)
    }
    fn delete_expired(&self, now: i64) -> Result<Purged, AdapterError> {
        self.inner.delete_expired(now)
    }
    fn get_account(&self, user_id: &str, provider: &str) -> Result<Option<AdapterAccount>, AdapterError> {
        self.inner.get_account(user_id, provider)?.map(|a| self.open_account(a)).transpose()
    }
    fn update_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
        self.inner.update_account(&self.seal_account(account)?)
    }
    // Passkeys hold no provider tokens: nothing to seal.
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
        self.inner.supports(method)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::{memory::MemoryAdapter, AccountType};

    fn secrets(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    fn account(user_id: &str, provider_account_id: &str) -> AdapterAccount {
        let mut a = AdapterAccount::new(AccountType::OAuth, "github", provider_account_id);
        a.user_id = user_id.into();
        a.access_token = Some("gho_access".into());
        a.refresh_token = Some("ghr_refresh".into());
        a.id_token = Some("eyJ.id.token".into());
        a
    }

    #[test]
    fn tokens_are_stored_sealed_and_read_in_plain_text_across_a_rotation() {
        let store: Arc<dyn Adapter> = Arc::new(MemoryAdapter::default());
        let user = store.create_user(&NewUser { email: Some("a@example.com".into()), ..Default::default() }).unwrap();
        let old = SealedTokens::new(store.clone(), &secrets(&["old-secret-old-secret-old-secret-0"]));
        old.link_account(&account(&user.id, "1")).unwrap();

        let raw = store.get_account(&user.id, "github").unwrap().unwrap();
        for token in [&raw.access_token, &raw.refresh_token, &raw.id_token] {
            let token = token.as_deref().unwrap();
            assert!(token.starts_with(PREFIX), "stored sealed: {token}");
            assert!(!token.contains("gho_") && !token.contains("ghr_") && !token.contains("eyJ"));
        }
        // Rotated: a new first secret, the old one still listed.
        let rotated = SealedTokens::new(
            store.clone(),
            &secrets(&["new-secret-new-secret-new-secret-1", "old-secret-old-secret-old-secret-0"]),
        );
        let read = rotated.get_account(&user.id, "github").unwrap().unwrap();
        assert_eq!(read, account(&user.id, "1"));
        // Replaced instead of rotated: a typed error, never garbage or plain text.
        let replaced = SealedTokens::new(store.clone(), &secrets(&["new-secret-new-secret-new-secret-1"]));
        assert!(replaced.get_account(&user.id, "github").is_err());
    }

    #[test]
    fn a_sealed_token_does_not_open_on_another_account_or_field() {
        let sealed =
            SealedTokens::new(Arc::new(MemoryAdapter::default()), &secrets(&["s-s-s-s-s-s-s-s-s-s-s-s-s-s-s-s"]));
        let token = sealed.seal(&associated_data("github", "1", "access_token"), "gho_access").unwrap();
        assert_eq!(sealed.open(&associated_data("github", "1", "access_token"), &token).unwrap(), "gho_access");
        for aad in [
            associated_data("github", "2", "access_token"),
            associated_data("google", "1", "access_token"),
            associated_data("github", "1", "refresh_token"),
        ] {
            assert!(sealed.open(&aad, &token).is_err());
        }
        for tampered in
            [PREFIX.to_string(), format!("{PREFIX}!!"), format!("{token}A"), token[..token.len() - 2].to_owned()]
        {
            assert!(sealed.open(&associated_data("github", "1", "access_token"), &tampered).is_err(), "{tampered}");
        }
    }

    /// The inner adapter, recording which of the first sign-in writes
    /// reach it.
    struct Recording(MemoryAdapter, std::sync::Mutex<Vec<&'static str>>);

    impl Recording {
        fn note(&self, call: &'static str) {
            self.1.lock().unwrap().push(call);
        }
    }

    impl Adapter for Recording {
        fn create_user(&self, user: &NewUser) -> Result<AdapterUser, AdapterError> {
            self.note("create_user");
            self.0.create_user(user)
        }
        fn get_user(&self, id: &str) -> Result<Option<AdapterUser>, AdapterError> {
            self.0.get_user(id)
        }
        fn get_user_by_email(&self, email: &str) -> Result<Option<AdapterUser>, AdapterError> {
            self.0.get_user_by_email(email)
        }
        fn get_user_by_account(&self, provider: &str, id: &str) -> Result<Option<AdapterUser>, AdapterError> {
            self.0.get_user_by_account(provider, id)
        }
        fn update_user(&self, update: &UserUpdate) -> Result<AdapterUser, AdapterError> {
            self.0.update_user(update)
        }
        fn delete_user(&self, id: &str) -> Result<(), AdapterError> {
            self.0.delete_user(id)
        }
        fn link_account(&self, account: &AdapterAccount) -> Result<(), AdapterError> {
            self.note("link_account");
            self.0.link_account(account)
        }
        fn unlink_account(&self, provider: &str, id: &str) -> Result<(), AdapterError> {
            self.0.unlink_account(provider, id)
        }
        fn ensure_user(&self, user: &NewUser) -> Result<Ensured, AdapterError> {
            self.note("ensure_user");
            self.0.ensure_user(user)
        }
        fn ensure_account_linked(&self, account: &AdapterAccount) -> Result<bool, AdapterError> {
            self.note("ensure_account_linked");
            self.0.ensure_account_linked(account)
        }
        fn ensure_user_with_account(&self, user: &NewUser, account: &AdapterAccount) -> Result<Ensured, AdapterError> {
            self.note("ensure_user_with_account");
            self.0.ensure_user_with_account(user, account)
        }
        fn create_session(&self, session: &AdapterSession) -> Result<AdapterSession, AdapterError> {
            self.0.create_session(session)
        }
        fn get_session_and_user(&self, token: &str) -> Result<Option<(AdapterSession, AdapterUser)>, AdapterError> {
            self.0.get_session_and_user(token)
        }
        fn update_session(&self, token: &str, expires: i64) -> Result<Option<AdapterSession>, AdapterError> {
            self.0.update_session(token, expires)
        }
        fn delete_session(&self, token: &str) -> Result<Option<AdapterSession>, AdapterError> {
            self.0.delete_session(token)
        }
        fn create_verification_token(&self, token: &VerificationToken) -> Result<(), AdapterError> {
            self.0.create_verification_token(token)
        }
        fn use_verification_token(
            &self,
            identifier: &str,
            token: &str,
        ) -> Result<Option<VerificationToken>, AdapterError> {
            self.0.use_verification_token(identifier, token)
        }
        fn get_account(&self, user_id: &str, provider: &str) -> Result<Option<AdapterAccount>, AdapterError> {
            self.0.get_account(user_id, provider)
        }
    }

    /// First sign-in writes reach the inner adapter's own idempotent
    /// versions (atomic in the SQL adapters), with the tokens sealed.
    #[test]
    fn first_sign_in_writes_go_to_the_inner_adapter_sealed() {
        let inner = Arc::new(Recording(MemoryAdapter::default(), Default::default()));
        let sealed = SealedTokens::new(inner.clone(), &secrets(&["s-s-s-s-s-s-s-s-s-s-s-s-s-s-s-s"]));
        let new = NewUser { email: Some("b@example.com".into()), ..Default::default() };
        let first = sealed.ensure_user_with_account(&new, &account("", "7")).unwrap();
        assert!(first.created);
        assert!(!sealed.ensure_user_with_account(&new, &account("", "7")).unwrap().created);
        assert!(!sealed.ensure_user(&new).unwrap().created);
        assert!(!sealed.ensure_account_linked(&account(&first.user.id, "7")).unwrap());
        assert!(sealed.ensure_account_linked(&account(&first.user.id, "8")).unwrap());
        assert_eq!(
            *inner.1.lock().unwrap(),
            [
                "ensure_user_with_account",
                "ensure_user_with_account",
                "ensure_user",
                "ensure_account_linked",
                "ensure_account_linked"
            ]
        );
        let raw = inner.0.get_account(&first.user.id, "github").unwrap().unwrap();
        assert!(raw.access_token.unwrap().starts_with(PREFIX), "stored sealed");
        assert_eq!(
            sealed.get_account(&first.user.id, "github").unwrap().unwrap().access_token.as_deref(),
            Some("gho_access")
        );
    }

    /// Passkeys hold no provider token: every call reaches the inner
    /// adapter unchanged.
    #[test]
    fn passkeys_pass_through() {
        let store: Arc<dyn Adapter> = Arc::new(MemoryAdapter::default());
        let sealed = SealedTokens::new(store.clone(), &secrets(&["s-s-s-s-s-s-s-s-s-s-s-s-s-s-s-s"]));
        let user = sealed.create_user(&NewUser::default()).unwrap();
        let passkey = Authenticator {
            credential_id: "cred-1".into(),
            user_id: user.id.clone(),
            provider_account_id: "cred-1".into(),
            credential_public_key: "pQECAyYgASFYIA==".into(),
            counter: 0,
            credential_device_type: "singleDevice".into(),
            credential_backed_up: false,
            transports: Some("usb".into()),
            name: None,
            created_at: Some(1),
            last_used_at: None,
        };
        assert_eq!(sealed.create_authenticator(&passkey).unwrap(), passkey);
        assert_eq!(store.get_authenticator("cred-1").unwrap(), Some(passkey.clone()), "stored as given");
        let used = sealed.update_authenticator_counter("cred-1", 9, 2).unwrap();
        assert_eq!((used.counter, used.last_used_at), (9, Some(2)));
        let named = sealed.rename_authenticator("cred-1", Some("Key")).unwrap().unwrap();
        assert_eq!(sealed.get_authenticator("cred-1").unwrap(), Some(named.clone()));
        assert_eq!(sealed.list_authenticators_by_user_id(&user.id).unwrap(), vec![named.clone()]);
        assert_eq!(sealed.delete_authenticator("cred-1").unwrap(), Some(named));
        assert_eq!(store.get_authenticator("cred-1").unwrap(), None);
    }

    #[test]
    fn tokens_stored_in_plain_text_before_the_option_still_read() {
        let store: Arc<dyn Adapter> = Arc::new(MemoryAdapter::default());
        let user = store.create_user(&NewUser::default()).unwrap();
        store.link_account(&account(&user.id, "1")).unwrap();
        let sealed = SealedTokens::new(store.clone(), &secrets(&["s-s-s-s-s-s-s-s-s-s-s-s-s-s-s-s"]));
        assert_eq!(sealed.get_account(&user.id, "github").unwrap().unwrap(), account(&user.id, "1"));
        sealed.update_account(&account(&user.id, "1")).unwrap();
        assert!(store.get_account(&user.id, "github").unwrap().unwrap().access_token.unwrap().starts_with(PREFIX));
    }
}
