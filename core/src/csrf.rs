//! Double-submit CSRF token, as Auth.js v5: the cookie holds
//! `token|sha256hex(token + secret)`, the form/JSON body repeats `token`.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

pub struct Csrf {
    secrets: Vec<String>,
}

impl Csrf {
    pub fn new(secrets: Vec<String>) -> Csrf {
        Csrf { secrets }
    }

    /// The token inside a cookie we issued (with any configured secret).
    pub fn token_from_cookie<'c>(&self, cookie_value: &'c str) -> Option<&'c str> {
        let (token, hash) = cookie_value.split_once('|')?;
        // Auth.js hashes a secret list joined with commas; accept that too,
        // so its cookies stay valid across a switch to libauth.
        let joined = (self.secrets.len() > 1).then(|| self.secrets.join(","));
        self.secrets
            .iter()
            .chain(joined.iter())
            .any(|secret| hash_token(token, secret).as_bytes().ct_eq(hash.as_bytes()).into())
            .then_some(token)
    }

    /// A fresh token and its cookie value, signed with the first secret.
    pub fn mint(&self) -> (String, String) {
        let token = crate::random::hex(32);
        let cookie = format!("{token}|{}", hash_token(&token, &self.secrets[0]));
        (token, cookie)
    }

    /// The POST check: the body's token equals the cookie's verified token.
    pub fn verify(&self, cookie_value: Option<&str>, body_token: Option<&str>) -> bool {
        match (cookie_value.and_then(|c| self.token_from_cookie(c)), body_token) {
            (Some(expected), Some(given)) => expected.as_bytes().ct_eq(given.as_bytes()).into(),
            _ => false,
        }
    }
}

fn hash_token(token: &str, secret: &str) -> String {
    let mut h = Sha256::new();
    h.update(token.as_bytes());
    h.update(secret.as_bytes());
    crate::random::to_hex(&h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_tokens_verify_and_forgeries_do_not() {
        let csrf = Csrf::new(vec!["s".repeat(32)]);
        let (token, cookie) = csrf.mint();
        assert_eq!(token.len(), 64);
        assert!(csrf.verify(Some(&cookie), Some(&token)));
        assert!(!csrf.verify(Some(&cookie), Some("nope")));
        assert!(!csrf.verify(Some(&cookie), None));
        assert!(!csrf.verify(None, Some(&token)));
        // An attacker can't mint a cookie without the secret.
        let forged = format!("{token}|{}", hash_token(&token, "attacker-secret-attacker-secret!!"));
        assert!(!csrf.verify(Some(&forged), Some(&token)));
        assert!(!csrf.verify(Some("no-separator"), Some("no-separator")));
    }

    #[test]
    fn rotated_secret_still_verifies() {
        let old = Csrf::new(vec!["o".repeat(32)]);
        let (token, cookie) = old.mint();
        let rotated = Csrf::new(vec!["n".repeat(32), "o".repeat(32)]);
        assert!(rotated.verify(Some(&cookie), Some(&token)));
    }
}
