//! Class-level properties of everything a client controls: cookies (and
//! chunk reassembly), session tokens, request bodies, redirect targets and
//! time claims. For any input: no panic, no 5xx, and nothing accepted that
//! the engine did not issue.
//!
//! The normal run tries a few thousand cases per property; a longer run by
//! hand: `PROPTEST_CASES=200000 cargo test --release -p libauth-core --test properties`.
mod common;

use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine as _;
use common::*;
use libauth_core::jwt::JwtCodec;
use libauth_core::{Auth, AuthRequest, AuthResponse};
use proptest::prelude::*;
use serde_json::{json, Value};
use std::sync::OnceLock;

const SESSION: &str = "authjs.session-token";

fn engine() -> &'static Auth {
    static AUTH: OnceLock<Auth> = OnceLock::new();
    AUTH.get_or_init(|| auth(json!({}), hooks()))
}

/// A real session cookie the engine issued, to mutate.
fn issued_token() -> &'static str {
    static TOKEN: OnceLock<String> = OnceLock::new();
    TOKEN.get_or_init(|| {
        let mut b = Browser::new(engine());
        b.sign_in("ada", "secret");
        b.jar.get(SESSION).expect("signed in").clone()
    })
}

fn cases(default: u32) -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    ProptestConfig { cases, failure_persistence: None, ..ProptestConfig::default() }
}

/// The invariants of any answer: no 5xx and no control character in a
/// header.
fn assert_sane(res: &AuthResponse) {
    assert!(res.status < 500, "status {}", res.status);
    for (name, value) in &res.headers {
        assert!(!value.chars().any(|c| c.is_control()), "{name}: {value:?}");
    }
}

/// ... and no session cookie handed out (only deletions).
fn assert_no_session_issued(res: &AuthResponse) {
    assert_sane(res);
    for value in res.set_cookies() {
        assert!(!value.starts_with(SESSION) || value.contains("Max-Age=0"), "a session cookie was issued: {value}");
    }
}

fn session_get(cookie: &str) -> AuthResponse {
    let req = AuthRequest::get(format!("{ORIGIN}/auth/session")).with_header("cookie", cookie);
    let res = engine().handle(&req);
    assert_eq!(engine().get_session(&req).expect("never an error on the JWT strategy"), None);
    res
}

/// Cookie-ish text: names near the session cookie's, chunk suffixes,
/// separators, quotes, percent signs and arbitrary Unicode.
fn cookie_header() -> impl Strategy<Value = String> {
    let name = prop_oneof![
        Just(SESSION.to_owned()),
        (0u32..40).prop_map(|i| format!("{SESSION}.{i}")),
        Just(format!("{SESSION}.-1")),
        Just(format!("{SESSION}.99999999999999999999")),
        "[a-z.\\-]{0,12}",
    ];
    let value = prop_oneof!["[A-Za-z0-9_\\-.%\"=;, ]{0,200}", any::<String>(), Just(String::new())];
    proptest::collection::vec((name, value), 0..12)
        .prop_map(|pairs| pairs.into_iter().map(|(n, v)| format!("{n}={v}")).collect::<Vec<_>>().join("; "))
}

