//! Engine benchmarks, run by hand (never in tests):
//!
//!   cargo run --release -p libauth-bench
//!
//! Measures the hot paths in-process, without HTTP: `get_session` on the JWT
//! strategy, `handle(GET session)` with and without renewal, and a
//! credentials sign-in. Prints ops/s and µs/op; record results in README.md.

use std::sync::Arc;
use std::time::{Duration, Instant};

use libauth_core::{Auth, AuthRequest, Config, HookMap};
use serde_json::json;

const SECRET: &str = "bench-secret-bench-secret-bench-secret!";

fn main() {
    let auth = engine(json!({}));
    let cookie = sign_in(&auth);
    let session_req = AuthRequest::get("http://localhost:3000/dashboard").with_header("cookie", cookie.clone());
    assert!(auth.get_session(&session_req).unwrap().is_some(), "bench setup: signed in");

    report("get_session (JWT, no callbacks)", || {
        std::hint::black_box(auth.get_session(&session_req).unwrap());
    });
    let route_req = AuthRequest::get("http://localhost:3000/auth/session").with_header("cookie", cookie.clone());
    report("handle GET /auth/session (no renewal due)", || {
        std::hint::black_box(auth.handle(&route_req));
    });
    let always = engine(json!({ "session": { "updateAge": 0 } }));
    report("handle GET /auth/session (updateAge 0: re-encrypts)", || {
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
    report("get_session (JWT, Rust jwt+session callbacks)", || {
        std::hint::black_box(with_callbacks.get_session(&session_req).unwrap());
    });
    report("credentials sign-in (csrf + callback)", || {
        std::hint::black_box(sign_in(&auth));
    });

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

fn config(extra: serde_json::Value) -> Config {
    let mut c = json!({ "secret": SECRET, "providers": [{ "type": "credentials", "credentials": { "username": {}, "password": {} } }] });
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

/// Run `f` for about a second after a warm-up; print ops/s and µs/op.
fn report(name: &str, mut f: impl FnMut()) {
    for _ in 0..1000 {
        f();
    }
    let mut n = 0u64;
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(1) {
        for _ in 0..100 {
            f();
        }
        n += 100;
    }
    let secs = start.elapsed().as_secs_f64();
    println!("{name:<52} {:>12.0} ops/s  {:>8.2} µs/op", n as f64 / secs, secs * 1e6 / n as f64);
}
