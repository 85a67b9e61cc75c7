//! What the engine spends verifying a passkey sign-in, in-process:
//!
//!   cargo run --release -p libauth-bench --bin passkey_verify
//!
//! A software authenticator (core's test one) registers an ES256 passkey
//! on the memory adapter; then, per sign-in, the options route and the
//! authenticator's signature run untimed, and `POST callback/passkey` is
//! timed: CSRF check, challenge cookie, the challenge spent, the stored
//! passkey read, the assertion verified (webauthn-rs-core, OpenSSL), the
//! counter stored, the session JWT issued. Prints one Markdown table row:
//! µs per sign-in, median of 5 rounds (min–max). `bench/passkeys/run.sh`
//! puts it beside @simplewebauthn/server's figure.

#[path = "../../../../core/tests/common/authenticator.rs"]
mod authenticator;

use std::sync::Arc;
use std::time::{Duration, Instant};

use authenticator::{Alg, SoftAuthenticator};
use libauth_core::{Auth, AuthRequest, AuthResponse, Config, HookMap};
use serde_json::{json, Value};

const ORIGIN: &str = "http://localhost:3000";

struct Browser<'a> {
    auth: &'a Auth,
    cookies: Vec<(String, String)>,
}

impl Browser<'_> {
    fn send(&mut self, mut req: AuthRequest) -> AuthResponse {
        let jar: Vec<String> = self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if !jar.is_empty() {
            req.headers.push(("cookie".into(), jar.join("; ")));
        }
        req.remote_address = Some("127.0.0.1".into());
        let res = self.auth.handle(&req);
        for line in res.set_cookies() {
            let (name, value) = line.split(';').next().unwrap().split_once('=').unwrap();
            self.cookies.retain(|(k, _)| k != name);
            if !line.contains("Max-Age=0") {
                self.cookies.push((name.to_owned(), value.to_owned()));
            }
        }
        res
    }

    fn options(&mut self, query: &str) -> Value {
        let res = self.send(AuthRequest::get(format!("{ORIGIN}/auth/webauthn-options/passkey?{query}")));
        assert_eq!(res.status, 200);
        res.json().unwrap()["options"].clone()
    }

    fn callback_request(&mut self, action: &str, credential: &Value) -> AuthRequest {
        let res = self.send(AuthRequest::get(format!("{ORIGIN}/auth/csrf")));
        let csrf = res.json().unwrap()["csrfToken"].as_str().unwrap().to_owned();
        let data = credential.to_string();
        AuthRequest::post_form(
            format!("{ORIGIN}/auth/callback/passkey"),
            &[("action", action), ("data", &data), ("csrfToken", &csrf)],
        )
    }
}

fn main() {
    let config = Config::from_value(json!({
        "secret": "bench-secret-bench-secret-bench-secret!",
        "trustHost": true,
        "experimental": { "enableWebAuthn": true },
        "adapter": { "type": "memory" },
        "rateLimit": false,
        "providers": [{ "type": "webauthn" }],
    }))
    .unwrap();
    let auth = Auth::new(config, Arc::new(HookMap::new())).unwrap();
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let mut browser = Browser { auth: &auth, cookies: Vec::new() };
    let options = browser.options("email=bench@example.com");
    let req = browser.callback_request("register", &key.register(&options));
    assert_eq!(browser.send(req).status, 302);

    let mut sign_in = || -> Duration {
        let mut b = Browser { auth: &auth, cookies: Vec::new() };
        let options = b.options("");
        let req = b.callback_request("authenticate", &key.authenticate(&options));
        let start = Instant::now();
        let res = b.send(req);
        let took = start.elapsed();
        assert!(res.header("location").is_some_and(|l| !l.contains("error")), "the sign-in failed");
        took
    };
    for _ in 0..200 {
        sign_in();
    }
    let per_round = 1000;
    let mut rounds: Vec<f64> = (0..5)
        .map(|_| (0..per_round).map(|_| sign_in()).sum::<Duration>().as_secs_f64() * 1e6 / per_round as f64)
        .collect();
    rounds.sort_by(f64::total_cmp);
    println!(
        "| libauth engine, in-process: `handle(POST /auth/callback/passkey)` (CSRF, challenge, memory adapter, verify, counter, session JWT) | {:.1} ({:.1}–{:.1}) | {:.0} |",
        rounds[2],
        rounds[0],
        rounds[4],
        1e6 / rounds[2]
    );
}
