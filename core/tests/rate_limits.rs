//! Rate limits through the routes: failed password guesses per username and
//! per IP, magic-link floods, callback floods, the 429 answers (page and
//! JSON), the event, and the server-side action.
mod common;

use std::sync::{Arc, Mutex};

use common::*;
use libauth_core::{AuthRequest, ErrorType, HookMap};
use serde_json::{json, Value};

fn counting_authorize(calls: Arc<Mutex<u32>>) -> HookMap {
    HookMap::new().on("providers.credentials.authorize", move |args| {
        *calls.lock().unwrap() += 1;
        authorize(args)
    })
}

#[test]
fn password_guesses_stop_at_the_limit_before_authorize_runs() {
    let calls = Arc::new(Mutex::new(0));
    let events = Arc::new(Mutex::new(Vec::<Value>::new()));
    let log = events.clone();
    let hooks = counting_authorize(calls.clone()).on("events.rateLimited", move |args| {
        log.lock().unwrap().push(args);
        Ok(Value::Null)
    });
    let auth = auth(json!({ "rateLimit": { "credentials": { "window": 600, "max": 3 } } }), hooks);
    let mut attacker = Browser::new(&auth);
    for _ in 0..3 {
        let res = attacker.sign_in("ada", "guess");
        assert_eq!(res.status, 302, "a refused password is the usual redirect");
    }
    assert_eq!(*calls.lock().unwrap(), 3);
    // The limit is reached: even the right password is not tried.
    let res = attacker.sign_in("ada", "secret");
    assert_eq!(res.status, 429);
    assert_eq!(*calls.lock().unwrap(), 3, "authorize did not run");
    assert!(!attacker.has_session_cookie());
    assert!(res.header("retry-after").unwrap().parse::<u64>().unwrap() >= 1);
    assert_eq!(res.header("ratelimit-policy"), Some("\"credentials\";q=3;w=600"));
    assert!(res.header("ratelimit").unwrap().starts_with("\"credentials\";r=0;t="));
    assert!(res.header("content-type").unwrap().starts_with("text/html"));
    assert!(res.body_str().contains("Too many attempts"));

    // From another IP, the same username is still limited (its own key)...
    let mut elsewhere = Browser::new(&auth);
    let csrf = elsewhere.csrf();
    let mut req = AuthRequest::post_form(
        format!("{ORIGIN}/auth/callback/credentials"),
        &[("csrfToken", &csrf), ("username", "ada"), ("password", "secret")],
    );
    req.remote_address = Some("203.0.113.9".into());
    req.headers.push(("x-auth-return-redirect".into(), "1".into()));
    let res = elsewhere.send(req);
    assert_eq!(res.status, 429);
    assert_eq!(res.json().unwrap()["error"], "RateLimited", "a JSON client gets JSON");
    // ...while another username from the first IP signs in.
    let mut colleague = Browser::new(&auth);
    assert_eq!(colleague.sign_in("throw", "x").status, 302);

    let events = events.lock().unwrap();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0]["route"], "credentials");
    let key = events[0]["key"].as_str().unwrap();
    assert!(key.starts_with("id:") && !key.contains("ada"), "the event holds a hash, not the username: {key}");
}

#[test]
fn one_ip_guessing_many_usernames_stops_at_the_per_ip_limit() {
    let auth = auth(json!({ "rateLimit": { "credentials": { "max": 100, "maxPerIp": 4 } } }), hooks());
    let mut b = Browser::new(&auth);
    let statuses: Vec<u16> = (0..6).map(|i| b.sign_in(&format!("user{i}"), "x").status).collect();
    assert_eq!(statuses, [302, 302, 302, 302, 429, 429]);
    // Another client address is unaffected.
    let mut other = Browser::new(&auth);
    let csrf = other.csrf();
    let mut req = AuthRequest::post_form(
        format!("{ORIGIN}/auth/callback/credentials"),
        &[("csrfToken", &csrf), ("username", "ada"), ("password", "secret")],
    );
    req.remote_address = Some("198.51.100.7".into());
    assert_eq!(other.send(req).status, 302);
    assert!(other.has_session_cookie());
}

#[test]
fn a_spoofed_forwarded_for_changes_nothing_without_trusted_proxies() {
    for trusted in [json!([]), json!(["10.0.0.0/8"])] {
        let auth = auth(
            json!({ "trustedProxies": trusted, "rateLimit": { "credentials": { "max": 100, "maxPerIp": 2 } } }),
            hooks(),
        );
        let mut b = Browser::new(&auth);
        let statuses: Vec<u16> = (0..3)
            .map(|i| {
                let csrf = b.csrf();
                let mut req = AuthRequest::post_form(
                    format!("{ORIGIN}/auth/callback/credentials"),
                    &[("csrfToken", &csrf), ("username", &format!("u{i}")), ("password", "x")],
                );
                // A new forged client address every time, from a peer that is no proxy.
                req.headers.push(("x-forwarded-for".into(), format!("192.0.2.{i}")));
                b.send(req).status
            })
            .collect();
        assert_eq!(statuses, [302, 302, 429], "trustedProxies {trusted}");
    }
}

