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

/// The engine reads a session that no hook sees through a fast path (only
/// the claims it shows are parsed); with identity jwt and session
/// callbacks, the same read takes the full path. Both engines share the
/// secret, so they read the same cookies.
fn plain_and_hooked() -> &'static (Auth, Auth) {
    static PAIR: OnceLock<(Auth, Auth)> = OnceLock::new();
    PAIR.get_or_init(|| {
        let identity = hooks()
            .on("callbacks.jwt", |a| Ok(a["token"].clone()))
            .on("callbacks.session", |a| Ok(a["session"].clone()));
        (auth(json!({}), hooks()), auth(json!({}), identity))
    })
}

/// A time claim near a boundary the engine checks (expired, in the future,
/// due for renewal) but never within a few seconds of one, so that both
/// reads see the same outcome; or a value that is no time at all.
fn time_claim(now: u64) -> impl Strategy<Value = Option<Value>> {
    let n = now as i64;
    prop_oneof![
        Just(None),
        prop::sample::select(vec![-200_000i64, -3_600, -60, 5, 60, 3_600, 3_000_000])
            .prop_map(move |d| Some(json!(n + d))),
        prop::sample::select(vec![-200_000.5f64, 60.25, 3_600.75]).prop_map(move |d| Some(json!(n as f64 + d))),
        prop::sample::select(vec![
            json!(null),
            json!("soon"),
            json!(1e30),
            json!(-1),
            json!([1]),
            json!({}),
            json!(true)
        ])
        .prop_map(Some),
    ]
}

/// A claim's value as a token may hold it.
fn claim_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<String>().prop_map(Value::from),
        Just(Value::Null),
        any::<i64>().prop_map(Value::from),
        any::<bool>().prop_map(Value::from),
        "[a-z]{0,6}".prop_map(|s| json!([s, { "k": 1 }])),
        "[a-z]{0,6}".prop_map(|s| json!({ "nested": s })),
        // Nesting around serde_json's limit of 128 (the full path refuses
        // a token that reaches it), through arrays, objects or both.
        (100usize..140, 0usize..3).prop_map(|(depth, shape)| nested(depth, shape)),
    ]
}

/// A value nested `depth` containers deep (`shape`: arrays, objects, mixed).
fn nested(depth: usize, shape: usize) -> Value {
    let mut value = json!("[{\"");
    for level in 0..depth {
        value = match (shape, level % 2) {
            (0, _) | (2, 0) => Value::Array(vec![value]),
            _ => json!({ "k": value }),
        };
    }
    value
}

/// A token payload as JSON text: the shown and time claims (each possibly
/// absent or repeated), other claims, in any order; sometimes not an object
/// or not UTF-8 at all.
fn payload(now: u64) -> impl Strategy<Value = Vec<u8>> {
    let key = prop_oneof![
        prop::sample::select(vec!["name", "email", "picture", "sub", "jti", "image", "n\\u0061me"])
            .prop_map(str::to_owned),
        "[a-z]{1,5}",
    ];
    let object = (
        proptest::collection::vec((key, claim_value()), 0..6),
        time_claim(now),
        time_claim(now),
        time_claim(now),
        any::<bool>(),
    )
        .prop_map(move |(pairs, exp, iat, nbf, repeat_exp)| {
            let mut members: Vec<String> = pairs.iter().map(|(k, v)| format!("\"{k}\":{v}")).collect();
            for (name, claim) in [("exp", &exp), ("iat", &iat), ("nbf", &nbf)] {
                if let Some(v) = claim {
                    members.push(format!("\"{name}\":{v}"));
                }
            }
            if repeat_exp {
                members.push(format!("\"exp\":{}", now + 120));
            }
            format!(" {{{}}}", members.join(",")).into_bytes()
        });
    prop_oneof![
        8 => object,
        1 => Just(b"[\"Ada\",\"ada@example.com\",null,9999999999]".to_vec()),
        1 => proptest::collection::vec(any::<u8>(), 0..40),
    ]
}

proptest! {
    #![proptest_config(cases(2000))]

    /// The fast path answers exactly what the full path answers: the same
    /// session (or none) from `get_session`, the same body from
    /// `GET /auth/session`, and the same cookies set or cleared.
    #[test]
    fn a_plain_session_read_answers_as_the_full_path(payload in payload(libauth_core::time::now_seconds())) {
        let (plain, hooked) = plain_and_hooked();
        let cookie = format!("{SESSION}={}", gcm_token(SESSION, &payload, 16));
        let req = AuthRequest::get(format!("{ORIGIN}/auth/session")).with_header("cookie", cookie);
        let text = String::from_utf8_lossy(&payload).into_owned();
        prop_assert_eq!(plain.get_session(&req).unwrap(), hooked.get_session(&req).unwrap(), "{}", text);

        let (a, b) = (plain.handle(&req), hooked.handle(&req));
        prop_assert_eq!(a.status, b.status);
        let cookies = |res: &AuthResponse| -> Vec<(String, bool)> {
            res.set_cookies()
                .map(|c| (c.split('=').next().unwrap_or_default().to_owned(), c.contains("Max-Age=0")))
                .collect()
        };
        prop_assert_eq!(cookies(&a), cookies(&b), "{}", text);
        let (mut body_a, mut body_b) = (a.json().unwrap_or(Value::Null), b.json().unwrap_or(Value::Null));
        if a.set_cookies().next().is_some_and(|c| !c.contains("Max-Age=0")) {
            // Renewed: `expires` is now + maxAge, read at each call's own
            // second; everything else must agree.
            for body in [&mut body_a, &mut body_b] {
                body.as_object_mut().map(|m| m.remove("expires"));
            }
        }
        prop_assert_eq!(body_a, body_b, "{}", text);
    }
}
