//! `Auth::get_session_by_cookie` (a URL and one `Cookie` header, no request
//! built) and `Auth::get_session_view_by_scheme` (whether it came over
//! HTTPS and the header) answer exactly what `Auth::get_session` answers for a request
//! with that URL and header: the same session, the same identity, the same
//! error, for valid, tampered, expired, rotated-out, chunked and garbage
//! cookies, secure and plain cookie names, JWT and database sessions.

mod common;

use common::{auth, hooks, Browser, SECRET};
use libauth_core::jwt::JwtCodec;
use libauth_core::time::now_seconds;
use libauth_core::{Auth, AuthError, AuthRequest, HookMap, Session};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const SALT: &str = "authjs.session-token";
const SECURE_SALT: &str = "__Secure-authjs.session-token";
const OTHER_SECRET: &str = "libauth-other-secret-0123456789abcdef";

/// What a read answers, comparable: the session's JSON and identity, or
/// the error's wire form.
fn answer(read: Result<Option<Session>, AuthError>) -> Result<Option<(String, Option<String>)>, String> {
    read.map(|s| s.map(|s| (s.to_json(), s.identity().map(|i| format!("{i:?}"))))).map_err(|e| e.to_wire().to_string())
}

fn full(auth: &Auth, url: &str, cookie: Option<&str>) -> Result<Option<(String, Option<String>)>, String> {
    let mut req = AuthRequest::get(url);
    if let Some(cookie) = cookie {
        req = req.with_header("cookie", cookie);
    }
    answer(auth.get_session(&req))
}

fn lean(auth: &Auth, url: &str, cookie: Option<&str>) -> Result<Option<(String, Option<String>)>, String> {
    answer(auth.get_session_by_cookie(url, cookie))
}

/// The read Node makes: whether the request came over HTTPS, no URL.
fn by_scheme(auth: &Auth, https: bool, cookie: Option<&str>) -> Result<Option<(String, Option<String>)>, String> {
    answer(auth.get_session_view_by_scheme(https, cookie).map(|s| s.map(|s| s.into_session())))
}

fn claims(name: &str) -> Map<String, Value> {
    let Value::Object(map) = json!({ "name": name, "email": format!("{name}@example.com"), "sub": name }) else {
        unreachable!()
    };
    map
}

fn sealed(secret: &str, salt: &str, name: &str, max_age: u64, issued: u64) -> String {
    JwtCodec::new(vec![secret.into()], &[salt]).encode_at(&claims(name), salt, max_age, issued).unwrap()
}

/// Session token values: valid under the engine's secret (plain and
/// secure names), under a secret it no longer has, expired, a large one
/// that must be chunked, and garbage.
fn tokens() -> Vec<(&'static str, String)> {
    let now = now_seconds();
    let big = {
        let mut c = claims("big");
        c.insert("picture".into(), Value::String("p".repeat(6000)));
        JwtCodec::new(vec![SECRET.into()], &[SALT]).encode_at(&c, SALT, 3600, now).unwrap()
    };
    vec![
        (SALT, sealed(SECRET, SALT, "ada", 3600, now)),
        (SALT, sealed(SECRET, SALT, "bob", 3600, now - 60)),
        (SECURE_SALT, sealed(SECRET, SECURE_SALT, "sec", 3600, now)),
        (SALT, sealed(OTHER_SECRET, SALT, "rotated", 3600, now)),
        (SALT, sealed(SECRET, SALT, "expired", 60, now - 10_000)),
        (SALT, big),
        (SALT, "not-a-token".into()),
        (SALT, String::new()),
    ]
}

/// A byte of `token` changed to another base64url character.
fn tampered(token: &str, at: usize) -> String {
    if token.is_empty() {
        return "A".into();
    }
    let mut bytes = token.as_bytes().to_vec();
    let i = at % bytes.len();
    bytes[i] = match bytes[i] {
        b'.' => return format!("{token}A"),
        b'A' => b'B',
        _ => b'A',
    };
    String::from_utf8(bytes).unwrap()
}

/// `name=value`, chunked into `name.0`, `name.1`, … when over 3900 bytes
/// (as the engine writes it), in the order given.
fn cookie_pairs(name: &str, value: &str, chunk: bool) -> Vec<String> {
    if !chunk || value.len() <= 3900 {
        return vec![format!("{name}={value}")];
    }
    value
        .as_bytes()
        .chunks(3900)
        .enumerate()
        .map(|(i, c)| format!("{name}.{i}={}", std::str::from_utf8(c).unwrap()))
        .collect()
}

const URLS: [&str; 6] = [
    "http://localhost:3000/dashboard",
    "https://localhost:3000/dashboard",
    "HTTPS://example.com/a?b=c",
    "http://localhost:3000/auth/session",
    "/relative",
    "ht",
];

/// Extra cookies and header noise around the session cookie.
const NOISE: [&str; 6] = ["", "theme=dark", "a=1; b=\"2\"", ";;; =x; novalue", "authjs.session-token.7=zz", "é=ü"];

