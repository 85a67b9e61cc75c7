//! The session cache (`session.cache`): a JWT session cookie is decrypted
//! once per engine, and a cached cookie is answered exactly as an engine
//! without the cache answers it: tampered, expired and rotated-out cookies
//! are refused, callbacks run on every read, bounds hold.
//!
//! Decryptions are observed through `Auth::session_cache_stats` (a counter
//! of the tokens session reads decrypted), never through timing.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{auth, config, hooks, SECRET};
use libauth_core::jwt::JwtCodec;
use libauth_core::time::now_seconds;
use libauth_core::{Auth, AuthRequest, HookMap, Identity, Session};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

const SALT: &str = "authjs.session-token";
const SECURE_SALT: &str = "__Secure-authjs.session-token";
const OTHER_SECRET: &str = "libauth-other-secret-0123456789abcdef";
const THIRD_SECRET: &str = "libauth-third-secret-0123456789abcdef";

fn claims(name: &str) -> Map<String, Value> {
    let Value::Object(map) = json!({ "name": name, "email": format!("{name}@example.com"), "sub": name }) else {
        unreachable!()
    };
    map
}

fn token(secret: &str, name: &str, max_age: u64) -> String {
    JwtCodec::new(vec![secret.into()], &[SALT]).encode(&claims(name), SALT, max_age).unwrap()
}

fn request(cookie: &str) -> AuthRequest {
    AuthRequest::get("http://localhost:3000/dashboard").with_header("cookie", format!("{SALT}={cookie}"))
}

fn read(auth: &Auth, cookie: &str) -> Option<Session> {
    auth.get_session(&request(cookie)).expect("a JWT read never fails")
}

/// The session as a binding reads it ([`Auth::get_session_view`]): its
/// JSON text and identity, shared with the cache on a hit without hooks.
fn read_view(auth: &Auth, cookie: &str) -> Option<(String, Option<Identity>)> {
    let view = auth.get_session_view(&request(cookie)).expect("a JWT read never fails")?;
    let by_cookie = auth
        .get_session_view_by_cookie("http://localhost:3000/dashboard", Some(&format!("{SALT}={cookie}")))
        .expect("a JWT read never fails")
        .expect("the same answer by URL and Cookie header");
    assert_eq!(view.json(), by_cookie.json());
    assert_eq!(view.map(), by_cookie.map());
    assert_eq!(serde_json::to_string(view.map()).unwrap(), view.json(), "the map and the text agree");
    Some((view.json().into_owned(), view.identity().cloned()))
}

/// What [`read_view`] must answer: the session the engine builds for this
/// read, serialized.
fn as_view(session: Option<Session>) -> Option<(String, Option<Identity>)> {
    session.map(|s| (s.to_json(), s.identity().cloned()))
}

/// `f`'s two answers, taken again when the clock's second changed between
/// them: a session re-issued by `GET /auth/session` (a jwt callback changed
/// the token) expires `maxAge` from the second it was issued in.
fn same_second<T>(f: impl Fn() -> (T, T)) -> (T, T) {
    loop {
        let before = now_seconds();
        let answers = f();
        if now_seconds() == before {
            return answers;
        }
    }
}

/// `GET /auth/session`'s status and body (the route the browser calls).
fn route(auth: &Auth, cookie: &str) -> (u16, String) {
    let req = AuthRequest::get("http://localhost:3000/auth/session").with_header("cookie", format!("{SALT}={cookie}"));
    let res = auth.handle(&req);
    (res.status, res.body_str().to_owned())
}

fn decryptions(auth: &Auth) -> u64 {
    auth.session_cache_stats().expect("the cache is on").decryptions
}

fn engine(secrets: &[&str], cache: Value, hooks: HookMap) -> Auth {
    auth(json!({ "secret": secrets, "session": { "cache": cache } }), hooks)
}

/// A byte of `token` changed to another base64url character.
fn tampered(token: &str, at: usize) -> String {
    let mut bytes = token.as_bytes().to_vec();
    let i = at % bytes.len();
    bytes[i] = match bytes[i] {
        b'.' => return format!("{token}A"),
        b'A' => b'B',
        _ => b'A',
    };
    String::from_utf8(bytes).unwrap()
}

