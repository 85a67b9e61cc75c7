//! Provider tokens encrypted at rest (the `encryptTokens` option).
//!
//! An account's `access_token`, `refresh_token` and `id_token` are
//! credentials for the user's account at the provider: whoever reads the
//! database (a backup, a read replica, an SQL injection elsewhere in the
//! app) could call the provider's API as every user. With `encryptTokens`
//! the backends that store accounts keep them sealed with AES-256-GCM under a key derived
//! (HKDF-SHA-256) from the secret; the provider and account id are the
//! associated data, so a sealed token copied onto another account row does
//! not open.
//!
//! Rotation: tokens are sealed with the first secret and opened with any
//! of them, as session cookies are. Tokens stored before the option was
//! turned on (plain text, without the `enc:v1:` prefix) are read as they
//! are and sealed the next time they are written (a refresh).

use std::borrow::Cow;

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;

use super::{AdapterAccount, AdapterError};

/// Marks a sealed value; anything else is a token stored in plain text.
const PREFIX: &str = "enc:v1:";
const NONCE_LEN: usize = 12;

/// How a backend stores an account's tokens: as given ([`Sealing::none`],
/// the default) or sealed ([`Sealing::new`]). Every backend that stores
/// accounts applies it where accounts go in ([`Sealing::seal_account`]) and
/// come out ([`Sealing::open_account`]).
#[derive(Clone, Default)]
pub struct Sealing {
    /// One cipher per secret, the first seals; none: tokens as given.
    ciphers: Vec<Aes256Gcm>,
}

impl Sealing {
    /// Tokens stored as given.
    pub fn none() -> Sealing {
        Sealing::default()
    }

    /// Tokens sealed with the first of `secrets`, opened with any.
    pub fn new(secrets: &[String]) -> Sealing {
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
        Sealing { ciphers }
    }

    /// Whether tokens are sealed.
    pub fn is_on(&self) -> bool {
        !self.ciphers.is_empty()
    }

