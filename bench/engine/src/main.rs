//! Engine benchmarks, run by hand (never in tests):
//!
//!   cargo run --release -p libauth-bench
//!
//! Measures the hot paths in-process, without HTTP: `get_session` on the JWT
//! strategy, `handle(GET session)` with and without renewal, and a
//! credentials sign-in. Prints ops/s and µs/op. With an argument, runs only
//! the benchmarks whose name starts with it (`bench/bench.mjs` runs
//! `libauth-bench get_session` between its own rounds). `--calls N` makes
//! N `get_session` calls on one cookie (session cache hits) and prints
//! nothing, `--calls-cache-off N` the same with `session.cache: false`,
//! `--calls-first-sight N` and `--calls-first-sight-cache-off N` with a
//! different cookie on every call (N at most 3000): `bench/engine/run.sh`
//! runs them under callgrind for an instruction count per call.
//! `--calls-by-cookie N` makes N `get_session_by_cookie` calls (the URL and
//! the Cookie header, no request built) on one cookie, for
//! `bench/reads/run.sh`; `--print-cookie` prints the signed-in cookie.
//! `--calls-sign-out-check N` and `--calls-sign-out-check-off N` make N
//! reads of one cookie on JWT sessions beside a SQLite adapter, with the
//! sign-out check on and off.

use std::sync::Arc;
use std::time::{Duration, Instant};

use libauth_core::jwt::JwtCodec;
use libauth_core::{Auth, AuthRequest, Config, HookMap};
use serde_json::json;

const SECRET: &str = "bench-secret-bench-secret-bench-secret!";
/// The distinct cookies of the `--calls-first-sight` modes.
const FIRST_SIGHT_CALLS: usize = 3000;

