//! Hashing new passwords (Argon2id) and verifying stored hashes of every
//! format libauth accepts, with the costs a stored hash may ask for capped.
//!
//! Formats recognised by [`PasswordHasher::verify`]:
//!
//! | stored form                               | made by                                   |
//! |-------------------------------------------|-------------------------------------------|
//! | `$argon2id$v=19$m=…,t=…,p=…$salt$hash`    | libauth; any Argon2 PHC library (also `$argon2i$`, `$argon2d$`) |
//! | `$2a$`, `$2b$`, `$2y$` + cost + 53 chars  | bcrypt (Auth.js apps, PHP, Python, Node)  |
//! | `pbkdf2_sha256$<iterations>$<salt>$<b64>` | Django's default hasher                    |
//! | `<hex salt>:<128 hex digits>`             | Better Auth (scrypt N=16384, r=16, p=1)   |
//!
//! Anything else, and any hash over a cap below, is "not ok": never a
//! panic, never an error that says which format it was.

use std::borrow::Cow;

use argon2::password_hash::{PasswordHash, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};
use base64::engine::general_purpose::{STANDARD, STANDARD_NO_PAD};
use base64::Engine;
use sha2::Sha256;
use subtle::ConstantTimeEq;

use super::policy::normalize;
use crate::error::ConfigError;

/// The longest password accepted, in bytes as given (before
/// normalisation): longer ones are refused by [`PasswordHasher::hash`] and
/// never verify. A policy's longest password (1024 characters) fits.
pub const MAX_PASSWORD_BYTES: usize = 16 * 1024;
/// The longest stored hash looked at; a longer one never verifies.
const MAX_STORED_LEN: usize = 1024;
/// Argon2 passes (`t`) a stored hash may ask for, and our own most.
pub const MAX_ARGON2_ITERATIONS: u32 = 16;
/// Argon2 lanes (`p`) a stored hash may ask for, and our own most. (The
/// lanes run one after another here: more lanes cost time, not memory.)
pub const MAX_ARGON2_PARALLELISM: u32 = 16;
/// A stored Argon2 hash may use up to the larger of the configured
/// `memoryKib` and this (64 MiB, argon2-cffi's and RFC 9106's second
/// recommendation). A hash that needs more never verifies: raise
/// `memoryKib` to accept it.
pub const MIN_IMPORTED_ARGON2_MEMORY_CAP_KIB: u32 = 64 * 1024;
/// The largest `memoryKib` accepted for our own hashes (1 GiB).
const MAX_ARGON2_MEMORY_KIB: u32 = 1024 * 1024;
/// The largest bcrypt cost a stored hash may have (2^16 rounds, seconds of
/// CPU; common costs are 10 to 12).
pub const MAX_BCRYPT_COST: u32 = 16;
/// The most PBKDF2 iterations a stored Django hash may have (Django's own
/// default is about 1 million).
pub const MAX_PBKDF2_ITERATIONS: u32 = 10_000_000;

/// Argon2 salt and output sizes of our hashes (bytes).
const SALT_LEN: usize = 16;
const OUTPUT_LEN: usize = 32;

/// Argon2id's cost parameters (`password.argon2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Argon2Params {
    /// Memory per hash in KiB (`memoryKib`).
    pub memory_kib: u32,
    /// Passes over the memory (`iterations`).
    pub iterations: u32,
    /// Lanes (`parallelism`).
    pub parallelism: u32,
}

impl Argon2Params {
    /// OWASP's Password Storage Cheat Sheet: Argon2id with 19 MiB of
    /// memory, 2 iterations, 1 degree of parallelism.
    pub const OWASP: Argon2Params = Argon2Params { memory_kib: 19 * 1024, iterations: 2, parallelism: 1 };

    /// Checks the values, naming the offending option
    /// (`password.argon2.memoryKib`, `.iterations`, `.parallelism`).
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=MAX_ARGON2_PARALLELISM).contains(&self.parallelism) {
            return Err(ConfigError::new(
                "password.argon2.parallelism",
                format!("must be between 1 and {MAX_ARGON2_PARALLELISM} (got {})", self.parallelism),
            ));
        }
        if !(1..=MAX_ARGON2_ITERATIONS).contains(&self.iterations) {
            return Err(ConfigError::new(
                "password.argon2.iterations",
                format!("must be between 1 and {MAX_ARGON2_ITERATIONS} (got {})", self.iterations),
            ));
        }
        let least = 8 * self.parallelism;
        if self.memory_kib < least || self.memory_kib > MAX_ARGON2_MEMORY_KIB {
            return Err(ConfigError::new(
                "password.argon2.memoryKib",
                format!(
                    "must be between {least} (8 KiB per lane) and {MAX_ARGON2_MEMORY_KIB} (1 GiB) (got {})",
                    self.memory_kib
                ),
            ));
        }
        Ok(())
    }
}

