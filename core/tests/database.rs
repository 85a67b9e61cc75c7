//! The database session strategy through the engine, on SQLite (the
//! embedded default) and PostgreSQL (the real server): create, read,
//! throttled update, expiry, sign-out; credentials with database sessions;
//! users and accounts created at OAuth sign-in; adapter failures. The
//! PostgreSQL tests need the server, so they run with the `integration`
//! feature only (`scripts/test.sh` enables it).

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use libauth_core::store::{from_config, Adapter};
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

    // The cookie holds only an opaque session token, and how the user
    // signed in (bound to it: the row's key is the hash of the whole value).
    let token = b.jar.get("authjs.session-token").unwrap().clone();
    let (random, amr) = token.split_once('~').expect("the token, then how");
    assert!(uuid_like(random) && amr == "pwd", "{token}");
    let (stored, user) = db.get_session_and_user(&row(&token)).unwrap().expect("a session row");
    // The database holds only the token's hash: the cookie's value finds nothing.
    assert_eq!(stored.session_token, row(&token));
    assert_ne!(stored.session_token, token);
    assert!(db.get_session_and_user(&token).unwrap().is_none());
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
    assert_eq!(db.get_session_and_user(&row(&token)).unwrap().unwrap().0.expires, stored.expires);
    let req = AuthRequest::get("http://localhost:3000/").with_header("cookie", b.cookie_header());
    assert_eq!(auth.get_session(&req).unwrap().unwrap().user().unwrap()["email"], "ada@example.com");

    // Two days later (expiry moved back): due for an update, done once.
    let earlier = now_millis() as i64 + max_age_ms - 2 * 86_400_000;
    db.update_session(&row(&token), earlier).unwrap();
    let res = b.get("/auth/session");
    assert_eq!(res.set_cookies().count(), 1, "the cookie's expiry moves too");
    let extended = db.get_session_and_user(&row(&token)).unwrap().unwrap().0.expires;
    assert!(extended > earlier + 86_400_000);

    // Expired: no session, the row and the cookie go.
    db.update_session(&row(&token), now_millis() as i64 - 1000).unwrap();
    assert_eq!(b.session(), Value::Null);
    assert!(!b.has_session_cookie());
    assert!(db.get_session_and_user(&row(&token)).unwrap().is_none());

    // Sign in again, then sign out: the row goes, signOut gets { session }.
    b.sign_in("ada", "secret");
    let token = b.jar.get("authjs.session-token").unwrap().clone();
    let csrf = b.csrf();
    b.post("/auth/signout", &[("csrfToken", &csrf)]);
    assert!(!b.has_session_cookie());
    assert!(db.get_session_and_user(&row(&token)).unwrap().is_none());
    let calls = log.lock().unwrap();
    let sign_out = &calls.iter().find(|(n, _)| n == "events.signOut").unwrap().1;
    assert_eq!(sign_out["session"]["userId"], "42");
    assert_eq!(calls.iter().filter(|(n, _)| n == "events.createUser").count(), 1, "the user is created once");
}

/// The session row's key for a cookie's token (the engine stores a hash).
fn row(token: &str) -> String {
    libauth_core::session::stored_session_token(token)
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
#[cfg(feature = "integration")] // the PostgreSQL server
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
    let before = db.get_session_and_user(&row(&token)).unwrap().unwrap().0.expires;
    std::thread::sleep(std::time::Duration::from_millis(20));
    let res = b.get("/auth/session");
    let cookies: Vec<&str> = res.set_cookies().collect();
    assert_eq!(cookies.len(), 1);
    // The cookie's Expires moves with the row's: 30 days from now.
    let expected = libauth_core::time::http_date(now_millis() / 1000 + 30 * 86_400);
    let expires = cookies[0].split("; ").find_map(|a| a.strip_prefix("Expires=")).unwrap();
    assert_eq!(&expires[..16], &expected[..16], "{}", cookies[0]);
    assert!(db.get_session_and_user(&row(&token)).unwrap().unwrap().0.expires > before);
}

