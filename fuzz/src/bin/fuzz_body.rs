//! The input's first byte picks a `Content-Type`, the rest is a request
//! body, POSTed to each route below. Every request carries a valid CSRF
//! cookie for `CSRF_TOKEN`, so a body that repeats the token gets past the
//! double-submit check; the `authorize` hook never returns a user, so no
//! input may produce a session.

use libauth_core::AuthRequest;
use libauth_fuzz::{check_response, csrf_cookie_value, fuzzed_engine, CSRF_COOKIE, ORIGIN};

const CONTENT_TYPES: &[Option<&str>] = &[
    Some("application/x-www-form-urlencoded"),
    Some("application/json"),
    Some("application/x-www-form-urlencoded; charset=UTF-8"),
    Some("Application/JSON ; charset=utf-8"),
    Some("text/plain"),
    Some("multipart/form-data; boundary=x"),
    Some(""),
    None,
];

const ROUTES: &[&str] = &["/auth/callback/credentials", "/auth/signout", "/auth/session", "/auth/signin/credentials"];

fn main() {
    let auth = std::panic::AssertUnwindSafe(fuzzed_engine());
    let cookie = format!("{CSRF_COOKIE}={}", csrf_cookie_value());
    let urls: Vec<String> = ROUTES.iter().map(|r| format!("{ORIGIN}{r}")).collect();
    afl::fuzz!(|data: &[u8]| {
        let Some((&selector, body)) = data.split_first() else {
            return;
        };
        let content_type = CONTENT_TYPES[usize::from(selector) % CONTENT_TYPES.len()];
        for url in &urls {
            let mut req = AuthRequest {
                method: "POST".into(),
                url: url.clone(),
                headers: vec![("cookie".into(), cookie.clone())],
                body: Some(body.to_vec()),
                remote_address: None,
            };
            if let Some(ct) = content_type {
                req.headers.push(("content-type".into(), ct.into()));
            }
            let res = auth.handle(&req);
            check_response(url, &res);
        }
    });
}
