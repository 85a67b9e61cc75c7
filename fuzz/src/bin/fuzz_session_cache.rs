//! The session cache's hit path. The input is a whole `Cookie` header,
//! read by two engines under the secret that issued the cookie seeds
//! (`ISSUER_SECRET`, so real tokens and their mutations reach the cache):
//! one with a 4-entry session cache, one without. For every input, twice
//! (the second read of a valid cookie is a hit), over plain HTTP and HTTPS
//! (the two session cookie names), `get_session` and `GET /auth/session`
//! must answer alike, and a cookie signed in at start must still read as
//! its session between inputs (hits and evictions interleaved with
//! arbitrary cookies).

use libauth_core::{Auth, AuthRequest};
use libauth_fuzz::{cache_engines, sign_in_ada, SESSION_COOKIE};

fn answers(auth: &Auth, url: &str, cookie: &str) -> (String, u16, String) {
    let session = AuthRequest::get(format!("{url}/dashboard")).with_header("cookie", cookie);
    let session = match auth.get_session(&session) {
        Ok(s) => format!("{s:?}"),
        Err(e) => panic!("get_session failed: {e:?}"),
    };
    let res = auth.handle(&AuthRequest::get(format!("{url}/auth/session")).with_header("cookie", cookie));
    assert!(res.status < 500, "GET /auth/session: status {}", res.status);
    (session, res.status, res.body_str().to_owned())
}

fn main() {
    let (cached, uncached) = cache_engines();
    let live = format!("{SESSION_COOKIE}={}", sign_in_ada(&cached));
    let signed_in = answers(&uncached, "http://localhost:3000", &live);
    assert!(signed_in.0.starts_with("Some("), "the live cookie reads: {signed_in:?}");
    let engines = std::panic::AssertUnwindSafe((cached, uncached));
    afl::fuzz!(|data: &[u8]| {
        let (cached, uncached) = &*engines;
        let cookie = String::from_utf8_lossy(data).into_owned();
        for url in ["http://localhost:3000", "https://localhost:3000"] {
            let want = answers(uncached, url, &cookie);
            for _ in 0..2 {
                assert_eq!(answers(cached, url, &cookie), want, "{url} {cookie:?}");
            }
        }
        assert_eq!(answers(cached, "http://localhost:3000", &live), signed_in, "the live cookie");
    });
}
