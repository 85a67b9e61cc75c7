//! What a new user meets first: warnings that match the config, and
//! Auth.js's session shape for users a provider gives no email.

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use libauth_core::jwt::JwtCodec;
use libauth_core::AuthRequest;
use serde_json::{json, Value};

/// Sign in with credentials the way a host that passes no client address
/// would (Python's `Auth.handle` without `remote_address`, a C host
/// without `remoteAddress`), and return the warnings logged.
fn warnings_without_a_client_address(rate_limit: Value) -> Vec<String> {
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let hooks = recording(hooks(), &log, &["logger.warn"], Value::Null);
    let auth = auth(json!({ "rateLimit": rate_limit }), hooks);
    for _ in 0..2 {
        let csrf = {
            let mut b = Browser::new(&auth);
            let (token, cookie) = b.csrf_pair();
            (token, cookie)
        };
        let mut req = AuthRequest::post_form(
            format!("{ORIGIN}/auth/callback/credentials"),
            &[("username", "ada"), ("password", "secret"), ("csrfToken", &csrf.0)],
        );
        req.headers.push(("cookie".into(), csrf.1));
        assert_eq!(req.remote_address, None);
        let res = auth.handle(&req);
        assert_eq!(res.status, 302, "{res:?}");
    }
    let calls = log.lock().unwrap();
    calls.iter().filter(|(n, _)| n == "logger.warn").map(|(_, a)| a["code"].as_str().unwrap_or("").to_owned()).collect()
}

#[test]
fn no_client_address_warns_only_where_a_limit_counts() {
    assert_eq!(
        warnings_without_a_client_address(Value::Null).iter().filter(|c| *c == "rate-limit-no-client-ip").count(),
        1,
        "default limits: warned once"
    );
    assert!(!warnings_without_a_client_address(json!(false)).iter().any(|c| c == "rate-limit-no-client-ip"));
    // Limits on, but not on the credentials route.
    let off_here = json!({ "credentials": false });
    assert!(!warnings_without_a_client_address(off_here).iter().any(|c| c == "rate-limit-no-client-ip"));
}

/// A session cookie holding what Auth.js's token holds for a user a
/// provider gives no email (TikTok): `{ name, picture, sub }`. The session
/// shows `{ user: { name, image }, expires }`, no `email` key, as Auth.js's
/// session route answers (its `email: token.email` is `undefined`, which
/// JSON leaves out).
#[test]
fn a_user_without_an_email_has_no_email_key() {
    let auth = auth(json!({}), hooks());
    let codec = JwtCodec::new(vec![SECRET.to_owned()], &["authjs.session-token"]);
    let payload = json!({ "name": "Tik Toker", "picture": "https://img.example/t.png", "sub": "open-id-1" });
    let token = codec.encode(payload.as_object().unwrap(), "authjs.session-token", 3600).unwrap();
    let mut req = AuthRequest::get(format!("{ORIGIN}/auth/session"));
    req.headers.push(("cookie".into(), format!("authjs.session-token={token}")));
    let res = auth.handle(&req);
    let session: Value = serde_json::from_slice(&res.body).unwrap();
    assert_eq!(session["user"], json!({ "name": "Tik Toker", "image": "https://img.example/t.png" }));
    let read = auth.get_session(&req).unwrap().unwrap();
    assert!(read.user().unwrap().get("email").is_none());
}
