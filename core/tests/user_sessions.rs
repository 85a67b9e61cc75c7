//! The user's own database sessions (the `sessions` route and
//! `Auth::sessions`): list them with where each was made, end one, end the
//! others, end all; on every built-in backend (memory, SQLite, PostgreSQL,
//! and sessions in Redis beside SQLite). Signed-in users sign in through
//! the password provider's routes, as a browser does.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use common::{identity_of, location, postgres_url, temp_db_path, temp_schema, Browser, ORIGIN, SECRET};
use libauth_core::{Auth, AuthRequest, AuthResponse, Config, ErrorType, HookMap};
use serde_json::{json, Value};

type Mailbox = Arc<Mutex<Vec<String>>>;
type Events = Arc<Mutex<Vec<Value>>>;

const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const PASSWORD: &str = "correct horse battery";

fn redis_url() -> String {
    std::env::var("LIBAUTH_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned())
}

fn engine(stores: Value, strategy: &str, mailbox: &Mailbox, events: &Events) -> Auth {
    let mailbox = mailbox.clone();
    let events = events.clone();
    let hooks = HookMap::new()
        .on("providers.password.sendEmail", move |args| {
            mailbox.lock().unwrap().push(args["url"].as_str().unwrap_or_default().to_owned());
            Ok(Value::Null)
        })
        .on("events.sessionsEnded", move |message| {
            events.lock().unwrap().push(message);
            Ok(Value::Null)
        });
    let mut config = json!({
        "secret": SECRET, "trustHost": true,
        "session": { "strategy": strategy },
        "providers": [{ "type": "password", "argon2": { "memoryKib": 64, "iterations": 1 } }],
    });
    for (k, v) in stores.as_object().cloned().unwrap_or_default() {
        config[k] = v;
    }
    Auth::with_env(Config::from_value(config).expect("valid config"), Arc::new(hooks), &HashMap::new())
        .expect("engine builds")
}

/// A browser with this User-Agent and peer address.
fn browser<'a>(auth: &'a Auth, user_agent: Option<&str>) -> Browser<'a> {
    let mut b = Browser::new(auth);
    if let Some(ua) = user_agent {
        b.extra_headers.push(("user-agent".into(), ua.into()));
    }
    b
}

fn post_from(b: &mut Browser, ip: &str, path: &str, pairs: &[(&str, &str)]) -> AuthResponse {
    let req =
        AuthRequest { remote_address: Some(ip.into()), ..AuthRequest::post_form(format!("{ORIGIN}{path}"), pairs) };
    b.send(req)
}

/// Sign up `email` in `b` and follow the mailed link: signed in.
fn sign_up(b: &mut Browser, mailbox: &Mailbox, email: &str) {
    let csrf = b.csrf();
    let res = b.post("/auth/password/signup", &[("email", email), ("password", PASSWORD), ("csrfToken", &csrf)]);
    assert_eq!(res.status, 302, "{res:?}");
    let url = mailbox.lock().unwrap().pop().expect("a verification mail");
    let res = b.get(url.strip_prefix(ORIGIN).unwrap());
    assert_eq!(res.status, 302, "{res:?}");
    assert!(b.has_session_cookie());
}

fn sign_in(b: &mut Browser, ip: &str, email: &str) {
    let csrf = b.csrf();
    let res = post_from(
        b,
        ip,
        "/auth/callback/password",
        &[("email", email), ("password", PASSWORD), ("csrfToken", &csrf), ("callbackUrl", "/home")],
    );
    assert_eq!(res.status, 302, "{res:?}");
    assert!(b.has_session_cookie(), "{}", location(&res));
}

fn listed(b: &mut Browser) -> Vec<Value> {
    let res = b.get("/auth/sessions");
    assert_eq!(res.status, 200, "{}", res.body_str());
    assert!(res.header("cache-control").is_some_and(|c| c.contains("no-store")));
    res.json().unwrap()["sessions"].as_array().unwrap().clone()
}

fn manage(b: &mut Browser, pairs: &[(&str, &str)]) -> AuthResponse {
    let csrf = b.csrf();
    let mut pairs = pairs.to_vec();
    pairs.push(("csrfToken", &csrf));
    b.post("/auth/sessions", &pairs)
}

fn signed_in(b: &mut Browser) -> bool {
    !b.session().is_null()
}