impl Default for Argon2Params {
    fn default() -> Self {
        Argon2Params::OWASP
    }
}

/// The answer of [`PasswordHasher::verify`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[must_use]
pub struct Verified {
    /// The password matches the stored hash.
    pub ok: bool,
    /// `ok`, and the stored hash should be replaced by
    /// [`PasswordHasher::hash`] of the same password now: it is another
    /// format, another Argon2 variant or version, other parameters, or it
    /// matched the password only as typed, not normalised. Always `false`
    /// when `ok` is.
    pub needs_rehash: bool,
}

impl Verified {
    const NO: Verified = Verified { ok: false, needs_rehash: false };
}

/// Hashing failed: the password is over [`MAX_PASSWORD_BYTES`] (a policy
/// refuses it earlier), or, never in practice, Argon2 itself failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("password hashing failed: {0}")]
pub struct HashError(String);

/// Hashes new passwords with Argon2id and verifies stored hashes of every
/// accepted format. Built once per engine; `Send + Sync`, cheap to share.
///
/// Hashing and verifying are CPU- and memory-heavy (by design): run them
/// through a [`super::HashPool`], never on an event loop thread.
#[derive(Clone)]
pub struct PasswordHasher {
    params: Argon2Params,
    argon2: Argon2<'static>,
    /// Argon2 memory a stored hash may use (KiB).
    memory_cap_kib: u32,
    /// An Argon2id hash with the current parameters that no password
    /// matches (random salt and output), for [`PasswordHasher::verify_dummy`].
    dummy: String,
}

impl std::fmt::Debug for PasswordHasher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PasswordHasher").field("params", &self.params).finish_non_exhaustive()
    }
}

impl PasswordHasher {
    /// A hasher making Argon2id hashes with `params` (validated here).
    pub fn new(params: Argon2Params) -> Result<Self, ConfigError> {
        params.validate()?;
        let argon2_params = Params::new(params.memory_kib, params.iterations, params.parallelism, Some(OUTPUT_LEN))
            .map_err(|e| ConfigError::new("password.argon2", e.to_string()))?;
        let argon2 = Argon2::new(Algorithm::Argon2id, Version::V0x13, argon2_params);
        let dummy = format!(
            "$argon2id$v=19$m={},t={},p={}${}${}",
            params.memory_kib,
            params.iterations,
            params.parallelism,
            STANDARD_NO_PAD.encode(crate::random::bytes(SALT_LEN)),
            STANDARD_NO_PAD.encode(crate::random::bytes(OUTPUT_LEN)),
        );
        Ok(PasswordHasher {
            params,
            argon2,
            memory_cap_kib: params.memory_kib.max(MIN_IMPORTED_ARGON2_MEMORY_CAP_KIB),
            dummy,
        })
    }

    /// The parameters new hashes get.
    pub fn params(&self) -> Argon2Params {
        self.params
    }

    /// The most memory one [`PasswordHasher::hash`] or
    /// [`PasswordHasher::verify`] can take (KiB): the larger of the Argon2
    /// caps and Better Auth's scrypt (32 MiB). A [`super::HashPool`] of N
    /// slots bounds hashing memory to N times this.
    pub fn max_job_memory_kib(&self) -> u32 {
        self.memory_cap_kib.max(SCRYPT_MEMORY_KIB)
    }

    /// The Argon2id PHC string of `password` (NFKC-normalised first), with
    /// a random 16-byte salt from the OS. Check the password against a
    /// [`super::PasswordPolicy`] before.
    pub fn hash(&self, password: &str) -> Result<String, HashError> {
        if password.len() > MAX_PASSWORD_BYTES {
            return Err(HashError(format!("the password is over {MAX_PASSWORD_BYTES} bytes")));
        }
        let password = normalize(password);
        let salt = crate::random::bytes(SALT_LEN);
        let mut output = [0u8; OUTPUT_LEN];
        self.argon2
            .hash_password_into(password.as_bytes(), &salt, &mut output)
            .map_err(|e| HashError(e.to_string()))?;
        Ok(format!(
            "$argon2id$v=19$m={},t={},p={}${}${}",
            self.params.memory_kib,
            self.params.iterations,
            self.params.parallelism,
            STANDARD_NO_PAD.encode(&salt),
            STANDARD_NO_PAD.encode(output),
        ))
    }