#[test]
fn limits_can_be_turned_off() {
    let auth = auth(json!({ "rateLimit": false }), hooks());
    let mut b = Browser::new(&auth);
    for _ in 0..20 {
        assert_eq!(b.sign_in("ada", "wrong").status, 302);
    }
    assert_eq!(b.sign_in("ada", "secret").status, 302);
    assert!(b.has_session_cookie());
}

#[test]
fn the_server_side_action_is_limited_with_a_typed_error() {
    let auth = auth(json!({ "rateLimit": { "credentials": { "max": 1 } } }), hooks());
    let fields = |p: &str| json!({ "username": "ada", "password": p }).as_object().unwrap().clone();
    let req = AuthRequest { remote_address: Some("127.0.0.1".into()), ..AuthRequest::get(format!("{ORIGIN}/login")) };
    assert_eq!(
        auth.sign_in("credentials", fields("wrong"), &req).unwrap_err().error_type,
        ErrorType::CredentialsSignin
    );
    assert_eq!(auth.sign_in("credentials", fields("secret"), &req).unwrap_err().error_type, ErrorType::RateLimited);
}

#[test]
fn magic_links_to_one_address_stop_at_the_limit() {
    let sent = Arc::new(Mutex::new(0));
    let count = sent.clone();
    let hooks = HookMap::new().on("providers.email.sendVerificationRequest", move |_| {
        *count.lock().unwrap() += 1;
        Ok(Value::Null)
    });
    let auth = auth(
        json!({ "adapter": { "type": "memory" }, "rateLimit": { "email": { "max": 2 } },
                "providers": [{ "type": "email" }] }),
        hooks,
    );
    let mut b = Browser::new(&auth);
    let statuses: Vec<u16> = (0..4)
        .map(|i| {
            let csrf = b.csrf();
            // The address in any case and spacing is one address.
            let email = if i % 2 == 0 { "victim@example.com" } else { "Victim@Example.com" };
            b.post("/auth/signin/email", &[("csrfToken", &csrf), ("email", email)]).status
        })
        .collect();
    assert_eq!(statuses, [302, 302, 429, 429]);
    assert_eq!(*sent.lock().unwrap(), 2);
}

#[test]
fn callbacks_are_limited_per_ip() {
    let provider = json!({ "type": "oauth", "id": "idp", "clientId": "c", "clientSecret": "s",
        "authorization": "http://127.0.0.1:9/a", "token": "http://127.0.0.1:9/t", "userinfo": "http://127.0.0.1:9/u" });
    let auth = auth(json!({ "providers": [provider], "rateLimit": { "callback": { "max": 3 } } }), HookMap::new());
    let mut b = Browser::new(&auth);
    let statuses: Vec<u16> = (0..5).map(|_| b.get("/auth/callback/idp?code=x&state=y").status).collect();
    // Without a state cookie each callback fails (a redirect); past 3, 429.
    assert_eq!(statuses, [302, 302, 302, 429, 429]);
}

/// Guesses sent all at once cannot all pass the check before any of them is
/// counted: an attempt is reserved before `authorize` runs (and given back
/// only when the password was right).
#[test]
fn concurrent_guesses_are_counted_before_they_run() {
    let calls = Arc::new(Mutex::new(0));
    let counter = calls.clone();
    let hooks = HookMap::new().on("providers.credentials.authorize", move |args| {
        *counter.lock().unwrap() += 1;
        std::thread::sleep(std::time::Duration::from_millis(50)); // a slow password check
        authorize(args)
    });
    let auth = Arc::new(auth(json!({ "rateLimit": { "credentials": { "max": 3 } } }), hooks));
    let csrf = Browser::new(&auth).csrf_pair();
    let threads: Vec<_> = (0..32)
        .map(|_| {
            let (auth, csrf) = (auth.clone(), csrf.clone());
            std::thread::spawn(move || {
                let mut req = AuthRequest::post_form(
                    format!("{ORIGIN}/auth/callback/credentials"),
                    &[("csrfToken", &csrf.0), ("username", "ada"), ("password", "guess")],
                );
                req.headers.push(("cookie".into(), csrf.1.clone()));
                req.remote_address = Some("127.0.0.1".into());
                auth.handle(&req).status
            })
        })
        .collect();
    let statuses: Vec<u16> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    assert_eq!(*calls.lock().unwrap(), 3, "authorize ran only for the attempts within the limit");
    assert_eq!(statuses.iter().filter(|s| **s == 429).count(), 29);
    // A right password gives its attempt back: the owner is not locked out by
    // their own sign-ins.
    let owner = auth_with_room();
    let mut b = Browser::new(&owner);
    for _ in 0..5 {
        assert_eq!(b.sign_in("ada", "secret").status, 302);
    }
    assert_eq!(b.sign_in("ada", "wrong").status, 302, "still under the limit: successes were not counted");
}

fn auth_with_room() -> libauth_core::Auth {
    auth(json!({ "rateLimit": { "credentials": { "max": 1 } } }), hooks())
}
