//! What a new password must satisfy: NFKC normalisation, a length in
//! characters, and a host's own refusal (breach lists, house rules).
//!
//! NFKC (compatibility composition) maps characters that look and mean the
//! same to one form: full-width "Ｐａｓｓｗｏｒｄ１" is "Password1", the
//! ligature "ﬁ" is "fi", a decomposed "e" + U+0301 is "é". A password typed on
//! another keyboard or input method therefore matches. It also means those
//! spellings are the same password, which is the point: they cannot be
//! told apart on screen. Case is kept ("password1" is another password), and
//! so are characters NFKC leaves alone (Cyrillic "а" is not Latin "a").
//! Better Auth normalises the same way (`password.normalize("NFKC")`), so
//! its hashes and ours agree.

use std::borrow::Cow;

use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

use crate::error::ConfigError;

/// The largest `maxLength` a policy accepts (characters).
pub const MAX_POLICY_LENGTH: usize = 1024;

// Every password a policy accepts can be hashed (see `check`).
const _: () = assert!(MAX_POLICY_LENGTH * 16 <= super::MAX_PASSWORD_BYTES);

/// The password in NFKC form. Borrowed when it already is (every ASCII
/// password), so the common case allocates nothing.
pub fn normalize(password: &str) -> Cow<'_, str> {
    match is_nfkc_quick(password.chars()) {
        IsNormalized::Yes => Cow::Borrowed(password),
        _ => {
            let normalized: String = password.nfkc().collect();
            if normalized == password {
                Cow::Borrowed(password)
            } else {
                Cow::Owned(normalized)
            }
        }
    }
}

/// Why a new password was refused. `Display` is a sentence a page can
/// show (English; a page translates by the variant).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct PasswordRefused {
    pub reason: RefusalReason,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefusalReason {
    /// Fewer characters than `min` (after normalisation).
    #[error("the password must be at least {min} characters long")]
    TooShort { min: usize },
    /// More characters than `max` (after normalisation).
    #[error("the password must be at most {max} characters long")]
    TooLong { max: usize },
    /// The host refused it (a breached password, a house rule), with the
    /// message the page shows.
    #[error("{0}")]
    Refused(String),
}

impl PasswordRefused {
    pub fn too_short(min: usize) -> Self {
        PasswordRefused { reason: RefusalReason::TooShort { min } }
    }

    pub fn too_long(max: usize) -> Self {
        PasswordRefused { reason: RefusalReason::TooLong { max } }
    }

    /// A host's refusal, with the message the page shows.
    pub fn refused(message: impl Into<String>) -> Self {
        PasswordRefused { reason: RefusalReason::Refused(message.into()) }
    }
}

/// The rules for a new password (sign-up, reset, change). Signing in
/// checks none of them: an account imported with a shorter password still
/// signs in (and the length caps of [`super::PasswordHasher::verify`]
/// still apply).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PasswordPolicy {
    min_length: usize,
    max_length: usize,
}

impl Default for PasswordPolicy {
    /// 8 to 256 characters.
    fn default() -> Self {
        PasswordPolicy { min_length: 8, max_length: 256 }
    }
}

impl PasswordPolicy {
    /// Lengths in characters (Unicode scalar values) after NFKC
    /// normalisation: `1 <= min_length <= max_length <= 1024`. The error
    /// names `password.minLength` or `password.maxLength`.
    pub fn new(min_length: usize, max_length: usize) -> Result<Self, ConfigError> {
        if min_length == 0 {
            return Err(ConfigError::new("password.minLength", "must be at least 1"));
        }
        if max_length > MAX_POLICY_LENGTH {
            return Err(ConfigError::new(
                "password.maxLength",
                format!("must be at most {MAX_POLICY_LENGTH} (got {max_length})"),
            ));
        }
        if min_length > max_length {
            return Err(ConfigError::new(
                "password.minLength",
                format!("must not exceed password.maxLength ({min_length} > {max_length})"),
            ));
        }
        Ok(PasswordPolicy { min_length, max_length })
    }

    pub fn min_length(&self) -> usize {
        self.min_length
    }

    pub fn max_length(&self) -> usize {
        self.max_length
    }

    /// The password in the form to hash (NFKC), or why it is refused. A
    /// host hook's refusal comes after this check, with
    /// [`PasswordRefused::refused`].
    pub fn check<'a>(&self, password: &'a str) -> Result<Cow<'a, str>, PasswordRefused> {
        // Normalising can shorten a string only so far (a character with
        // its combining marks, a Hangul syllable from its three jamo): an
        // input this many bytes long cannot come out short enough, and
        // is refused before any work on it. (With `maxLength` at most
        // 1024 this is at most the hasher's `MAX_PASSWORD_BYTES`, so a
        // password the policy accepts can always be hashed.)
        if password.len() > self.max_length.saturating_mul(16) {
            return Err(PasswordRefused::too_long(self.max_length));
        }
        let normalized = normalize(password);
        let chars = normalized.chars().count();
        if chars < self.min_length {
            return Err(PasswordRefused::too_short(self.min_length));
        }
        if chars > self.max_length {
            return Err(PasswordRefused::too_long(self.max_length));
        }
        Ok(normalized)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_width_is_ascii_after_nfkc() {
        assert_eq!(normalize("Ｐａｓｓｗｏｒｄ１"), "Password1");
        assert_eq!(normalize("ﬁne"), "fine");
        assert_eq!(normalize("e\u{301}"), "\u{e9}");
        assert!(matches!(normalize("plain ascii"), Cow::Borrowed(_)));
        // Case and script are kept.
        assert_eq!(normalize("PASSWORD"), "PASSWORD");
        assert_eq!(normalize("\u{430}"), "\u{430}");
    }

    #[test]
    fn lengths_count_characters_after_normalisation() {
        let policy = PasswordPolicy::default();
        assert_eq!(policy.check("1234567"), Err(PasswordRefused::too_short(8)));
        assert_eq!(policy.check("12345678").unwrap(), "12345678");
        // Eight characters, 16 bytes.
        assert!(policy.check("éééééééé").is_ok());
        // Seven characters once composed (e + combining acute is one é).
        assert_eq!(policy.check("abcdefe\u{301}").unwrap_err(), PasswordRefused::too_short(8));
        assert!(policy.check(&"x".repeat(256)).is_ok());
        assert_eq!(policy.check(&"x".repeat(257)), Err(PasswordRefused::too_long(256)));
        assert_eq!(policy.check(&"x".repeat(100_000)), Err(PasswordRefused::too_long(256)));
        // Full-width digits are ASCII digits.
        assert_eq!(policy.check("１２３４５６７８").unwrap(), "12345678");
    }

    #[test]
    fn limits_are_validated() {
        assert_eq!(PasswordPolicy::new(0, 10).unwrap_err().option, "password.minLength");
        assert_eq!(PasswordPolicy::new(12, 10).unwrap_err().option, "password.minLength");
        assert_eq!(PasswordPolicy::new(8, 2000).unwrap_err().option, "password.maxLength");
        let p = PasswordPolicy::new(12, 64).unwrap();
        assert_eq!((p.min_length(), p.max_length()), (12, 64));
    }

    #[test]
    fn refusals_read_as_sentences() {
        assert_eq!(PasswordRefused::too_short(8).to_string(), "the password must be at least 8 characters long");
        assert_eq!(
            PasswordRefused::refused("This password appeared in a breach").to_string(),
            "This password appeared in a breach"
        );
    }
}