#[test]
fn reads_within_update_age_do_not_extend_the_session() {
    let file = temp_db_path();
    let (auth, db) = engine(json!({ "type": "sqlite", "path": file.0 }), json!({}), hooks());
    let mut b = Browser::new(&auth);
    b.sign_in("ada", "secret");
    let token = b.jar.get("authjs.session-token").unwrap().clone();
    let before = db.get_session_and_user(&row(&token)).unwrap().unwrap().0.expires;
    // Well past a millisecond count of updateAge's seconds (86 ms), well
    // within the day updateAge is.
    std::thread::sleep(std::time::Duration::from_millis(200));
    assert_eq!(b.get("/auth/session").set_cookies().count(), 0);
    assert_eq!(db.get_session_and_user(&row(&token)).unwrap().unwrap().0.expires, before);
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

/// A new sign-in in a browser that holds a session (its own, or one planted
/// by an attacker) ends that session: no session fixation. Signing out on
/// one device leaves the other's session alone.
fn fixation_and_devices(adapter_config: Value) {
    let (auth, db) = engine(adapter_config, json!({}), hooks());
    let mut laptop = Browser::new(&auth);
    laptop.sign_in("ada", "secret");
    let first = laptop.jar.get("authjs.session-token").unwrap().clone();
    laptop.sign_in("ada", "secret");
    let second = laptop.jar.get("authjs.session-token").unwrap().clone();
    assert_ne!(first, second, "a sign-in issues a new token");
    assert!(db.get_session_and_user(&row(&first)).unwrap().is_none(), "the previous session ended");
    let mut copy = Browser::new(&auth);
    copy.jar.insert("authjs.session-token".into(), first);
    assert_eq!(copy.session(), Value::Null);

    let mut phone = Browser::new(&auth);
    phone.sign_in("ada", "secret");
    let csrf = laptop.csrf();
    laptop.post("/auth/signout", &[("csrfToken", &csrf)]);
    assert_eq!(laptop.session(), Value::Null);
    assert_eq!(phone.session()["user"]["email"], "ada@example.com", "the phone stays signed in");
    // A copy of the laptop's cookie is dead: its row is gone, not just the cookie.
    let mut copy = Browser::new(&auth);
    copy.jar.insert("authjs.session-token".into(), second.clone());
    assert_eq!(copy.session(), Value::Null);
    assert!(db.get_session_and_user(&row(&second)).unwrap().is_none());
}

#[test]
fn no_fixation_and_devices_are_independent_on_sqlite() {
    let file = temp_db_path();
    fixation_and_devices(json!({ "type": "sqlite", "path": file.0 }));
}

#[test]
#[cfg(feature = "integration")] // the PostgreSQL server
fn no_fixation_and_devices_are_independent_on_postgres() {
    let schema = temp_schema();
    fixation_and_devices(json!({ "type": "postgres", "url": postgres_url(), "schema": schema.0 }));
}

#[test]
fn expired_rows_are_purged_by_the_documented_call() {
    let file = temp_db_path();
    let (auth, db) = engine(json!({ "type": "sqlite", "path": file.0 }), json!({}), hooks());
    let mut old = Browser::new(&auth);
    old.sign_in("ada", "secret");
    let token = old.jar.get("authjs.session-token").unwrap().clone();
    let mut live = Browser::new(&auth);
    live.sign_in("ada", "secret");
    db.update_session(&row(&token), now_millis() as i64 - 1000).unwrap();

    let purged = auth.purge_expired().unwrap();
    assert_eq!(purged.sessions, 1);
    assert!(db.get_session_and_user(&row(&token)).unwrap().is_none());
    assert_eq!(live.session()["user"]["email"], "ada@example.com");
}

/// A bad `generateSessionToken` result fails the sign-in (no silent UUID).
#[test]
fn a_bad_generated_session_token_fails_the_sign_in() {
    for bad in [json!("short"), json!(null), json!(42), json!("x".repeat(600))] {
        let file = temp_db_path();
        let log: CallLog = Arc::new(Mutex::new(Vec::new()));
        let b2 = bad.clone();
        let hooks = recording(hooks(), &log, &["logger.error"], Value::Null)
            .on("session.generateSessionToken", move |_| Ok(b2.clone()));
        let (auth, _) = engine(json!({ "type": "sqlite", "path": file.0 }), json!({}), hooks);
        let mut b = Browser::new(&auth);
        let res = b.sign_in("ada", "secret");
        assert_eq!(location(&res), "http://localhost:3000/auth/error?error=Configuration", "{bad}");
        assert!(!b.has_session_cookie());
        let logged = log.lock().unwrap();
        assert!(
            logged.iter().any(|(_, args)| args["type"] == "SessionTokenError"
                && args["message"].as_str().unwrap_or_default().contains("generateSessionToken")),
            "{logged:?}"
        );
    }
}
