//! The links the password provider mails. Each carries a random 256-bit
//! token; the store keeps only its hash, bound to the link's purpose, its
//! address (or user and new address) and, for verification and reset, to
//! the password it was issued under. So a link is single use (the store
//! deletes the token as it returns it), expires, cannot serve another
//! purpose or address, and dies when the password changes: after one
//! reset, every other reset link of that account is dead, and a
//! verification link mailed for someone else's sign-up attempt cannot
//! confirm a password set since. The store is shared, so a link works in
//! any server process.

use sha2::{Digest, Sha256};

use super::super::Ctx;
use crate::error::AuthError;
use crate::store::{DataStores, VerificationToken};
use crate::time::now_millis;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Purpose {
    /// Prove a new account's address.
    Verify,
    /// Choose a new password.
    Reset,
    /// Prove a new address for a signed-in user.
    NewEmail,
}

impl Purpose {
    fn tag(self) -> &'static str {
        match self {
            Purpose::Verify => "password-verify",
            Purpose::Reset => "password-reset",
            Purpose::NewEmail => "password-email",
        }
    }
}

/// What a link is bound to, besides its purpose: `subject` (the address;
/// for a new address, `<user id>:<address>`) and the fingerprint of the
/// stored password (see [`fingerprint`]).
pub(super) struct Binding<'a> {
    pub purpose: Purpose,
    pub subject: &'a str,
    pub fingerprint: String,
}

impl Binding<'_> {
    fn identifier(&self) -> String {
        format!("{}:{}:{}", self.purpose.tag(), self.subject, self.fingerprint)
    }
}

/// A short digest of the stored hash (`none` without a password): part of
/// the identifier, so a link issued under one password is unknown once the
/// password changes. Not secret: the hash itself is salted.
pub(super) fn fingerprint(stored_hash: Option<&str>) -> String {
    match stored_hash {
        Some(hash) => crate::random::to_hex(&Sha256::digest(hash.as_bytes())[..8]),
        None => "none".to_owned(),
    }
}

/// What the store keeps for a token: SHA-256 of the purpose, the token and
/// the secret, so a leaked table yields no usable link and a token is
/// worth nothing under another purpose.
fn stored_token(purpose: Purpose, token: &str, secret: &str) -> String {
    let mut h = Sha256::new();
    h.update(purpose.tag().as_bytes());
    h.update([0]);
    h.update(token.as_bytes());
    h.update([0]);
    h.update(secret.as_bytes());
    crate::random::to_hex(&h.finalize())
}

/// Store a new link's token; answers the token (for the URL) and when it
/// expires (unix ms).
pub(super) fn issue(
    ctx: &Ctx,
    db: &DataStores,
    binding: &Binding,
    max_age: std::time::Duration,
) -> Result<(String, i64), AuthError> {
    let token = crate::random::hex(32);
    let expires = (now_millis() as i64).saturating_add(max_age.as_millis().min(i64::MAX as u128) as i64);
    db.tokens.create_verification_token(&VerificationToken {
        identifier: binding.identifier(),
        token: stored_token(binding.purpose, &token, &ctx.auth.settings.secrets[0]),
        expires,
    })?;
    ctx.auth.purge_expired_now_and_then();
    Ok((token, expires))
}

/// Use a link's token: `true` when it was issued for exactly this binding
/// and has not expired; it is spent either way. Each configured secret is
/// tried, so links mailed before a rotation still work.
pub(super) fn redeem(ctx: &Ctx, db: &DataStores, binding: &Binding, token: &str) -> Result<bool, AuthError> {
    if token.is_empty() || token.len() > 128 {
        return Ok(false);
    }
    let identifier = binding.identifier();
    for secret in &ctx.auth.settings.secrets {
        let stored = stored_token(binding.purpose, token, secret);
        if let Some(found) = db.tokens.use_verification_token(&identifier, &stored)? {
            return Ok(found.expires > now_millis() as i64);
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_bound_to_its_purpose_and_secret() {
        let t = "abc";
        assert_ne!(stored_token(Purpose::Verify, t, "s"), stored_token(Purpose::Reset, t, "s"));
        assert_ne!(stored_token(Purpose::Reset, t, "s"), stored_token(Purpose::Reset, t, "s2"));
        assert_eq!(stored_token(Purpose::Reset, t, "s"), stored_token(Purpose::Reset, t, "s"));
        assert_ne!(fingerprint(Some("$argon2id$a")), fingerprint(Some("$argon2id$b")));
        assert_eq!(fingerprint(None), "none");
    }
}
