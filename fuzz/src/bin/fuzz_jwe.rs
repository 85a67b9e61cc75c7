//! The input is a session token handed straight to the JWE decoder. No key
//! ever encrypted anything here, so every input must be refused.

use libauth_core::jwt::JwtCodec;
use libauth_fuzz::{SECRET, SESSION_COOKIE};

fn main() {
    let codec = std::panic::AssertUnwindSafe(JwtCodec::new(vec![SECRET.to_owned()], &[SESSION_COOKIE]));
    afl::fuzz!(|data: &[u8]| {
        let token = String::from_utf8_lossy(data);
        if let Ok(claims) = codec.decode(&token, SESSION_COOKIE) {
            panic!("decode accepted a forged token: {claims:?}");
        }
    });
}
