//! The encrypted session token (JWT strategy), byte-compatible with Auth.js
//! v5: compact JWE `alg: dir`, `enc: A256CBC-HS512` (A256GCM also accepted
//! on decode), key = HKDF-SHA-256(secret, salt = cookie name), `kid` = the
//! key's RFC 7638 thumbprint. Facts: `shared/reference/authjs-session-format.md`.
//!
//! Keys are derived once per (secret, salt) and kept: HKDF and the
//! thumbprint are the expensive part, and `get_session` is our hottest path.

use std::collections::HashMap;
use std::sync::RwLock;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hkdf::Hkdf;
use josekit::jwe::alg::direct::DirectJweDecrypter;
use josekit::jwe::{self, Dir, JweDecrypter, JweHeader};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256, Sha512};

use crate::time::now_seconds;

const CBC: &str = "A256CBC-HS512";
const GCM: &str = "A256GCM";
/// Seconds of clock skew accepted on `exp`, as Auth.js.
pub const CLOCK_TOLERANCE: u64 = 15;

#[derive(Debug, thiserror::Error)]
pub enum JwtError {
    #[error("the token is not a compact JWE this library issues ({0})")]
    Malformed(String),
    #[error("no configured secret matches the token's key id")]
    NoMatchingSecret,
    #[error("the token could not be decrypted: {0}")]
    Decrypt(String),
    #[error("the token expired")]
    Expired,
    #[error("the token's payload is not a JSON object")]
    NotAnObject,
    #[error("encryption failed: {0}")]
    Encrypt(String),
}

struct DerivedKey {
    kid: String,
    /// The raw key: for A256CBC-HS512, MAC key ‖ AES key (RFC 7518 §5.2.2.1).
    raw: Vec<u8>,
    /// HMAC-SHA-512 keyed with the MAC half, cloned per use (saves two
    /// SHA-512 blocks of key setup on every read).
    mac: Option<hmac::Hmac<Sha512>>,
    decrypter: DirectJweDecrypter,
}

/// The keys of every secret for one salt (cookie name), in secret order.
struct SaltKeys {
    cbc: Vec<DerivedKey>,
    gcm: Vec<DerivedKey>,
}

impl SaltKeys {
    fn derive(secrets: &[String], salt: &str) -> SaltKeys {
        let derive = |enc: &str, len: usize| -> Vec<DerivedKey> {
            secrets
                .iter()
                .map(|secret| {
                    let key = derive_key(secret, salt, len);
                    let kid = thumbprint(&key);
                    DerivedKey {
                        kid,
                        raw: key.clone(),
                        mac: (enc == CBC).then(|| {
                            <hmac::Hmac<Sha512> as hmac::Mac>::new_from_slice(&key[..32]).expect("any key length")
                        }),
                        decrypter: Dir.decrypter_from_bytes(&key).expect("valid key length"),
                    }
                })
                .collect()
        };
        SaltKeys { cbc: derive(CBC, 64), gcm: derive(GCM, 32) }
    }

    fn select(&self, header: &JweHeader) -> Result<&DirectJweDecrypter, JwtError> {
        if header.algorithm() != Some("dir") {
            return Err(JwtError::Malformed("alg must be dir".into()));
        }
        let keys = match header.content_encryption() {
            Some(CBC) => &self.cbc,
            Some(GCM) => &self.gcm,
            _ => return Err(JwtError::Malformed("enc must be A256CBC-HS512 or A256GCM".into())),
        };
        match header.key_id() {
            // Without a kid, Auth.js tries the first secret only.
            None => keys.first().map(|k| &k.decrypter).ok_or(JwtError::NoMatchingSecret),
            Some(kid) => keys.iter().find(|k| k.kid == kid).map(|k| &k.decrypter).ok_or(JwtError::NoMatchingSecret),
        }
    }
}

/// Encodes and decodes session tokens for a list of secrets (the first
/// encrypts, any decrypts).
pub struct JwtCodec {
    secrets: Vec<String>,
    keys: RwLock<HashMap<String, std::sync::Arc<SaltKeys>>>,
}

impl JwtCodec {
    /// Derive keys up front for the salts (cookie names) known at start.
    pub fn new(secrets: Vec<String>, salts: &[&str]) -> JwtCodec {
        let keys = salts.iter().map(|s| (s.to_string(), std::sync::Arc::new(SaltKeys::derive(&secrets, s)))).collect();
        JwtCodec { secrets, keys: RwLock::new(keys) }
    }

