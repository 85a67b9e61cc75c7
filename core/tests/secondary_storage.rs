//! Redis secondary storage (`secondaryStorage`) against real Redis, with
//! users and accounts in SQLite or PostgreSQL: sign-in, session reads,
//! updates, sign-out, deleting a user, email links used once under
//! concurrency, and Redis expiring sessions and tokens.
//!
//! Redis on 127.0.0.1:6379 (`LIBAUTH_TEST_REDIS_URL` overrides it) and
//! PostgreSQL as in the other tests; `scripts/test.sh` starts both. Never
//! skipped.

// Without `integration` the helpers of the PostgreSQL and Redis tests go unused.
#![cfg_attr(not(feature = "integration"), allow(dead_code, unused_imports))]

mod common;

use std::sync::{Arc, Barrier, Mutex};
use std::time::Duration;

use common::*;
use libauth_core::store::redis::{RedisOptions, RedisPool};
use libauth_core::store::{
    constraint, from_config, AdapterSession, Authenticator, DataStores, NewUser, RedisStore, VerificationToken,
};
use libauth_core::time::now_millis;
use libauth_core::{Auth, Config, HookMap, NoHooks};
use serde_json::{json, Value};

fn redis_url() -> String {
    std::env::var("LIBAUTH_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned())
}

fn prefix() -> String {
    format!("libauth-test:{}:", libauth_core::random::hex(6))
}

/// A handle on the same Redis, to look behind the engine's back.
fn redis(prefix: &str) -> RedisPool {
    RedisPool::new(&RedisOptions { key_prefix: prefix.into(), ..RedisOptions::new(redis_url()) }).unwrap()
}

fn redis_keys(pool: &RedisPool, pattern: &str) -> Vec<String> {
    let pattern = pool.key(pattern);
    pool.run(|c| redis::cmd("KEYS").arg(&pattern).query(c)).unwrap()
}

/// The session row's key for a cookie's token (the engine stores a hash).
fn row(token: &str) -> String {
    libauth_core::session::stored_session_token(token)
}

/// An engine on `adapter` with Redis secondary storage under `prefix`;
/// `mailed` gets the email links.
fn engine(adapter: &Value, prefix: &str, mailed: Arc<Mutex<Vec<String>>>, extra: Value) -> Auth {
    let hooks = hooks().on("providers.email.sendVerificationRequest", move |args| {
        mailed.lock().unwrap().push(args["url"].as_str().unwrap_or_default().to_owned());
        Ok(Value::Null)
    });
    let mut config = json!({
        "adapter": adapter,
        "secondaryStorage": { "type": "redis", "url": redis_url(), "keyPrefix": prefix },
        "providers": [
            { "type": "credentials", "credentials": { "username": { "label": "Username" }, "password": { "label": "Password", "type": "password" } } },
            { "type": "email" }
        ]
    });
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        config[k] = v;
    }
    auth(config, hooks)
}

/// The stores as the engine composes them, for direct checks: the
/// adapter's users, accounts and passkeys, with sessions and tokens in Redis.
fn secondary(adapter: &Value, prefix: &str) -> Arc<DataStores> {
    let inner = from_config(adapter, Arc::new(NoHooks)).unwrap();
    let redis = Arc::new(RedisStore::new(Arc::new(redis(prefix))));
    Arc::new(DataStores::new(inner.clone(), (inner.clone(), inner.clone()), inner, Some((redis.clone(), redis)), None))
}

