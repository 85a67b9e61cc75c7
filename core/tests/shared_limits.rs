//! The shared rate-limit stores (SQLite, PostgreSQL, Redis) against the real
//! databases: the limit holds exactly under 64 concurrent consumers, in one
//! process and split over two processes (this test binary runs itself
//! again as the second and third process); windows expire; keys vanish
//! (Redis TTLs, the SQL purge); an unreachable or hung Redis answers within
//! a bounded time, fail-closed for credentials and fail-open elsewhere, or
//! as `rateLimit.store.failClosed` says.
//!
//! PostgreSQL on 127.0.0.1:5432 and Redis on 127.0.0.1:6379 (`scripts/test.sh`
//! starts both; `LIBAUTH_TEST_POSTGRES_URL` and `LIBAUTH_TEST_REDIS_URL`
//! override them). These tests never skip.

// Without `integration` the helpers of the PostgreSQL and Redis tests go unused.
#![cfg_attr(not(feature = "integration"), allow(dead_code, unused_imports))]

mod common;

use std::net::TcpListener;
use std::process::Command;
use std::sync::{Arc, Barrier, Mutex};
use std::time::{Duration, Instant};

use common::*;
use libauth_core::store::redis::{RedisOptions, RedisPool};
use libauth_core::store::{CounterStore, PostgresAdapter, PostgresOptions, RedisStore, SqliteAdapter};
use libauth_core::HookMap;
use serde_json::{json, Value};

const WINDOW: Duration = Duration::from_secs(3600);

/// Which store a test (or a child process) uses, and where.
#[derive(Clone)]
enum Target {
    Sqlite(String),
    Postgres(String),
    Redis(String),
}

impl Target {
    fn encode(&self) -> String {
        match self {
            Target::Sqlite(path) => format!("sqlite {path}"),
            Target::Postgres(schema) => format!("postgres {schema}"),
            Target::Redis(prefix) => format!("redis {prefix}"),
        }
    }

    fn decode(s: &str) -> Target {
        let (kind, arg) = s.split_once(' ').expect("kind and argument");
        match kind {
            "sqlite" => Target::Sqlite(arg.into()),
            "postgres" => Target::Postgres(arg.into()),
            _ => Target::Redis(arg.into()),
        }
    }

    fn store(&self) -> Arc<dyn CounterStore> {
        match self {
            Target::Sqlite(path) => Arc::new(SqliteAdapter::open(path).expect("SQLite opens")),
            Target::Postgres(schema) => Arc::new(sql_store_pg(schema)),
            Target::Redis(prefix) => Arc::new(RedisStore::new(Arc::new(redis_pool(prefix)))),
        }
    }
}

fn sql_store_pg(schema: &str) -> PostgresAdapter {
    let options = PostgresOptions { schema: schema.into(), pool_size: 32, ..PostgresOptions::new(postgres_url()) };
    PostgresAdapter::new(&options).expect("valid options")
}