#[test]
fn a_repeated_cookie_is_decrypted_once_and_answered_the_same() {
    let auth = auth(json!({}), hooks());
    let cookie = token(SECRET, "ada", 3600);
    let first = read(&auth, &cookie).expect("a valid cookie is a session");
    assert_eq!(first.user().unwrap()["name"], "ada");
    assert_eq!(first.identity(), None, "a token without the engine's identity claim");
    assert_eq!(decryptions(&auth), 1);
    for _ in 0..5 {
        assert_eq!(read(&auth, &cookie).as_ref(), Some(&first));
        assert_eq!(route(&auth, &cookie), (200, first.to_json()));
    }
    assert_eq!(decryptions(&auth), 1, "every later read was a hit");
    let stats = auth.session_cache_stats().unwrap();
    assert_eq!(stats.entries, 1);
    assert_eq!((stats.max_entries, stats.max_bytes), (1024, 4 << 20), "on by default, with a small bound");
}

#[test]
fn a_signed_in_session_keeps_its_identity_on_a_hit() {
    let auth = auth(json!({}), hooks());
    let mut b = common::Browser::new(&auth);
    b.sign_in("ada", "secret");
    let cookie = b.jar.get(SALT).expect("signed in").clone();
    let first = read(&auth, &cookie).unwrap();
    let identity = first.identity().expect("the engine's own token carries the identity claim").clone();
    assert_eq!(identity.subject, "credentials:42");
    let before = decryptions(&auth);
    for _ in 0..3 {
        assert_eq!(read(&auth, &cookie).unwrap().identity(), Some(&identity));
        assert_eq!(read_view(&auth, &cookie), Some((first.to_json(), Some(identity.clone()))));
    }
    assert_eq!(decryptions(&auth), before);
}

#[test]
fn callbacks_run_on_every_read_of_a_cached_cookie() {
    let calls = Arc::new(Mutex::new(Vec::new()));
    let log = calls.clone();
    let log2 = calls.clone();
    let hooks = hooks()
        .on("callbacks.jwt", move |a| {
            log.lock().unwrap().push("jwt");
            let mut token = a["token"].clone();
            token["seen"] = json!(token["seen"].as_u64().unwrap_or(0) + 1);
            Ok(token)
        })
        .on("callbacks.session", move |a| {
            log2.lock().unwrap().push("session");
            let mut session = a["session"].clone();
            session["seen"] = a["token"]["seen"].clone();
            Ok(session)
        });
    let auth = engine(&[SECRET], Value::Bool(true), hooks);
    let cookie = token(SECRET, "ada", 3600);
    for _ in 0..4 {
        let session = read(&auth, &cookie).unwrap();
        // The callbacks see the cookie's own claims each time, not what the
        // previous read's callbacks made of them.
        assert_eq!(session.0["seen"], 1);
    }
    assert_eq!(calls.lock().unwrap().len(), 8, "jwt and session, on each of the 4 reads");
    assert_eq!(decryptions(&auth), 1);
}

#[test]
fn a_chunked_cookie_is_cached_by_its_joined_value() {
    let auth = auth(json!({}), hooks());
    let cookie = token(SECRET, &"n".repeat(5000), 3600);
    let (head, tail) = cookie.split_at(3000);
    let req = |tail: &str| {
        AuthRequest::get("http://localhost:3000/dashboard")
            .with_header("cookie", format!("{SALT}.0={head}; {SALT}.1={tail}"))
    };
    for _ in 0..3 {
        assert!(auth.get_session(&req(tail)).unwrap().is_some());
    }
    assert_eq!(decryptions(&auth), 1);
    // One chunk changed: another value, never served from the cache.
    assert_eq!(auth.get_session(&req(&tampered(tail, 7))).unwrap(), None);
    assert_eq!(auth.get_session(&req(&tail[1..])).unwrap(), None);
    assert_eq!(auth.session_cache_stats().unwrap().entries, 1);
}

