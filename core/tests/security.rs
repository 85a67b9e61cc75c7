//! Regression tests for the security review's findings, each through the
//! routes a browser (or an attacker) reaches. The class-level properties
//! (no panic, no 5xx, nothing accepted that the engine did not issue) are
//! in `properties.rs`.
mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use common::*;
use libauth_core::{Auth, AuthRequest, Config, HookMap};
use serde_json::{json, Value};

const SESSION: &str = "authjs.session-token";

fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn gcm_cookie(claims: &Value, tag_len: usize) -> String {
    gcm_token(SESSION, claims.to_string().as_bytes(), tag_len)
}

fn session_with_cookie(auth: &Auth, cookie: &str) -> (u16, Value, Vec<String>) {
    let req = AuthRequest::get(format!("{ORIGIN}/auth/session")).with_header("cookie", cookie);
    let res = auth.handle(&req);
    assert!(auth.get_session(&req).is_ok());
    (res.status, res.json().unwrap_or(Value::Null), res.set_cookies().map(str::to_owned).collect())
}

#[test]
fn a_gcm_cookie_is_a_session_only_with_its_full_tag_and_an_exp() {
    let auth = auth(json!({}), hooks());
    let exp = libauth_core::time::now_seconds() + 600;
    let claims = json!({ "name": "Old Auth.js", "email": "old@example.com", "exp": exp });
    let (status, session, _) = session_with_cookie(&auth, &format!("{SESSION}={}", gcm_cookie(&claims, 16)));
    assert_eq!(status, 200);
    assert_eq!(session["user"]["name"], "Old Auth.js", "a cookie from an older Auth.js still reads");

    for tag_len in [0, 1, 4, 8, 12, 15] {
        let cookie = format!("{SESSION}={}", gcm_cookie(&claims, tag_len));
        let (status, session, set) = session_with_cookie(&auth, &cookie);
        assert_eq!((status, &session), (200, &Value::Null), "{tag_len}-byte tag");
        assert!(set.iter().any(|c| c.starts_with(&format!("{SESSION}=;"))), "the bad cookie is cleared");
        let req = AuthRequest::get(format!("{ORIGIN}/auth/session")).with_header("cookie", cookie);
        assert_eq!(auth.get_session(&req).unwrap(), None);
    }
    // Decrypts fine, but no exp: a token the engine never issues.
    for claims in [json!({}), json!({ "name": "x" }), json!({ "exp": "soon" }), json!({ "exp": 1e30 })] {
        let (_, session, _) = session_with_cookie(&auth, &format!("{SESSION}={}", gcm_cookie(&claims, 16)));
        assert_eq!(session, Value::Null, "{claims}");
    }
}

#[test]
fn absurd_time_claims_from_a_jwt_decode_hook_are_no_session() {
    for claims in [
        json!({ "sub": "1", "exp": 1e30, "iat": 1e30 }),
        json!({ "sub": "1", "exp": -5 }),
        json!({ "sub": "1", "exp": "tomorrow" }),
        json!({ "sub": "1", "iat": libauth_core::time::now_seconds() + 86_400 }),
        json!({ "sub": "1", "nbf": f64::MAX }),
    ] {
        let c = claims.clone();
        let hooks = hooks().on("jwt.decode", move |_| Ok(c.clone()));
        let auth = auth(json!({}), hooks);
        let (status, session, _) = session_with_cookie(&auth, &format!("{SESSION}=anything"));
        assert_eq!((status, session), (200, Value::Null), "{claims}");
    }
    // A sane one still works, with its own expiry.
    let exp = libauth_core::time::now_seconds() + 60;
    let auth = auth(json!({}), hooks().on("jwt.decode", move |_| Ok(json!({ "name": "Hook", "exp": exp }))));
    let (_, session, _) = session_with_cookie(&auth, &format!("{SESSION}=anything"));
    assert_eq!(session["user"]["name"], "Hook");
}

