//! The encrypted session token (JWT strategy), byte-compatible with Auth.js
//! v5: compact JWE `alg: dir`, `enc: A256CBC-HS512`, key =
//! HKDF-SHA-256(secret, salt = cookie name), `kid` = the key's RFC 7638
//! thumbprint. docs/security.md describes what is accepted.
//!
//! Decoding accepts only what is safe, on one path with RustCrypto
//! primitives and no generic JOSE fallback:
//! - `A256CBC-HS512` with the full 32-byte tag, checked (constant time)
//!   before anything is decrypted;
//! - `A256GCM` (written by older Auth.js versions) with the full 16-byte tag
//!   and a 12-byte nonce;
//! - no `zip`, no `crit`, an empty encrypted-key segment;
//! - `exp` required, and `exp`/`iat`/`nbf` sane numbers (see
//!   [`check_time_claims`]).
//!
//! Keys are derived once per (secret, salt) and kept: HKDF and the
//! thumbprint are the expensive part, and `get_session` is our hottest path.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use aes::cipher::{block_padding::Pkcs7, BlockDecryptMut, BlockEncryptMut, InnerIvInit, KeyIvInit};
use aes_gcm::aead::{Aead, KeyInit, Payload};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use hkdf::Hkdf;
use hmac::{Hmac, Mac};
use serde::Deserialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256, Sha512};
use subtle::ConstantTimeEq;

use crate::time::now_seconds;

const CBC: &str = "A256CBC-HS512";
const GCM: &str = "A256GCM";
/// Seconds of clock skew accepted on `exp`, `iat` and `nbf`, as Auth.js.
pub const CLOCK_TOLERANCE: u64 = 15;
/// The latest time claim taken as a real time: 9999-12-31T23:59:59Z.
/// Anything larger (1e30, infinity) is a forged or broken token, and
/// bounding it keeps every later `* 1000` in range.
pub const MAX_TIME_CLAIM: u64 = 253_402_300_799;
/// Longest token segment accepted (a chunked cookie is capped far below).
const MAX_TOKEN_LEN: usize = 64 * 1024;

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
    #[error("the token's time claims are invalid ({0})")]
    BadTimeClaim(&'static str),
    #[error("the token's payload is not a JSON object")]
    NotAnObject,
    #[error("encryption failed: {0}")]
    Encrypt(String),
}

struct DerivedKey {
    kid: String,
    /// The raw key: for A256CBC-HS512, MAC key ‖ AES key (RFC 7518 §5.2.2.1);
    /// for A256GCM, the AES key.
    raw: Vec<u8>,
    /// HMAC-SHA-512 keyed with the MAC half (CBC keys only), cloned per use
    /// (saves two SHA-512 blocks of key setup on every read).
    mac: Option<Hmac<Sha512>>,
    /// CBC keys: the AES key schedule, expanded once.
    aes: Option<aes::Aes256Dec>,
    /// CBC keys: the protected-header segment this library writes with this
    /// key (base64url of `{"alg":"dir","enc":"A256CBC-HS512","kid":…}`). A
    /// token whose header segment is exactly this one needs no header
    /// decoding or parsing; any other header takes the general path.
    protected: String,
}

/// The keys of every secret for one salt (cookie name), in secret order.
struct SaltKeys {
    cbc: Vec<DerivedKey>,
    gcm: Vec<DerivedKey>,
}

impl SaltKeys {
    fn derive(secrets: &[String], salt: &str) -> SaltKeys {
        let derive = |len: usize| -> Vec<DerivedKey> {
            secrets
                .iter()
                .map(|secret| {
                    let raw = derive_key(secret, salt, len);
                    let kid = thumbprint(&raw);
                    let (mac, aes, protected) = if len == 64 {
                        let mac = <Hmac<Sha512> as Mac>::new_from_slice(&raw[..32]).expect("any key length");
                        let aes = <aes::Aes256Dec as KeyInit>::new_from_slice(&raw[32..]).expect("a 32-byte key");
                        let header = format!(r#"{{"alg":"dir","enc":"{CBC}","kid":"{kid}"}}"#);
                        (Some(mac), Some(aes), URL_SAFE_NO_PAD.encode(header))
                    } else {
                        (None, None, String::new())
                    };
                    DerivedKey { kid, raw, mac, aes, protected }
                })
                .collect()
        };
        SaltKeys { cbc: derive(64), gcm: derive(32) }
    }
}

/// Encodes and decodes session tokens for a list of secrets (the first
/// encrypts, any decrypts).
pub struct JwtCodec {
    secrets: Vec<String>,
    /// Keys for the salts known at start (the session cookie names): found
    /// with a string comparison, no lock and no reference count, since
    /// every session read needs them.
    known: Vec<(String, Arc<SaltKeys>)>,
    /// Keys for any other salt, derived on first use.
    derived: RwLock<HashMap<String, Arc<SaltKeys>>>,
}

impl JwtCodec {
    /// Derive keys up front for the salts (cookie names) known at start.
    pub fn new(secrets: Vec<String>, salts: &[&str]) -> JwtCodec {
        let known = salts.iter().map(|s| (s.to_string(), Arc::new(SaltKeys::derive(&secrets, s)))).collect();
        JwtCodec { secrets, known, derived: RwLock::new(HashMap::new()) }
    }

