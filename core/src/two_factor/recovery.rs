//! Recovery codes: a way in when the authenticator is lost. Ten codes, shown
//! once, each usable once. Only keyed hashes are stored (HMAC-SHA-256 with
//! the auth secret, over the user id and the code), so a database leak
//! alone yields no code to try: a code has 50 random bits, too few to
//! withstand an offline search against a plain hash, and the key is not in
//! the database.

use hmac::{Hmac, Mac};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// How many codes a user gets.
pub const RECOVERY_CODE_COUNT: usize = 10;

/// The alphabet of a code: lowercase letters and digits without look-alikes
/// (no `0 o 1 l i`), 31 symbols; ten of them are about 49.5 bits.
const ALPHABET: &[u8; 31] = b"abcdefghjkmnpqrstuvwxyz23456789";
const CODE_SYMBOLS: usize = 10;

/// New codes and what to store for them.
pub struct RecoveryCodes {
    /// To show the user once: `xxxxx-xxxxx`.
    pub codes: Vec<String>,
    /// To store, in the same order.
    pub hashes: Vec<String>,
}

impl std::fmt::Debug for RecoveryCodes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RecoveryCodes").field("count", &self.codes.len()).finish()
    }
}

/// What a typed code becomes before it is hashed: lowercase, without
/// spaces and hyphens.
fn normalise(code: &str) -> String {
    code.chars().filter(|c| !c.is_whitespace() && *c != '-').flat_map(char::to_lowercase).collect()
}

fn keyed_hash(key: &str, user_id: &str, code: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(key.as_bytes()).expect("HMAC takes any key length");
    mac.update(user_id.as_bytes());
    mac.update(&[0]);
    mac.update(normalise(code).as_bytes());
    crate::random::to_hex(&mac.finalize().into_bytes())
}

impl RecoveryCodes {
    /// Ten new codes for `user_id`, hashed with the current secret.
    /// `None` when randomness is unavailable.
    pub fn generate(user_id: &str, secret: &str) -> Option<RecoveryCodes> {
        let symbols = ALPHABET;
        let mut codes = Vec::with_capacity(RECOVERY_CODE_COUNT);
        while codes.len() < RECOVERY_CODE_COUNT {
            let mut code = String::with_capacity(CODE_SYMBOLS + 1);
            while code.len() < CODE_SYMBOLS + 1 {
                let mut byte = [0u8; 1];
                getrandom::getrandom(&mut byte).ok()?;
                // 248 = 8 × 31: below it every symbol is equally likely.
                if byte[0] >= 248 {
                    continue;
                }
                if code.len() == CODE_SYMBOLS / 2 {
                    code.push('-');
                }
                code.push(symbols[usize::from(byte[0]) % symbols.len()] as char);
            }
            if !codes.contains(&code) {
                codes.push(code);
            }
        }
        let hashes = codes.iter().map(|c| keyed_hash(secret, user_id, c)).collect();
        Some(RecoveryCodes { codes, hashes })
    }

    /// Which stored hash `code` matches for `user_id` (its index, to delete
    /// it: a code works once), under any configured secret. Every hash is
    /// compared, in constant time each.
    pub fn find(stored: &[String], user_id: &str, code: &str, secrets: &[String]) -> Option<usize> {
        if normalise(code).len() != CODE_SYMBOLS {
            return None;
        }
        let candidates: Vec<String> = secrets.iter().map(|s| keyed_hash(s, user_id, code)).collect();
        let mut found = None;
        for (index, hash) in stored.iter().enumerate() {
            for candidate in &candidates {
                if bool::from(candidate.as_bytes().ct_eq(hash.as_bytes())) && found.is_none() {
                    found = Some(index);
                }
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ten_distinct_codes_each_found_once_per_user() {
        let secrets = vec!["secret-a-0123456789".to_owned()];
        let r = RecoveryCodes::generate("u1", &secrets[0]).unwrap();
        assert_eq!(r.codes.len(), RECOVERY_CODE_COUNT);
        for (i, code) in r.codes.iter().enumerate() {
            assert_eq!(code.len(), 11);
            assert!(code.chars().all(|c| c == '-' || ALPHABET.contains(&(c as u8))), "{code}");
            assert_eq!(RecoveryCodes::find(&r.hashes, "u1", code, &secrets), Some(i));
            let typed = code.to_uppercase().replace('-', " ");
            assert_eq!(RecoveryCodes::find(&r.hashes, "u1", &typed, &secrets), Some(i), "as typed");
            assert_eq!(RecoveryCodes::find(&r.hashes, "u2", code, &secrets), None, "bound to its user");
        }
        assert_eq!(RecoveryCodes::find(&r.hashes, "u1", "abcde-fghjk", &secrets), None);
        assert_eq!(RecoveryCodes::find(&r.hashes, "u1", "", &secrets), None);
        // After a rotation the old hashes still match.
        let rotated = vec!["secret-b-0123456789".to_owned(), secrets[0].clone()];
        assert_eq!(RecoveryCodes::find(&r.hashes, "u1", &r.codes[3], &rotated), Some(3));
        assert!(!r.hashes.iter().any(|h| r.codes.iter().any(|c| h.contains(c.as_str()))));
    }
}
