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
use josekit::jwe::alg::direct::{DirectJweDecrypter, DirectJweEncrypter};
use josekit::jwe::{self, JweDecrypter, JweHeader, Dir};
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
    encrypter: Option<DirectJweEncrypter>,
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
                        // Only CBC is used to encrypt; GCM keys just decrypt.
                        encrypter: (enc == CBC).then(|| Dir.encrypter_from_bytes(&key).expect("64-byte key")),
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
    pub fn encode_at(&self, claims: &Map<String, Value>, salt: &str, max_age: u64, now: u64) -> Result<String, JwtError> {
        let keys = self.keys(salt);
        let key = keys.cbc.first().ok_or(JwtError::NoMatchingSecret)?;
        let mut payload = claims.clone();
        payload.insert("iat".into(), now.into());
        payload.insert("exp".into(), (now + max_age).into());
        payload.insert("jti".into(), uuid::Uuid::new_v4().to_string().into());
        // Field order alg, enc, kid: the same header bytes as Auth.js.
        let mut header = JweHeader::new();
        header.set_algorithm("dir");
        header.set_content_encryption(CBC);
        header.set_key_id(key.kid.clone());
        let encrypter = key.encrypter.as_ref().ok_or_else(|| JwtError::Encrypt("no encrypter".into()))?;
        let body = serde_json::to_vec(&payload).map_err(|e| JwtError::Encrypt(e.to_string()))?;
        jwe::serialize_compact(&body, &header, encrypter).map_err(|e| JwtError::Encrypt(e.to_string()))
    }

    /// Decrypt and check expiry. Any failure means "no session".
    pub fn decode(&self, token: &str, salt: &str) -> Result<Map<String, Value>, JwtError> {
        if token.split('.').count() != 5 {
            return Err(JwtError::Malformed("expected 5 segments".into()));
        }
        let keys = self.keys(salt);
        let selected: std::cell::RefCell<Option<JwtError>> = std::cell::RefCell::new(None);
        let result = jwe::deserialize_compact_with_selector(token, |header| match keys.select(header) {
            Ok(d) => Ok(Some(d as &dyn JweDecrypter)),
            Err(e) => {
                *selected.borrow_mut() = Some(e);
                Ok(None)
            }
        });
        let (payload, _) = match result {
            Ok(ok) => ok,
            Err(e) => return Err(selected.take().unwrap_or(JwtError::Decrypt(e.to_string()))),
        };
        let Ok(Value::Object(claims)) = serde_json::from_slice::<Value>(&payload) else {
            return Err(JwtError::NotAnObject);
        };
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
        Ok(claims)
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

        let mut old = claims();
        old.insert("exp".into(), (now_seconds() - 100).into());
        // encode() overwrites exp, so build an expired token by hand.
        let keys = codec.keys(SALT);
        let mut header = JweHeader::new();
        header.set_content_encryption(CBC);
        header.set_key_id(keys.cbc[0].kid.clone());
        let expired = jwe::serialize_compact(
            &serde_json::to_vec(&old).unwrap(),
            &header,
            keys.cbc[0].encrypter.as_ref().unwrap(),
        )
        .unwrap();
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
