//! TOTP codes (RFC 6238), computed by the `totp-rs` crate; what this module
//! adds is the policy: the profile's limits, one step of drift, no code
//! twice, constant-time comparison, and the enrolment's URI and QR code.

use subtle::ConstantTimeEq;
use totp_rs::{Algorithm, TOTP};

use crate::error::ConfigError;

/// The HMAC of the codes. SHA-1 is what every authenticator app supports
/// (and HMAC-SHA-1 is sound); some apps silently use SHA-1 whatever the URI
/// says, so the others are for deployments that control the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TotpAlgorithm {
    Sha1,
    Sha256,
    Sha512,
}

impl TotpAlgorithm {
    fn crate_algorithm(self) -> Algorithm {
        match self {
            TotpAlgorithm::Sha1 => Algorithm::SHA1,
            TotpAlgorithm::Sha256 => Algorithm::SHA256,
            TotpAlgorithm::Sha512 => Algorithm::SHA512,
        }
    }

    pub fn parse(name: &str) -> Option<TotpAlgorithm> {
        match name.to_ascii_uppercase().replace('-', "").as_str() {
            "SHA1" => Some(TotpAlgorithm::Sha1),
            "SHA256" => Some(TotpAlgorithm::Sha256),
            "SHA512" => Some(TotpAlgorithm::Sha512),
            _ => None,
        }
    }
}

/// How codes are made: algorithm, digits (6 to 8) and period (15 to 300 s).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TotpProfile {
    algorithm: TotpAlgorithm,
    digits: usize,
    period: u64,
}

impl Default for TotpProfile {
    /// SHA-1, 6 digits, 30 seconds.
    fn default() -> Self {
        TotpProfile { algorithm: TotpAlgorithm::Sha1, digits: 6, period: 30 }
    }
}

/// The length of a new secret in bytes (160 bits, RFC 4226's recommendation).
const SECRET_LEN: usize = 20;

/// A new TOTP secret and how to hand it to an authenticator app.
pub struct Enrolment {
    /// The raw secret, to seal and store once the user confirmed a code.
    pub secret: Vec<u8>,
    /// The secret in base32 (what a user types when they cannot scan).
    pub secret_base32: String,
    /// `otpauth://totp/<issuer>:<account>?secret=…&issuer=…&algorithm=…&digits=…&period=…`
    pub uri: String,
    /// The URI as a QR code, an SVG document.
    pub qr_svg: String,
}

impl std::fmt::Debug for Enrolment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Enrolment").finish_non_exhaustive()
    }
}

impl TotpProfile {
    /// A profile, checked: the errors name `twoFactor.totp.digits` and
    /// `twoFactor.totp.period`.
    pub fn new(algorithm: TotpAlgorithm, digits: usize, period: u64) -> Result<TotpProfile, ConfigError> {
        if !(6..=8).contains(&digits) {
            return Err(ConfigError::new("twoFactor.totp.digits", "must be 6, 7 or 8"));
        }
        if !(15..=300).contains(&period) {
            return Err(ConfigError::new("twoFactor.totp.period", "must be 15 to 300 seconds"));
        }
        Ok(TotpProfile { algorithm, digits, period })
    }

    fn totp(&self, secret: &[u8], issuer: Option<&str>, account: &str) -> Option<TOTP> {
        TOTP::new(
            self.algorithm.crate_algorithm(),
            self.digits,
            1,
            self.period,
            secret.to_vec(),
            issuer.map(str::to_owned),
            account.to_owned(),
        )
        .ok()
    }

    /// A new random secret for `account` (the user's address) at `issuer`
    /// (the site's name), with its URI and QR code. `None` when the issuer
    /// or account holds a `:` (the URI's separator; authenticator apps
    /// would misread it) or randomness is unavailable.
    pub fn enrol(&self, issuer: &str, account: &str) -> Option<Enrolment> {
        let mut secret = vec![0u8; SECRET_LEN];
        getrandom::getrandom(&mut secret).ok()?;
        self.enrolment_for(secret, issuer, account)
    }

    /// The URI and QR code of an existing `secret` (an enrolment shown
    /// again, e.g. after a mistyped first code).
    pub fn enrolment_for(&self, secret: Vec<u8>, issuer: &str, account: &str) -> Option<Enrolment> {
        let totp = self.totp(&secret, Some(issuer), account)?;
        let uri = totp.get_url();
        let qr = qrcode::QrCode::new(uri.as_bytes()).ok()?;
        let qr_svg = qr.render::<qrcode::render::svg::Color<'_>>().min_dimensions(200, 200).build();
        Some(Enrolment { secret_base32: totp.get_secret_base32(), secret, uri, qr_svg })
    }

    /// Seconds per code.
    pub fn period(&self) -> u64 {
        self.period
    }

    /// The time step a code belongs to at `now` (unix seconds).
    pub fn step_at(&self, now: u64) -> u64 {
        now / self.period
    }

