//! The input is a callback URL. The default redirect callback may only
//! ever answer a URL on the base origin, and neither it nor
//! `acceptable_target` (a host callback's result) may pass a control
//! character on toward a `Location` header.

use libauth_core::redirect::{acceptable_target, default_redirect};
use libauth_fuzz::ORIGIN;

fn main() {
    afl::fuzz!(|data: &[u8]| {
        let Ok(url) = std::str::from_utf8(data) else {
            return;
        };
        let target = default_redirect(url, ORIGIN);
        // Not only a prefix: `http://localhost:30001` or
        // `http://localhost:3000@evil` start with the base too.
        let rest = target.strip_prefix(ORIGIN).unwrap_or_else(|| panic!("{url:?} -> {target:?}: another origin"));
        assert!(rest.is_empty() || rest.starts_with('/'), "{url:?} -> {target:?}: another origin");
        assert!(!target.chars().any(char::is_control), "{url:?} -> {target:?}: control character");
        if let Some(accepted) = acceptable_target(url) {
            assert!(!accepted.chars().any(char::is_control), "{url:?} -> {accepted:?}: control character");
        }
    });
}