proptest! {
    #![proptest_config(cases(3000))]

    #[test]
    fn any_cookie_header_is_no_session(header in cookie_header()) {
        let res = session_get(&header);
        assert_no_session_issued(&res);
        prop_assert_eq!(res.json(), Some(Value::Null));
    }

    #[test]
    fn any_five_part_token_is_no_session(
        parts in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..80), 5),
        header in prop_oneof![
            Just(r#"{"alg":"dir","enc":"A256CBC-HS512"}"#.to_owned()),
            Just(r#"{"alg":"dir","enc":"A256GCM"}"#.to_owned()),
            any::<String>(),
        ],
    ) {
        let token = format!(
            "{}.{}.{}.{}.{}",
            B64.encode(header), B64.encode(&parts[1]), B64.encode(&parts[2]), B64.encode(&parts[3]), B64.encode(&parts[4])
        );
        let codec = JwtCodec::new(vec![SECRET.to_owned()], &[SESSION]);
        prop_assert!(codec.decode(&token, SESSION).is_err());
        let res = session_get(&format!("{SESSION}={token}"));
        assert_no_session_issued(&res);
    }

    /// Flipping any bit of any part of a real token (other than to an
    /// equivalent base64 spelling) makes it no session.
    #[test]
    fn a_tampered_issued_token_is_no_session(position in any::<prop::sample::Index>(), bit in 0u8..6) {
        let token = issued_token();
        let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut bytes = token.as_bytes().to_vec();
        let i = position.index(bytes.len());
        prop_assume!(bytes[i] != b'.');
        let old = alphabet.iter().position(|c| *c == bytes[i]).unwrap();
        bytes[i] = alphabet[old ^ (1 << bit)];
        let tampered = String::from_utf8(bytes).unwrap();
        // Strict base64 (no stray trailing bits) means every change alters
        // the bytes, and the MAC (or the header check) refuses it.
        let codec = JwtCodec::new(vec![SECRET.to_owned()], &[SESSION]);
        prop_assert!(codec.decode(&tampered, SESSION).is_err(), "{}", tampered);
        assert_no_session_issued(&session_get(&format!("{SESSION}={tampered}")));
    }

    #[test]
    fn any_body_on_any_post_route_is_sane(
        path in prop_oneof![
            Just("/auth/callback/credentials"), Just("/auth/signout"), Just("/auth/session"),
            Just("/auth/signin/credentials"), Just("/auth/signin"), Just("/auth/callback/nope"), Just("/auth/csrf"),
        ],
        content_type in prop_oneof![
            Just(Some("application/x-www-form-urlencoded")), Just(Some("application/json")),
            Just(Some("text/plain")), Just(None), any::<String>().prop_map(|_| Some("multipart/form-data")),
        ],
        body in prop_oneof![
            proptest::collection::vec(any::<u8>(), 0..300),
            "[a-zA-Z0-9=&%+{}\":,\\[\\]]{0,300}".prop_map(String::into_bytes),
        ],
    ) {
        let mut req = AuthRequest::post_form(format!("{ORIGIN}{path}"), &[]);
        req.headers = content_type.map(|ct| vec![("content-type".to_owned(), ct.to_owned())]).unwrap_or_default();
        req.body = Some(body);
        let res = engine().handle(&req);
        assert_no_session_issued(&res);
    }

    /// Whatever callbackUrl a client sends, Location is the site's own
    /// origin, in ASCII, with no control character.
    #[test]
    fn any_callback_url_redirects_only_to_our_origin(url in prop_oneof![
        any::<String>(),
        "(https?|javascript|ftp|data):[/\\\\]{0,3}[a-z.:@\\\\%0-9]{0,30}".prop_map(|s| s),
        any::<String>().prop_map(|s| format!("http://localhost:3000/{s}")),
        any::<String>().prop_map(|s| format!("/{s}")),
        any::<String>().prop_map(|s| format!("http://localhost:3000{s}")),
    ]) {
        let mut b = Browser::new(engine());
        let csrf = b.csrf();
        let res = b.post("/auth/signout", &[("csrfToken", &csrf), ("callbackUrl", &url)]);
        assert_sane(&res);
        let location = res.header("location").expect("a redirect");
        prop_assert!(location.is_ascii(), "{location:?}");
        let parsed = url::Url::parse(location).expect("an absolute URL");
        prop_assert_eq!(parsed.origin().ascii_serialization(), ORIGIN);
        prop_assert_eq!(libauth_core::redirect::default_redirect(&url, ORIGIN).starts_with(ORIGIN), true);
    }

    /// Any time claim a host decoder returns: no panic, no 5xx, and a
    /// session only for a sane, unexpired one.
    #[test]
    fn any_time_claims_are_handled(
        exp in prop_oneof![any::<f64>().prop_map(Value::from), any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from), Just(Value::Null), any::<String>().prop_map(Value::from)],
        iat in prop_oneof![any::<f64>().prop_map(Value::from), any::<i64>().prop_map(Value::from), Just(Value::Null)],
    ) {
        let claims = json!({ "sub": "1", "name": "x", "exp": exp, "iat": iat });
        let now = libauth_core::time::now_seconds();
        let valid = libauth_core::jwt::check_time_claims(claims.as_object().unwrap(), false, now).is_ok();
        let c = claims.clone();
        let auth = auth(json!({}), hooks().on("jwt.decode", move |_| Ok(c.clone())));
        let req = AuthRequest::get(format!("{ORIGIN}/auth/session")).with_header("cookie", format!("{SESSION}=x"));
        let res = auth.handle(&req);
        assert_sane(&res);
        let session = auth.get_session(&req).unwrap();
        prop_assert_eq!(session.is_some(), valid, "{}", claims);
    }
}
