//! A second factor's secret at rest: whoever reads the database must not
//! be able to make a user's codes. Sealed with AES-256-GCM under a key
//! derived (HKDF-SHA-256) from the auth secret, with the user's id as
//! associated data (a secret copied onto another user's row does not
//! open). Sealed with the first secret, opened with any (rotation).

use aes_gcm::aead::{Aead, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;

const PREFIX: &str = "tf:v1:";
const NONCE_LEN: usize = 12;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SealError {
    /// The sealed text is not ours, or no configured secret opens it (it was
    /// sealed under a secret since removed, or tampered with).
    #[error("the second factor's secret cannot be opened with any configured secret")]
    Unreadable,
    /// The operating system gave no randomness for the nonce.
    #[error("no randomness to seal the second factor's secret")]
    NoRandomness,
}

/// Seals and opens second-factor secrets with keys from the auth secrets.
pub struct SecretBox {
    ciphers: Vec<Aes256Gcm>,
}

impl std::fmt::Debug for SecretBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SecretBox").field("keys", &self.ciphers.len()).finish()
    }
}

impl SecretBox {
    /// Keys for `secrets` (the engine's, first one current); at least one.
    pub fn new(secrets: &[String]) -> SecretBox {
        let ciphers = secrets
            .iter()
            .map(|secret| {
                let mut key = [0u8; 32];
                hkdf::Hkdf::<sha2::Sha256>::new(Some(b"libauth second factor"), secret.as_bytes())
                    .expand(b"AES-256-GCM v1", &mut key)
                    .expect("32 bytes is a valid HKDF-SHA-256 output length");
                Aes256Gcm::new(&key.into())
            })
            .collect();
        SecretBox { ciphers }
    }

    /// `secret` sealed for `user_id`, as text to store.
    pub fn seal(&self, user_id: &str, secret: &[u8]) -> Result<String, SealError> {
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::getrandom(&mut nonce).map_err(|_| SealError::NoRandomness)?;
        let cipher = self.ciphers.first().ok_or(SealError::Unreadable)?;
        let sealed = cipher
            .encrypt(Nonce::from_slice(&nonce), Payload { msg: secret, aad: user_id.as_bytes() })
            .map_err(|_| SealError::Unreadable)?;
        let mut bytes = nonce.to_vec();
        bytes.extend_from_slice(&sealed);
        Ok(format!("{PREFIX}{}", B64.encode(bytes)))
    }

    /// The secret `sealed` holds for `user_id`, opened with whichever
    /// configured secret sealed it.
    pub fn open(&self, user_id: &str, sealed: &str) -> Result<Vec<u8>, SealError> {
        let bytes = sealed.strip_prefix(PREFIX).and_then(|b| B64.decode(b).ok()).ok_or(SealError::Unreadable)?;
        if bytes.len() <= NONCE_LEN {
            return Err(SealError::Unreadable);
        }
        let (nonce, body) = bytes.split_at(NONCE_LEN);
        self.ciphers
            .iter()
            .find_map(|c| c.decrypt(Nonce::from_slice(nonce), Payload { msg: body, aad: user_id.as_bytes() }).ok())
            .ok_or(SealError::Unreadable)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_per_user_opened_across_a_rotation() {
        let old = SecretBox::new(&["old-secret-0123456789".to_owned()]);
        let sealed = old.seal("u1", b"totp secret bytes").unwrap();
        assert!(sealed.starts_with(PREFIX) && !sealed.contains("totp"));
        assert_eq!(old.open("u1", &sealed).unwrap(), b"totp secret bytes");
        assert_eq!(old.open("u2", &sealed), Err(SealError::Unreadable), "bound to its user");
        let rotated = SecretBox::new(&["new-secret-0123456789".to_owned(), "old-secret-0123456789".to_owned()]);
        assert_eq!(rotated.open("u1", &sealed).unwrap(), b"totp secret bytes");
        let gone = SecretBox::new(&["new-secret-0123456789".to_owned()]);
        assert_eq!(gone.open("u1", &sealed), Err(SealError::Unreadable));
        let mut tampered = sealed.clone();
        tampered.pop();
        tampered.push(if sealed.ends_with('A') { 'B' } else { 'A' });
        assert_eq!(old.open("u1", &tampered), Err(SealError::Unreadable));
        for junk in ["", "tf:v1:", "tf:v1:!!", "plain"] {
            assert_eq!(old.open("u1", junk), Err(SealError::Unreadable), "{junk:?}");
        }
    }
}
