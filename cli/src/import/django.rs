//! `libauth import django`: `django.contrib.auth`'s `auth_user` and the
//! database session backend's `django_session`, through the writers every
//! source shares.
//!
//! - A user keeps Django's id (as a string), so libauth's Django integration
//!   finds the same Django user. Its address is not proven (Django never
//!   proves one). An inactive user (`is_active` false) is not imported:
//!   libauth has no such flag, and importing it would let it sign in.
//! - A password hash libauth verifies becomes the user's `password`
//!   account: `pbkdf2_sha256$…` exactly as stored; `argon2$argon2id$…` and
//!   `bcrypt$$2b$…` without Django's algorithm prefix (the rest is the
//!   Argon2 PHC string or bcrypt hash Django verifies, unchanged). An
//!   unusable password (`!…`) or another format (`bcrypt_sha256`,
//!   `scrypt`, `pbkdf2_sha1`, `md5`, …) gives no password account, and is
//!   reported.
//! - A session is stored under the hash of its key, which is the `sessionid`
//!   cookie's value, for the user its signed payload names
//!   (`_auth_user_id`); anonymous sessions are counted and left behind.

use std::collections::HashSet;
use std::io::Read;

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::source::Source;
use super::{
    bool_of, date_of, id_of, libauth_verifies, no_users_table, text_of, write_password, write_session, write_user,
    Outcomes, Target,
};
use crate::output::Failure;
use libauth_core::store::{AdapterSession, NewUser};

const USERS: &[&str] = &["auth_user"];
const SESSIONS: &[&str] = &["django_session"];

/// The salt of the database session backend's signatures
/// (`django.contrib.sessions.backends.db.SessionStore.key_salt`).
const SESSION_SALT: &str = "django.contrib.sessions.SessionStore";

/// The most a compressed session payload may inflate to.
const MAX_PAYLOAD: u64 = 1 << 20;

pub(super) fn import(
    source: &mut Source,
    target: &Target,
    schema: &str,
    secret_key: Option<&str>,
    now: i64,
    outcomes: &mut Outcomes,
) -> Result<(), Failure> {
    let Some(users_table) = source.find_table(USERS)? else {
        return Err(no_users_table(USERS, schema, "a Django database with django.contrib.auth"));
    };
    let mut users = HashSet::new();
    for row in source.rows(&users_table)? {
        if let Some(id) = import_user(target, &row, outcomes) {
            import_password(target, &row, &id, outcomes);
            users.insert(id);
        }
    }
    if let Some(table) = source.find_table(SESSIONS)? {
        for (n, row) in source.rows(&table)?.iter().enumerate() {
            import_session(target, row, n + 1, &users, secret_key, now, outcomes);
        }
    }
    Ok(())
}

pub(super) fn import_user(target: &Target, row: &Map<String, Value>, outcomes: &mut Outcomes) -> Option<String> {
    const KIND: &str = "users";
    let Some(id) = id_of(row, &["id"]) else {
        outcomes.skip(KIND, "(no id)".into(), "a user without an id");
        return None;
    };
    if bool_of(row, &["is_active"]) == Some(false) {
        outcomes.skip(KIND, id, "inactive in Django (is_active false): not imported, so it cannot sign in");
        return None;
    }
    let full_name = [text_of(row, &["first_name"]), text_of(row, &["last_name"])]
        .into_iter()
        .flatten()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let name = Some(full_name).filter(|n| !n.is_empty()).or_else(|| text_of(row, &["username"]));
    let user = NewUser {
        id: Some(id),
        name,
        // Django allows an empty address: the user comes without one.
        email: text_of(row, &["email"]).map(|e| e.trim().to_owned()).filter(|e| !e.is_empty()),
        // Django never proves an address.
        email_verified: None,
        image: None,
        locale: None,
    };
    write_user(target, outcomes, &user)
}

/// The hash libauth verifies for a Django-encoded password, or why none.
fn libauth_hash(encoded: &str) -> Result<String, String> {
    if encoded.is_empty() || encoded.starts_with('!') {
        return Err("an unusable password (set_unusable_password): no password account".into());
    }
    let hash = if encoded.starts_with("pbkdf2_sha256$") {
        encoded.to_owned()
    } else if let Some(rest) = encoded.strip_prefix("argon2$") {
        // Django's Argon2PasswordHasher verifies "$" + the rest.
        format!("${rest}")
    } else if let Some(rest) = encoded.strip_prefix("bcrypt$") {
        // Django's BCryptPasswordHasher: the rest is the bcrypt hash.
        rest.to_owned()
    } else {
        String::new()
    };
    if libauth_verifies(&hash) {
        return Ok(hash);
    }
    let algorithm = encoded.split('$').next().unwrap_or_default();
    Err(format!("Django's {algorithm} hashes are not a format libauth verifies: no password account"))
}

pub(super) fn import_password(target: &Target, row: &Map<String, Value>, user_id: &str, outcomes: &mut Outcomes) {
    const KIND: &str = "accounts";
    let what = format!("password/{user_id}");
    match libauth_hash(&text_of(row, &["password"]).unwrap_or_default()) {
        Ok(hash) => write_password(target, outcomes, what, user_id, hash),
        Err(why) => outcomes.skip(KIND, what, why),
    }
}

