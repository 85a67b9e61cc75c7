//! `get_access_token` against the TikTok simulator (which rotates refresh
//! tokens, so a refresh token spent twice is refused): fresh tokens are
//! returned as stored, concurrent calls make one refresh, a revoked refresh
//! token is a typed error and an event.
// Without `integration` the helpers of the PostgreSQL and Redis tests go unused.
#![cfg_attr(not(feature = "integration"), allow(dead_code, unused_imports))]

mod common;
#[path = "common/host_sqlite.rs"]
mod host_sqlite;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use libauth_core::{Auth, ErrorType, HookMap};
use serde_json::{json, Value};
use tiktok_sim::{SimConfig, Simulator};

struct Setup {
    sim: Simulator,
    auth: Arc<Auth>,
    user_id: String,
    events: Arc<Mutex<Vec<Value>>>,
    _db: TempFile,
}

/// A user signed in with TikTok, its account stored in SQLite, with an
/// access token that lives `access_ttl` (the simulator's).
fn signed_in(access_ttl: Duration) -> Setup {
    let sim = tiktok_sim::start(SimConfig { access_ttl, ..SimConfig::default() });
    let urls = sim.urls();
    let db = temp_db_path();
    let events = Arc::new(Mutex::new(Vec::new()));
    let log = events.clone();
    let hooks = HookMap::new().on("events.refreshTokenRevoked", move |args| {
        log.lock().unwrap().push(args);
        Ok(Value::Null)
    });
    let config = libauth_core::Config::from_value(json!({
        "secret": SECRET, "trustHost": true, "adapter": { "type": "sqlite", "path": db.0 },
        "providers": [{ "builtin": "tiktok", "clientId": "sim-client-key", "clientSecret": "sim-client-secret",
            "authorization": { "url": urls.authorization }, "token": urls.token, "userinfo": urls.userinfo }]
    }))
    .unwrap();
    let auth = Arc::new(Auth::with_env(config, Arc::new(hooks), &std::collections::HashMap::new()).unwrap());
    let user_id = sign_in_with_tiktok(&auth, &sim, &json!({ "type": "sqlite", "path": db.0 }));
    Setup { sim, auth, user_id, events, _db: db }
}

/// Sign in through `auth` with the simulator's TikTok user; its user id,
/// read through an adapter of its own on `adapter` (the engine's config).
fn sign_in_with_tiktok(auth: &Auth, sim: &Simulator, adapter: &Value) -> String {
    let mut b = Browser::new(auth);
    let csrf = b.csrf();
    let res = b.post("/auth/signin/tiktok", &[("csrfToken", &csrf)]);
    let agent = ureq::AgentBuilder::new().redirects(0).build();
    let back = match agent.get(location(&res)).call() {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r.header("location").unwrap().to_owned(),
        Err(e) => panic!("{e}"),
    };
    assert_eq!(b.get(back.strip_prefix(ORIGIN).unwrap()).status, 302);
    let adapter = libauth_core::store::from_config(adapter, Arc::new(libauth_core::NoHooks)).unwrap();
    adapter.get_user_by_account("tiktok", &sim.user().open_id).unwrap().unwrap().id
}

fn refreshes(sim: &Simulator) -> u64 {
    // Every refresh rotates the refresh token: one more issued each time.
    sim.state_summary()["refresh_tokens"].as_u64().unwrap() - 1
}

#[test]
fn a_fresh_token_is_returned_as_stored() {
    let s = signed_in(Duration::from_secs(3600));
    let stored = s.auth.get_account(&s.user_id, "tiktok").unwrap().unwrap();
    let token = s.auth.get_access_token(&s.user_id, "tiktok").unwrap().unwrap();
    assert_eq!(Some(token.access_token), stored.access_token);
    assert_eq!(refreshes(&s.sim), 0);
    assert!(s.auth.get_access_token("nobody", "tiktok").unwrap().is_none());
}

#[test]
fn fifty_concurrent_calls_make_one_refresh() {
    // Tokens that live 30 s are due (the default skew is 60 s).
    let s = signed_in(Duration::from_secs(30));
    let stored = s.auth.get_account(&s.user_id, "tiktok").unwrap().unwrap();
    // New tokens live an hour, so the refreshed one is fresh.
    s.sim.update_config(|c| c.access_ttl = Duration::from_secs(3600)).unwrap();
    let threads: Vec<_> = (0..50)
        .map(|_| {
            let (auth, user) = (s.auth.clone(), s.user_id.clone());
            std::thread::spawn(move || auth.get_access_token(&user, "tiktok"))
        })
        .collect();
    let tokens: Vec<String> = threads.into_iter().map(|t| t.join().unwrap().unwrap().unwrap().access_token).collect();
    assert_eq!(refreshes(&s.sim), 1, "one refresh request at the provider");
    assert!(tokens.iter().all(|t| t == &tokens[0]), "everyone got the one new token");
    assert_ne!(Some(&tokens[0]), stored.access_token.as_ref());
    let now = s.auth.get_account(&s.user_id, "tiktok").unwrap().unwrap();
    assert_eq!(now.access_token.as_ref(), Some(&tokens[0]), "stored");
    assert_ne!(now.refresh_token, stored.refresh_token, "the rotated refresh token is stored");
    // And a later call uses it without refreshing again.
    s.auth.get_access_token(&s.user_id, "tiktok").unwrap().unwrap();
    assert_eq!(refreshes(&s.sim), 1);
}