/// The emailed link never takes its origin from a Host the deployer did
/// not vouch for.
#[test]
fn an_emailed_link_never_takes_an_untrusted_host() {
    let mailed: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let build = |env_pairs: &[(&str, &str)]| {
        let m = mailed.clone();
        let hooks = HookMap::new().on("providers.email.sendVerificationRequest", move |args| {
            m.lock().unwrap().push(args["url"].as_str().unwrap_or_default().to_owned());
            Ok(Value::Null)
        });
        let config = Config::from_value(json!({
            "secret": SECRET, "adapter": { "type": "memory" },
            "providers": [{ "type": "email", "sendVerificationRequest": true }]
        }))
        .unwrap();
        Auth::with_env(config, Arc::new(hooks), &env(env_pairs)).unwrap()
    };

    // No trustHost, no AUTH_URL: refused, nothing mailed.
    let auth = build(&[]);
    let mut attacker = Browser::at(&auth, "http://evil.example");
    let res = attacker.get("/auth/csrf");
    assert_eq!(res.status, 500);
    let res = attacker.post("/auth/signin/email", &[("csrfToken", "x"), ("email", "victim@example.com")]);
    assert_eq!(res.status, 500);
    assert!(mailed.lock().unwrap().is_empty());

    // A canonical URL: the link is built on it, whatever Host was sent.
    let auth = build(&[("AUTH_URL", "https://app.example.com/auth")]);
    let mut attacker = Browser::at(&auth, "http://evil.example");
    let csrf = attacker.csrf();
    attacker.post("/auth/signin/email", &[("csrfToken", &csrf), ("email", "victim@example.com")]);
    let link = mailed.lock().unwrap().pop().expect("a link was mailed");
    assert!(link.starts_with("https://app.example.com/auth/callback/email?"), "{link}");
}

#[test]
fn oidc_needs_an_issuer() {
    let config = Config::from_value(json!({
        "secret": SECRET, "trustHost": true,
        "providers": [{
            "type": "oidc", "id": "op", "clientId": "app", "clientSecret": "s",
            "authorization": "https://op.example/authorize", "token": "https://op.example/token",
            "jwksUri": "https://op.example/jwks"
        }]
    }))
    .unwrap();
    let err = Auth::with_env(config, Arc::new(HookMap::new()), &env(&[])).err().expect("refused");
    assert_eq!(err.option, "providers[0].issuer");
}

#[test]
fn an_absolute_callback_url_reaches_location_serialised() {
    let auth = auth(json!({}), hooks());
    for (given, expected) in [
        ("http://localhost:3000/\u{2028}x", "http://localhost:3000/%E2%80%A8x"),
        ("http://localhost:3000\\@evil.example/", "http://localhost:3000/@evil.example/"),
        ("http://localhost:3000/\u{fffe}", "http://localhost:3000/%EF%BF%BE"),
    ] {
        let mut b = Browser::new(&auth);
        b.sign_in("ada", "secret");
        let csrf = b.csrf();
        let res = b.post("/auth/signout", &[("csrfToken", &csrf), ("callbackUrl", given)]);
        assert_eq!(location(&res), expected);
        assert!(location(&res).is_ascii());
        // The remembered callback URL is ASCII too.
        let res = b.post("/auth/signin/credentials", &[("csrfToken", &csrf), ("callbackUrl", given)]);
        for cookie in res.set_cookies() {
            assert!(cookie.is_ascii() && !cookie.contains('\u{2028}'), "{cookie}");
        }
    }
}

#[test]
fn a_non_ascii_host_neither_panics_nor_answers_5xx() {
    let auth = auth(json!({}), hooks());
    for url in ["http://é.example/auth/session", "https://ü.example/auth/csrf", "http://例え.テスト/auth/signin"]
    {
        let req = AuthRequest::get(url);
        let res = auth.handle(&req);
        assert!(res.status < 500, "{url} -> {}", res.status);
        assert_eq!(auth.get_session(&req).unwrap(), None);
        let _ = answered_inline(&auth, &req);
    }
}

#[test]
fn a_whole_session_cookie_beats_planted_chunks_and_chunk_floods_are_bounded() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    b.sign_in("ada", "secret");
    let good = b.jar.get(SESSION).unwrap().clone();

    let (_, session, _) = session_with_cookie(&auth, &format!("{SESSION}={good}; {SESSION}.0=planted"));
    assert_eq!(session["user"]["name"], "Ada Lovelace", "a planted .0 chunk does not override the cookie");

    let mut flood = String::new();
    for i in 0..20_000 {
        flood.push_str(&format!("{SESSION}.{i}=a; "));
    }
    let (status, session, set) = session_with_cookie(&auth, &flood);
    assert_eq!((status, session), (200, Value::Null));
    assert!(set.len() <= libauth_core::cookies::MAX_CHUNKS, "{} Set-Cookie headers", set.len());

    // Gaps and repeats are no session either.
    for cookie in [format!("{SESSION}.0={good}; {SESSION}.2=x"), format!("{SESSION}.0={good}; {SESSION}.0=x")] {
        let (_, session, _) = session_with_cookie(&auth, &cookie);
        assert_eq!(session, Value::Null, "{cookie}");
    }
}