/// Django's `base64_hmac` of the session backend: the URL-safe base64,
/// unpadded, of HMAC-SHA-256 keyed with SHA-256(salt + "signer" + key).
fn signature(value: &str, secret_key: &str) -> String {
    let key = Sha256::digest(format!("{SESSION_SALT}signer{secret_key}").as_bytes());
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).expect("HMAC takes a key of any length");
    mac.update(value.as_bytes());
    URL_SAFE_NO_PAD.encode(mac.finalize().into_bytes())
}

/// A `session_data` value's payload. Django 3.1 and later sign it as
/// `<payload>:<timestamp>:<signature>`, the payload the URL-safe base64 of
/// the JSON, zlib-compressed when it starts with `.`; older versions stored
/// the standard base64 of `<hash>:<JSON>`. With `secret_key`, the signature
/// of the newer form must match.
fn decode_session(data: &str, secret_key: Option<&str>) -> Result<Map<String, Value>, &'static str> {
    let json = match data.rsplitn(3, ':').collect::<Vec<_>>()[..] {
        [sig, timestamp, payload] => {
            if let Some(key) = secret_key {
                let expected = signature(&format!("{payload}:{timestamp}"), key);
                if !subtle_eq(expected.as_bytes(), sig.as_bytes()) {
                    return Err("its signature does not match --django-secret-key");
                }
            }
            let (compressed, payload) = match payload.strip_prefix('.') {
                Some(rest) => (true, rest),
                None => (false, payload),
            };
            let bytes = URL_SAFE_NO_PAD.decode(payload).map_err(|_| "its payload is not base64")?;
            if compressed {
                let mut out = Vec::new();
                flate2::read::ZlibDecoder::new(&bytes[..])
                    .take(MAX_PAYLOAD)
                    .read_to_end(&mut out)
                    .map_err(|_| "its compressed payload does not inflate")?;
                out
            } else {
                bytes
            }
        }
        _ => {
            if secret_key.is_some() {
                return Err("an unsigned pre-3.1 session; --django-secret-key checks only the signed form");
            }
            let bytes = STANDARD.decode(data.trim()).map_err(|_| "not a Django session payload")?;
            let at = bytes.iter().position(|b| *b == b':').ok_or("not a Django session payload")?;
            bytes[at + 1..].to_vec()
        }
    };
    match serde_json::from_slice(&json) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err("its payload is not JSON (a pickled session?)"),
    }
}

/// Constant-time equality of two byte strings.
fn subtle_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

pub(super) fn import_session(
    target: &Target,
    row: &Map<String, Value>,
    n: usize,
    users: &HashSet<String>,
    secret_key: Option<&str>,
    now: i64,
    outcomes: &mut Outcomes,
) {
    const KIND: &str = "sessions";
    // The key is the browser's credential: a session is named by its row.
    let what = format!("row {n}");
    let (Some(key), Some(data)) = (text_of(row, &["session_key"]), text_of(row, &["session_data"])) else {
        return outcomes.skip(KIND, what, "no session_key or session_data");
    };
    let Some(expires) = date_of(row, &["expire_date"]) else {
        return outcomes.skip(KIND, what, "no readable expire_date");
    };
    if expires <= now {
        outcomes.count(KIND).skipped += 1;
        return;
    }
    let payload = match decode_session(&data, secret_key) {
        Ok(p) => p,
        Err(why) => return outcomes.skip(KIND, what, why),
    };
    let user_id = match payload.get("_auth_user_id") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        // An anonymous session (a cart, a language): nobody to sign in.
        _ => {
            outcomes.count(KIND).skipped += 1;
            return;
        }
    };
    if !users.contains(&user_id) {
        return outcomes.skip(KIND, what, "its user was not imported");
    }
    let session = AdapterSession { session_token: libauth_core::session::stored_session_token(&key), user_id, expires };
    write_session(target, outcomes, what, &session);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_are_kept_or_unwrapped_or_refused() {
        let pbkdf2 = "pbkdf2_sha256$600000$salt$aGFzaA==";
        assert_eq!(libauth_hash(pbkdf2).unwrap(), pbkdf2);
        assert_eq!(
            libauth_hash("argon2$argon2id$v=19$m=102400,t=2,p=8$c2FsdA$aGFzaA").unwrap(),
            "$argon2id$v=19$m=102400,t=2,p=8$c2FsdA$aGFzaA"
        );
        assert_eq!(libauth_hash("bcrypt$$2b$12$abc").unwrap(), "$2b$12$abc");
        assert!(libauth_hash("bcrypt_sha256$$2b$12$abc").unwrap_err().contains("bcrypt_sha256"));
        assert!(libauth_hash("md5$salt$abc").unwrap_err().contains("md5"));
        assert!(libauth_hash("!unusable").unwrap_err().contains("unusable"));
        assert!(libauth_hash("").is_err());
    }

    #[test]
    fn a_session_signed_with_another_key_is_refused() {
        let payload = URL_SAFE_NO_PAD.encode(br#"{"_auth_user_id":"1"}"#);
        let signed = format!("{payload}:1tXyZa:{}", signature(&format!("{payload}:1tXyZa"), "key"));
        assert_eq!(decode_session(&signed, Some("key")).unwrap()["_auth_user_id"], "1");
        assert_eq!(decode_session(&signed, None).unwrap()["_auth_user_id"], "1");
        assert!(decode_session(&signed, Some("other")).is_err());
        let legacy = STANDARD.encode(br#"abc123:{"_auth_user_id":"2"}"#);
        assert_eq!(decode_session(&legacy, None).unwrap()["_auth_user_id"], "2");
    }
}