fn lifecycle(adapter: Value) {
    let prefix = prefix();
    let mailed = Arc::new(Mutex::new(Vec::new()));
    let auth = engine(&adapter, &prefix, mailed, json!({ "session": { "updateAge": 0 } }));
    let sql = from_config(&adapter, Arc::new(NoHooks)).unwrap();
    let view = secondary(&adapter, &prefix);
    let pool = redis(&prefix);

    // Sign in: the session is in Redis, not in the SQL database; the user is.
    let mut b = Browser::new(&auth);
    assert_eq!(location(&b.sign_in("ada", "secret")), ORIGIN);
    let token = b.jar.get("authjs.session-token").unwrap().clone();
    assert!(sql.get_session_and_user(&row(&token)).unwrap().is_none(), "no session row in SQL");
    assert!(sql.get_user("42").unwrap().is_some(), "the user is in SQL");
    let (session, user) = view.session_and_user(&row(&token)).unwrap().expect("the session is in Redis");
    assert_eq!(user.email.as_deref(), Some("ada@example.com"));
    assert_eq!(redis_keys(&pool, "session:*").len(), 1);
    assert!(redis_keys(&pool, &format!("session:*{token}*")).is_empty(), "keys hold a hash, not the token");
    let key = redis_keys(&pool, "session:*").remove(0);
    let ttl: i64 = pool.run(|c| redis::cmd("PTTL").arg(&key).query(c)).unwrap();
    assert!((ttl - 2_592_000_000).abs() < 10_000, "Redis expires it with the session: {ttl}");

    // Read, with an update on every read (updateAge 0): the expiry moves.
    view.sessions.update_session(&row(&token), now_millis() as i64 + 3_600_000).unwrap();
    assert_eq!(b.session()["user"]["email"], "ada@example.com");
    let extended = view.session_and_user(&row(&token)).unwrap().unwrap().0.expires;
    assert!(extended > session.expires - 10_000, "extended back to maxAge");

    // Sign out: gone from Redis.
    let csrf = b.csrf();
    b.post("/auth/signout", &[("csrfToken", &csrf)]);
    assert!(!b.has_session_cookie());
    assert!(view.session_and_user(&row(&token)).unwrap().is_none());
    assert!(redis_keys(&pool, "session:*").is_empty());

    // Deleting the user signs them out everywhere.
    let (mut phone, mut laptop) = (Browser::new(&auth), Browser::new(&auth));
    phone.sign_in("ada", "secret");
    laptop.sign_in("ada", "secret");
    assert_eq!(redis_keys(&pool, "session:*").len(), 2);
    view.delete_user("42").unwrap();
    assert_eq!(phone.session(), Value::Null);
    assert_eq!(laptop.session(), Value::Null);
    assert!(redis_keys(&pool, "*").is_empty(), "no session or per-user set left: {:?}", redis_keys(&pool, "*"));
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn sessions_live_in_redis_with_users_in_sqlite() {
    let file = temp_db_path();
    lifecycle(json!({ "type": "sqlite", "path": file.0 }));
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn sessions_live_in_redis_with_users_in_postgres() {
    let schema = temp_schema();
    lifecycle(json!({ "type": "postgres", "url": postgres_url(), "schema": schema.0 }));
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn an_email_link_signs_in_once_under_concurrency() {
    let file = temp_db_path();
    let adapter = json!({ "type": "sqlite", "path": file.0 });
    let prefix = prefix();
    let mailed = Arc::new(Mutex::new(Vec::new()));
    let auth = engine(&adapter, &prefix, mailed.clone(), json!({}));
    let mut b = Browser::new(&auth);
    let csrf = b.csrf();
    b.post("/auth/signin/email", &[("csrfToken", &csrf), ("email", "grace@example.com")]);
    let link = mailed.lock().unwrap().pop().expect("a link was mailed");
    assert_eq!(redis_keys(&redis(&prefix), "vt:*").len(), 1, "the token is in Redis");
    let path = link.strip_prefix(ORIGIN).unwrap().to_owned();

    // 16 clicks at once (two devices, a mail scanner…): one signs in.
    let barrier = Arc::new(Barrier::new(16));
    let statuses: Vec<(u16, bool)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..16)
            .map(|_| {
                let (auth, barrier, path) = (&auth, barrier.clone(), path.clone());
                scope.spawn(move || {
                    let mut browser = Browser::new(auth);
                    barrier.wait();
                    let res = browser.get(&path);
                    (res.status, browser.has_session_cookie())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(statuses.iter().filter(|(_, signed_in)| *signed_in).count(), 1, "{statuses:?}");
    assert!(redis_keys(&redis(&prefix), "vt:*").is_empty());
}

/// Passkeys stay in the database with their user: the wrapper forwards
/// every passkey call, Redis holds none of them, and deleting the user
/// deletes them.
#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn passkeys_stay_in_the_database() {
    let file = temp_db_path();
    let adapter = json!({ "type": "sqlite", "path": file.0 });
    let prefix = prefix();
    let (a, sql, pool) =
        (secondary(&adapter, &prefix), from_config(&adapter, Arc::new(NoHooks)).unwrap(), redis(&prefix));
    let user = a.users.create_user(&NewUser::default()).unwrap();
    let passkey = Authenticator {
        credential_id: "cred-1".into(),
        user_id: user.id.clone(),
        provider_account_id: "cred-1".into(),
        credential_public_key: "pQECAyYgASFYIA==".into(),
        counter: 0,
        credential_device_type: "multiDevice".into(),
        credential_backed_up: true,
        transports: None,
        name: None,
        created_at: Some(now_millis() as i64),
        last_used_at: None,
    };
    assert_eq!(a.passkeys.create_authenticator(&passkey).unwrap(), passkey);
    let again = a.passkeys.create_authenticator(&passkey).unwrap_err();
    assert_eq!(again.violated_constraint(), Some(constraint::AUTHENTICATOR_ID));
    assert_eq!(sql.get_authenticator("cred-1").unwrap(), Some(passkey.clone()), "stored in SQL");
    let used = a.passkeys.update_authenticator_counter("cred-1", 3, 1_000).unwrap();
    let named = a.passkeys.rename_authenticator("cred-1", Some("Phone")).unwrap().unwrap();
    assert_eq!((used.counter, named.name.as_deref()), (3, Some("Phone")));
    assert_eq!(a.passkeys.list_authenticators_by_user_id(&user.id).unwrap(), vec![named.clone()]);
    assert!(redis_keys(&pool, "*").is_empty(), "nothing in Redis: {:?}", redis_keys(&pool, "*"));
    assert_eq!(a.passkeys.delete_authenticator("cred-1").unwrap(), Some(named.clone()));
    a.passkeys.create_authenticator(&named).unwrap();
    a.delete_user(&user.id).unwrap();
    assert_eq!(a.passkeys.get_authenticator("cred-1").unwrap(), None, "deleted with the user");
    for method in libauth_core::store::AUTHENTICATOR_METHODS {
        assert!(a.supports(method), "{method}");
    }
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn verification_tokens_are_single_use_and_unique() {
    let file = temp_db_path();
    let a = secondary(&json!({ "type": "sqlite", "path": file.0 }), &prefix());
    let token = VerificationToken {
        identifier: "ada@example.com".into(),
        token: libauth_core::random::hex(32),
        expires: now_millis() as i64 + 60_000,
    };
    a.tokens.create_verification_token(&token).unwrap();
    let again = a.tokens.create_verification_token(&token).unwrap_err();
    assert_eq!(again.violated_constraint(), Some(constraint::VERIFICATION_TOKEN));
    let barrier = Arc::new(Barrier::new(32));
    let winners: usize = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..32)
            .map(|_| {
                let (a, barrier, token) = (a.clone(), barrier.clone(), token.clone());
                scope.spawn(move || {
                    barrier.wait();
                    a.tokens.use_verification_token(&token.identifier, &token.token).unwrap()
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().unwrap()).inspect(|won| assert_eq!(*won, token)).count()
    });
    assert_eq!(winners, 1);
    assert!(a.tokens.use_verification_token("other@example.com", &token.token).unwrap().is_none());
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn redis_expires_sessions_and_tokens() {
    let file = temp_db_path();
    let a = secondary(&json!({ "type": "sqlite", "path": file.0 }), &prefix());
    let user = a.users.create_user(&NewUser { email: Some("ttl@example.com".into()), ..Default::default() }).unwrap();
    let soon = now_millis() as i64 + 600;
    let session = AdapterSession { session_token: "s-ttl".into(), user_id: user.id.clone(), expires: soon };
    a.create_session(&session).unwrap();
    let token = VerificationToken { identifier: "ttl@example.com".into(), token: "t-ttl".into(), expires: soon };
    a.tokens.create_verification_token(&token).unwrap();
    assert_eq!(a.session_and_user("s-ttl").unwrap().map(|(s, _)| s), Some(session.clone()));
    std::thread::sleep(Duration::from_millis(900));
    assert!(a.session_and_user("s-ttl").unwrap().is_none(), "Redis expired the session");
    assert!(a.tokens.use_verification_token("ttl@example.com", "t-ttl").unwrap().is_none(), "and the token");
    // A session for nobody, or a token stored twice, is refused as by SQL.
    let orphan = AdapterSession { user_id: "no-such-user".into(), ..session.clone() };
    assert_eq!(a.create_session(&orphan).unwrap_err().violated_constraint(), Some(constraint::SESSION_USER));
    let live = AdapterSession { expires: now_millis() as i64 + 60_000, ..session };
    a.create_session(&live).unwrap();
    assert_eq!(a.create_session(&live).unwrap_err().violated_constraint(), Some(constraint::SESSION_TOKEN));
    assert_eq!(a.sessions.update_session("no-such", now_millis() as i64).unwrap(), None);
    assert_eq!(a.sessions.delete_session("s-ttl").unwrap(), Some(live));
    assert_eq!(a.sessions.delete_session("s-ttl").unwrap(), None);
}

#[test]
fn redis_down_is_an_adapter_error_in_bounded_time() {
    let file = temp_db_path();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("redis://{}", listener.local_addr().unwrap());
    drop(listener);
    let config = Config::from_value(json!({
        "secret": SECRET, "trustHost": true,
        "adapter": { "type": "sqlite", "path": file.0 },
        "secondaryStorage": { "type": "redis", "url": url, "timeout": 0.3 },
        "providers": [{ "type": "credentials", "credentials": { "username": {}, "password": {} } }]
    }))
    .unwrap();
    let auth = Auth::with_env(config, Arc::new(hooks()), &std::collections::HashMap::new()).unwrap();
    let started = std::time::Instant::now();
    let mut b = Browser::new(&auth);
    let res = b.sign_in("ada", "secret");
    assert!(started.elapsed() < Duration::from_secs(3), "{:?}", started.elapsed());
    assert!(!b.has_session_cookie());
    assert!(location(&res).contains("error="), "an error page: {}", location(&res));
}

#[test]
fn secondary_storage_options_name_the_option() {
    for (extra, option) in [
        (json!({ "secondaryStorage": { "type": "redis", "url": redis_url() } }), "secondaryStorage"),
        (json!({ "adapter": { "type": "memory" }, "secondaryStorage": "redis" }), "secondaryStorage"),
        (
            json!({ "adapter": { "type": "memory" }, "secondaryStorage": { "type": "memcached" } }),
            "secondaryStorage.type",
        ),
        (json!({ "adapter": { "type": "memory" }, "secondaryStorage": { "type": "redis" } }), "secondaryStorage.url"),
        (
            json!({ "adapter": { "type": "memory" }, "secondaryStorage": { "type": "redis", "url": redis_url(), "ttl": 1 } }),
            "secondaryStorage.ttl",
        ),
    ] {
        let mut config = json!({ "secret": SECRET, "trustHost": true });
        for (k, v) in extra.as_object().cloned().unwrap() {
            config[k] = v;
        }
        let config = Config::from_value(config).unwrap();
        let err = Auth::with_env(config, Arc::new(HookMap::new()), &std::collections::HashMap::new())
            .err()
            .expect("a config error");
        assert_eq!(err.option, option, "{extra}");
    }
}
