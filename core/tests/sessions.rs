//! The JWT session: Auth.js compatibility, tampering, expiry, rotation,
//! chunking, renewal, and `get_session`.

mod common;

use common::*;
use libauth_core::jwt::JwtCodec;
use libauth_core::time::now_seconds;
use libauth_core::AuthRequest;
use serde_json::{json, Map, Value};

const SALT: &str = "authjs.session-token";

fn claims(v: Value) -> Map<String, Value> {
    v.as_object().unwrap().clone()
}

fn with_cookie(b: &mut Browser, token: &str) {
    b.jar.insert(SALT.into(), token.into());
}

#[test]
fn authjs_issued_cookies_decode_here() {
    let fixture: Value =
        serde_json::from_str(include_str!("../../tests/fixtures/authjs-session-vectors.json")).unwrap();
    let vectors = fixture["vectors"].as_array().unwrap();
    assert!(vectors.len() >= 6);
    let as_list = |v: &Value| -> Vec<String> {
        match v {
            Value::Array(list) => list.iter().map(|s| s.as_str().unwrap().to_owned()).collect(),
            Value::String(s) => vec![s.clone()],
            _ => panic!("bad secret in vector: {v}"),
        }
    };
    for v in vectors {
        let salt = v["salt"].as_str().unwrap();
        let token = v["token"].as_str().unwrap();
        // Each `decodeWith` entry is a secret (list) Auth.js accepts; each
        // `rejectWith` entry one it refuses. Ours must agree on all.
        let mut accept = vec![as_list(&v["secret"])];
        accept.extend(v["decodeWith"].as_array().into_iter().flatten().map(as_list));
        for secrets in accept {
            let codec = JwtCodec::new(secrets.clone(), &[salt]);
            let decoded =
                codec.decode(token, salt).unwrap_or_else(|e| panic!("{} with {secrets:?}: {e}", v["description"]));
            assert_eq!(Value::Object(decoded), v["decoded"], "{}", v["description"]);
        }
        for secrets in v["rejectWith"].as_array().into_iter().flatten().map(as_list) {
            assert!(
                JwtCodec::new(secrets.clone(), &[salt]).decode(token, salt).is_err(),
                "{} {secrets:?}",
                v["description"]
            );
        }
        let codec = JwtCodec::new(as_list(&v["secret"]), &[salt]);
        // The other cookie name is another key.
        let other = if salt.starts_with("__Secure-") { SALT } else { "__Secure-authjs.session-token" };
        assert!(codec.decode(v["token"].as_str().unwrap(), other).is_err());
    }
}

#[test]
fn authjs_chunked_cookies_are_reassembled() {
    let fixture: Value =
        serde_json::from_str(include_str!("../../tests/fixtures/authjs-session-vectors.json")).unwrap();
    let v = fixture["vectors"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["cookieChunks"].is_array() && v["salt"] == SALT)
        .unwrap();
    let secret = v["secret"].as_str().unwrap();
    assert_eq!(secret, SECRET, "fixtures use the test secret");
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    for chunk in v["cookieChunks"].as_array().unwrap().iter().rev() {
        b.jar.insert(chunk["name"].as_str().unwrap().into(), chunk["value"].as_str().unwrap().into());
    }
    let session = b.session();
    assert_eq!(session["user"]["name"], v["decoded"]["name"]);
}

#[test]
fn csrf_cookies_from_authjs_verify_here() {
    let fixture: Value =
        serde_json::from_str(include_str!("../../tests/fixtures/authjs-session-vectors.json")).unwrap();
    for c in fixture["csrf"].as_array().unwrap() {
        let secrets: Vec<String> = match &c["secret"] {
            Value::Array(list) => list.iter().map(|s| s.as_str().unwrap().to_owned()).collect(),
            Value::String(s) => vec![s.clone()],
            _ => panic!(),
        };
        let csrf = libauth_core::csrf::Csrf::new(secrets);
        let cookie = c["cookieValue"].as_str().unwrap();
        assert!(csrf.verify(Some(cookie), c["token"].as_str()), "{}", c["description"]);
    }
}