fn backends() -> Vec<(&'static str, Value, Box<dyn std::any::Any>)> {
    let file = temp_db_path();
    let redis_file = temp_db_path();
    let schema = temp_schema();
    vec![
        ("memory", json!({ "adapter": { "type": "memory" } }), Box::new(())),
        ("sqlite", json!({ "adapter": { "type": "sqlite", "path": file.0 } }), Box::new(file)),
        (
            "postgres",
            json!({ "adapter": { "type": "postgres", "url": postgres_url(), "schema": schema.0 } }),
            Box::new(schema),
        ),
        (
            "sqlite + redis",
            json!({
                "adapter": { "type": "sqlite", "path": redis_file.0 },
                "secondaryStorage": { "type": "redis", "url": redis_url(),
                                      "keyPrefix": format!("libauth-test-{}:", libauth_core::random::hex(6)) },
            }),
            Box::new(redis_file),
        ),
    ]
}

#[test]
fn a_user_lists_and_ends_their_own_sessions_on_every_backend() {
    for (name, stores, _guard) in backends() {
        let (mailbox, events) = (Mailbox::default(), Events::default());
        let auth = engine(stores, "database", &mailbox, &events);

        let mut laptop = browser(&auth, Some(FIREFOX));
        sign_up(&mut laptop, &mailbox, "ada@example.com");
        let mut phone = browser(&auth, Some(IPHONE));
        sign_in(&mut phone, "203.0.113.77", "ada@example.com");
        let mut other = browser(&auth, None);
        sign_in(&mut other, "2001:db8:1:2::9", "ada@example.com");
        let mut eve = browser(&auth, Some(FIREFOX));
        sign_up(&mut eve, &mailbox, "eve@example.com");

        // The list: this browser's first, each with where it was made, and
        // never a token.
        let list = listed(&mut laptop);
        assert_eq!(list.len(), 3, "{name}: {list:?}");
        assert_eq!(list[0]["current"], true, "{name}");
        assert_eq!(list[0]["device"], "Firefox on Linux", "{name}");
        assert_eq!(list[0]["ip"], "127.0.0.0/24", "{name}");
        assert!(list[1..].iter().all(|s| s["current"] == false), "{name}");
        let phone_entry = list.iter().find(|s| s["ip"] == "203.0.113.0/24").expect("the phone's session");
        assert_eq!(phone_entry["device"], "Safari on iPhone", "{name}");
        assert_eq!(phone_entry["userAgent"], IPHONE, "{name}");
        let other_entry = list.iter().find(|s| s["ip"] == "2001:db8:1::/48").expect("the third session");
        assert_eq!((other_entry["device"].clone(), other_entry["userAgent"].clone()), (Value::Null, Value::Null));
        for s in &list {
            for key in ["createdAt", "lastActiveAt", "expires"] {
                assert!(s[key].as_str().is_some_and(|t| t.ends_with('Z')), "{name}: {key} of {s}");
            }
        }
        let body = laptop.get("/auth/sessions").body_str().to_owned();
        for b in [&laptop, &phone, &other] {
            for value in b.jar.values() {
                assert!(!body.contains(value.as_str()), "{name}: a cookie value in the list");
            }
        }

        // Ending needs the CSRF token; a signed-out browser gets 401; a JWT
        // is not involved.
        let phone_id = phone_entry["id"].as_str().unwrap().to_owned();
        let res = laptop.post("/auth/sessions", &[("action", "end"), ("id", &phone_id)]);
        assert_eq!(res.status, 302, "{name}");
        assert!(location(&res).contains("error=MissingCSRF"), "{name}: {}", location(&res));
        assert!(signed_in(&mut phone), "{name}: a request without the CSRF token ended nothing");
        let mut stranger = browser(&auth, None);
        assert_eq!(stranger.get("/auth/sessions").status, 401);
        assert_eq!(manage(&mut stranger, &[("action", "endAll")]).status, 401);

        // Another user cannot end Ada's session by its id, nor see it.
        let res = manage(&mut eve, &[("action", "end"), ("id", &phone_id)]);
        assert_eq!(res.status, 404, "{name}");
        assert_eq!(res.json().unwrap()["error"], "SessionTokenError");
        assert!(signed_in(&mut phone), "{name}");
        assert_eq!(listed(&mut eve).len(), 1, "{name}");
        assert!(events.lock().unwrap().is_empty());

        // End one: the phone is signed out, the rest stay.
        let res = manage(&mut laptop, &[("action", "end"), ("id", &phone_id)]);
        assert_eq!(res.status, 200, "{name}: {}", res.body_str());
        assert!(!signed_in(&mut phone), "{name}: the ended session reads as signed out");
        assert!(signed_in(&mut laptop) && signed_in(&mut other) && signed_in(&mut eve), "{name}");
        assert_eq!(manage(&mut laptop, &[("action", "end"), ("id", &phone_id)]).status, 404, "{name}: ended once");
        assert_eq!(manage(&mut laptop, &[("action", "rename")]).status, 400, "{name}");

        // End the others: the laptop stays.
        let res = manage(&mut laptop, &[("action", "endOthers")]);
        assert_eq!(res.json().unwrap()["ended"], 1, "{name}");
        assert!(!signed_in(&mut other) && signed_in(&mut laptop) && signed_in(&mut eve), "{name}");
        assert_eq!(listed(&mut laptop).len(), 1, "{name}");

        // From the server: list, end all.
        let ada = identity_of(&laptop).expect("a stored user").subject;
        let from_server = auth.sessions(&ada, &json!({ "action": "list" })).unwrap();
        assert_eq!(from_server.as_array().unwrap().len(), 1, "{name}");
        assert_eq!(from_server[0]["current"], false, "{name}: no cookie given, no current session");
        let with_cookie =
            json!({ "action": "list", "url": format!("{ORIGIN}/account"), "cookie": laptop.cookie_header() });
        assert_eq!(auth.sessions(&ada, &with_cookie).unwrap()[0]["current"], true, "{name}");
        assert_eq!(auth.sessions(&ada, &json!({ "action": "endAll" })).unwrap()["ended"], 1, "{name}");
        assert!(!signed_in(&mut laptop) && signed_in(&mut eve), "{name}");
        let err = auth.sessions(&ada, &json!({ "action": "end", "id": phone_id })).unwrap_err();
        assert_eq!(err.error_type, ErrorType::SessionTokenError, "{name}: {err}");
        let err = auth.sessions(&ada, &json!({ "action": "nope" })).unwrap_err();
        assert_eq!(err.error_type, ErrorType::UnknownAction);

        let seen: Vec<(Value, Value)> =
            events.lock().unwrap().iter().map(|e| (e["scope"].clone(), e["ended"].clone())).collect();
        assert_eq!(seen, [(json!("one"), json!(1)), (json!("others"), json!(1)), (json!("all"), json!(1))], "{name}");
        assert!(events.lock().unwrap().iter().all(|e| e["userId"] == ada.as_str()), "{name}");
    }
}