    /// Check `code` for `secret` at `now` (unix seconds): the step it
    /// matched (the current one, or one step before or after), or `None`.
    /// A step at or before `last_used` is never accepted, so a code (and any
    /// code older than the last one used) works once; store the answer as
    /// the new `last_used`. Spaces in the code are ignored; anything but
    /// digits of the profile's length is refused at once.
    pub fn verify(&self, secret: &[u8], code: &str, now: u64, last_used: Option<u64>) -> Option<u64> {
        let code: String = code.chars().filter(|c| !c.is_whitespace()).collect();
        if code.len() != self.digits || !code.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let totp = self.totp(secret, None, "")?;
        let current = self.step_at(now);
        let mut matched = None;
        // Every candidate is computed and compared, whichever matches.
        for step in [current.saturating_sub(1), current, current.saturating_add(1)] {
            let expected = totp.generate(step.saturating_mul(self.period));
            let fresh = last_used.is_none_or(|last| step > last);
            if bool::from(expected.as_bytes().ct_eq(code.as_bytes())) && fresh && matched.is_none() {
                matched = Some(step);
            }
        }
        matched
    }

    /// The code for `secret` at `now` (for tests and tools).
    pub fn code_at(&self, secret: &[u8], now: u64) -> Option<String> {
        Some(self.totp(secret, None, "")?.generate(now))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6238, appendix B: the seeds and the 8-digit codes at each time.
    #[test]
    fn rfc_6238_test_vectors() {
        let seeds = [
            (TotpAlgorithm::Sha1, b"12345678901234567890".to_vec()),
            (TotpAlgorithm::Sha256, b"12345678901234567890123456789012".to_vec()),
            (TotpAlgorithm::Sha512, b"1234567890123456789012345678901234567890123456789012345678901234".to_vec()),
        ];
        let vectors: [(u64, [&str; 3]); 6] = [
            (59, ["94287082", "46119246", "90693936"]),
            (1111111109, ["07081804", "68084774", "25091201"]),
            (1111111111, ["14050471", "67062674", "99943326"]),
            (1234567890, ["89005924", "91819424", "93441116"]),
            (2000000000, ["69279037", "90698825", "38618901"]),
            (20000000000, ["65353130", "77737706", "47863826"]),
        ];
        for (time, codes) in vectors {
            for ((algorithm, seed), code) in seeds.iter().zip(codes) {
                let profile = TotpProfile::new(*algorithm, 8, 30).unwrap();
                assert_eq!(profile.code_at(seed, time).unwrap(), code, "{algorithm:?} at {time}");
                assert_eq!(profile.verify(seed, code, time, None), Some(time / 30));
            }
        }
    }

    #[test]
    fn one_step_of_drift_and_never_twice() {
        let p = TotpProfile::default();
        let secret = b"12345678901234567890";
        let now = 1_700_000_000;
        let step = now / 30;
        let code = p.code_at(secret, now).unwrap();
        assert_eq!(p.verify(secret, &code, now, None), Some(step));
        assert_eq!(p.verify(secret, &code, now + 30, None), Some(step), "one step late");
        assert_eq!(p.verify(secret, &code, now - 30, None), Some(step), "one step early");
        assert_eq!(p.verify(secret, &code, now + 60, None), None, "two steps late");
        assert_eq!(p.verify(secret, &code, now, Some(step)), None, "a replay");
        let previous = p.code_at(secret, now - 30).unwrap();
        assert_eq!(p.verify(secret, &previous, now, Some(step)), None, "older than the last used");
        let spaced = format!("{} {}", &code[..3], &code[3..]);
        assert_eq!(p.verify(secret, &spaced, now, None), Some(step));
        for bad in ["", "12345", "1234567", "abcdef", "１２３４５６", "-12345"] {
            assert_eq!(p.verify(secret, bad, now, None), None, "{bad:?}");
        }
    }

    #[test]
    fn enrolment_gives_an_otpauth_uri_and_its_qr_code() {
        let e = TotpProfile::default().enrol("Example", "ada@example.com").unwrap();
        assert_eq!(e.secret.len(), 20);
        assert!(e.uri.starts_with("otpauth://totp/Example:ada%40example.com?secret="), "{}", e.uri);
        assert!(e.uri.contains(&format!("secret={}", e.secret_base32)) && e.uri.contains("issuer=Example"));
        assert!(e.qr_svg.contains("<svg") && e.qr_svg.contains("</svg>"));
        assert!(TotpProfile::default().enrol("Ex:ample", "ada").is_none(), "a colon would be misread");
        assert_eq!(TotpProfile::new(TotpAlgorithm::Sha1, 5, 30).unwrap_err().option, "twoFactor.totp.digits");
        assert_eq!(TotpProfile::new(TotpAlgorithm::Sha1, 6, 5).unwrap_err().option, "twoFactor.totp.period");
    }
}