    fn keys(&self, salt: &str) -> Arc<SaltKeys> {
        if let Some((_, k)) = self.known.iter().find(|(s, _)| s == salt) {
            return k.clone();
        }
        if let Some(k) = self.derived.read().unwrap_or_else(|e| e.into_inner()).get(salt) {
            return k.clone();
        }
        let derived = Arc::new(SaltKeys::derive(&self.secrets, salt));
        self.derived.write().unwrap_or_else(|e| e.into_inner()).insert(salt.to_owned(), derived.clone());
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
        payload.insert("exp".into(), now.saturating_add(max_age).min(MAX_TIME_CLAIM).into());
        payload.insert("jti".into(), uuid::Uuid::new_v4().to_string().into());
        let body = serde_json::to_vec(&payload).map_err(|e| JwtError::Encrypt(e.to_string()))?;
        encrypt_cbc_with_header(&body, key, &key.protected)
    }

    /// Decrypt and check the time claims. Any failure means "no session".
    pub fn decode(&self, token: &str, salt: &str) -> Result<Map<String, Value>, JwtError> {
        self.decode_at(token, salt, now_seconds())
    }

    /// [`JwtCodec::decode`] as if the clock read `now`.
    pub fn decode_at(&self, token: &str, salt: &str, now: u64) -> Result<Map<String, Value>, JwtError> {
        parse_claims(&self.open(token, salt)?, now)
    }

    /// Decrypt a token to its payload bytes, checking everything but the
    /// claims: the caller parses them and must check their times
    /// ([`parse_claims`] does both; the session read parses only the
    /// claims it needs and checks them with [`check_time_values`]).
    pub fn open(&self, token: &str, salt: &str) -> Result<Vec<u8>, JwtError> {
        if token.len() > MAX_TOKEN_LEN {
            return Err(JwtError::Malformed("too long".into()));
        }
        match self.known.iter().find(|(s, _)| s == salt) {
            Some((_, keys)) => decrypt(token, keys),
            None => decrypt(token, &self.keys(salt)),
        }
    }
}

/// A decrypted payload as claims: a JSON object whose time claims pass
/// [`check_time_claims`] (`exp` required).
pub fn parse_claims(payload: &[u8], now: u64) -> Result<Map<String, Value>, JwtError> {
    let Ok(Value::Object(claims)) = serde_json::from_slice::<Value>(payload) else {
        return Err(JwtError::NotAnObject);
    };
    check_time_claims(&claims, true, now)?;
    Ok(claims)
}

/// A time claim as whole seconds: a finite, non-negative number no later
/// than [`MAX_TIME_CLAIM`]; `Ok(None)` when absent.
fn time_claim(value: Option<&Value>, name: &'static str) -> Result<Option<u64>, JwtError> {
    let Some(value) = value else {
        return Ok(None);
    };
    let n = value.as_f64().ok_or(JwtError::BadTimeClaim(name))?;
    if !n.is_finite() || n < 0.0 || n > MAX_TIME_CLAIM as f64 {
        return Err(JwtError::BadTimeClaim(name));
    }
    Ok(Some(n as u64))
}

/// The checks every session token gets, whoever decoded it: `exp` (required
/// when `require_exp`) not past, `iat` not in the future, `nbf` reached, each
/// with [`CLOCK_TOLERANCE`], and each a sane number: finite, from 0 to
/// [`MAX_TIME_CLAIM`].
pub fn check_time_claims(claims: &Map<String, Value>, require_exp: bool, now: u64) -> Result<(), JwtError> {
    check_time_values(claims.get("exp"), claims.get("iat"), claims.get("nbf"), require_exp, now)
}

/// [`check_time_claims`] on the three claims as found (`None`: absent).
pub fn check_time_values(
    exp: Option<&Value>,
    iat: Option<&Value>,
    nbf: Option<&Value>,
    require_exp: bool,
    now: u64,
) -> Result<(), JwtError> {
    let exp = time_claim(exp, "exp")?;
    let iat = time_claim(iat, "iat")?;
    let nbf = time_claim(nbf, "nbf")?;
    match exp {
        None if require_exp => return Err(JwtError::BadTimeClaim("exp")),
        Some(exp) if exp.saturating_add(CLOCK_TOLERANCE) <= now => return Err(JwtError::Expired),
        _ => {}
    }
    if iat.is_some_and(|iat| iat > now.saturating_add(CLOCK_TOLERANCE)) {
        return Err(JwtError::BadTimeClaim("iat"));
    }
    if nbf.is_some_and(|nbf| nbf > now.saturating_add(CLOCK_TOLERANCE)) {
        return Err(JwtError::Expired);
    }
    Ok(())
}

#[derive(Deserialize)]
struct Header<'a> {
    alg: &'a str,
    enc: &'a str,
    kid: Option<&'a str>,
    zip: Option<serde::de::IgnoredAny>,
    crit: Option<serde::de::IgnoredAny>,
}