    /// Whether `password` matches `stored`, a hash of any accepted format,
    /// and whether to replace it with a new hash now (see [`Verified`]).
    ///
    /// The password is compared NFKC-normalised. Hashes other systems made
    /// (bcrypt, Django, Argon2) may be of a password as it was typed; when
    /// the normalised form does not match and differs from the typed one,
    /// the typed one is tried too (and a match asks for a rehash, which
    /// stores the normalised form). Better Auth normalises as we do.
    pub fn verify(&self, password: &str, stored: &str) -> Verified {
        if password.len() > MAX_PASSWORD_BYTES {
            return Verified::NO;
        }
        let Some(stored) = self.parse(stored) else {
            return Verified::NO;
        };
        let normalized = normalize(password);
        if stored.matches(normalized.as_bytes()) {
            return Verified { ok: true, needs_rehash: stored.needs_rehash(&self.params) };
        }
        if matches!(normalized, Cow::Owned(_)) && stored.hashed_as_typed() && stored.matches(password.as_bytes()) {
            return Verified { ok: true, needs_rehash: true };
        }
        Verified::NO
    }

    /// Verify `password` against a hash that no password matches, made
    /// with the current parameters: what a sign-in for an email with no
    /// account runs, so that it costs what a wrong password costs for an
    /// account whose hash is current. Always "not ok".
    pub fn verify_dummy(&self, password: &str) -> Verified {
        // black_box: the answer is unused, and the work must not be
        // optimised away.
        let _ = std::hint::black_box(self.verify(password, &self.dummy));
        Verified::NO
    }

    fn parse<'a>(&self, stored: &'a str) -> Option<Stored<'a>> {
        if stored.len() > MAX_STORED_LEN {
            return None;
        }
        if stored.starts_with("$argon2") {
            return parse_argon2(stored, self.memory_cap_kib);
        }
        if stored.starts_with("$2") {
            return parse_bcrypt(stored);
        }
        if let Some(rest) = stored.strip_prefix("pbkdf2_sha256$") {
            return parse_django(rest);
        }
        parse_better_auth(stored)
    }
}