#[test]
fn a_revoked_refresh_token_is_a_typed_error_and_an_event() {
    let s = signed_in(Duration::from_secs(30));
    let stored = s.auth.get_account(&s.user_id, "tiktok").unwrap().unwrap();
    // Spend the stored refresh token elsewhere (as a leaked copy would):
    // TikTok rotates it out.
    s.auth
        .refresh_access_token("tiktok", stored.refresh_token.as_deref().unwrap(), Some(&stored.provider_account_id))
        .unwrap();
    let err = s.auth.get_access_token(&s.user_id, "tiktok").unwrap_err();
    assert_eq!(err.error_type, ErrorType::RefreshTokenRevoked, "{err}");
    let events = s.events.lock().unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["provider"], "tiktok");
    assert_eq!(events[0]["userId"], s.user_id.as_str());
    assert!(events[0].get("refreshToken").is_none(), "no token in the event");
}

/// The config of the cross-process tests: one database (`adapter`) for
/// users, accounts, sessions and the refresh leases
/// (`rateLimit.store: "database"`).
fn shared_config(sim: &Simulator, adapter: &Value) -> Value {
    let urls = sim.urls();
    json!({
        "secret": SECRET, "trustHost": true,
        "adapter": adapter,
        "session": { "strategy": "database" },
        "rateLimit": { "store": { "type": "database" } },
        "providers": [{ "builtin": "tiktok", "clientId": "sim-client-key", "clientSecret": "sim-client-secret",
            "authorization": { "url": urls.authorization }, "token": urls.token, "userinfo": urls.userinfo }]
    })
}

/// Two processes (this binary run again), 20 concurrent calls each, for one
/// account whose token is due: one refresh request at the provider, the
/// same new token for all 40, and no `RefreshTokenRevoked` (TikTok rotates
/// refresh tokens, so a second refresh with the spent one would be refused).
#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn two_processes_make_one_refresh() {
    let sim = tiktok_sim::start(SimConfig { access_ttl: Duration::from_secs(30), ..SimConfig::default() });
    let schema = temp_schema();
    let adapter = json!({ "type": "postgres", "url": postgres_url(), "schema": schema.0 });
    let config = shared_config(&sim, &adapter);
    let auth = Auth::with_env(
        libauth_core::Config::from_value(config.clone()).unwrap(),
        Arc::new(HookMap::new()),
        &std::collections::HashMap::new(),
    )
    .unwrap();
    let user_id = sign_in_with_tiktok(&auth, &sim, &adapter);
    sim.update_config(|c| c.access_ttl = Duration::from_secs(3600)).unwrap();
    drop(auth);

    let tokens = tokens_from_two_processes(&config, &user_id);
    assert!(tokens.iter().all(|t| t == &tokens[0]), "one new token for all: {tokens:?}");
    assert_eq!(refreshes(&sim), 1, "one refresh request at the provider");
}

/// Two processes (this binary run again, `child_calls_get_access_token`)
/// with `config`, 20 concurrent calls each: the 40 access tokens; any
/// failed call fails the test.
fn tokens_from_two_processes(config: &Value, user_id: &str) -> Vec<String> {
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..2)
        .map(|_| {
            std::process::Command::new(&exe)
                .args(["child_calls_get_access_token", "--exact", "--ignored", "--nocapture", "--test-threads", "1"])
                .env("LIBAUTH_TOKEN_CHILD", json!({ "config": config, "user": user_id }).to_string())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut tokens = Vec::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "child failed: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        let line =
            stdout.lines().find_map(|l| l.split_once("TOKENS ").map(|(_, t)| t)).expect("the child printed its tokens");
        tokens.extend(serde_json::from_str::<Vec<String>>(line).unwrap());
    }
    assert_eq!(tokens.len(), 40);
    tokens
}