/// Encrypt `payload` as Auth.js does: `header` (this library writes
/// `{"alg":"dir","enc":"A256CBC-HS512","kid":…}` in that order, the same
/// bytes as Auth.js), a random 16-byte IV, PKCS#7 padding, and the 32-byte
/// truncated HMAC tag. `protected` is the header already base64url-encoded.
fn encrypt_cbc_with_header(payload: &[u8], key: &DerivedKey, protected: &str) -> Result<String, JwtError> {
    let iv = crate::random::bytes(16);
    let ciphertext = cbc::Encryptor::<aes::Aes256>::new_from_slices(&key.raw[32..], &iv)
        .map_err(|e| JwtError::Encrypt(e.to_string()))?
        .encrypt_padded_vec_mut::<Pkcs7>(payload);
    let tag = cbc_tag(key, protected, &iv, &ciphertext).ok_or_else(|| JwtError::Encrypt("no MAC key".into()))?;
    Ok(format!(
        "{protected}..{}.{}.{}",
        URL_SAFE_NO_PAD.encode(&iv),
        URL_SAFE_NO_PAD.encode(&ciphertext),
        URL_SAFE_NO_PAD.encode(tag)
    ))
}

/// The A256CBC-HS512 tag: the first half of HMAC-SHA-512(AAD ‖ IV ‖
/// ciphertext ‖ AAD bit length), RFC 7518 §5.2.2.1.
fn cbc_tag(key: &DerivedKey, protected: &str, iv: &[u8], ciphertext: &[u8]) -> Option<[u8; 32]> {
    let mut mac = key.mac.clone()?;
    mac.update(protected.as_bytes());
    mac.update(iv);
    mac.update(ciphertext);
    mac.update(&((protected.len() as u64) * 8).to_be_bytes());
    let full = mac.finalize().into_bytes();
    let mut tag = [0u8; 32];
    tag.copy_from_slice(&full[..32]);
    Some(tag)
}

fn segment(part: &str, what: &'static str) -> Result<Vec<u8>, JwtError> {
    URL_SAFE_NO_PAD.decode(part).map_err(|_| JwtError::Malformed(what.into()))
}