/// A stored hash, parsed and within the caps.
enum Stored<'a> {
    // Boxed: a PHC string parsed is a few hundred bytes.
    Argon2(Box<Argon2Hash<'a>>),
    Bcrypt(&'a str),
    Pbkdf2Sha256 { iterations: u32, salt: &'a str, expected: Vec<u8> },
    BetterAuthScrypt { salt: &'a str, expected: Vec<u8> },
}

struct Argon2Hash<'a> {
    hash: PasswordHash<'a>,
    algorithm: Algorithm,
    version: Version,
    params: Params,
}

/// Better Auth's scrypt: N = 2^14, r = 16, p = 1, a 64-byte key; 128 × N × r
/// bytes of memory (32 MiB).
const SCRYPT_LOG_N: u8 = 14;
const SCRYPT_R: u32 = 16;
const SCRYPT_P: u32 = 1;
const SCRYPT_KEY_LEN: usize = 64;
const SCRYPT_MEMORY_KIB: u32 = 128 * (1 << SCRYPT_LOG_N) * SCRYPT_R / 1024;

impl Stored<'_> {
    fn matches(&self, password: &[u8]) -> bool {
        match self {
            Stored::Argon2(a) => {
                Argon2::new(a.algorithm, a.version, a.params.clone()).verify_password(password, &a.hash).is_ok()
            }
            Stored::Bcrypt(stored) => bcrypt::verify(password, stored).unwrap_or(false),
            Stored::Pbkdf2Sha256 { iterations, salt, expected } => {
                let mut out = [0u8; 32];
                pbkdf2::pbkdf2_hmac::<Sha256>(password, salt.as_bytes(), *iterations, &mut out);
                bool::from(out.as_slice().ct_eq(expected))
            }
            Stored::BetterAuthScrypt { salt, expected } => {
                let Ok(params) = scrypt::Params::new(SCRYPT_LOG_N, SCRYPT_R, SCRYPT_P, SCRYPT_KEY_LEN) else {
                    return false;
                };
                let mut out = [0u8; SCRYPT_KEY_LEN];
                // Better Auth passes the salt's hex string itself (its
                // UTF-8 bytes) as the salt, not the bytes it encodes.
                if scrypt::scrypt(password, salt.as_bytes(), &params, &mut out).is_err() {
                    return false;
                }
                bool::from(out.as_slice().ct_eq(expected))
            }
        }
    }

    /// Whether the system that made this hash may have hashed the password
    /// as typed (every format but Better Auth's, which normalises).
    fn hashed_as_typed(&self) -> bool {
        !matches!(self, Stored::BetterAuthScrypt { .. })
    }

    fn needs_rehash(&self, current: &Argon2Params) -> bool {
        match self {
            Stored::Argon2(a) => {
                a.algorithm != Algorithm::Argon2id
                    || a.version != Version::V0x13
                    || a.params.m_cost() != current.memory_kib
                    || a.params.t_cost() != current.iterations
                    || a.params.p_cost() != current.parallelism
                    || a.hash.hash.is_none_or(|h| h.len() != OUTPUT_LEN)
                    // A salt of fewer than 16 bytes (22 base64 characters).
                    || a.hash.salt.is_none_or(|s| s.as_str().len() < 22)
            }
            _ => true,
        }
    }
}

fn parse_argon2(stored: &str, memory_cap_kib: u32) -> Option<Stored<'_>> {
    let mut hash = PasswordHash::new(stored).ok()?;
    let algorithm = Algorithm::try_from(hash.algorithm).ok()?;
    // No `v=` field is version 0x10, as the reference implementation (and
    // so argon2-cffi, node-argon2, PHP) reads it; the argon2 crate would
    // take 0x13, and such a hash would never verify.
    let version = match hash.version {
        None => Version::V0x10,
        Some(v) => Version::try_from(v).ok()?,
    };
    hash.version = Some(version.into());
    let params = Params::try_from(&hash).ok()?;
    hash.salt.as_ref()?;
    hash.hash.as_ref()?;
    let within_caps = params.m_cost() <= memory_cap_kib
        && params.t_cost() <= MAX_ARGON2_ITERATIONS
        && params.p_cost() <= MAX_ARGON2_PARALLELISM;
    within_caps.then(|| Stored::Argon2(Box::new(Argon2Hash { hash, algorithm, version, params })))
}

/// `$2a$`, `$2b$` or `$2y$`, a two-digit cost, `$`, 22 characters of salt
/// and 31 of hash (bcrypt's base64). `$2x$` (the variant of a broken
/// implementation) is refused.
fn parse_bcrypt(stored: &str) -> Option<Stored<'_>> {
    let b = stored.as_bytes();
    let prefix_ok = b.len() == 60 && matches!(&b[..4], b"$2a$" | b"$2b$" | b"$2y$") && b[6] == b'$';
    if !prefix_ok {
        return None;
    }
    let cost: u32 = stored.get(4..6)?.parse().ok()?;
    let alphabet_ok = b[7..].iter().all(|c| c.is_ascii_alphanumeric() || *c == b'.' || *c == b'/');
    ((4..=MAX_BCRYPT_COST).contains(&cost) && alphabet_ok).then_some(Stored::Bcrypt(stored))
}

/// Django's `pbkdf2_sha256$<iterations>$<salt>$<base64 of 32 bytes>`; the
/// salt is used as its UTF-8 bytes.
fn parse_django(rest: &str) -> Option<Stored<'_>> {
    let mut parts = rest.split('$');
    let (iterations, salt, hash) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() || salt.is_empty() || iterations.is_empty() || iterations.len() > 9 {
        return None;
    }
    if !iterations.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let iterations: u32 = iterations.parse().ok()?;
    let expected = STANDARD.decode(hash).ok()?;
    let ok = (1..=MAX_PBKDF2_ITERATIONS).contains(&iterations) && expected.len() == 32;
    ok.then_some(Stored::Pbkdf2Sha256 { iterations, salt, expected })
}