fn main() {
    let only = std::env::args().nth(1);
    let report = |name: &str, f: &mut dyn FnMut()| {
        if only.as_deref().is_none_or(|o| name.starts_with(o)) {
            report(name, f);
        }
    };
    let wants = |name: &str| only.as_deref().is_none_or(|o| name.starts_with(o));
    let auth = engine(json!({}));
    let cookie = sign_in(&auth);
    let session_req = AuthRequest::get("http://localhost:3000/dashboard").with_header("cookie", cookie.clone());
    assert!(auth.get_session(&session_req).unwrap().is_some(), "bench setup: signed in");
    if only.as_deref() == Some("--print-cookie") {
        // The signed-in cookie, for bench/reads (the bindings read the same one).
        println!("{cookie}");
        return;
    }
    let uncached = engine(json!({ "session": { "cache": false } }));
    if let Some(mode) = only.as_deref().filter(|o| o.starts_with("--calls")) {
        let calls: usize = std::env::args().nth(2).and_then(|n| n.parse().ok()).expect("--calls N");
        if mode.starts_with("--calls-sign-out-check") {
            let stored = StoredEngine::new(!mode.ends_with("-off"));
            for _ in 0..calls {
                std::hint::black_box(stored.read());
            }
            return;
        }
        let engine = if mode.ends_with("cache-off") { &uncached } else { &auth };
        if mode == "--calls-by-cookie" {
            for _ in 0..calls {
                std::hint::black_box(
                    engine.get_session_by_cookie("http://localhost:3000/dashboard", Some(&cookie)).unwrap(),
                );
            }
            return;
        }
        if mode.starts_with("--calls-first-sight") {
            // A different cookie on every call; the pool's size is fixed, so
            // making it costs the same in runs of different lengths.
            let pool = distinct_cookies(&cookie, FIRST_SIGHT_CALLS);
            assert!(calls <= pool.len(), "at most {FIRST_SIGHT_CALLS} first-sight calls");
            for req in &pool[..calls] {
                std::hint::black_box(engine.get_session(req).unwrap());
            }
            return;
        }
        for _ in 0..calls {
            std::hint::black_box(engine.get_session(&session_req).unwrap());
        }
        return;
    }

    // The same cookie on every call, as a browser sends it: with the
    // session cache (on by default) every call after the first is a hit.
    report("get_session (JWT, no callbacks)", &mut || {
        std::hint::black_box(auth.get_session(&session_req).unwrap());
    });
    // The same read from the URL and the Cookie header (what every binding
    // calls): no request built.
    report("get_session_by_cookie (JWT, no callbacks)", &mut || {
        std::hint::black_box(auth.get_session_by_cookie("http://localhost:3000/dashboard", Some(&cookie)).unwrap());
    });
    // Today's cost without the cache: every call decrypts.
    report("get_session (JWT, no callbacks, cache off)", &mut || {
        std::hint::black_box(uncached.get_session(&session_req).unwrap());
    });
    // First sight with the cache on: a different cookie on every call (the
    // signed-in token's claims, each with its own `jti`, 20000 of them in
    // turn, far more than the cache holds): a miss, a decryption and an
    // insertion (and an eviction) each time.
    // The same cookies with the cache off: the cost before the cache on
    // the same, cache-cold, requests.
    if wants("get_session (JWT, no callbacks, first sight") {
        let fresh = engine(json!({}));
        let pool = distinct_cookies(&cookie, 20_000);
        let before = fresh.session_cache_stats().expect("cache on").decryptions;
        let mut calls = 0u64;
        report("get_session (JWT, no callbacks, first sight)", &mut || {
            let req = &pool[calls as usize % pool.len()];
            calls += 1;
            std::hint::black_box(fresh.get_session(req).unwrap());
        });
        let decrypted = fresh.session_cache_stats().expect("cache on").decryptions - before;
        println!("  first sight: {calls} reads, {decrypted} decrypted ({} hits)", calls - decrypted);
        let mut calls = 0usize;
        report("get_session (JWT, no callbacks, first sight, cache off)", &mut || {
            let req = &pool[calls % pool.len()];
            calls += 1;
            std::hint::black_box(uncached.get_session(req).unwrap());
        });
    }
    // JWT sessions beside a SQLite adapter: the sign-out check (on by
    // default there) against `session.revocationCheck: false`. The user's
    // sign-out time is read from the store once, then remembered.
    if wants("get_session (JWT + SQLite adapter") {
        for on in [true, false] {
            let stored = StoredEngine::new(on);
            let name = format!("get_session (JWT + SQLite adapter, sign-out check {})", if on { "on" } else { "off" });
            report(&name, &mut || {
                std::hint::black_box(stored.read());
            });
        }
    }
    let route_req = AuthRequest::get("http://localhost:3000/auth/session").with_header("cookie", cookie.clone());
    report("handle GET /auth/session (no renewal due)", &mut || {
        std::hint::black_box(auth.handle(&route_req));
    });
    let always = engine(json!({ "session": { "updateAge": 0 } }));
    report("handle GET /auth/session (updateAge 0: re-encrypts)", &mut || {
        std::hint::black_box(always.handle(&route_req));
    });
    let with_callbacks = Auth::new(
        config(json!({})),
        Arc::new(
            hooks()
                .on("callbacks.jwt", |a| Ok(a["token"].clone()))
                .on("callbacks.session", |a| Ok(a["session"].clone())),
        ),
    )
    .unwrap();
    report("get_session (JWT, Rust jwt+session callbacks)", &mut || {
        std::hint::black_box(with_callbacks.get_session(&session_req).unwrap());
    });
    report("credentials sign-in (csrf + callback)", &mut || {
        std::hint::black_box(sign_in(&auth));
    });

    if only.is_some() {
        return;
    }
    // Both cores: Auth is shared by threads with no lock on the read path.
    let threads = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
    let auth = Arc::new(auth);
    let per_thread = 200_000;
    let start = Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (auth, req) = (auth.clone(), session_req.clone());
            std::thread::spawn(move || {
                for _ in 0..per_thread {
                    std::hint::black_box(auth.get_session(&req).unwrap());
                }
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    let ops = (threads * per_thread) as f64 / start.elapsed().as_secs_f64();
    println!("{:<52} {:>12.0} ops/s  ({threads} threads)", "get_session (JWT), all cores", ops);
}

/// An engine with JWT sessions beside a SQLite adapter (in a temporary
/// file, deleted on drop) and a signed-in cookie.
struct StoredEngine {
    auth: Auth,
    cookie: String,
    path: std::path::PathBuf,
}

impl StoredEngine {
    fn new(check: bool) -> StoredEngine {
        let path = std::env::temp_dir().join(format!("libauth-bench-{}-{check}.db", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let auth = engine(json!({
            "adapter": { "type": "sqlite", "path": path },
            "session": { "strategy": "jwt", "revocationCheck": check },
        }));
        let cookie = sign_in(&auth);
        assert!(auth.get_session_by_cookie(DASHBOARD, Some(&cookie)).unwrap().is_some(), "bench setup: signed in");
        assert_eq!(auth.sign_out_reads().is_some(), check, "bench setup: the check is {check}");
        StoredEngine { auth, cookie, path }
    }

    fn read(&self) -> Option<libauth_core::SessionView> {
        self.auth.get_session_view_by_cookie(DASHBOARD, Some(&self.cookie)).unwrap()
    }
}

impl Drop for StoredEngine {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.path.display()));
        }
    }
}