#[test]
fn jwt_sessions_are_not_listed() {
    let (mailbox, events) = (Mailbox::default(), Events::default());
    let auth = engine(json!({ "adapter": { "type": "memory" } }), "jwt", &mailbox, &events);
    let mut b = browser(&auth, Some(FIREFOX));
    sign_up(&mut b, &mailbox, "ada@example.com");
    let res = b.get("/auth/sessions");
    assert_eq!(res.status, 400);
    assert_eq!(res.json().unwrap()["error"], "UnsupportedStrategy");
    let ada = identity_of(&b).unwrap().subject;
    let err = auth.sessions(&ada, &json!({ "action": "list" })).unwrap_err();
    assert_eq!(err.error_type, ErrorType::UnsupportedStrategy);
}

/// A session stored before sessions recorded where they were made (a
/// database migrated from an older libauth) is listed without details and
/// can be ended.
#[test]
fn sessions_from_before_the_migration_are_listed_without_details() {
    use libauth_core::store::{AdapterSession, SessionDetails, SessionStore, SqliteAdapter, UserStore};
    let file = temp_db_path();
    let (mailbox, events) = (Mailbox::default(), Events::default());
    let auth = engine(json!({ "adapter": { "type": "sqlite", "path": file.0 } }), "database", &mailbox, &events);
    let mut b = browser(&auth, Some(FIREFOX));
    sign_up(&mut b, &mailbox, "ada@example.com");
    let ada = identity_of(&b).unwrap().subject;

    let store = SqliteAdapter::open(&file.0).unwrap();
    assert!(store.get_user(&ada).unwrap().is_some());
    let far = libauth_core::time::now_millis() as i64 + 3_600_000;
    store.create_session(&AdapterSession { session_token: "old".into(), user_id: ada.clone(), expires: far }).unwrap();
    let list = listed(&mut b);
    assert_eq!(list.len(), 2);
    let old = list.iter().find(|s| s["createdAt"].is_null()).expect("the old session");
    assert_eq!((old["device"].clone(), old["ip"].clone()), (Value::Null, Value::Null));
    assert_eq!(manage(&mut b, &[("action", "end"), ("id", old["id"].as_str().unwrap())]).status, 200);
    assert!(store.get_session("old").unwrap().is_none());
    assert!(signed_in(&mut b));

    // Made by a server whose clock is an hour ahead: listed, last active
    // when it was made (never a panic on the out-of-order times).
    let ahead = libauth_core::time::now_millis() as i64 + 3_600_000;
    let details = SessionDetails { created_at: Some(ahead), user_agent: Some("x".into()), ip: None };
    let session = AdapterSession { session_token: "ahead".into(), user_id: ada.clone(), expires: far };
    store.create_session_with_details(&session, &details).unwrap();
    let list = listed(&mut b);
    let ahead_entry = list.iter().find(|s| s["userAgent"] == "x").expect("the session made ahead");
    assert_eq!(ahead_entry["lastActiveAt"], ahead_entry["createdAt"]);
}