#[test]
fn tampered_foreign_and_garbage_cookies_give_no_session_and_are_cleared() {
    let auth = auth(json!({}), hooks());
    let good = JwtCodec::new(vec![SECRET.into()], &[SALT]).encode(&claims(json!({"name": "A"})), SALT, 3600).unwrap();
    let mut tampered = good.clone().into_bytes();
    let mid = good.rfind('.').unwrap() - 10;
    tampered[mid] = if tampered[mid] == b'A' { b'B' } else { b'A' };
    let foreign = JwtCodec::new(vec!["another-secret-another-secret-1234".into()], &[SALT])
        .encode(&claims(json!({"name": "A"})), SALT, 3600)
        .unwrap();
    for token in [String::from_utf8(tampered).unwrap(), foreign, "garbage".into(), "a.b.c.d.e".into(), "%ZZ".into()] {
        let mut b = Browser::new(&auth);
        with_cookie(&mut b, &token);
        let res = b.get("/auth/session");
        assert_eq!(res.status, 200);
        assert_eq!(res.body_str(), "null");
        assert!(
            res.set_cookies().any(|c| c.starts_with("authjs.session-token=;") && c.contains("Max-Age=0")),
            "{token}"
        );
        assert_eq!(
            auth.get_session(
                &AuthRequest::get("http://localhost:3000/").with_header("cookie", format!("{SALT}={token}"))
            )
            .unwrap(),
            None
        );
    }
}

#[test]
fn expired_tokens_give_no_session() {
    let auth = auth(json!({}), hooks());
    let codec = JwtCodec::new(vec![SECRET.into()], &[SALT]);
    let long_ago = now_seconds() - 10_000;
    let expired = codec.encode_at(&claims(json!({"name": "A"})), SALT, 60, long_ago).unwrap();
    let mut b = Browser::new(&auth);
    with_cookie(&mut b, &expired);
    assert_eq!(b.session(), Value::Null);
    assert!(!b.has_session_cookie());
    // Within the 15 s clock tolerance it still counts.
    let just = codec.encode_at(&claims(json!({"name": "A"})), SALT, 60, now_seconds() - 65).unwrap();
    let mut b = Browser::new(&auth);
    with_cookie(&mut b, &just);
    assert_eq!(b.session()["user"]["name"], "A");
}

#[test]
fn rotation_keeps_old_sessions_and_issues_with_the_new_secret() {
    let old_secret = "old-secret-old-secret-old-secret-0";
    let old = JwtCodec::new(vec![old_secret.into()], &[SALT]);
    let token =
        old.encode_at(&claims(json!({"name": "Old", "sub": "1"})), SALT, 1_000_000, now_seconds() - 200_000).unwrap();
    let auth = auth(json!({"secret": [SECRET, old_secret], "session": {"maxAge": 1_000_000}}), hooks());
    let mut b = Browser::new(&auth);
    with_cookie(&mut b, &token);
    // Issued more than updateAge ago: renewed, now under the new secret.
    let res = b.get("/auth/session");
    assert_eq!(res.json().unwrap()["user"]["name"], "Old");
    let renewed = b.jar.get(SALT).unwrap().clone();
    assert_ne!(renewed, token);
    assert!(JwtCodec::new(vec![SECRET.into()], &[SALT]).decode(&renewed, SALT).is_ok());
    assert!(old.decode(&renewed, SALT).is_err());
}