/// Every single-byte change of a cached cookie (and truncations, and the
/// cookie under the other session cookie name, whose key differs) is
/// refused, and none enters the cache.
#[test]
fn a_tampered_cookie_is_never_served_from_the_cache() {
    let auth = auth(json!({}), hooks());
    let cookie = token(SECRET, "ada", 3600);
    assert!(read(&auth, &cookie).is_some());
    for at in 0..cookie.len() {
        let forged = tampered(&cookie, at);
        assert_eq!(read(&auth, &forged), None, "byte {at} changed");
    }
    for cut in [1, 2, 16, 43] {
        assert_eq!(read(&auth, &cookie[..cookie.len() - cut]), None);
        assert_eq!(read(&auth, &cookie[cut..]), None);
    }
    assert_eq!(read(&auth, &format!("{cookie} ")).is_some(), read(&auth, &cookie).is_some());
    // The same value under the `__Secure-` name is another key derivation
    // salt: refused, though the plain name's entry is cached.
    let secure =
        AuthRequest::get("https://localhost:3000/dashboard").with_header("cookie", format!("{SECURE_SALT}={cookie}"));
    assert_eq!(auth.get_session(&secure).unwrap(), None);
    let stats = auth.session_cache_stats().unwrap();
    assert_eq!(stats.entries, 1, "only the valid cookie is held");
    assert!(read(&auth, &cookie).is_some());
}

/// A cookie cached while valid is refused once `exp` (plus the clock
/// tolerance) has passed, on a hit, and leaves the cache.
#[test]
fn an_expired_cookie_is_refused_on_a_hit() {
    let auth = auth(json!({}), hooks());
    let codec = JwtCodec::new(vec![SECRET.into()], &[SALT]);
    // exp = now - 13: valid for up to two more seconds (15 s tolerance).
    let issued = now_seconds() - 14;
    let cookie = codec.encode_at(&claims("ada"), SALT, 1, issued).unwrap();
    let expires = issued + 1;
    assert!(read(&auth, &cookie).is_some(), "valid at first sight");
    assert!(read_view(&auth, &cookie).is_some(), "a hit: the entry now holds its session, built once");
    assert_eq!(auth.session_cache_stats().unwrap().entries, 1);
    while now_seconds() < expires + 15 {
        std::thread::sleep(Duration::from_millis(100));
    }
    let before = decryptions(&auth);
    assert_eq!(read(&auth, &cookie), None, "expired: refused although cached");
    assert_eq!(decryptions(&auth), before, "refused on the hit, not by decrypting again");
    assert_eq!(auth.session_cache_stats().unwrap().entries, 0, "the expired entry is gone");
    assert_eq!(route(&auth, &cookie), (200, "null".into()));
    // A cookie expired at first sight never enters the cache.
    let old = codec.encode_at(&claims("bob"), SALT, 60, now_seconds() - 10_000).unwrap();
    assert_eq!(read(&auth, &old), None);
    assert_eq!(auth.session_cache_stats().unwrap().entries, 0);
}

/// Secrets change only by building a new engine: its cache starts empty, a
/// cookie of a secret it no longer has is refused (decrypted, and failed)
/// while the old engine still holds it, and a kept old secret still reads.
#[test]
fn a_rotated_out_secret_is_refused_by_the_new_engine() {
    let old = engine(&[SECRET], Value::Bool(true), hooks());
    let cookie = token(SECRET, "ada", 3600);
    assert!(read(&old, &cookie).is_some());
    assert!(read(&old, &cookie).is_some());
    assert_eq!(decryptions(&old), 1);

    let rotated = engine(&[OTHER_SECRET], Value::Bool(true), hooks());
    assert_eq!(rotated.session_cache_stats().unwrap().entries, 0, "a new engine starts empty");
    for _ in 0..3 {
        assert_eq!(read(&rotated, &cookie), None);
    }
    assert_eq!(decryptions(&rotated), 3, "every read tried the new keys: nothing was served from a cache");
    assert_eq!(rotated.session_cache_stats().unwrap().entries, 0);
    assert!(read(&old, &cookie).is_some(), "the old engine's cache is its own");

    let keeping = engine(&[OTHER_SECRET, SECRET], Value::Bool(true), hooks());
    assert!(read(&keeping, &cookie).is_some(), "the old secret is still listed");
    let fresh = token(OTHER_SECRET, "bob", 3600);
    assert_eq!(read(&old, &fresh), None);
    assert!(read(&keeping, &fresh).is_some());
}