fn redis_url() -> String {
    std::env::var("LIBAUTH_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned())
}

fn redis_pool(prefix: &str) -> RedisPool {
    let options = RedisOptions { key_prefix: prefix.into(), pool_size: 32, ..RedisOptions::new(redis_url()) };
    RedisPool::new(&options).expect("valid options")
}

/// A key prefix no other test run uses.
fn redis_prefix() -> String {
    format!("libauth-test:{}:", libauth_core::random::hex(6))
}

/// `n` threads consume `key` at once (released together); their counts.
fn consume_concurrently(store: &Arc<dyn CounterStore>, key: &str, n: usize) -> Vec<u64> {
    let barrier = Arc::new(Barrier::new(n));
    let threads: Vec<_> = (0..n)
        .map(|_| {
            let (store, barrier, key) = (store.clone(), barrier.clone(), key.to_owned());
            std::thread::spawn(move || {
                barrier.wait();
                store.consume(&key, 1, WINDOW).expect("the store counts").count
            })
        })
        .collect();
    threads.into_iter().map(|t| t.join().expect("no panic")).collect()
}

/// 64 consumers see the counts 1..=64, each once: with a limit of `max`,
/// exactly `max` of them are admitted.
fn assert_exact(mut counts: Vec<u64>) {
    counts.sort_unstable();
    assert_eq!(counts, (1..=64).collect::<Vec<u64>>(), "every consumer saw a distinct count");
    let max = 10;
    assert_eq!(counts.iter().filter(|c| **c <= max).count(), max as usize, "exactly max admitted");
}

fn exact_in_one_process(target: Target) {
    let store = target.store();
    assert_exact(consume_concurrently(&store, "credentials:id:shared", 64));
}

/// Two child processes, 32 consumers each, on one store.
fn exact_across_processes(target: Target) {
    // Create the table (or the schema) once, before the children race.
    target.store().consume("warm-up", 0, WINDOW).expect("the store counts");
    let exe = std::env::current_exe().expect("the test binary");
    let children: Vec<_> = (0..2)
        .map(|_| {
            Command::new(&exe)
                .args(["child_process_consumes", "--exact", "--ignored", "--nocapture", "--test-threads", "1"])
                .env("LIBAUTH_CHILD_STORE", target.encode())
                .output_spawn()
        })
        .collect();
    let mut counts = Vec::new();
    for child in children {
        let output = child.wait_with_output().expect("the child ran");
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(output.status.success(), "child failed: {stdout}\n{}", String::from_utf8_lossy(&output.stderr));
        let line = stdout
            .lines()
            .find_map(|l| l.split_once("COUNTS ").map(|(_, counts)| counts.trim()))
            .expect("the child printed its counts");
        counts.extend(line.split(',').map(|c| c.parse::<u64>().expect("a count")));
    }
    assert_exact(counts);
}

trait SpawnPiped {
    fn output_spawn(&mut self) -> std::process::Child;
}

impl SpawnPiped for Command {
    fn output_spawn(&mut self) -> std::process::Child {
        self.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().expect("spawn")
    }
}

/// Not a test of its own: the body of the child processes above, which run
/// this binary with only this test. Without the variable it does nothing.
#[test]
#[ignore = "the body of a child process: this file's multi-process tests run it with --ignored"]
fn child_process_consumes() {
    let Ok(target) = std::env::var("LIBAUTH_CHILD_STORE") else { return };
    let store = Target::decode(&target).store();
    let counts = consume_concurrently(&store, "credentials:id:across", 32);
    println!("COUNTS {}", counts.iter().map(u64::to_string).collect::<Vec<_>>().join(","));
}

/// A count starts again in the next window (1 s windows, real time).
fn windows_expire(target: Target) {
    let store = target.store();
    let window = Duration::from_secs(1);
    // Start right after a boundary, so the three calls share a window.
    let ms = libauth_core::time::now_millis() % 1000;
    std::thread::sleep(Duration::from_millis((1000 - ms) % 1000 + 5));
    assert_eq!(store.consume("w", 1, window).unwrap().count, 1);
    let second = store.consume("w", 2, window).unwrap();
    assert_eq!(second.count, 3);
    assert!(second.reset_after <= window);
    assert_eq!(store.consume("w", 0, window).unwrap().count, 3, "cost 0 only reads");
    std::thread::sleep(second.reset_after + Duration::from_millis(5));
    assert_eq!(store.consume("w", 1, window).unwrap().count, 1, "a new window starts again");
}

#[test]
fn sqlite_store_admits_exactly_max_in_one_process() {
    let file = temp_db_path();
    exact_in_one_process(Target::Sqlite(file.0.display().to_string()));
}

#[test]
fn sqlite_store_admits_exactly_max_across_processes() {
    let file = temp_db_path();
    exact_across_processes(Target::Sqlite(file.0.display().to_string()));
}

#[test]
fn sqlite_store_windows_expire_and_old_rows_are_purged() {
    let file = temp_db_path();
    let path = file.0.display().to_string();
    windows_expire(Target::Sqlite(path.clone()));
    let store = SqliteAdapter::open(&path).unwrap();
    for i in 0..20 {
        store.consume(&format!("k{i}"), 1, Duration::from_secs(1)).unwrap();
    }
    assert!(store.counter_rows().unwrap() >= 20);
    // Later than every row's window and margin: nothing is kept.
    let later = libauth_core::time::now_millis() + 60_000;
    assert!(store.purge_counters(later).unwrap() >= 20);
    assert_eq!(store.counter_rows().unwrap(), 0, "expired rows are gone");
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn postgres_store_admits_exactly_max_in_one_process() {
    let schema = temp_schema();
    exact_in_one_process(Target::Postgres(schema.0.clone()));
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn postgres_store_admits_exactly_max_across_processes() {
    let schema = temp_schema();
    exact_across_processes(Target::Postgres(schema.0.clone()));
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn postgres_store_windows_expire_and_old_rows_are_purged() {
    let schema = temp_schema();
    windows_expire(Target::Postgres(schema.0.clone()));
    let store = sql_store_pg(&schema.0);
    for i in 0..20 {
        store.consume(&format!("k{i}"), 1, Duration::from_secs(1)).unwrap();
    }
    // Rows of the current window stay; rows past their expiry go.
    assert_eq!(store.purge_counters(libauth_core::time::now_millis()).unwrap(), 0, "current rows are kept");
    assert!(store.counter_rows().unwrap() >= 20);
    assert!(store.purge_counters(libauth_core::time::now_millis() + 60_000).unwrap() >= 20);
    assert_eq!(store.counter_rows().unwrap(), 0);
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn redis_store_admits_exactly_max_in_one_process() {
    exact_in_one_process(Target::Redis(redis_prefix()));
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn redis_store_admits_exactly_max_across_processes() {
    exact_across_processes(Target::Redis(redis_prefix()));
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn redis_store_windows_expire_and_keys_vanish() {
    let prefix = redis_prefix();
    windows_expire(Target::Redis(prefix.clone()));
    let store = RedisStore::new(Arc::new(redis_pool(&prefix)));
    let window = Duration::from_secs(60);
    store.consume("ttl", 1, window).unwrap();
    let ttl = store.ttl_ms("ttl", window, libauth_core::time::now_millis()).unwrap();
    assert!(ttl > 0 && ttl <= 65_000, "the key expires with its window (plus a margin): {ttl} ms");
    // A 1 s window's key is gone a little after the window and margin.
    let pool = redis_pool(&prefix);
    let keys = || -> Vec<String> {
        pool.run(|c| redis::cmd("KEYS").arg(format!("{prefix}rl:1000:*")).query(c)).expect("KEYS answers")
    };
    assert!(!keys().is_empty());
    let deadline = Instant::now() + Duration::from_secs(10);
    while !keys().is_empty() {
        assert!(Instant::now() < deadline, "1 s window keys still there after 10 s: {:?}", keys());
        std::thread::sleep(Duration::from_millis(250));
    }
}

/// A Redis that accepts connections and never answers (a hung server), and
/// one that refuses them (down).
fn hung_redis() -> (TcpListener, String) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("redis://{}", listener.local_addr().unwrap());
    (listener, url)
}

fn refused_redis() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("redis://{}", listener.local_addr().unwrap());
    drop(listener);
    url
}

/// An engine with credentials and email sign-in, limits on `store`.
fn engine_on(store: Value, log: &CallLog, extra: Value) -> libauth_core::Auth {
    let hooks = recording(hooks(), log, &["logger.error", "providers.email.sendVerificationRequest"], Value::Null);
    let mut config = json!({
        "rateLimit": { "credentials": { "max": 3 }, "store": store },
        "adapter": { "type": "memory" },
        "session": { "strategy": "jwt" },
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

fn logged_errors(log: &CallLog) -> Vec<String> {
    log.lock().unwrap().iter().filter(|(n, _)| n == "logger.error").map(|(_, args)| args.to_string()).collect()
}

#[test]
fn a_down_or_hung_redis_fails_closed_for_credentials_open_elsewhere_in_bounded_time() {
    let (_hung, hung_url) = hung_redis();
    // The TLS handshake with a hung server is bounded as well.
    let hung_tls_url = hung_url.replace("redis://", "rediss://");
    for url in [refused_redis(), hung_url, hung_tls_url] {
        let log: CallLog = Arc::new(Mutex::new(Vec::new()));
        let auth = engine_on(json!({ "type": "redis", "url": url, "timeout": 0.3 }), &log, json!({}));
        let mut b = Browser::new(&auth);
        let started = Instant::now();
        let res = b.sign_in("ada", "secret");
        assert_eq!(res.status, 429, "credentials fail closed ({url})");
        assert!(started.elapsed() < Duration::from_secs(3), "bounded: {:?} ({url})", started.elapsed());
        let errors = logged_errors(&log);
        assert!(
            errors.iter().any(|e| e.contains("RateLimited") && e.contains("redis")),
            "a clear log line: {errors:?}"
        );
        // Magic links fail open: the link is sent.
        let started = Instant::now();
        let csrf = b.csrf();
        let res = b.post("/auth/signin/email", &[("csrfToken", &csrf), ("email", "ada@example.com")]);
        assert_eq!(res.status, 302, "email sign-in fails open ({url})");
        assert!(location(&res).contains("verify-request"), "{}", location(&res));
        assert!(started.elapsed() < Duration::from_secs(3));
    }
}

#[test]
fn fail_closed_is_configurable() {
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let open = engine_on(json!({ "type": "redis", "url": refused_redis(), "failClosed": false }), &log, json!({}));
    let mut b = Browser::new(&open);
    assert_eq!(b.sign_in("ada", "secret").status, 302, "failClosed: false lets the password check run");
    assert!(b.has_session_cookie());
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn the_engine_counts_on_a_shared_store_across_engines() {
    // Two engines (as two servers) on one Redis: 3 failures in all.
    let prefix = redis_prefix();
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let store = json!({ "type": "redis", "url": redis_url(), "keyPrefix": prefix });
    let (one, two) = (engine_on(store.clone(), &log, json!({})), engine_on(store, &log, json!({})));
    let statuses: Vec<u16> = (0..6)
        .map(|i| {
            let engine = if i % 2 == 0 { &one } else { &two };
            Browser::new(engine).sign_in("ada", "wrong").status
        })
        .collect();
    assert_eq!(statuses, [302, 302, 302, 429, 429, 429]);
}

#[test]
fn the_database_store_uses_the_adapters_database() {
    let file = temp_db_path();
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth =
        engine_on(json!({ "type": "database" }), &log, json!({ "adapter": { "type": "sqlite", "path": file.0 } }));
    let statuses: Vec<u16> = (0..4).map(|_| Browser::new(&auth).sign_in("ada", "wrong").status).collect();
    assert_eq!(statuses, [302, 302, 302, 429]);
    let conn = rusqlite_count(&file.0);
    assert!(conn >= 2, "the counts are rows of the adapter's file: {conn}");
}

fn rusqlite_count(path: &std::path::Path) -> i64 {
    let store = SqliteAdapter::open(path).unwrap();
    store.counter_rows().unwrap() as i64
}

#[test]
fn bad_store_options_name_the_option() {
    for (store, option) in [
        (json!("redis"), "rateLimit.store"),
        (json!({ "type": "mongo" }), "rateLimit.store.type"),
        (json!({ "type": "redis" }), "rateLimit.store.url"),
        (json!({ "type": "redis", "url": "http://x" }), "rateLimit.store.url"),
        (json!({ "type": "redis", "url": "redis://x", "timeout": 0 }), "rateLimit.store.timeout"),
        (json!({ "type": "redis", "url": "redis://x", "tls": true }), "rateLimit.store.tls"),
        (json!({ "type": "sqlite" }), "rateLimit.store.path"),
        (json!({ "type": "postgres", "url": "postgres://x", "poolSize": 0 }), "rateLimit.store.poolSize"),
        (json!({ "type": "memory", "failClosed": ["passwords"] }), "rateLimit.store.failClosed"),
        (json!({ "type": "database" }), "rateLimit.store.type"),
    ] {
        let config = libauth_core::Config::from_value(json!({
            "secret": SECRET, "trustHost": true, "rateLimit": { "store": store }
        }))
        .unwrap();
        let err = libauth_core::Auth::with_env(config, Arc::new(HookMap::new()), &std::collections::HashMap::new())
            .err()
            .expect("a config error");
        assert_eq!(err.option, option, "{store}");
    }
}

/// A refund gives back what `consume` took in the window, never below 0,
/// and only there (the credentials route reserves an attempt and refunds a
/// right password).
fn refunds(target: Target) {
    let store = target.store();
    for _ in 0..3 {
        store.consume("r", 1, WINDOW).unwrap();
    }
    store.refund("r", 1, WINDOW).unwrap();
    assert_eq!(store.consume("r", 0, WINDOW).unwrap().count, 2);
    store.refund("r", 5, WINDOW).unwrap();
    assert_eq!(store.consume("r", 0, WINDOW).unwrap().count, 0, "never below 0");
    store.refund("never-counted", 1, WINDOW).unwrap();
    assert_eq!(store.consume("never-counted", 1, WINDOW).unwrap().count, 1, "a refund makes no credit");
}

#[test]
fn refunds_on_every_store() {
    let file = temp_db_path();
    refunds(Target::Sqlite(file.0.display().to_string()));
    #[cfg(feature = "integration")] // PostgreSQL and Redis
    {
        let schema = temp_schema();
        refunds(Target::Postgres(schema.0.clone()));
        refunds(Target::Redis(redis_prefix()));
    }
    let memory = libauth_core::store::MemoryCounters::default();
    for _ in 0..2 {
        memory.consume("m", 1, WINDOW).unwrap();
    }
    memory.refund("m", 3, WINDOW).unwrap();
    assert_eq!(memory.consume("m", 0, WINDOW).unwrap().count, 0);
}