const DASHBOARD: &str = "http://localhost:3000/dashboard";

/// `n` session cookies like `cookie` (the same claims, each its own `jti`),
/// as requests.
fn distinct_cookies(cookie: &str, n: usize) -> Vec<AuthRequest> {
    let (name, value) = cookie.split_once('=').expect("name=value");
    let codec = JwtCodec::new(vec![SECRET.into()], &[name]);
    let claims = codec.decode(value, name).expect("the bench's own cookie");
    (0..n)
        .map(|_| {
            let token = codec.encode(&claims, name, 3600).expect("encodes");
            AuthRequest::get("http://localhost:3000/dashboard").with_header("cookie", format!("{name}={token}"))
        })
        .collect()
}

fn config(extra: serde_json::Value) -> Config {
    let mut c = json!({ "secret": SECRET, "trustHost": true, "providers": [{ "type": "credentials", "credentials": { "username": {}, "password": {} } }] });
    for (k, v) in extra.as_object().unwrap() {
        c[k] = v.clone();
    }
    Config::from_value(c).unwrap()
}

fn hooks() -> HookMap {
    HookMap::new().on("providers.credentials.authorize", |_| {
        Ok(json!({ "id": "1", "name": "Bench User", "email": "bench@example.com", "image": "https://img.example/u.png" }))
    })
}

fn engine(extra: serde_json::Value) -> Auth {
    Auth::new(config(extra), Arc::new(hooks())).unwrap()
}

/// Sign in and return the Cookie header of the signed-in browser.
fn sign_in(auth: &Auth) -> String {
    let res = auth.handle(&AuthRequest::get("http://localhost:3000/auth/csrf"));
    let csrf_cookie = res.set_cookies().next().unwrap().split(';').next().unwrap().to_owned();
    let token = res.json().unwrap()["csrfToken"].as_str().unwrap().to_owned();
    let req = AuthRequest::post_form(
        "http://localhost:3000/auth/callback/credentials",
        &[("csrfToken", &token), ("username", "u"), ("password", "p")],
    )
    .with_header("cookie", csrf_cookie);
    let res = auth.handle(&req);
    let cookie = res.set_cookies().find(|c| c.starts_with("authjs.session-token=")).unwrap();
    cookie.split(';').next().unwrap().to_owned()
}

/// Run `f` in 5 rounds of about 0.4 s each after a warm-up; print the
/// median ops/s and µs/op, and the spread (slowest and fastest round) of
/// µs/op. `bench/bench.mjs` reads these lines.
fn report(name: &str, f: &mut dyn FnMut()) {
    for _ in 0..1000 {
        f();
    }
    let mut rounds: Vec<f64> = (0..5)
        .map(|_| {
            let mut n = 0u64;
            let start = Instant::now();
            while start.elapsed() < Duration::from_millis(400) {
                for _ in 0..100 {
                    f();
                }
                n += 100;
            }
            start.elapsed().as_secs_f64() * 1e6 / n as f64
        })
        .collect();
    rounds.sort_by(f64::total_cmp);
    let median = rounds[2];
    println!("{name:<52} {:>12.0} ops/s  {median:>8.2} µs/op  ({:.2}–{:.2})", 1e6 / median, rounds[0], rounds[4]);
}
