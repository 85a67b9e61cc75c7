//! The storage floor's before/after benchmark (run by `bench/storage/run.sh`,
//! by hand, never in tests): `storage-floor MODE N` makes N calls of one
//! kind and prints nothing, for callgrind to count the instructions per
//! call (the difference between two values of N, so setting up costs
//! nothing). Public API only, so the same file builds against an older
//! engine for the comparison.
//!
//! Modes:
//! - `jwt-read`: `get_session`, JWT strategy, session cache off (every call
//!   decrypts);
//! - `db-read`: `get_session`, database strategy on SQLite (a join per call);
//! - `sign-in`: a credentials sign-in (csrf + callback), JWT strategy;
//! - `db-sign-in`: the same with database sessions on SQLite (a user and a
//!   session written per call).

use std::sync::Arc;

use libauth_core::{Auth, AuthRequest, Config, HookMap};
use serde_json::json;

const SECRET: &str = "bench-secret-bench-secret-bench-secret!";

fn main() {
    let mode = std::env::args().nth(1).expect("MODE: jwt-read, db-read, sign-in or db-sign-in");
    let calls: usize = std::env::args().nth(2).and_then(|n| n.parse().ok()).expect("N");
    let db = std::env::temp_dir().join(format!("libauth-storage-bench-{}.db", std::process::id()));
    let database = json!({ "adapter": { "type": "sqlite", "path": db }, "session": { "strategy": "database" } });
    let jwt = json!({ "session": { "cache": false } });
    let auth = engine(if mode.starts_with("db-") { database } else { jwt });
    match mode.as_str() {
        "jwt-read" | "db-read" => {
            let req = AuthRequest::get("http://localhost:3000/dashboard").with_header("cookie", sign_in(&auth));
            assert!(auth.get_session(&req).unwrap().is_some(), "signed in");
            for _ in 0..calls {
                std::hint::black_box(auth.get_session(&req).unwrap());
            }
        }
        "sign-in" | "db-sign-in" => {
            for i in 0..calls {
                std::hint::black_box(sign_in_as(&auth, &format!("user-{i}")));
            }
        }
        other => panic!("unknown mode {other}"),
    }
    for suffix in ["", "-wal", "-shm"] {
        let mut path = db.clone().into_os_string();
        path.push(suffix);
        let _ = std::fs::remove_file(path);
    }
}

fn engine(extra: serde_json::Value) -> Auth {
    let mut c = json!({ "secret": SECRET, "trustHost": true, "providers": [{ "type": "credentials", "credentials": { "username": {}, "password": {} } }] });
    for (k, v) in extra.as_object().unwrap() {
        c[k] = v.clone();
    }
    let hooks = HookMap::new().on("providers.credentials.authorize", |args| {
        let name = args["credentials"]["username"].as_str().unwrap_or("u").to_owned();
        Ok(json!({ "id": name, "name": "Bench User", "email": format!("{name}@example.com") }))
    });
    Auth::new(Config::from_value(c).unwrap(), Arc::new(hooks)).unwrap()
}

fn sign_in(auth: &Auth) -> String {
    sign_in_as(auth, "u")
}

/// Sign `user` in; the Cookie header of the signed-in browser.
fn sign_in_as(auth: &Auth, user: &str) -> String {
    let peer = |req: AuthRequest| AuthRequest { remote_address: Some("203.0.113.7".into()), ..req };
    let res = auth.handle(&peer(AuthRequest::get("http://localhost:3000/auth/csrf")));
    let csrf_cookie = res.set_cookies().next().unwrap().split(';').next().unwrap().to_owned();
    let token = res.json().unwrap()["csrfToken"].as_str().unwrap().to_owned();
    let req = AuthRequest::post_form(
        "http://localhost:3000/auth/callback/credentials",
        &[("csrfToken", &token), ("username", user), ("password", "p")],
    )
    .with_header("cookie", csrf_cookie);
    let res = auth.handle(&peer(req));
    let cookie = res.set_cookies().find(|c| c.starts_with("authjs.session-token=")).expect("signed in");
    cookie.split(';').next().unwrap().to_owned()
}