#[test]
fn sessions_renew_only_when_update_age_has_passed() {
    let auth = auth(json!({}), hooks());
    let codec = JwtCodec::new(vec![SECRET.into()], &[SALT]);
    let fresh = codec.encode(&claims(json!({"name": "A"})), SALT, 2_592_000).unwrap();
    let mut b = Browser::new(&auth);
    with_cookie(&mut b, &fresh);
    let res = b.get("/auth/session");
    assert_eq!(res.set_cookies().count(), 0, "fresh token: no re-encryption");
    let exp = codec.decode(&fresh, SALT).unwrap()["exp"].as_u64().unwrap();
    let expires = res.json().unwrap()["expires"].as_str().unwrap().to_owned();
    assert_eq!(expires, libauth_core::time::iso_millis(exp * 1000));

    let day_old = codec.encode_at(&claims(json!({"name": "A"})), SALT, 2_592_000, now_seconds() - 86_401).unwrap();
    let mut b = Browser::new(&auth);
    with_cookie(&mut b, &day_old);
    let res = b.get("/auth/session");
    let cookie = res.set_cookies().next().expect("renewed");
    assert!(cookie.starts_with("authjs.session-token=") && cookie.contains("Expires="));
    let renewed = codec.decode(b.jar.get(SALT).unwrap(), SALT).unwrap();
    assert!(renewed["iat"].as_u64().unwrap() >= now_seconds() - 5);

    // updateAge 0 renews on every read.
    let always = common::auth(json!({"session": {"updateAge": 0}}), hooks());
    let mut b = Browser::new(&always);
    with_cookie(&mut b, &fresh);
    assert_eq!(b.get("/auth/session").set_cookies().count(), 1);
}

#[test]
fn a_jwt_callback_renews_the_cookie_only_when_it_changes_the_token() {
    let codec = JwtCodec::new(vec![SECRET.into()], &[SALT]);
    let fresh = codec.encode(&claims(json!({"name": "A"})), SALT, 2_592_000).unwrap();
    let same = common::auth(json!({}), hooks().on("callbacks.jwt", |args| Ok(args["token"].clone())));
    let mut b = Browser::new(&same);
    with_cookie(&mut b, &fresh);
    assert_eq!(b.get("/auth/session").set_cookies().count(), 0, "unchanged token, updateAge not passed");

    let changing = common::auth(
        json!({}),
        hooks().on("callbacks.jwt", |args| {
            let mut token = args["token"].clone();
            token["visits"] = json!(token["visits"].as_u64().unwrap_or(0) + 1);
            Ok(token)
        }),
    );
    let mut b = Browser::new(&changing);
    with_cookie(&mut b, &fresh);
    assert_eq!(b.get("/auth/session").set_cookies().count(), 1, "a changed token is written back");
    assert_eq!(codec.decode(b.jar.get(SALT).unwrap(), SALT).unwrap()["visits"], 1);
}

#[test]
fn expires_follows_an_exp_the_jwt_callback_sets_when_it_is_sane() {
    let codec = JwtCodec::new(vec![SECRET.into()], &[SALT]);
    let fresh = codec.encode(&claims(json!({"name": "A"})), SALT, 2_592_000).unwrap();
    let cookie = format!("{SALT}={fresh}");
    let expires_with = |exp: i64| {
        let auth = common::auth(
            json!({}),
            hooks().on("callbacks.jwt", move |args| {
                let mut token = args["token"].clone();
                token["exp"] = json!(exp);
                Ok(token)
            }),
        );
        let req = AuthRequest::get("http://localhost:3000/").with_header("cookie", cookie.clone());
        auth.get_session(&req).unwrap().expect("a session").expires().unwrap().to_owned()
    };
    let soon = now_seconds() as i64 + 100;
    assert_eq!(expires_with(soon), libauth_core::time::iso_millis(soon as u64 * 1000));
    // A negative exp is no time: the session gets a fresh expiry, not 1970.
    let fresh_expiry = expires_with(-5);
    assert!(fresh_expiry.as_str() > "2026", "{fresh_expiry}");
}

#[test]
fn a_token_too_large_for_its_cookies_fails_the_sign_in() {
    let auth = common::auth(
        json!({}),
        hooks().on("callbacks.jwt", |args| {
            let mut token = args["token"].clone();
            token["blob"] = json!("b".repeat(libauth_core::cookies::MAX_COOKIE_VALUE));
            Ok(token)
        }),
    );
    let mut b = Browser::new(&auth);
    let res = b.sign_in("ada", "secret");
    assert_eq!(location(&res), "http://localhost:3000/auth/error?error=Configuration");
    assert!(!b.has_session_cookie());
}