/// Decrypt a compact JWE of one of the two accepted forms. Tag and nonce
/// lengths are exact, and the tag is verified before any plaintext exists.
fn decrypt(token: &str, keys: &SaltKeys) -> Result<Vec<u8>, JwtError> {
    let mut parts = crate::http::split_ascii(token, b'.');
    let (Some(protected), Some(encrypted_key), Some(iv), Some(ciphertext), Some(tag), None) =
        (parts.next(), parts.next(), parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(JwtError::Malformed("expected 5 segments".into()));
    };
    if !encrypted_key.is_empty() {
        return Err(JwtError::Malformed("dir has an empty encrypted key".into()));
    }
    // The header this library (and Auth.js) writes is one fixed string per
    // key: matching it is the whole header check. Any other header is
    // decoded and checked field by field.
    let (enc, key) = match keys.cbc.iter().find(|k| k.protected == protected) {
        Some(key) => (CBC, key),
        None => key_for_header(protected, keys)?,
    };
    // IV and tag decode into fixed buffers (no allocation); a segment that
    // does not fit is no token of ours.
    let mut iv_buf = [0u8; 32];
    let mut tag_buf = [0u8; 32];
    let iv = decode_into(iv, &mut iv_buf, "iv")?;
    let tag = decode_into(tag, &mut tag_buf, "tag")?;
    let mut ciphertext = segment(ciphertext, "ciphertext")?;
    if enc == CBC {
        if iv.len() != 16 || tag.len() != 32 {
            return Err(JwtError::Malformed("iv or tag length".into()));
        }
        let expected =
            cbc_tag(key, protected, iv, &ciphertext).ok_or_else(|| JwtError::Decrypt("no MAC key".into()))?;
        if !bool::from(expected.ct_eq(tag)) {
            return Err(JwtError::Decrypt("authentication tag mismatch".into()));
        }
        // Decrypted in place: the plaintext is the ciphertext's buffer, cut
        // to the unpadded length.
        let aes = key.aes.clone().ok_or_else(|| JwtError::Decrypt("no AES key".into()))?;
        let len = cbc::Decryptor::<aes::Aes256Dec>::inner_iv_slice_init(aes, iv)
            .map_err(|e| JwtError::Decrypt(e.to_string()))?
            .decrypt_padded_mut::<Pkcs7>(&mut ciphertext)
            .map_err(|_| JwtError::Decrypt("bad padding".into()))?
            .len();
        ciphertext.truncate(len);
        Ok(ciphertext)
    } else {
        if iv.len() != 12 || tag.len() != 16 {
            return Err(JwtError::Malformed("iv or tag length".into()));
        }
        let cipher = aes_gcm::Aes256Gcm::new_from_slice(&key.raw).map_err(|e| JwtError::Decrypt(e.to_string()))?;
        ciphertext.extend_from_slice(tag);
        cipher
            .decrypt(aes_gcm::Nonce::from_slice(iv), Payload { msg: &ciphertext, aad: protected.as_bytes() })
            .map_err(|_| JwtError::Decrypt("authentication tag mismatch".into()))
    }
}

/// The general header check: `alg: dir`, no `zip` or `crit`, `enc` one of
/// the two accepted, and the key its `kid` names (the first secret's
/// without a `kid`, as Auth.js).
fn key_for_header<'k>(protected: &str, keys: &'k SaltKeys) -> Result<(&'static str, &'k DerivedKey), JwtError> {
    let header_json = segment(protected, "header")?;
    let header: Header = serde_json::from_slice(&header_json).map_err(|_| JwtError::Malformed("header".into()))?;
    if header.alg != "dir" {
        return Err(JwtError::Malformed("alg must be dir".into()));
    }
    if header.zip.is_some() || header.crit.is_some() {
        return Err(JwtError::Malformed("zip and crit are not accepted".into()));
    }
    let (enc, candidates) = match header.enc {
        CBC => (CBC, &keys.cbc),
        GCM => (GCM, &keys.gcm),
        _ => return Err(JwtError::Malformed("enc must be A256CBC-HS512 or A256GCM".into())),
    };
    let key = match header.kid {
        None => candidates.first(),
        Some(kid) => candidates.iter().find(|k| k.kid == kid),
    }
    .ok_or(JwtError::NoMatchingSecret)?;
    Ok((enc, key))
}

