//! What sharing state between server processes costs, run by hand (never
//! in tests; `bench/scale-out/run.sh` runs it and records the figures):
//!
//!   cargo run --release -p libauth-bench --bin scale-out
//!
//! - The limiter on a credentials sign-in (its two keys, the client IP and
//!   the username): the check made before `authorize` (a read), and the
//!   count of a refused password (+1), on the memory store, PostgreSQL and
//!   Redis.
//! - `get_session` on database sessions kept in PostgreSQL, and in Redis
//!   secondary storage (the user still read from PostgreSQL).
//!
//! PostgreSQL and Redis on 127.0.0.1 (`LIBAUTH_BENCH_POSTGRES_URL`,
//! `LIBAUTH_BENCH_REDIS_URL`). Each row: 3 rounds of ~0.3 s after a warm-up,
//! one thread; median µs/op and the rounds' min-max.

use std::sync::Arc;
use std::time::{Duration, Instant};

use libauth_core::ratelimit::{Limiter, RateLimits, Route, TrustedProxies};
use libauth_core::store::redis::{RedisOptions, RedisPool};
use libauth_core::store::{CounterStore, MemoryCounters, PostgresAdapter, PostgresOptions, RedisStore};
use libauth_core::{Auth, AuthRequest, Config, HookMap};
use serde_json::json;

const SECRET: &str = "bench-secret-bench-secret-bench-secret!";
const SCHEMA: &str = "libauth_bench";

fn main() {
    let pg_url = std::env::var("LIBAUTH_BENCH_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned());
    let redis_url = std::env::var("LIBAUTH_BENCH_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned());
    let prefix = format!("libauth-bench:{}:", std::process::id());

    let pg_options = PostgresOptions { schema: SCHEMA.into(), ..PostgresOptions::new(pg_url.clone()) };
    let stores: [(&str, Arc<dyn CounterStore>); 3] = [
        ("memory", Arc::new(MemoryCounters::default())),
        ("PostgreSQL", Arc::new(PostgresAdapter::new(&pg_options).expect("PostgreSQL options"))),
        (
            "Redis",
            Arc::new(RedisStore::new(Arc::new(
                RedisPool::new(&RedisOptions { key_prefix: prefix.clone(), ..RedisOptions::new(redis_url.clone()) })
                    .expect("Redis options"),
            ))),
        ),
    ];
    let req = AuthRequest { remote_address: Some("203.0.113.7".into()), ..AuthRequest::get("http://localhost/") };
    for (name, store) in stores {
        let limiter = Limiter::new(RateLimits::default(), store, TrustedProxies::none(), SECRET);
        report(&format!("limiter check before a password (2 keys, read), {name}"), &mut || {
            let keys = limiter.keys(Route::Credentials, &req, &["ada@example.com"]);
            std::hint::black_box(limiter.check(Route::Credentials, &keys, 0).expect("the store answers"));
        });
        report(&format!("limiter count of a failure (2 keys, +1), {name}"), &mut || {
            let keys = limiter.keys(Route::Credentials, &req, &["ada@example.com"]);
            std::hint::black_box(limiter.check(Route::Credentials, &keys, 1).expect("the store answers"));
        });
    }

    let adapter = json!({ "type": "postgres", "url": pg_url, "schema": SCHEMA });
    let secondary = json!({ "type": "redis", "url": redis_url, "keyPrefix": prefix });
    for (name, extra) in [
        ("get_session (database), PostgreSQL", json!({ "adapter": adapter })),
        (
            "get_session (database), Redis secondary storage",
            json!({ "adapter": adapter, "secondaryStorage": secondary }),
        ),
    ] {
        let auth = engine(extra);
        let cookie = sign_in(&auth);
        let req = AuthRequest::get("http://localhost:3000/dashboard").with_header("cookie", cookie);
        assert!(auth.get_session(&req).expect("a session read").is_some(), "bench setup: signed in");
        report(name, &mut || {
            std::hint::black_box(auth.get_session(&req).expect("a session read"));
        });
    }
}

fn engine(extra: serde_json::Value) -> Auth {
    let mut c = json!({ "secret": SECRET, "trustHost": true, "providers": [{ "type": "credentials", "credentials": { "username": {}, "password": {} } }] });
    for (k, v) in extra.as_object().expect("an object") {
        c[k] = v.clone();
    }
    let hooks = HookMap::new().on("providers.credentials.authorize", |_| {
        Ok(json!({ "id": "bench-user", "name": "Bench User", "email": "bench@example.com" }))
    });
    Auth::new(Config::from_value(c).expect("a valid config"), Arc::new(hooks)).expect("the engine builds")
}

fn sign_in(auth: &Auth) -> String {
    let res = auth.handle(&AuthRequest::get("http://localhost:3000/auth/csrf"));
    let csrf_cookie = res.set_cookies().next().and_then(|c| c.split(';').next()).expect("a CSRF cookie").to_owned();
    let token = res.json().and_then(|j| j["csrfToken"].as_str().map(str::to_owned)).expect("a CSRF token");
    let mut req = AuthRequest::post_form(
        "http://localhost:3000/auth/callback/credentials",
        &[("csrfToken", &token), ("username", "u"), ("password", "p")],
    )
    .with_header("cookie", csrf_cookie);
    req.remote_address = Some("127.0.0.1".into());
    let res = auth.handle(&req);
    let cookie = res.set_cookies().find(|c| c.starts_with("authjs.session-token=")).expect("a session cookie");
    cookie.split(';').next().unwrap_or_default().to_owned()
}

fn report(name: &str, f: &mut dyn FnMut()) {
    for _ in 0..200 {
        f();
    }
    let mut rounds: Vec<f64> = (0..3)
        .map(|_| {
            let mut n = 0u64;
            let start = Instant::now();
            while start.elapsed() < Duration::from_millis(300) {
                for _ in 0..20 {
                    f();
                }
                n += 20;
            }
            start.elapsed().as_secs_f64() * 1e6 / n as f64
        })
        .collect();
    rounds.sort_by(f64::total_cmp);
    println!("| {name} | {:.1} | {:.1}–{:.1} |", rounds[1], rounds[0], rounds[2]);
}