/// Better Auth's `<salt>:<key>`: the salt lowercase hex (32 digits as
/// Better Auth makes it; 1 to 128 accepted), the key 128 lowercase hex
/// digits (Better Auth compares the hex strings, so an uppercase key never
/// matched there and does not here).
fn parse_better_auth(stored: &str) -> Option<Stored<'_>> {
    let (salt, key) = stored.split_once(':')?;
    let hex = |s: &str| s.bytes().all(|c| matches!(c, b'0'..=b'9' | b'a'..=b'f'));
    if salt.is_empty() || salt.len() > 128 || !hex(salt) || key.len() != 2 * SCRYPT_KEY_LEN || !hex(key) {
        return None;
    }
    let expected =
        (0..key.len()).step_by(2).map(|i| u8::from_str_radix(&key[i..i + 2], 16).ok()).collect::<Option<Vec<u8>>>()?;
    Some(Stored::BetterAuthScrypt { salt, expected })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parameters small enough for tests that are not about them.
    const TINY: Argon2Params = Argon2Params { memory_kib: 64, iterations: 1, parallelism: 1 };

    fn tiny() -> PasswordHasher {
        PasswordHasher::new(TINY).unwrap()
    }

    #[test]
    fn defaults_are_owasps() {
        assert_eq!(Argon2Params::default(), Argon2Params { memory_kib: 19456, iterations: 2, parallelism: 1 });
    }

    #[test]
    fn params_are_validated_by_option_name() {
        let bad = |p: Argon2Params| PasswordHasher::new(p).unwrap_err().option;
        assert_eq!(bad(Argon2Params { memory_kib: 4, ..TINY }), "password.argon2.memoryKib");
        assert_eq!(bad(Argon2Params { memory_kib: 2 * 1024 * 1024, ..TINY }), "password.argon2.memoryKib");
        assert_eq!(bad(Argon2Params { memory_kib: 16, parallelism: 4, ..TINY }), "password.argon2.memoryKib");
        assert_eq!(bad(Argon2Params { iterations: 0, ..TINY }), "password.argon2.iterations");
        assert_eq!(bad(Argon2Params { iterations: 17, ..TINY }), "password.argon2.iterations");
        assert_eq!(bad(Argon2Params { parallelism: 0, ..TINY }), "password.argon2.parallelism");
        let e = PasswordHasher::new(Argon2Params { memory_kib: 4, ..TINY }).unwrap_err();
        assert!(e.to_string().contains("password.argon2.memoryKib"), "{e}");
    }

    #[test]
    fn own_hash_round_trips_and_is_current() {
        let h = tiny();
        let stored = h.hash("correct horse").unwrap();
        assert!(stored.starts_with("$argon2id$v=19$m=64,t=1,p=1$"), "{stored}");
        assert_eq!(h.verify("correct horse", &stored), Verified { ok: true, needs_rehash: false });
        assert_eq!(h.verify("correct horsf", &stored), Verified::NO);
        // Two hashes of one password differ (random salt).
        assert_ne!(stored, h.hash("correct horse").unwrap());
        // The argon2 crate's own verifier agrees.
        let parsed = PasswordHash::new(&stored).unwrap();
        assert!(Argon2::default().verify_password(b"correct horse", &parsed).is_ok());
    }

    #[test]
    fn other_params_need_a_rehash() {
        let old = tiny().hash("correct horse").unwrap();
        let newer = PasswordHasher::new(Argon2Params { iterations: 2, ..TINY }).unwrap();
        assert_eq!(newer.verify("correct horse", &old), Verified { ok: true, needs_rehash: true });
        assert_eq!(newer.verify("wrong horse", &old), Verified::NO);
    }

    #[test]
    fn the_dummy_is_an_argon2id_hash_with_current_params() {
        let h = tiny();
        let Some(Stored::Argon2(a)) = h.parse(&h.dummy) else {
            panic!("the dummy hash is not a current Argon2 hash: {}", h.dummy);
        };
        assert_eq!(a.algorithm, Algorithm::Argon2id);
        assert_eq!((a.params.m_cost(), a.params.t_cost(), a.params.p_cost()), (64, 1, 1));
        assert!(!Stored::Argon2(a).needs_rehash(&TINY));
        assert!(!h.verify_dummy("anything").ok);
        assert!(!h.verify_dummy("").ok);
    }

    #[test]
    fn caps_refuse_costly_hashes_without_running_them() {
        let h = tiny();
        // Over the caps: refused at parse time, before any work.
        let over = [
            "$argon2id$v=19$m=65537,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI",
            "$argon2id$v=19$m=64,t=17,p=1$c29tZXNhbHRzb21lc2FsdA$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI",
            "$argon2id$v=19$m=4096,t=1,p=17$c29tZXNhbHRzb21lc2FsdA$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI",
            "$2b$17$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234",
            "$2b$31$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234",
            "pbkdf2_sha256$10000001$salt$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI=",
            "pbkdf2_sha256$4294967295$salt$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI=",
        ];
        for stored in over {
            assert!(h.parse(stored).is_none(), "{stored}");
            assert_eq!(h.verify("password", stored), Verified::NO);
        }
        // At the caps: parsed (not run here: seconds of CPU).
        assert!(h
            .parse(
                "$argon2id$v=19$m=65536,t=16,p=16$c29tZXNhbHRzb21lc2FsdA$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI"
            )
            .is_some());
        assert!(h.parse("$2b$16$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234").is_some());
        assert!(h.parse("pbkdf2_sha256$10000000$salt$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI=").is_some());
        // A larger configured memory raises the Argon2 memory cap.
        let big = PasswordHasher::new(Argon2Params { memory_kib: 128 * 1024, ..TINY }).unwrap();
        assert!(big
            .parse("$argon2id$v=19$m=131072,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI")
            .is_some());
        assert_eq!(big.max_job_memory_kib(), 128 * 1024);
        assert_eq!(h.max_job_memory_kib(), 64 * 1024);
    }

    #[test]
    fn unknown_and_malformed_hashes_are_not_ok() {
        let h = tiny();
        for stored in [
            "",
            "password",
            "$argon2id$",
            "$argon2id$v=19$m=64,t=1,p=1$c29tZXNhbHQ",
            "$argon2x$v=19$m=64,t=1,p=1$c29tZXNhbHRzb21lc2FsdA$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI",
            "$2x$04$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234",
            "$2b$04$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz0123",
            "$2b$03$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234",
            "$2b$4a$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyz01234",
            "pbkdf2_sha256$$salt$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI=",
            "pbkdf2_sha256$+100$salt$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI=",
            "pbkdf2_sha256$0$salt$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI=",
            "pbkdf2_sha256$100$salt$c2hvcnQ=",
            "pbkdf2_sha256$100$salt$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI=$extra",
            "pbkdf2_sha1$100$salt$MTIzNDU2Nzg5MDEyMzQ1Njc4OTAxMjM0NTY3ODkwMTI=",
            "abcd:1234",
            &format!("abcd:{}", "A".repeat(128)),
            &format!(":{}", "a".repeat(128)),
            &format!("{}:{}", "g".repeat(32), "a".repeat(128)),
            &"a".repeat(5000),
        ] {
            assert!(h.parse(stored).is_none(), "{stored}");
            assert_eq!(h.verify("password", stored), Verified::NO, "{stored}");
        }
        // Too long a password never verifies, and is refused for hashing.
        let long = "x".repeat(MAX_PASSWORD_BYTES + 1);
        assert!(h.hash(&long).is_err());
        let stored = h.hash("x").unwrap();
        assert_eq!(h.verify(&long, &stored), Verified::NO);
    }

    #[test]
    fn a_hash_of_the_typed_form_verifies_and_is_rehashed() {
        // A system that did not normalise hashed the full-width form.
        let h = tiny();
        let typed = "Ｐａｓｓｗｏｒｄ１";
        let mut out = [0u8; OUTPUT_LEN];
        let salt = [7u8; SALT_LEN];
        h.argon2.hash_password_into(typed.as_bytes(), &salt, &mut out).unwrap();
        let stored =
            format!("$argon2id$v=19$m=64,t=1,p=1${}${}", STANDARD_NO_PAD.encode(salt), STANDARD_NO_PAD.encode(out));
        assert_eq!(h.verify(typed, &stored), Verified { ok: true, needs_rehash: true });
        // The normalised spelling is another password to that system.
        assert_eq!(h.verify("Password1", &stored), Verified::NO);
        // Ours, made from either spelling, is of the normalised form.
        let ours = h.hash(typed).unwrap();
        assert_eq!(h.verify("Password1", &ours), Verified { ok: true, needs_rehash: false });
        assert_eq!(h.verify(typed, &ours), Verified { ok: true, needs_rehash: false });
    }

    #[test]
    fn scrypt_memory_is_32_mib() {
        assert_eq!(SCRYPT_MEMORY_KIB, 32 * 1024);
    }
}