    fn keys(&self, salt: &str) -> std::sync::Arc<SaltKeys> {
        if let Some(k) = self.keys.read().unwrap_or_else(|e| e.into_inner()).get(salt) {
            return k.clone();
        }
        let derived = std::sync::Arc::new(SaltKeys::derive(&self.secrets, salt));
        self.keys.write().unwrap_or_else(|e| e.into_inner()).insert(salt.to_owned(), derived.clone());
        derived
    }

    /// Encrypt `claims` with the first secret, setting `iat`, `exp`
    /// (`iat + max_age`) and a fresh `jti`, as Auth.js's `encode` does.
    pub fn encode(&self, claims: &Map<String, Value>, salt: &str, max_age: u64) -> Result<String, JwtError> {
        self.encode_at(claims, salt, max_age, now_seconds())
    }

    /// [`JwtCodec::encode`] as if the clock read `now` (for tests and tools).
    pub fn encode_at(
        &self,
        claims: &Map<String, Value>,
        salt: &str,
        max_age: u64,
        now: u64,
    ) -> Result<String, JwtError> {
        let keys = self.keys(salt);
        let key = keys.cbc.first().ok_or(JwtError::NoMatchingSecret)?;
        let mut payload = claims.clone();
        payload.insert("iat".into(), now.into());
        payload.insert("exp".into(), (now + max_age).into());
        payload.insert("jti".into(), uuid::Uuid::new_v4().to_string().into());
        let body = serde_json::to_vec(&payload).map_err(|e| JwtError::Encrypt(e.to_string()))?;
        fast_cbc::encrypt(&body, key)
    }

    /// Decrypt and check expiry. Any failure means "no session".
    pub fn decode(&self, token: &str, salt: &str) -> Result<Map<String, Value>, JwtError> {
        if token.split('.').count() != 5 {
            return Err(JwtError::Malformed("expected 5 segments".into()));
        }
        let keys = self.keys(salt);
        // Our own format (the only one Auth.js issues) takes the fast path;
        // anything else goes through josekit.
        let payload = match fast_cbc::decrypt(token, &keys)? {
            Some(payload) => payload,
            None => self.decode_with_josekit(token, &keys)?,
        };
        let Ok(Value::Object(claims)) = serde_json::from_slice::<Value>(&payload) else {
            return Err(JwtError::NotAnObject);
        };
        check_time_claims(&claims)?;
        Ok(claims)
    }

    fn decode_with_josekit(&self, token: &str, keys: &SaltKeys) -> Result<Vec<u8>, JwtError> {
        let selected: std::cell::RefCell<Option<JwtError>> = std::cell::RefCell::new(None);
        let result = jwe::deserialize_compact_with_selector(token, |header| match keys.select(header) {
            Ok(d) => Ok(Some(d as &dyn JweDecrypter)),
            Err(e) => {
                *selected.borrow_mut() = Some(e);
                Ok(None)
            }
        });
        match result {
            Ok((payload, _)) => Ok(payload),
            Err(e) => Err(selected.take().unwrap_or(JwtError::Decrypt(e.to_string()))),
        }
    }
}

/// `exp` (with the clock tolerance) and `nbf`, as jose checks them.
fn check_time_claims(claims: &Map<String, Value>) -> Result<(), JwtError> {
    {
        if let Some(exp) = claims.get("exp") {
            let exp = exp.as_f64().ok_or(JwtError::Malformed("exp is not a number".into()))?;
            if exp + (CLOCK_TOLERANCE as f64) <= now_seconds() as f64 {
                return Err(JwtError::Expired);
            }
        }
        if let Some(nbf) = claims.get("nbf").and_then(Value::as_f64) {
            if nbf > (now_seconds() + CLOCK_TOLERANCE) as f64 {
                return Err(JwtError::Expired);
            }
        }
        Ok(())
    }
}

/// Decryption of `dir` + `A256CBC-HS512` compact JWEs with RustCrypto's
/// AES-CBC and HMAC. josekit goes through OpenSSL 3, whose per-call
/// algorithm fetch (global lock + table walk) cost ~15 µs per session read;
/// the primitives here cost ~1 µs. Only the JWE framing is ours (RFC 7516
/// §5.2, RFC 7518 §5.2.2.2); the format is checked against Auth.js's own
/// vectors in tests/compat and core/tests/sessions.rs.
mod fast_cbc {
    use aes::cipher::{block_padding::Pkcs7, BlockDecryptMut, KeyIvInit};
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine as _;
    use hmac::{Hmac, Mac};
    use serde::Deserialize;
    use sha2::Sha512;
    use subtle::ConstantTimeEq;