    /// `account` as it is stored: its tokens sealed, unless sealed already
    /// or sealing is off.
    pub fn seal_account<'a>(&self, account: &'a AdapterAccount) -> Result<Cow<'a, AdapterAccount>, AdapterError> {
        if !self.is_on() {
            return Ok(Cow::Borrowed(account));
        }
        let mut sealed = account.clone();
        for (field, value) in token_fields(&mut sealed) {
            if let Some(token) = value.as_mut().filter(|t| !t.starts_with(PREFIX)) {
                *token = self.seal(&associated_data(&account.provider, &account.provider_account_id, field), token)?;
            }
        }
        Ok(Cow::Owned(sealed))
    }

    /// A stored account with its sealed tokens opened (tokens stored in
    /// plain text, before sealing was turned on, are read as they are).
    pub fn open_account(&self, mut account: AdapterAccount) -> Result<AdapterAccount, AdapterError> {
        if !self.is_on() {
            return Ok(account);
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{AccountStore, AccountType, MemoryAdapter, NewUser, SqliteAdapter, UserStore};

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

    /// A database file, removed when dropped.
    struct TempDb(std::path::PathBuf);

    impl TempDb {
        fn new() -> TempDb {
            TempDb(std::env::temp_dir().join(format!("libauth-sealing-{}.db", uuid::Uuid::new_v4())))
        }

        /// The file as a backend sealing with `list` (empty: not sealing).
        fn open(&self, list: &[&str]) -> SqliteAdapter {
            let sealing = if list.is_empty() { Sealing::none() } else { Sealing::new(&secrets(list)) };
            SqliteAdapter::open(&self.0).unwrap().with_sealing(sealing)
        }
    }

    impl Drop for TempDb {
        fn drop(&mut self) {
            for suffix in ["", "-wal", "-shm"] {
                let mut path = self.0.clone().into_os_string();
                path.push(suffix);
                let _ = std::fs::remove_file(path);
            }
        }
    }

    fn assert_sealed(raw: &AdapterAccount) {
        for token in [&raw.access_token, &raw.refresh_token, &raw.id_token] {
            let token = token.as_deref().unwrap();
            assert!(token.starts_with(PREFIX), "stored sealed: {token}");
            assert!(!token.contains("gho_") && !token.contains("ghr_") && !token.contains("eyJ"));
        }
    }

    #[test]
    fn tokens_are_stored_sealed_and_read_in_plain_text_across_a_rotation() {
        let db = TempDb::new();
        let old = db.open(&["old-secret-old-secret-old-secret-0"]);
        let user = old.create_user(&NewUser { email: Some("a@example.com".into()), ..Default::default() }).unwrap();
        old.link_account(&account(&user.id, "1")).unwrap();

        let raw = db.open(&[]).get_account(&user.id, "github").unwrap().unwrap();
        assert_sealed(&raw);
        // Rotated: a new first secret, the old one still listed.
        let rotated = db.open(&["new-secret-new-secret-new-secret-1", "old-secret-old-secret-old-secret-0"]);
        assert_eq!(rotated.get_account(&user.id, "github").unwrap().unwrap(), account(&user.id, "1"));
        // Replaced instead of rotated: a typed error, never garbage or plain text.
        assert!(db.open(&["new-secret-new-secret-new-secret-1"]).get_account(&user.id, "github").is_err());
    }

    #[test]
    fn a_sealed_token_does_not_open_on_another_account_or_field() {
        let sealing = Sealing::new(&secrets(&["s-s-s-s-s-s-s-s-s-s-s-s-s-s-s-s"]));
        let token = sealing.seal(&associated_data("github", "1", "access_token"), "gho_access").unwrap();
        assert_eq!(sealing.open(&associated_data("github", "1", "access_token"), &token).unwrap(), "gho_access");
        for aad in [
            associated_data("github", "2", "access_token"),
            associated_data("google", "1", "access_token"),
            associated_data("github", "1", "refresh_token"),
        ] {
            assert!(sealing.open(&aad, &token).is_err());
        }
        for tampered in
            [PREFIX.to_string(), format!("{PREFIX}!!"), format!("{token}A"), token[..token.len() - 2].to_owned()]
        {
            assert!(sealing.open(&associated_data("github", "1", "access_token"), &tampered).is_err(), "{tampered}");
        }
    }

    /// The first sign-in writes (atomic in the SQL backends) store the
    /// tokens sealed, and reads open them.
    #[test]
    fn first_sign_in_writes_are_sealed() {
        let db = TempDb::new();
        let sealed = db.open(&["s-s-s-s-s-s-s-s-s-s-s-s-s-s-s-s"]);
        let new = NewUser { email: Some("b@example.com".into()), ..Default::default() };
        let first = sealed.ensure_user_with_account(&new, &account("", "7")).unwrap();
        assert!(first.created);
        assert!(!sealed.ensure_user_with_account(&new, &account("", "7")).unwrap().created);
        let gitlab = AdapterAccount { provider: "gitlab".into(), ..account(&first.user.id, "8") };
        assert!(sealed.ensure_account_linked(&gitlab).unwrap());
        assert_sealed(&db.open(&[]).get_account(&first.user.id, "gitlab").unwrap().unwrap());
        let other = sealed.create_user(&NewUser::default()).unwrap();
        let made = sealed.create_user_and_link_account(&NewUser::default(), &account(&other.id, "9")).unwrap();
        let raw = db.open(&[]);
        for (user, id) in [(&first.user.id, "7"), (&made.id, "9")] {
            let stored = raw.get_account(user, "github").unwrap().unwrap();
            assert_eq!(stored.provider_account_id, id);
            assert_sealed(&stored);
            assert_eq!(
                sealed.get_account(user, "github").unwrap().unwrap().access_token.as_deref(),
                Some("gho_access")
            );
        }
    }

    /// Sealing off: tokens are stored and read as given, and a token that
    /// only looks sealed is left alone.
    #[test]
    fn without_sealing_tokens_pass_as_given() {
        let memory = MemoryAdapter::new();
        let user = memory.create_user(&NewUser::default()).unwrap();
        let mut given = account(&user.id, "1");
        given.access_token = Some(format!("{PREFIX}not-really"));
        memory.link_account(&given).unwrap();
        assert_eq!(memory.get_account(&user.id, "github").unwrap().unwrap(), given);
    }

    #[test]
    fn tokens_stored_in_plain_text_before_the_option_still_read() {
        let db = TempDb::new();
        let plain = db.open(&[]);
        let user = plain.create_user(&NewUser::default()).unwrap();
        plain.link_account(&account(&user.id, "1")).unwrap();
        let sealed = db.open(&["s-s-s-s-s-s-s-s-s-s-s-s-s-s-s-s"]);
        assert_eq!(sealed.get_account(&user.id, "github").unwrap().unwrap(), account(&user.id, "1"));
        sealed.update_account(&account(&user.id, "1")).unwrap();
        assert_sealed(&plain.get_account(&user.id, "github").unwrap().unwrap());
    }

    /// The in-memory backend seals as the SQL ones do.
    #[test]
    fn the_memory_backend_seals_too() {
        let memory = MemoryAdapter::with_sealing(Sealing::new(&secrets(&["s-s-s-s-s-s-s-s-s-s-s-s-s-s-s-s"])));
        let user = memory.create_user(&NewUser::default()).unwrap();
        memory.link_account(&account(&user.id, "1")).unwrap();
        assert_eq!(memory.get_account(&user.id, "github").unwrap().unwrap(), account(&user.id, "1"));
    }
}
