//! The input is a whole `Cookie` header: cookie-header parsing, session
//! cookie chunk reassembly (`name.0`, `name.1`, …) and JWE session decode,
//! through `GET {base}/session` and `Auth::get_session`. The engine never
//! issued anything under this secret, so no input is a session.

use libauth_core::AuthRequest;
use libauth_fuzz::{check_response, fuzzed_engine, ORIGIN};

fn main() {
    let auth = std::panic::AssertUnwindSafe(fuzzed_engine());
    let url = format!("{ORIGIN}/auth/session");
    afl::fuzz!(|data: &[u8]| {
        let cookie = String::from_utf8_lossy(data).into_owned();
        let req = AuthRequest::get(url.as_str()).with_header("cookie", cookie);
        let res = auth.handle(&req);
        check_response("GET /auth/session", &res);
        match auth.get_session(&req) {
            Ok(None) => {}
            Ok(Some(session)) => panic!("get_session accepted a forged cookie: {}", session.to_json()),
            Err(e) => panic!("get_session failed: {e:?}"),
        }
    });
}