/// Payloads the engine never writes but a valid key could seal (older
/// Auth.js, another tool): repeated claims, odd types, the identity claim,
/// not an object. Read three times (miss, then hits that parse the cached
/// claims), each answers as without the cache, with and without callbacks.
#[test]
fn odd_payloads_answer_as_without_the_cache() {
    let exp = now_seconds() + 600;
    let payloads = [
        format!(r#"{{"name":"a","name":"b","exp":{exp}}}"#),
        format!(r#"{{"name":null,"email":7,"picture":[1],"exp":{exp}}}"#),
        format!(r#"{{"name":"a","exp":{exp},"iat":null}}"#),
        format!(r#"{{"name":"a","exp":"{exp}"}}"#),
        format!(r#"{{"name":"a","exp":{exp},"nbf":{}}}"#, exp + 10_000),
        format!(r#"{{"name":"a","exp":{exp},"libauth":{{"sub":"credentials:1","email":"a@x","emailVerified":true}}}}"#),
        format!(r#"{{"name":"a","exp":{exp},"libauth":"forged"}}"#),
        format!(r#" {{"name":"a","exp":{exp},"deep":{}1{}}}"#, "[".repeat(200), "]".repeat(200)),
        r#"["name","a"]"#.to_owned(),
        r#""text""#.to_owned(),
        "{not json".to_owned(),
    ];
    for with_callbacks in [false, true] {
        let hooks = || if with_callbacks { hooked() } else { hooks() };
        let (cached, uncached) =
            (engine(&[SECRET], Value::Bool(true), hooks()), engine(&[SECRET], Value::Bool(false), hooks()));
        for payload in &payloads {
            let cookie = common::gcm_token(SALT, payload.as_bytes(), 16);
            // A token without a usable `exp` expires `maxAge` from the
            // second it is read in, so each pair is taken in one second.
            for _ in 0..3 {
                let (got, want) = same_second(|| (read(&cached, &cookie), read(&uncached, &cookie)));
                assert_eq!(got, want, "{payload}");
                let (got, want) = same_second(|| (read_view(&cached, &cookie), as_view(read(&uncached, &cookie))));
                assert_eq!(got, want, "{payload}");
                let (got, want) = same_second(|| (route(&cached, &cookie), route(&uncached, &cookie)));
                assert_eq!(got, want, "{payload}");
            }
        }
        assert!(read(&cached, &common::gcm_token(SALT, payloads[0].as_bytes(), 16)).is_some());
    }
}

#[test]
fn bounds_hold_under_many_distinct_cookies() {
    // (maxEntries, maxBytes): entries bind, bytes bind, both small.
    for (max_entries, max_bytes) in [(40u64, 1u64 << 30), (100_000, 30_000), (64, 64 * 700)] {
        let auth = engine(&[SECRET], json!({ "maxEntries": max_entries, "maxBytes": max_bytes }), hooks());
        let cookies: Vec<String> = (0..600).map(|i| token(SECRET, &format!("user{i}"), 3600)).collect();
        for (i, cookie) in cookies.iter().enumerate() {
            assert_eq!(read(&auth, cookie).unwrap().user().unwrap()["name"], format!("user{i}"));
            // A few cookies come back often, as browsers do.
            assert!(read(&auth, &cookies[i % 7]).is_some());
            let stats = auth.session_cache_stats().unwrap();
            assert!(stats.entries as u64 <= max_entries, "{stats:?}");
            assert!(stats.bytes <= max_bytes, "{stats:?}");
        }
        let stats = auth.session_cache_stats().unwrap();
        assert!(stats.entries > 0, "{stats:?}");
        assert!(stats.decryptions < 1200, "some reads were hits: {stats:?}");
        assert!(stats.decryptions >= 600, "each distinct cookie was decrypted: {stats:?}");
    }
}

#[test]
fn the_cache_option_is_validated_and_can_be_turned_off() {
    let off = engine(&[SECRET], Value::Bool(false), hooks());
    assert_eq!(off.session_cache_stats(), None);
    let cookie = token(SECRET, "ada", 3600);
    assert!(read(&off, &cookie).is_some());
    // The smallest caches still cache.
    for max_entries in [1, 2, 3] {
        let tiny = engine(&[SECRET], json!({ "maxEntries": max_entries, "maxBytes": 4096 }), hooks());
        for _ in 0..3 {
            assert!(read(&tiny, &cookie).is_some());
        }
        assert_eq!(decryptions(&tiny), 1, "maxEntries {max_entries}");
        assert_eq!(tiny.session_cache_stats().unwrap().entries, 1);
    }
    let on = engine(&[SECRET], json!({ "maxEntries": 10 }), hooks());
    assert_eq!(on.session_cache_stats().unwrap().max_entries, 10);
    assert_eq!(on.session_cache_stats().unwrap().max_bytes, 4 << 20);

    for (cache, option) in [
        (json!({ "maxEntries": 0 }), "session.cache.maxEntries"),
        (json!({ "maxEntries": -1 }), "session.cache.maxEntries"),
        (json!({ "maxEntries": 1.5 }), "session.cache.maxEntries"),
        (json!({ "maxBytes": "1MB" }), "session.cache.maxBytes"),
        (json!({ "maxBytes": 0 }), "session.cache.maxBytes"),
        (json!({ "maxBytes": 1u64 << 40 }), "session.cache.maxBytes"),
        (json!({ "maxentries": 5 }), "session.cache.maxentries"),
        (json!("yes"), "session.cache"),
        (json!(3), "session.cache"),
    ] {
        let c = config(json!({ "session": { "cache": cache } }));
        let err = Auth::with_env(c, Arc::new(hooks()), &std::collections::HashMap::new())
            .err()
            .unwrap_or_else(|| panic!("{cache} accepted"));
        assert_eq!(err.option, option, "{cache}");
    }
}

/// No cache where the engine does not decrypt its own tokens: the
/// database strategy reads the store on every request (a revoked session
/// is gone at once), a custom `jwt.decode` hook decides for itself.
#[test]
fn no_cache_for_database_sessions_or_a_custom_decoder() {
    let database = auth(json!({ "adapter": { "type": "memory" } }), hooks());
    assert_eq!(database.session_cache_stats(), None);
    let calls = Arc::new(Mutex::new(0));
    let c = calls.clone();
    let decoding = auth(
        json!({}),
        hooks().on("jwt.decode", move |_| {
            *c.lock().unwrap() += 1;
            Ok(json!({ "name": "hook", "exp": now_seconds() + 60 }))
        }),
    );
    assert_eq!(decoding.session_cache_stats(), None);
    for _ in 0..3 {
        assert_eq!(read(&decoding, "anything").unwrap().user().unwrap()["name"], "hook");
    }
    assert_eq!(*calls.lock().unwrap(), 3, "the host's decoder runs on every read");
}

#[test]
fn threads_share_one_cache_safely() {
    let auth = Arc::new(engine(&[SECRET], json!({ "maxEntries": 64, "maxBytes": 1 << 20 }), hooks()));
    let cookies: Arc<Vec<(String, Option<String>)>> = Arc::new(
        (0..200)
            .map(|i| {
                let cookie = token(SECRET, &format!("user{i}"), 3600);
                match i % 4 {
                    0 => (tampered(&cookie, i * 13), None),
                    _ => (cookie, Some(format!("user{i}"))),
                }
            })
            .collect(),
    );
    let threads: Vec<_> = (0..8)
        .map(|t| {
            let (auth, cookies) = (auth.clone(), cookies.clone());
            std::thread::spawn(move || {
                for n in 0..3000usize {
                    // Mostly a hot few, sometimes any: hits, misses, evictions.
                    let i = if n % 3 == 0 { (n * 31 + t * 7) % cookies.len() } else { (n + t) % 12 };
                    let (cookie, name) = &cookies[i];
                    let got = read(&auth, cookie).map(|s| s.user().unwrap()["name"].as_str().unwrap().to_owned());
                    assert_eq!(&got, name, "cookie {i}");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("no thread panicked");
    }
    let stats = auth.session_cache_stats().unwrap();
    assert!(stats.entries <= 64, "{stats:?}");
    assert!(stats.decryptions < 8 * 3000, "hits happened: {stats:?}");
}

/// One step of the property test.
#[derive(Debug, Clone)]
enum Step {
    /// Read cookie `i` of the pool.
    Read(usize),
    /// Read cookie `i` with one byte changed.
    Tampered(usize, usize),
    /// Build the engines again with the secrets of rotation `r`.
    Rotate(usize),
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (0..POOL).prop_map(Step::Read),
        2 => (0..POOL, 0..2000usize).prop_map(|(i, at)| Step::Tampered(i, at)),
        1 => (0..ROTATIONS.len()).prop_map(Step::Rotate),
    ]
}

const POOL: usize = 9;
/// The secret lists an application moves through: a new secret first with
/// the old kept, then the old dropped, then back.
const ROTATIONS: [&[&str]; 4] = [&[SECRET], &[OTHER_SECRET, SECRET], &[OTHER_SECRET], &[THIRD_SECRET, OTHER_SECRET]];

/// The cookie pool: valid under each of the three secrets, expired (at
/// first sight), and one with a future `iat`.
fn pool() -> Vec<String> {
    let now = now_seconds();
    let at = |secret: &str, name: &str, max_age: u64, issued: u64| {
        JwtCodec::new(vec![secret.into()], &[SALT]).encode_at(&claims(name), SALT, max_age, issued).unwrap()
    };
    vec![
        at(SECRET, "a", 3600, now),
        at(SECRET, "b", 3600, now - 60),
        at(OTHER_SECRET, "c", 3600, now),
        at(THIRD_SECRET, "d", 3600, now),
        at(SECRET, "expired", 60, now - 10_000),
        at(OTHER_SECRET, "expired2", 60, now - 100),
        at(SECRET, "future", 3600, now + 3600),
        at(OTHER_SECRET, "e", 86_400, now),
        at(THIRD_SECRET, "expired3", 1, now - 1000),
    ]
}

fn hooked() -> HookMap {
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
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Interleaved reads of valid, tampered and expired cookies, with
    /// secret rotations between them: the engine with the cache answers
    /// exactly what an engine without it answers, on `get_session` and on
    /// `GET /auth/session`, with and without callbacks, with a cache so
    /// small it evicts.
    #[test]
    fn the_cache_answers_what_an_uncached_engine_answers(
        steps in prop::collection::vec(step(), 1..40),
        with_callbacks in any::<bool>(),
        max_entries in 1u64..6,
    ) {
        let cookies = pool();
        let build = |secrets: &[&str]| {
            let make = |cache: Value| engine(secrets, cache, if with_callbacks { hooked() } else { hooks() });
            (make(json!({ "maxEntries": max_entries })), make(Value::Bool(false)))
        };
        let (mut cached, mut uncached) = build(ROTATIONS[0]);
        for step in steps {
            let cookie = match step {
                Step::Rotate(r) => {
                    (cached, uncached) = build(ROTATIONS[r]);
                    continue;
                }
                Step::Read(i) => cookies[i].clone(),
                Step::Tampered(i, at) => tampered(&cookies[i], at),
            };
            let (got, want) = (read(&cached, &cookie), read(&uncached, &cookie));
            prop_assert_eq!(&got, &want, "{:?}", step);
            prop_assert_eq!(read_view(&cached, &cookie), as_view(want), "{:?}", step);
            let (cached_route, uncached_route) = same_second(|| (route(&cached, &cookie), route(&uncached, &cookie)));
            prop_assert_eq!(cached_route, uncached_route, "{:?}", step);
            let stats = cached.session_cache_stats().unwrap();
            prop_assert!(stats.entries as u64 <= max_entries);
        }
    }
}
