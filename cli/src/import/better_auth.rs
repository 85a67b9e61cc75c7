//! `libauth import better-auth`: Better Auth's default schema (`user`,
//! `account`, `session`, `verification`, and the passkey plugin's
//! `passkey`; camelCase columns as its Kysely adapter writes them, or
//! snake_case as some ORM schemas map them), through the writers every
//! source shares.
//!
//! - A `credential` account is the email + password account: it becomes
//!   libauth's `password` account with the hash as Better Auth stored it
//!   (scrypt `<hex salt>:<hex key>`, which libauth verifies).
//! - A session is carried over under the hash of the cookie the browser
//!   holds: Better Auth's `better-auth.session_token` is
//!   `<token>.<signature>`, the signature the standard base64 of the
//!   HMAC-SHA-256 of the token keyed with the Better Auth secret, URL-encoded
//!   in the cookie. libauth URL-decodes a cookie before hashing it, so the
//!   hash is of `<token>.<base64>`. Without the secret, sessions are skipped.
//! - `verification` rows are skipped: they are Better Auth's own (reset
//!   links, OTPs, magic links keyed by its routes), not libauth's email
//!   sign-in tokens.

use std::collections::HashSet;

use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine;
use hmac::{Hmac, Mac};
use serde_json::{json, Map, Value};
use sha2::Sha256;

use super::source::Source;
use super::{
    bool_of, date_of, field, id_of, libauth_verifies, no_users_table, text_of, write_account, write_authenticator,
    write_password, write_session, write_user, Outcomes, Target,
};
use crate::output::Failure;
use libauth_core::store::{AccountType, AdapterAccount, AdapterSession, Authenticator, NewUser};

const USERS: &[&str] = &["user", "users"];
const ACCOUNTS: &[&str] = &["account", "accounts"];
const SESSIONS: &[&str] = &["session", "sessions"];
const VERIFICATIONS: &[&str] = &["verification", "verifications"];
const PASSKEYS: &[&str] = &["passkey", "passkeys"];

/// The provider id the imported passkeys' `webauthn` accounts get: libauth's
/// passkey provider's default id.
const PASSKEY_PROVIDER: &str = "passkey";

pub(super) fn import(
    source: &mut Source,
    target: &Target,
    schema: &str,
    secret: Option<&str>,
    now: i64,
    outcomes: &mut Outcomes,
) -> Result<(), Failure> {
    let Some(users_table) = source.find_table(USERS)? else {
        return Err(no_users_table(USERS, schema, "a Better Auth database"));
    };
    let mut users = HashSet::new();
    for row in source.rows(&users_table)? {
        if let Some(id) = import_user(target, &row, now, outcomes) {
            users.insert(id);
        }
    }
    if let Some(table) = source.find_table(ACCOUNTS)? {
        for row in source.rows(&table)? {
            import_account(target, &row, &users, outcomes);
        }
    }
    if let Some(table) = source.find_table(SESSIONS)? {
        for row in source.rows(&table)? {
            import_session(target, &row, &users, secret, now, outcomes);
        }
    }
    if let Some(table) = source.find_table(VERIFICATIONS)? {
        for row in source.rows(&table)? {
            // Its identifier can hold a reset token: only the row id is named.
            let what = format!("#{}", id_of(&row, &["id"]).unwrap_or_else(|| "?".into()));
            outcomes.skip(
                "verification tokens",
                what,
                "Better Auth's verification rows (reset links, OTPs, magic links) have no libauth equivalent",
            );
        }
    }
    if let Some(table) = source.find_table(PASSKEYS)? {
        for row in source.rows(&table)? {
            import_passkey(target, &row, &users, outcomes);
        }
    }
    Ok(())
}