/// A session Redis stored before it kept the stored token in the hash
/// (an upgrade with live sessions) cannot be listed, but ending the
/// others or all of them still ends it, and a current one is kept.
#[test]
fn redis_sessions_from_before_the_upgrade_still_end() {
    use libauth_core::store::redis::{RedisOptions, RedisPool};
    let (file, prefix) = (temp_db_path(), format!("libauth-test-{}:", libauth_core::random::hex(6)));
    let (mailbox, events) = (Mailbox::default(), Events::default());
    let stores = json!({
        "adapter": { "type": "sqlite", "path": file.0 },
        "secondaryStorage": { "type": "redis", "url": redis_url(), "keyPrefix": prefix },
    });
    let auth = engine(stores, "database", &mailbox, &events);
    let mut laptop = browser(&auth, Some(FIREFOX));
    sign_up(&mut laptop, &mailbox, "ada@example.com");
    let ada = identity_of(&laptop).unwrap().subject;

    // Two sessions as the older layout wrote them: userId and expires only.
    let pool = RedisPool::new(&RedisOptions { key_prefix: prefix.clone(), ..RedisOptions::new(redis_url()) }).unwrap();
    let far = libauth_core::time::now_millis() as i64 + 3_600_000;
    let legacy = |raw: &str| {
        let stored = libauth_core::session::stored_session_token(raw);
        // The Redis layout's key: the SHA-256 of the length-prefixed stored token.
        let member: String = {
            use sha2::Digest;
            let mut hash = sha2::Sha256::new();
            hash.update((stored.len() as u64).to_be_bytes());
            hash.update(stored.as_bytes());
            hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
        };
        let (key, set) = (pool.key(&format!("session:{member}")), pool.key(&format!("user-sessions:{ada}")));
        pool.run(|c| {
            redis::pipe()
                .cmd("HSET")
                .arg(&key)
                .arg("userId")
                .arg(&ada)
                .arg("expires")
                .arg(far)
                .cmd("SADD")
                .arg(&set)
                .arg(&member)
                .query::<()>(c)
        })
        .unwrap();
        let mut b = browser(&auth, None);
        b.jar.insert("authjs.session-token".into(), raw.into());
        b
    };
    let mut old_phone = legacy("old-phone");
    let mut old_tablet = legacy("old-tablet");
    assert!(signed_in(&mut old_phone) && signed_in(&mut old_tablet));
    assert_eq!(listed(&mut laptop).len(), 1, "the old sessions are not listed");

    // Ending the others from an old session keeps it and ends the rest.
    assert_eq!(manage(&mut old_phone, &[("action", "endOthers")]).json().unwrap()["ended"], 2);
    assert!(signed_in(&mut old_phone));
    assert!(!signed_in(&mut old_tablet) && !signed_in(&mut laptop));
    assert_eq!(auth.end_all_sessions(&ada).unwrap(), 1);
    assert!(!signed_in(&mut old_phone));
}