/// Issue 36: a first refresh by 50 threads of one process whose engine
/// stays up (on SQLite, with the host's own SQLite opening and closing the
/// file meanwhile, as Python's `sqlite3` or Django does), then two more
/// processes whose calls find the new token due again. The refreshed row is
/// visible to another connection as soon as the first calls return, and
/// the other processes spend only the refresh token stored by the first:
/// one refresh request per spent refresh token, one new token for every
/// caller, no `RefreshTokenRevoked`, no `Overloaded`.
fn refresh_in_one_process_then_in_two(
    adapter: Value,
    host_reads: &dyn Fn(),
    read_account: &dyn Fn() -> (String, String),
) {
    // 30 s tokens at sign-in: due (the default skew is 60 s).
    let sim = tiktok_sim::start(SimConfig { access_ttl: Duration::from_secs(30), ..SimConfig::default() });
    let config = shared_config(&sim, &adapter);
    let auth = Arc::new(
        Auth::with_env(
            libauth_core::Config::from_value(config.clone()).unwrap(),
            Arc::new(HookMap::new()),
            &std::collections::HashMap::new(),
        )
        .unwrap(),
    );
    let user_id = sign_in_with_tiktok(&auth, &sim, &adapter);
    let (_, signed_in_refresh) = read_account();

    // The first refresh yields 90 s tokens: fresh for this process (60 s
    // skew), due for the other processes below (120 s skew).
    sim.update_config(|c| c.access_ttl = Duration::from_secs(90)).unwrap();
    host_reads();
    let threads: Vec<_> = (0..50)
        .map(|_| {
            let (auth, user) = (auth.clone(), user_id.clone());
            std::thread::spawn(move || auth.get_access_token(&user, "tiktok").map(|t| t.unwrap().access_token))
        })
        .collect();
    let first: Vec<String> = threads.into_iter().map(|t| t.join().unwrap().unwrap()).collect();
    assert!(first.iter().all(|t| t == &first[0]), "one new token for the 50 calls");
    assert_eq!(refreshes(&sim), 1, "one refresh request for the 50 calls");
    host_reads();
    let (stored_access, stored_refresh) = read_account();
    assert_eq!(stored_access, first[0], "the refreshed access token, seen by another connection");
    assert_ne!(stored_refresh, signed_in_refresh, "the rotated refresh token, seen by another connection");

    // This engine stays up while two more processes find the token due.
    sim.update_config(|c| c.access_ttl = Duration::from_secs(3600)).unwrap();
    let mut due = config.clone();
    due["tokenRefresh"] = json!({ "skew": 120 });
    let second = tokens_from_two_processes(&due, &user_id);
    assert!(second.iter().all(|t| t == &second[0]), "one new token for the 40 calls: {second:?}");
    assert_ne!(second[0], first[0]);
    assert_eq!(refreshes(&sim), 2, "one refresh request per spent refresh token");
    host_reads();
    assert_eq!(read_account().0, second[0], "the second refresh, seen by another connection");
    drop(auth);
}

#[test]
#[cfg(feature = "integration")] // the system's libsqlite3
fn r36_sqlite_refresh_in_one_process_then_in_two() {
    let db = temp_db_path();
    let host = host_sqlite::HostSqlite::load();
    let path = db.0.clone();
    refresh_in_one_process_then_in_two(
        json!({ "type": "sqlite", "path": db.0 }),
        &|| host.open_read_close(&path),
        &|| {
            let rows = host_sqlite::read_elsewhere(&path, "SELECT access_token, refresh_token FROM accounts");
            assert_eq!(rows.len(), 1, "{rows:?}");
            (rows[0][0].clone().unwrap(), rows[0][1].clone().unwrap())
        },
    );
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL
fn r36_postgres_refresh_in_one_process_then_in_two() {
    let schema = temp_schema();
    let sql = format!("SELECT access_token, refresh_token FROM \"{}\".accounts", schema.0);
    refresh_in_one_process_then_in_two(
        json!({ "type": "postgres", "url": postgres_url(), "schema": schema.0 }),
        &|| {},
        &|| {
            let mut client = ::postgres::Client::connect(&postgres_url(), ::postgres::NoTls).unwrap();
            let row = client.query_one(&sql, &[]).unwrap();
            (row.get(0), row.get(1))
        },
    );
}

/// The body of the child processes above: 20 threads ask for the token.
#[test]
#[ignore = "the body of a child process: two_processes_make_one_refresh runs it with --ignored"]
fn child_calls_get_access_token() {
    let Ok(input) = std::env::var("LIBAUTH_TOKEN_CHILD") else { return };
    let input: Value = serde_json::from_str(&input).unwrap();
    let config = libauth_core::Config::from_value(input["config"].clone()).unwrap();
    let auth = Arc::new(Auth::with_env(config, Arc::new(HookMap::new()), &std::collections::HashMap::new()).unwrap());
    let user = input["user"].as_str().unwrap().to_owned();
    let threads: Vec<_> = (0..20)
        .map(|_| {
            let (auth, user) = (auth.clone(), user.clone());
            std::thread::spawn(move || auth.get_access_token(&user, "tiktok").map(|t| t.unwrap().access_token))
        })
        .collect();
    let tokens: Vec<String> = threads
        .into_iter()
        .map(|t| t.join().unwrap().unwrap_or_else(|e| panic!("get_access_token failed: {e}")))
        .collect();
    println!("TOKENS {}", serde_json::to_string(&tokens).unwrap());
}