#[test]
fn provider_text_cannot_forge_a_log_line() {
    let lines: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let l = lines.clone();
    let hooks = HookMap::new().on("logger.error", move |args| {
        l.lock().unwrap().push(args.to_string());
        Ok(Value::Null)
    });
    let provider = json!({
        "type": "oauth", "id": "gh", "clientId": "cid", "clientSecret": "cs",
        "authorization": "https://idp.example/authorize", "token": "https://idp.example/token",
        "userinfo": "https://idp.example/user",
    });
    let auth = auth(json!({ "providers": [provider] }), hooks);
    let mut b = Browser::new(&auth);
    let res = b.get("/auth/callback/gh?error=x&error_description=%0A%5Bauth%5D%5Berror%5D%20FORGED%E2%80%A8%1B%5B31m");
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    let lines = lines.lock().unwrap();
    assert!(!lines.is_empty());
    for line in lines.iter() {
        let parsed: Value = serde_json::from_str(line).unwrap();
        let message = parsed["message"].as_str().unwrap();
        assert!(!message.chars().any(|c| c.is_control() || c == '\u{2028}'), "{message:?}");
        assert!(message.contains("\\n[auth][error] FORGED"), "{message:?}");
    }
}

#[test]
fn only_form_and_json_bodies_are_read() {
    let auth = auth(json!({}), hooks());
    for content_type in [Some("text/plain"), None, Some("multipart/form-data; boundary=x")] {
        let mut b = Browser::new(&auth);
        let csrf = b.csrf();
        let mut req = AuthRequest::post_form(format!("{ORIGIN}/auth/callback/credentials"), &[]);
        req.headers = content_type.map(|ct| vec![("content-type".to_owned(), ct.to_owned())]).unwrap_or_default();
        req.body = Some(format!("csrfToken={csrf}&username=ada&password=secret").into_bytes());
        let res = b.send(req);
        assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=MissingCSRF", "{content_type:?}");
        assert!(!b.has_session_cookie());
    }
}

#[test]
fn an_oversized_body_is_413_on_every_route() {
    let auth = auth(json!({}), hooks());
    let big = format!("csrfToken=x&pad={}", "a".repeat(libauth_core::http::MAX_BODY_BYTES));
    for path in ["/auth/callback/credentials", "/auth/signout", "/auth/session", "/auth/signin/credentials"] {
        let mut req = AuthRequest::post_form(format!("{ORIGIN}{path}"), &[]);
        req.body = Some(big.clone().into_bytes());
        let res = auth.handle(&req);
        assert_eq!(res.status, 413, "{path}");
    }
}

#[test]
fn theme_values_cannot_inject_markup() {
    let err = Auth::with_env(
        config(json!({ "theme": { "buttonText": "red;}</style><script>alert(1)</script><style>" } })),
        Arc::new(hooks()),
        &env(&[]),
    )
    .err()
    .expect("refused");
    assert_eq!(err.option, "theme.buttonText");
}

#[test]
fn built_in_pages_send_security_headers() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    for path in ["/auth/signin", "/auth/signout", "/auth/error?error=AccessDenied", "/auth/verify-request"] {
        let res = b.get(path);
        assert!(res.header("content-type").unwrap().starts_with("text/html"), "{path}");
        let csp = res.header("content-security-policy").unwrap_or_default();
        assert!(csp.contains("frame-ancestors 'none'") && csp.contains("default-src 'none'"), "{path}: {csp}");
        assert!(!csp.contains("script-src"), "no script is allowed");
        assert_eq!(res.header("x-frame-options"), Some("DENY"));
        assert_eq!(res.header("referrer-policy"), Some("no-referrer"));
        assert_eq!(res.header("cache-control"), Some("no-store"));
    }
}