fn engine(with_callbacks: bool, cache: bool) -> Auth {
    let hooks: HookMap = if with_callbacks {
        hooks()
            .on("callbacks.jwt", |a| {
                let mut token = a["token"].clone();
                token["role"] = json!("reader");
                Ok(token)
            })
            .on("callbacks.session", |a| {
                let mut session = a["session"].clone();
                session["role"] = a["token"]["role"].clone();
                Ok(session)
            })
    } else {
        hooks()
    };
    auth(json!({ "session": { "cache": cache } }), hooks)
}

#[test]
fn a_signed_in_cookie_reads_the_same_both_ways_and_so_does_none() {
    let auth = engine(false, true);
    let mut browser = Browser::new(&auth);
    browser.sign_in("ada", "secret");
    let header = browser.cookie_header();
    let url = "http://localhost:3000/dashboard";
    let got = lean(&auth, url, Some(&header)).unwrap().expect("signed in");
    assert!(got.0.contains("Ada Lovelace"), "{}", got.0);
    assert!(got.1.is_some(), "the engine's own sign-in carries an identity");
    assert_eq!(Ok(Some(got)), full(&auth, url, Some(&header)));
    assert_eq!(lean(&auth, url, None), Ok(None));
    assert_eq!(lean(&auth, url, Some("")), Ok(None));
    assert_eq!(full(&auth, url, None), Ok(None));
}

/// Database sessions: a live session, a deleted one (signed out), a token
/// the store never had; and a failing store is the same error both ways.
#[test]
fn database_sessions_read_the_same_both_ways() {
    let auth = auth(json!({ "adapter": { "type": "memory" }, "session": { "strategy": "database" } }), hooks());
    let mut browser = Browser::new(&auth);
    browser.sign_in("ada", "secret");
    let header = browser.cookie_header();
    let url = "http://localhost:3000/dashboard";
    let live = lean(&auth, url, Some(&header)).unwrap();
    assert!(live.as_ref().is_some_and(|s| s.0.contains("Ada Lovelace")), "{live:?}");
    assert_eq!(Ok(live), full(&auth, url, Some(&header)));
    let unknown = format!("{SALT}=00000000-0000-4000-8000-000000000000");
    assert_eq!(lean(&auth, url, Some(&unknown)), Ok(None));
    assert_eq!(full(&auth, url, Some(&unknown)), Ok(None));
    let csrf = browser.csrf();
    browser.post("/auth/signout", &[("csrfToken", &csrf)]);
    assert_eq!(lean(&auth, url, Some(&header)), Ok(None), "signed out: the row is gone");
    assert_eq!(full(&auth, url, Some(&header)), Ok(None));

    let failing = auth_with_failing_store();
    let lean_err = lean(&failing, url, Some(&unknown));
    assert!(lean_err.is_err(), "{lean_err:?}");
    assert_eq!(lean_err, full(&failing, url, Some(&unknown)));
}

/// A database-strategy engine whose host adapter fails every call.
fn auth_with_failing_store() -> Auth {
    let mut hooks = hooks();
    for method in libauth_core::store::METHODS {
        hooks = hooks.on(&format!("adapter.{method}"), |_| Err(libauth_core::HostError::new("database down")));
    }
    auth(json!({ "adapter": { "type": "host" }, "session": { "strategy": "database" } }), hooks)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// Any mix of session cookies (valid, rotated-out, expired, chunked,
    /// tampered, garbage), noise, and URLs: the lean read answers what the
    /// full read answers, with and without callbacks and the cache, read
    /// twice (a cache miss, then a hit).
    #[test]
    fn the_lean_read_answers_what_the_full_read_answers(
        picks in prop::collection::vec((0usize..8, any::<bool>(), prop::option::of(0usize..4000)), 0..3),
        noise in prop::collection::vec(0usize..NOISE.len(), 0..3),
        url in 0usize..URLS.len(),
        with_callbacks in any::<bool>(),
        cache in any::<bool>(),
        free in ".{0,40}",
    ) {
        let auth = engine(with_callbacks, cache);
        let tokens = tokens();
        let mut parts: Vec<String> = noise.iter().map(|&i| NOISE[i].to_owned()).collect();
        for (i, chunk, tamper) in picks {
            let (name, value) = &tokens[i];
            let value = match tamper {
                Some(at) => tampered(value, at),
                None => value.clone(),
            };
            parts.extend(cookie_pairs(name, &value, chunk));
        }
        parts.push(free);
        let header = parts.join("; ");
        let https = URLS[url].to_ascii_lowercase().starts_with("https://");
        for _ in 0..2 {
            let want = full(&auth, URLS[url], Some(&header));
            prop_assert_eq!(lean(&auth, URLS[url], Some(&header)), want.clone(), "{}", header);
            prop_assert_eq!(by_scheme(&auth, https, Some(&header)), want, "{}", header);
        }
    }
}
