//! The database session strategy through the engine, on SQLite (the
//! embedded default) and PostgreSQL (the real server): create, read,
//! throttled update, expiry, sign-out; credentials with database sessions;
//! users and accounts created at OAuth sign-in; adapter failures.

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use libauth_core::adapter::{from_config, Adapter};
use libauth_core::time::now_millis;
use libauth_core::{Auth, AuthRequest, ErrorType, HookMap, NoHooks};
use serde_json::{json, Value};

/// An engine on `adapter_config` and a second handle on the same database
/// to look behind its back.
fn engine(adapter_config: Value, extra: Value, hooks: HookMap) -> (Auth, Arc<dyn Adapter>) {
    let mut config = json!({ "adapter": adapter_config.clone() });
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        config[k] = v;
    }
    let auth = auth(config, hooks);
    let probe = from_config(&adapter_config, Arc::new(NoHooks)).unwrap();
    (auth, probe)
}

fn lifecycle(adapter_config: Value) {
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let (auth, db) = engine(
        adapter_config,
        json!({}),
        recording(hooks(), &log, &["events.signOut", "events.createUser"], Value::Null),
    );
    let mut b = Browser::new(&auth);
    assert_eq!(location(&b.sign_in("ada", "secret")), ORIGIN);

    // The cookie holds only an opaque session token.
    let token = b.jar.get("authjs.session-token").unwrap().clone();
    assert!(uuid_like(&token), "{token}");
    let (stored, user) = db.get_session_and_user(&token).unwrap().expect("a session row");
    assert_eq!(user.id, "42", "the app's own user id is kept");
    assert_eq!(user.email.as_deref(), Some("ada@example.com"));
    let max_age_ms = 2_592_000_000i64;
    assert!((stored.expires - (now_millis() as i64 + max_age_ms)).abs() < 5_000);

    // Read: the session, and no write within updateAge.
    let res = b.get("/auth/session");
    assert_eq!(
        res.json().unwrap()["user"],
        json!({ "name": "Ada Lovelace", "email": "ada@example.com", "image": "https://img.example/ada.png" })
    );
    assert_eq!(res.set_cookies().count(), 0);
    assert_eq!(db.get_session_and_user(&token).unwrap().unwrap().0.expires, stored.expires);
    let req = AuthRequest::get("http://localhost:3000/").with_header("cookie", b.cookie_header());
    assert_eq!(auth.get_session(&req).unwrap().unwrap().user().unwrap()["email"], "ada@example.com");

    // Two days later (expiry moved back): due for an update, done once.
    let earlier = now_millis() as i64 + max_age_ms - 2 * 86_400_000;
    db.update_session(&token, earlier).unwrap();
    let res = b.get("/auth/session");
    assert_eq!(res.set_cookies().count(), 1, "the cookie's expiry moves too");
    let extended = db.get_session_and_user(&token).unwrap().unwrap().0.expires;
    assert!(extended > earlier + 86_400_000);

    // Expired: no session, the row and the cookie go.
    db.update_session(&token, now_millis() as i64 - 1000).unwrap();
    assert_eq!(b.session(), Value::Null);
    assert!(!b.has_session_cookie());
    assert!(db.get_session_and_user(&token).unwrap().is_none());

    // Sign in again, then sign out: the row goes, signOut gets { session }.
    b.sign_in("ada", "secret");
    let token = b.jar.get("authjs.session-token").unwrap().clone();
    let csrf = b.csrf();
    b.post("/auth/signout", &[("csrfToken", &csrf)]);
    assert!(!b.has_session_cookie());
    assert!(db.get_session_and_user(&token).unwrap().is_none());
    let calls = log.lock().unwrap();
    let sign_out = &calls.iter().find(|(n, _)| n == "events.signOut").unwrap().1;
    assert_eq!(sign_out["session"]["userId"], "42");
    assert_eq!(calls.iter().filter(|(n, _)| n == "events.createUser").count(), 1, "the user is created once");
}

fn uuid_like(s: &str) -> bool {
    s.len() == 36 && s.chars().filter(|c| *c == '-').count() == 4
}

#[test]
fn database_session_lifecycle_on_sqlite() {
    let file = temp_db_path();
    lifecycle(json!({ "type": "sqlite", "path": file.0 }));
}

#[test]
fn database_session_lifecycle_on_postgres() {
    let schema = temp_schema();
    lifecycle(json!({ "type": "postgres", "url": postgres_url(), "schema": schema.0 }));
}