/// Decode a short base64url segment into `buf`; the decoded bytes.
fn decode_into<'b>(part: &str, buf: &'b mut [u8], what: &'static str) -> Result<&'b [u8], JwtError> {
    let len = URL_SAFE_NO_PAD.decode_slice(part, buf).map_err(|_| JwtError::Malformed(what.into()))?;
    Ok(&buf[..len])
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
    fn an_authentic_token_over_the_length_bound_is_refused_before_decryption() {
        let codec = JwtCodec::new(vec!["a".repeat(32)], &[SALT]);
        let mut big = claims();
        big.insert("pad".into(), Value::String("p".repeat(MAX_TOKEN_LEN)));
        let token = codec.encode(&big, SALT, 60).unwrap();
        assert!(token.len() > MAX_TOKEN_LEN);
        assert!(matches!(codec.decode(&token, SALT), Err(JwtError::Malformed(m)) if m == "too long"));
        // The bound itself is still read (and refused for what it is).
        let at_bound = "a".repeat(MAX_TOKEN_LEN);
        assert!(matches!(codec.decode(&at_bound, SALT), Err(JwtError::Malformed(m)) if m != "too long"));
    }

    /// A token made with the real key but a header of the test's choosing.
    fn sealed_with_header(codec: &JwtCodec, header: &str) -> String {
        let keys = codec.keys(SALT);
        let mut claims = claims();
        claims.insert("exp".into(), json!(now_seconds() + 60));
        let protected = URL_SAFE_NO_PAD.encode(header);
        encrypt_cbc_with_header(&serde_json::to_vec(&claims).unwrap(), &keys.cbc[0], &protected).unwrap()
    }

    #[test]
    fn authentic_tokens_with_zip_or_crit_are_refused() {
        let codec = JwtCodec::new(vec!["a".repeat(32)], &[SALT]);
        let kid = codec.keys(SALT).cbc[0].kid.clone();
        let plain = sealed_with_header(&codec, &format!(r#"{{"alg":"dir","enc":"{CBC}","kid":"{kid}"}}"#));
        assert!(codec.decode(&plain, SALT).is_ok(), "the control token decodes");
        for extra in [r#""zip":"DEF""#, r#""crit":["exp"]"#] {
            let token = sealed_with_header(&codec, &format!(r#"{{"alg":"dir","enc":"{CBC}","kid":"{kid}",{extra}}}"#));
            assert!(
                matches!(codec.decode(&token, SALT), Err(JwtError::Malformed(m)) if m.contains("zip and crit")),
                "{extra}"
            );
        }
    }

    #[test]
    fn cbc_tag_and_iv_lengths_are_exact_before_any_crypto() {
        let codec = JwtCodec::new(vec!["a".repeat(32)], &[SALT]);
        let token = codec.encode(&claims(), SALT, 60).unwrap();
        let parts: Vec<&str> = token.split('.').collect();
        let short_tag = URL_SAFE_NO_PAD.encode(&URL_SAFE_NO_PAD.decode(parts[4]).unwrap()[..31]);
        let short_iv = URL_SAFE_NO_PAD.encode(&URL_SAFE_NO_PAD.decode(parts[2]).unwrap()[..15]);
        for (iv, tag) in [(parts[2], short_tag.as_str()), (short_iv.as_str(), parts[4])] {
            let changed = [parts[0], parts[1], iv, parts[3], tag].join(".");
            assert!(matches!(codec.decode(&changed, SALT), Err(JwtError::Malformed(m)) if m == "iv or tag length"));
        }
    }

    #[test]
    fn time_claims_at_their_bounds() {
        let now = 1_700_000_000;
        let check = |v: Value, require_exp: bool| check_time_claims(v.as_object().unwrap(), require_exp, now);
        let far = now + 3600;
        // The range ends are included: 0 and 9999-12-31T23:59:59Z are times.
        assert!(check(json!({"exp": far, "iat": 0}), true).is_ok());
        assert!(check(json!({"exp": MAX_TIME_CLAIM}), true).is_ok());
        assert!(matches!(check(json!({"exp": MAX_TIME_CLAIM + 1}), true), Err(JwtError::BadTimeClaim("exp"))));
        assert!(matches!(check(json!({"exp": far, "iat": -1}), true), Err(JwtError::BadTimeClaim("iat"))));
        // `exp` is required only when asked for.
        assert!(check(json!({}), false).is_ok());
        assert!(matches!(check(json!({}), true), Err(JwtError::BadTimeClaim("exp"))));
        // `iat` and `nbf` may lead the clock by the tolerance, not a second more.
        let edge = now + CLOCK_TOLERANCE;
        assert!(check(json!({"exp": far, "iat": edge, "nbf": edge}), true).is_ok());
        assert!(matches!(check(json!({"exp": far, "iat": edge + 1}), true), Err(JwtError::BadTimeClaim("iat"))));
        assert!(matches!(check(json!({"exp": far, "nbf": edge + 1}), true), Err(JwtError::Expired)));
        // `exp` may lag the clock by less than the tolerance.
        assert!(check(json!({"exp": now - CLOCK_TOLERANCE + 1}), true).is_ok());
        assert!(matches!(check(json!({"exp": now - CLOCK_TOLERANCE}), true), Err(JwtError::Expired)));
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

    /// A compact A256GCM JWE as older Auth.js versions wrote it, made with
    /// RustCrypto directly (independent of the decoder under test).
    fn gcm_token(payload: &Value, tag_len: usize) -> String {
        let key = derive_key(&"a".repeat(32), SALT, 32);
        let protected = URL_SAFE_NO_PAD.encode(r#"{"alg":"dir","enc":"A256GCM"}"#);
        let nonce = [7u8; 12];
        let cipher = aes_gcm::Aes256Gcm::new_from_slice(&key).unwrap();
        let sealed = cipher
            .encrypt(
                aes_gcm::Nonce::from_slice(&nonce),
                Payload { msg: payload.to_string().as_bytes(), aad: protected.as_bytes() },
            )
            .unwrap();
        let (ct, tag) = sealed.split_at(sealed.len() - 16);
        format!(
            "{protected}..{}.{}.{}",
            URL_SAFE_NO_PAD.encode(nonce),
            URL_SAFE_NO_PAD.encode(ct),
            URL_SAFE_NO_PAD.encode(&tag[..tag_len])
        )
    }

    #[test]
    fn gcm_needs_the_full_tag() {
        let codec = JwtCodec::new(vec!["a".repeat(32)], &[SALT]);
        let exp = now_seconds() + 60;
        let good = gcm_token(&json!({"name": "gcm", "exp": exp}), 16);
        assert_eq!(codec.decode(&good, SALT).unwrap()["name"], "gcm");
        for n in [0, 1, 4, 8, 12, 15] {
            let cut = gcm_token(&json!({"name": "gcm", "exp": exp}), n);
            assert!(matches!(codec.decode(&cut, SALT), Err(JwtError::Malformed(_))), "{n}-byte tag accepted");
        }
    }

    #[test]
    fn cbc_needs_the_full_tag() {
        let codec = JwtCodec::new(vec!["a".repeat(32)], &[SALT]);
        let token = codec.encode(&claims(), SALT, 60).unwrap();
        let mut parts: Vec<String> = token.split('.').map(str::to_owned).collect();
        let tag = URL_SAFE_NO_PAD.decode(&parts[4]).unwrap();
        for n in [0, 1, 16, 31] {
            parts[4] = URL_SAFE_NO_PAD.encode(&tag[..n]);
            assert!(codec.decode(&parts.join("."), SALT).is_err(), "{n}-byte tag accepted");
        }
    }

    #[test]
    fn zip_crit_and_other_algorithms_are_refused() {
        let codec = JwtCodec::new(vec!["a".repeat(32)], &[SALT]);
        let token = codec.encode(&claims(), SALT, 60).unwrap();
        let rest = token.split_once('.').unwrap().1;
        for header in [
            r#"{"alg":"dir","enc":"A256CBC-HS512","zip":"DEF"}"#,
            r#"{"alg":"dir","enc":"A256CBC-HS512","crit":["x"]}"#,
            r#"{"alg":"dir","enc":"A128GCM"}"#,
            r#"{"alg":"A256KW","enc":"A256CBC-HS512"}"#,
            r#"{"alg":"none","enc":"A256CBC-HS512"}"#,
        ] {
            let forged = format!("{}.{rest}", URL_SAFE_NO_PAD.encode(header));
            assert!(codec.decode(&forged, SALT).is_err(), "{header} accepted");
        }
    }

    #[test]
    fn time_claims_are_required_and_sane() {
        let now = now_seconds();
        let check = |v: Value| check_time_claims(v.as_object().unwrap(), true, now);
        assert!(check(json!({"exp": now + 60})).is_ok());
        assert!(check(json!({"exp": now + 60, "iat": now + 10})).is_ok(), "within the tolerance");
        assert!(matches!(check(json!({})), Err(JwtError::BadTimeClaim("exp"))));
        assert!(matches!(check(json!({"exp": now - 60})), Err(JwtError::Expired)));
        assert!(matches!(check(json!({"exp": now + 60, "iat": now + 3600})), Err(JwtError::BadTimeClaim("iat"))));
        assert!(matches!(check(json!({"exp": now + 60, "nbf": now + 3600})), Err(JwtError::Expired)));
        for bad in [json!(1e30), json!(-1), json!("soon"), json!(null), json!(f64::MAX), json!([1])] {
            assert!(check(json!({"exp": bad.clone()})).is_err(), "exp {bad}");
            assert!(check(json!({"exp": now + 60, "iat": bad.clone()})).is_err(), "iat {bad}");
            assert!(check(json!({"exp": now + 60, "nbf": bad.clone()})).is_err(), "nbf {bad}");
        }
        // A token without exp that decrypts fine is still no session.
        let codec = JwtCodec::new(vec!["a".repeat(32)], &[SALT]);
        let no_exp = gcm_token(&json!({"name": "x"}), 16);
        assert!(matches!(codec.decode(&no_exp, SALT), Err(JwtError::BadTimeClaim("exp"))));
        let empty = gcm_token(&json!({}), 16);
        assert!(codec.decode(&empty, SALT).is_err());
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