    use super::{DerivedKey, JwtError, SaltKeys, CBC};
    use aes::cipher::BlockEncryptMut;

    #[derive(Deserialize)]
    struct Header<'a> {
        alg: &'a str,
        enc: &'a str,
        kid: Option<&'a str>,
        zip: Option<&'a str>,
        crit: Option<serde::de::IgnoredAny>,
    }

    /// Encrypt `payload` as Auth.js does: header `{"alg":"dir","enc":
    /// "A256CBC-HS512","kid":…}` in that order (the same bytes), a random
    /// 16-byte IV, PKCS#7 padding, and the 32-byte truncated HMAC tag.
    pub(super) fn encrypt(payload: &[u8], key: &DerivedKey) -> Result<String, JwtError> {
        let header = format!(r#"{{"alg":"dir","enc":"{CBC}","kid":"{}"}}"#, key.kid);
        let protected = URL_SAFE_NO_PAD.encode(header);
        let iv = crate::random::bytes(16);
        let ciphertext = cbc::Encryptor::<aes::Aes256>::new_from_slices(&key.raw[32..], &iv)
            .map_err(|e| JwtError::Encrypt(e.to_string()))?
            .encrypt_padded_vec_mut::<Pkcs7>(payload);
        let mut mac: Hmac<Sha512> = key.mac.clone().ok_or_else(|| JwtError::Encrypt("no MAC key".into()))?;
        mac.update(protected.as_bytes());
        mac.update(&iv);
        mac.update(&ciphertext);
        mac.update(&((protected.len() as u64) * 8).to_be_bytes());
        let tag = mac.finalize().into_bytes();
        Ok(format!(
            "{protected}..{}.{}.{}",
            URL_SAFE_NO_PAD.encode(&iv),
            URL_SAFE_NO_PAD.encode(&ciphertext),
            URL_SAFE_NO_PAD.encode(&tag[..32])
        ))
    }

    /// `Ok(None)` when the token is not ours to handle here (another `enc`,
    /// compression, `crit`): the caller falls back to josekit.
    pub(super) fn decrypt(token: &str, keys: &SaltKeys) -> Result<Option<Vec<u8>>, JwtError> {
        let mut parts = token.split('.');
        let (Some(protected), Some(encrypted_key), Some(iv), Some(ciphertext), Some(tag)) =
            (parts.next(), parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(JwtError::Malformed("expected 5 segments".into()));
        };
        let header_json = URL_SAFE_NO_PAD.decode(protected).map_err(|_| JwtError::Malformed("header".into()))?;
        let header: Header = serde_json::from_slice(&header_json).map_err(|_| JwtError::Malformed("header".into()))?;
        if header.alg != "dir" {
            return Err(JwtError::Malformed("alg must be dir".into()));
        }
        if header.enc != CBC || header.zip.is_some() || header.crit.is_some() {
            return Ok(None);
        }
        if !encrypted_key.is_empty() {
            return Err(JwtError::Malformed("dir has an empty encrypted key".into()));
        }
        let key = match header.kid {
            None => keys.cbc.first(),
            Some(kid) => keys.cbc.iter().find(|k| k.kid == kid),
        }
        .ok_or(JwtError::NoMatchingSecret)?;
        let iv = URL_SAFE_NO_PAD.decode(iv).map_err(|_| JwtError::Malformed("iv".into()))?;
        let ciphertext = URL_SAFE_NO_PAD.decode(ciphertext).map_err(|_| JwtError::Malformed("ciphertext".into()))?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| JwtError::Malformed("tag".into()))?;
        if iv.len() != 16 || tag.len() != 32 {
            return Err(JwtError::Malformed("iv or tag length".into()));
        }
        let enc_key = &key.raw[32..];
        // Tag = first half of HMAC-SHA-512(AAD ‖ IV ‖ ciphertext ‖ AAD bit length).
        let mut mac: Hmac<Sha512> = key.mac.clone().ok_or_else(|| JwtError::Decrypt("no MAC key".into()))?;
        mac.update(protected.as_bytes());
        mac.update(&iv);
        mac.update(&ciphertext);
        mac.update(&((protected.len() as u64) * 8).to_be_bytes());
        let full = mac.finalize().into_bytes();
        if !bool::from(full[..32].ct_eq(&tag)) {
            return Err(JwtError::Decrypt("authentication tag mismatch".into()));
        }
        cbc::Decryptor::<aes::Aes256>::new_from_slices(enc_key, &iv)
            .map_err(|e| JwtError::Decrypt(e.to_string()))?
            .decrypt_padded_vec_mut::<Pkcs7>(&ciphertext)
            .map(Some)
            .map_err(|_| JwtError::Decrypt("bad padding".into()))
    }
}