pub(super) fn import_user(
    target: &Target,
    row: &Map<String, Value>,
    now: i64,
    outcomes: &mut Outcomes,
) -> Option<String> {
    let Some(id) = id_of(row, &["id"]) else {
        outcomes.skip("users", "(no id)".into(), "a user without an id");
        return None;
    };
    // Better Auth keeps whether, not when: the last change of the row is
    // the latest the address can have been proven.
    let verified = bool_of(row, &["emailVerified", "email_verified"]).unwrap_or(false);
    let email_verified = verified
        .then(|| date_of(row, &["updatedAt", "updated_at"]).or_else(|| date_of(row, &["createdAt", "created_at"])))
        .map(|when| when.unwrap_or(now));
    let user = NewUser {
        id: Some(id),
        name: text_of(row, &["name"]).filter(|n| !n.is_empty()),
        email: text_of(row, &["email"]).filter(|e| !e.is_empty()),
        email_verified,
        image: text_of(row, &["image"]),
        locale: None,
    };
    write_user(target, outcomes, &user)
}

pub(super) fn import_account(
    target: &Target,
    row: &Map<String, Value>,
    users: &HashSet<String>,
    outcomes: &mut Outcomes,
) {
    const KIND: &str = "accounts";
    let provider = text_of(row, &["providerId", "provider_id"]);
    let account_id = text_of(row, &["accountId", "account_id"]);
    let (Some(provider), Some(account_id)) = (provider, account_id) else {
        return outcomes.skip(KIND, "(unnamed)".into(), "no providerId or accountId");
    };
    let what = format!("{provider}/{account_id}");
    let Some(user_id) = id_of(row, &["userId", "user_id"]).filter(|u| users.contains(u)) else {
        return outcomes.skip(KIND, what, "its user was not imported");
    };
    if provider == "credential" {
        let Some(hash) = text_of(row, &["password"]).filter(|p| !p.is_empty()) else {
            return outcomes.skip(KIND, what, "a credential account without a password");
        };
        if !libauth_verifies(&hash) {
            return outcomes.skip(KIND, what, "its password hash is of a format libauth cannot verify");
        }
        return write_password(target, outcomes, what, &user_id, hash);
    }
    let id_token = text_of(row, &["idToken", "id_token"]);
    let mut account = json!({
        "userId": user_id,
        "type": if id_token.is_some() { "oidc" } else { "oauth" },
        "provider": provider,
        "providerAccountId": account_id,
    });
    for (key, names) in [
        ("access_token", &["accessToken", "access_token"][..]),
        ("refresh_token", &["refreshToken", "refresh_token"]),
        ("scope", &["scope"]),
    ] {
        if let Some(v) = text_of(row, names) {
            account[key] = Value::String(v);
        }
    }
    if let Some(token) = id_token {
        account["id_token"] = Value::String(token);
    }
    // libauth's expires_at is unix seconds, as Auth.js's.
    if let Some(ms) = date_of(row, &["accessTokenExpiresAt", "access_token_expires_at"]) {
        account["expires_at"] = json!(ms / 1000);
    }
    if let Some(ms) = date_of(row, &["refreshTokenExpiresAt", "refresh_token_expires_at"]) {
        account["refresh_token_expires_at"] = json!(ms / 1000);
    }
    let account: AdapterAccount = match serde_json::from_value(account) {
        Ok(a) => a,
        Err(e) => return outcomes.skip(KIND, what, e),
    };
    write_account(target, outcomes, KIND, what, &account);
}

/// The value of the `better-auth.session_token` cookie for a session token,
/// as libauth reads it (URL-decoded): the token, a dot, and the standard
/// base64 of its HMAC-SHA-256 keyed with the Better Auth secret.
pub(super) fn cookie_value(token: &str, secret: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(token.as_bytes());
    format!("{token}.{}", STANDARD.encode(mac.finalize().into_bytes()))
}

pub(super) fn import_session(
    target: &Target,
    row: &Map<String, Value>,
    users: &HashSet<String>,
    secret: Option<&str>,
    now: i64,
    outcomes: &mut Outcomes,
) {
    const KIND: &str = "sessions";
    let what = format!("#{}", id_of(row, &["id"]).unwrap_or_else(|| "?".into()));
    let Some(token) = text_of(row, &["token"]).filter(|t| !t.is_empty()) else {
        return outcomes.skip(KIND, what, "a session without a token");
    };
    let Some(expires) = date_of(row, &["expiresAt", "expires_at"]) else {
        return outcomes.skip(KIND, what, "no readable expiry");
    };
    if expires <= now {
        outcomes.count(KIND).skipped += 1;
        return;
    }
    let Some(user_id) = id_of(row, &["userId", "user_id"]).filter(|u| users.contains(u)) else {
        return outcomes.skip(KIND, what, "its user was not imported");
    };
    let Some(secret) = secret else {
        return outcomes.skip(
            KIND,
            what,
            "no --better-auth-secret (or BETTER_AUTH_SECRET): the browser's cookie is signed with it",
        );
    };
    let cookie = cookie_value(&token, secret);
    let session =
        AdapterSession { session_token: libauth_core::session::stored_session_token(&cookie), user_id, expires };
    write_session(target, outcomes, what, &session);
}

