//! Small helpers: randomness, TikTok-like identifiers, PKCE, HTML escaping.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use sha2::{Digest, Sha256};
use std::time::{SystemTime, UNIX_EPOCH};

const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

fn random_bytes(n: usize) -> Vec<u8> {
    let mut buf = vec![0u8; n];
    getrandom::getrandom(&mut buf).expect("the OS random source failed");
    buf
}

/// `n` random alphanumeric characters.
pub(crate) fn random_alnum(n: usize) -> String {
    // 62 symbols; rejection sampling keeps the distribution uniform.
    let mut out = String::with_capacity(n);
    while out.len() < n {
        for b in random_bytes(n * 2) {
            if (b as usize) < 62 * 4 {
                out.push(ALNUM[(b as usize) % 62] as char);
                if out.len() == n {
                    break;
                }
            }
        }
    }
    out
}

fn random_digits(n: usize) -> String {
    random_bytes(n).iter().map(|b| char::from(b'0' + b % 10)).collect()
}

/// An authorization code shaped like TikTok's documented example: a long opaque string with
/// `*`, `!` and `.` in it (`…*0!6410`, reference §4), so that clients must URL-decode it exactly once.
pub(crate) fn new_code() -> String {
    format!("{}.{}*0!{}", random_alnum(40), random_alnum(24), random_digits(4))
}

/// `act.…`, `rft.…`, `clt.…` tokens (reference §5.2, §8).
pub(crate) fn new_token(prefix: &str) -> String {
    format!("{prefix}.{}", random_alnum(60))
}

/// A log id like the reference's examples: UTC `YYYYMMDDHHMMSS` followed by 20 uppercase hex digits.
pub fn new_log_id() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let (y, mo, d, h, mi, s) = civil_from_unix(secs);
    let hex: String = random_bytes(10).iter().map(|b| format!("{b:02X}")).collect();
    format!("{y:04}{mo:02}{d:02}{h:02}{mi:02}{s:02}{hex}")
}

/// UTC calendar date and time of a Unix timestamp (Howard Hinnant's `civil_from_days`).
fn civil_from_unix(secs: u64) -> (i64, u32, u32, u32, u32, u32) {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, (rem / 3600) as u32, ((rem % 3600) / 60) as u32, (rem % 60) as u32)
}

/// RFC 7636 S256 challenge: `base64url(sha256(verifier))`, no padding.
pub fn pkce_challenge_base64url(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// TikTok desktop S256 challenge: lowercase hex of `sha256(verifier)` (reference §3.2).
pub fn pkce_challenge_hex(verifier: &str) -> String {
    Sha256::digest(verifier.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// A fresh PKCE verifier: 64 characters from the unreserved set.
pub fn new_pkce_verifier() -> String {
    random_alnum(64)
}

/// 43–128 characters from `[A-Z a-z 0-9 - . _ ~]` (RFC 7636, TikTok desktop docs).
pub(crate) fn verifier_is_well_formed(v: &str) -> bool {
    (43..=128).contains(&v.len())
        && v.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'))
}

pub(crate) fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_dates() {
        assert_eq!(civil_from_unix(0), (1970, 1, 1, 0, 0, 0));
        assert_eq!(civil_from_unix(951_782_400), (2000, 2, 29, 0, 0, 0));
        assert_eq!(civil_from_unix(1_735_732_800), (2025, 1, 1, 12, 0, 0));
    }

    #[test]
    fn rfc7636_vector() {
        // RFC 7636 appendix B.
        assert_eq!(
            pkce_challenge_base64url("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
        assert_eq!(pkce_challenge_hex("abc").len(), 64);
    }

    #[test]
    fn shapes() {
        let id = new_log_id();
        assert_eq!(id.len(), 34);
        assert!(new_code().contains("*0!"));
        assert!(new_token("act").starts_with("act."));
        assert!(verifier_is_well_formed(&new_pkce_verifier()));
        assert!(!verifier_is_well_formed("short"));
    }
}