/// HKDF-SHA-256 with the secret's UTF-8 bytes as key material, the cookie
/// name as salt and Auth.js's info string.
fn derive_key(secret: &str, salt: &str, len: usize) -> Vec<u8> {
    let info = format!("Auth.js Generated Encryption Key ({salt})");
    let mut out = vec![0u8; len];
    Hkdf::<Sha256>::new(Some(salt.as_bytes()), secret.as_bytes())
        .expand(info.as_bytes(), &mut out)
        .expect("length is at most 64 bytes");
    out
}

/// RFC 7638 thumbprint of `{"k":…,"kty":"oct"}`, hash sized to the key.
fn thumbprint(key: &[u8]) -> String {
    let jwk = format!(r#"{{"k":"{}","kty":"oct"}}"#, URL_SAFE_NO_PAD.encode(key));
    if key.len() == 64 {
        URL_SAFE_NO_PAD.encode(Sha512::digest(jwk.as_bytes()))
    } else {
        URL_SAFE_NO_PAD.encode(Sha256::digest(jwk.as_bytes()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const SALT: &str = "authjs.session-token";

    fn claims() -> Map<String, Value> {
        json!({"name": "Ada", "email": "ada@example.com", "sub": "1"}).as_object().unwrap().clone()
    }

    #[test]
    fn round_trip_and_header() {
        let codec = JwtCodec::new(vec!["a".repeat(32)], &[SALT]);
        let token = codec.encode(&claims(), SALT, 60).unwrap();
        let header: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(token.split('.').next().unwrap()).unwrap()).unwrap();
        assert_eq!(header["alg"], "dir");
        assert_eq!(header["enc"], "A256CBC-HS512");
        assert!(header["kid"].is_string());
        assert_eq!(token.split('.').nth(1), Some(""), "dir has an empty key segment");
        let back = codec.decode(&token, SALT).unwrap();
        assert_eq!(back["name"], "Ada");
        assert_eq!(back["exp"].as_u64().unwrap() - back["iat"].as_u64().unwrap(), 60);
    }

    #[test]
    fn wrong_salt_secret_tamper_and_expiry_fail() {
        let codec = JwtCodec::new(vec!["a".repeat(32)], &[SALT]);
        let token = codec.encode(&claims(), SALT, 60).unwrap();
        assert!(codec.decode(&token, "__Secure-authjs.session-token").is_err());
        let other = JwtCodec::new(vec!["b".repeat(32)], &[SALT]);
        assert!(matches!(other.decode(&token, SALT), Err(JwtError::NoMatchingSecret)));
        let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
        let c = parts[3].pop().unwrap();
        parts[3].push(if c == 'A' { 'B' } else { 'A' });
        assert!(codec.decode(&parts.join("."), SALT).is_err());
        assert!(codec.decode("garbage", SALT).is_err());
        assert!(codec.decode("a.b.c.d.e", SALT).is_err());

        let expired = codec.encode_at(&claims(), SALT, 60, now_seconds() - 100).unwrap();
        assert!(matches!(codec.decode(&expired, SALT), Err(JwtError::Expired)));
    }

    #[test]
    fn rotation_encrypts_with_first_and_decrypts_with_any() {
        let old = JwtCodec::new(vec!["o".repeat(32)], &[SALT]);
        let rotated = JwtCodec::new(vec!["n".repeat(32), "o".repeat(32)], &[SALT]);
        let old_token = old.encode(&claims(), SALT, 60).unwrap();
        assert!(rotated.decode(&old_token, SALT).is_ok());
        let new_token = rotated.encode(&claims(), SALT, 60).unwrap();
        assert!(old.decode(&new_token, SALT).is_err());
        let new_only = JwtCodec::new(vec!["n".repeat(32)], &[SALT]);
        assert!(new_only.decode(&new_token, SALT).is_ok());
    }
}