/// Bytes from base64 of any alphabet, with or without padding.
fn decode_any(text: &str) -> Option<Vec<u8>> {
    let text = text.trim();
    [&STANDARD, &STANDARD_NO_PAD, &URL_SAFE, &URL_SAFE_NO_PAD].iter().find_map(|e| e.decode(text).ok())
}

pub(super) fn import_passkey(
    target: &Target,
    row: &Map<String, Value>,
    users: &HashSet<String>,
    outcomes: &mut Outcomes,
) {
    const KIND: &str = "passkeys";
    let Some(raw_id) = text_of(row, &["credentialID", "credentialId", "credential_id"]) else {
        return outcomes.skip(KIND, "(no id)".into(), "no credentialID");
    };
    // libauth keys passkeys by the credential id in base64url without
    // padding (SimpleWebAuthn's `credential.id`, which Better Auth keeps).
    let Some(credential_id) = decode_any(&raw_id).filter(|b| !b.is_empty()).map(|b| URL_SAFE_NO_PAD.encode(b)) else {
        return outcomes.skip(KIND, raw_id, "its credentialID is not base64");
    };
    let Some(user_id) = id_of(row, &["userId", "user_id"]).filter(|u| users.contains(u)) else {
        return outcomes.skip(KIND, credential_id, "its user was not imported");
    };
    // Better Auth stores the COSE key as base64 (`base64.encode`); libauth
    // reads standard base64 with padding.
    let Some(public_key) = text_of(row, &["publicKey", "public_key"]).and_then(|k| decode_any(&k)) else {
        return outcomes.skip(KIND, credential_id, "no public key in base64");
    };
    let counter = match field(row, &["counter"]) {
        Some(Value::Number(n)) => n.as_u64(),
        Some(Value::String(s)) => s.parse().ok(),
        None => Some(0),
        _ => None,
    };
    let Some(counter) = counter.and_then(|c| u32::try_from(c).ok()) else {
        return outcomes.skip(KIND, credential_id, "its counter is not a 32-bit count");
    };
    let authenticator = Authenticator {
        credential_id: credential_id.clone(),
        user_id: user_id.clone(),
        provider_account_id: credential_id.clone(),
        credential_public_key: STANDARD.encode(public_key),
        counter,
        credential_device_type: text_of(row, &["deviceType", "device_type"]).unwrap_or_else(|| "singleDevice".into()),
        credential_backed_up: bool_of(row, &["backedUp", "backed_up"]).unwrap_or(false),
        transports: text_of(row, &["transports"]).filter(|t| !t.is_empty()),
        name: text_of(row, &["name"]).filter(|n| !n.is_empty()),
        created_at: date_of(row, &["createdAt", "created_at"]),
        last_used_at: None,
    };
    let mut account = AdapterAccount::new(AccountType::WebAuthn, PASSKEY_PROVIDER, &credential_id);
    account.user_id = user_id;
    write_authenticator(target, outcomes, &authenticator, Some(&account));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The HMAC of RFC 4231's test case 2 ("Jefe"), as the cookie carries it.
    #[test]
    fn the_cookie_value_is_the_token_and_its_base64_hmac() {
        let value = cookie_value("what do ya want for nothing?", "Jefe");
        let expected = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";
        let bytes: Vec<u8> = (0..32).map(|i| u8::from_str_radix(&expected[2 * i..2 * i + 2], 16).unwrap()).collect();
        assert_eq!(value, format!("what do ya want for nothing?.{}", STANDARD.encode(bytes)));
    }
}