#[test]
fn update_age_zero_extends_on_every_read_and_custom_tokens() {
    let file = temp_db_path();
    let (auth, db) = engine(
        json!({ "type": "sqlite", "path": file.0 }),
        json!({ "session": { "updateAge": 0 } }),
        hooks().on("session.generateSessionToken", |_| Ok(json!(format!("sess_{}", libauth_core::random::hex(16))))),
    );
    let mut b = Browser::new(&auth);
    b.sign_in("ada", "secret");
    let token = b.jar.get("authjs.session-token").unwrap().clone();
    assert!(token.starts_with("sess_"));
    let before = db.get_session_and_user(&token).unwrap().unwrap().0.expires;
    std::thread::sleep(std::time::Duration::from_millis(20));
    assert_eq!(b.get("/auth/session").set_cookies().count(), 1);
    assert!(db.get_session_and_user(&token).unwrap().unwrap().0.expires > before);
}

#[test]
fn jwt_can_be_forced_with_an_adapter() {
    let (auth, _db) = engine(json!({ "type": "memory" }), json!({ "session": { "strategy": "jwt" } }), hooks());
    let mut b = Browser::new(&auth);
    b.sign_in("ada", "secret");
    assert_eq!(b.jar.get("authjs.session-token").unwrap().split('.').count(), 5, "a JWE");
    assert_eq!(b.session()["user"]["name"], "Ada Lovelace");
}

#[test]
fn session_callback_gets_the_database_user_and_update_data() {
    let (auth, _db) = engine(
        json!({ "type": "memory" }),
        json!({}),
        hooks().on("callbacks.session", |args| {
            let mut s = args["session"].clone();
            s["userId"] = args["user"]["id"].clone();
            if args["trigger"] == "update" {
                s["theme"] = args["newSession"]["theme"].clone();
            }
            Ok(s)
        }),
    );
    let mut b = Browser::new(&auth);
    b.sign_in("ada", "secret");
    assert_eq!(b.session()["userId"], "42");
    let csrf = b.csrf();
    let res = b.post_json("/auth/session", json!({ "csrfToken": csrf, "data": { "theme": "dark" } }));
    assert_eq!(res.json().unwrap()["theme"], "dark");
}

#[test]
fn a_database_that_is_down_is_an_adapter_error_never_a_panic() {
    let config = json!({ "type": "postgres", "url": "postgres://postgres@127.0.0.1:1/test", "connectTimeout": 1 });
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let (auth, _db) = engine(config, json!({}), recording(hooks(), &log, &["logger.error"], Value::Null));
    let mut b = Browser::new(&auth);
    let res = b.sign_in("ada", "secret");
    assert_eq!(location(&res), "http://localhost:3000/auth/error?error=Configuration");
    assert!(!b.has_session_cookie());
    // A session cookie the database can't check: no session, cookie kept.
    b.jar.insert("authjs.session-token".into(), "0b9c5a30-0000-4000-8000-000000000000".into());
    let res = b.get("/auth/session");
    assert_eq!((res.status, res.body_str()), (200, "null"));
    assert_eq!(res.set_cookies().count(), 0, "the session may exist: the cookie stays");
    let req = AuthRequest::get("http://localhost:3000/").with_header("cookie", b.cookie_header());
    assert_eq!(auth.get_session(&req).unwrap_err().error_type, ErrorType::AdapterError);
    assert!(log.lock().unwrap().iter().all(|(_, e)| e["type"] == "AdapterError"));
}

#[test]
fn an_adapter_needs_no_strategy_option_and_bad_adapters_name_the_option() {
    let err = Auth::with_env(
        libauth_core::Config::from_value(
            json!({ "secret": SECRET, "trustHost": true, "adapter": { "type": "sqlite" } }),
        )
        .unwrap(),
        Arc::new(NoHooks),
        &std::collections::HashMap::new(),
    )
    .err()
    .unwrap();
    assert_eq!(err.option, "adapter.path");
    let err = Auth::with_env(
        libauth_core::Config::from_value(
            json!({ "secret": SECRET, "trustHost": true, "providers": [{ "type": "email", "sendVerificationRequest": true }] }),
        )
        .unwrap(),
        Arc::new(HookMap::new().on("providers.email.sendVerificationRequest", |_| Ok(Value::Null))),
        &std::collections::HashMap::new(),
    )
    .err()
    .unwrap();
    assert_eq!(err.option, "adapter");
}