#[test]
fn a_token_exactly_as_large_as_its_cookies_hold_is_written() {
    use libauth_core::cookies::MAX_COOKIE_VALUE;
    let sign_in_with_token_of = |len: usize| {
        let auth = common::auth(json!({}), hooks().on("jwt.encode", move |_| Ok(json!("t".repeat(len)))));
        let mut b = Browser::new(&auth);
        let res = b.sign_in("ada", "secret");
        (location(&res).to_owned(), b.jar.keys().filter(|k| k.starts_with(SALT)).count())
    };
    assert_eq!(sign_in_with_token_of(MAX_COOKIE_VALUE), ("http://localhost:3000".to_owned(), 8), "8 full chunks");
    assert_eq!(sign_in_with_token_of(MAX_COOKIE_VALUE + 1).0, "http://localhost:3000/auth/error?error=Configuration");
}

#[test]
fn large_sessions_are_chunked_and_read_back() {
    let big = "x".repeat(4000);
    let auth = auth(
        json!({}),
        hooks().on("callbacks.jwt", move |args| {
            let mut t = args["token"].clone();
            if args["trigger"] == "signIn" {
                t["blob"] = json!(big.clone());
            }
            Ok(t)
        }),
    );
    let mut b = Browser::new(&auth);
    let res = b.sign_in("ada", "secret");
    let names: Vec<String> =
        res.set_cookies().map(|c| c.split('=').next().unwrap().to_owned()).filter(|n| n.contains("session")).collect();
    assert_eq!(names, ["authjs.session-token.0", "authjs.session-token.1"]);
    assert!(res.set_cookies().all(|c| c.len() < 4096));
    assert_eq!(b.session()["user"]["name"], "Ada Lovelace");
    let req = AuthRequest::get("http://localhost:3000/").with_header("cookie", b.cookie_header());
    assert!(auth.get_session(&req).unwrap().is_some());
    // Sign-out clears every chunk.
    let csrf = b.csrf();
    let res = b.post("/auth/signout", &[("csrfToken", &csrf)]);
    assert_eq!(res.set_cookies().filter(|c| c.contains("session-token.") && c.contains("Max-Age=0")).count(), 2);
    assert!(!b.has_session_cookie());
}

#[test]
fn get_session_reads_without_writing() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    b.sign_in("ada", "secret");
    let req = AuthRequest::get("http://localhost:3000/dashboard").with_header("cookie", b.cookie_header());
    let session = auth.get_session(&req).unwrap().expect("signed in");
    assert_eq!(session.user().unwrap()["email"], "ada@example.com");
    assert!(session.expires().unwrap().ends_with('Z'));
    // What the bindings hand their hosts: the same session as JSON text.
    let json: serde_json::Value = serde_json::from_str(&session.to_json()).unwrap();
    assert_eq!(json, session.clone().into_value());
    assert_eq!(json["user"]["email"], "ada@example.com");
    assert_eq!(auth.get_session(&AuthRequest::get("http://localhost:3000/")).unwrap(), None);
    // The https cookie name is not read over http, and the reverse.
    let https = AuthRequest::get("https://localhost:3000/").with_header("cookie", b.cookie_header());
    assert_eq!(auth.get_session(&https).unwrap(), None);
}

#[test]
fn session_json_matches_authjs_shape() {
    let auth = auth(
        json!({}),
        libauth_core::HookMap::new()
            .on("providers.credentials.authorize", |_| Ok(json!({"id": "u1", "name": null, "email": "e@x.io"}))),
    );
    let mut b = Browser::new(&auth);
    b.sign_in("a", "b");
    let raw = b.get("/auth/session").body_str().to_owned();
    assert!(raw.starts_with(r#"{"user":{"name":null,"email":"e@x.io"},"expires":""#), "{raw}");
}
