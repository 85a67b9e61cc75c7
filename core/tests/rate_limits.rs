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

// ---------------------------------------------------------------------------
// R1-R3: what a client controls cannot reset or escape a count.

/// A credentials POST with the given fields from `peer`, with extra headers.
fn post_credentials(
    auth: &libauth_core::Auth,
    csrf: &(String, String),
    peer: &str,
    fields: &[(&str, &str)],
    headers: &[(&str, &str)],
) -> u16 {
    let mut pairs = vec![("csrfToken", csrf.0.as_str())];
    pairs.extend_from_slice(fields);
    let mut req = AuthRequest::post_form(format!("{ORIGIN}/auth/callback/credentials"), &pairs);
    req.headers.push(("cookie".into(), csrf.1.clone()));
    req.headers.extend(headers.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    req.remote_address = Some(peer.into());
    auth.handle(&req).status
}

/// An engine whose `authorize` refuses every password and counts the calls
/// per value of `field` (trimmed, lowercased).
fn counting_engine(extra: Value, field: &'static str) -> (libauth_core::Auth, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let hooks = HookMap::new().on("providers.credentials.authorize", move |args| {
        let value = args["credentials"][field].as_str().unwrap_or_default().trim().to_lowercase();
        log.lock().unwrap().push(value);
        Ok(Value::Null)
    });
    (auth(extra, hooks), seen)
}

fn runs_for(seen: &Arc<Mutex<Vec<String>>>, value: &str) -> usize {
    seen.lock().unwrap().iter().filter(|v| *v == value).count()
}

mod r1 {
    use super::*;
    use libauth_core::ratelimit::{Limiter, RateLimits, Route, TrustedProxies, Verdict};
    use libauth_core::store::MemoryCounters as MemoryStore;
    use proptest::prelude::*;

    /// One junk request: from which of many addresses, with which username.
    fn junk() -> impl Strategy<Value = (u16, String)> {
        (0u16..300, "[ -~]{0,12}")
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// R1: a flood of arbitrary usernames from arbitrary addresses, far
        /// more keys than the store holds, never resets a count that is at
        /// its limit: the per-username count of `ada` and the per-IP count
        /// of an address at its limit both still refuse.
        #[test]
        fn junk_identifiers_never_reset_a_counted_key(flood in proptest::collection::vec(junk(), 100..400)) {
            // Limits as low as the flood's own counts: the victims' keys are
            // no costlier to keep than the junk's (at their limit with 1 and 2).
            let (auth, seen) = counting_engine(
                json!({ "rateLimit": { "credentials": { "window": 3600, "max": 1, "maxPerIp": 2 },
                                       "store": { "type": "memory", "maxKeys": 64 } } }),
                "username",
            );
            let csrf = Browser::new(&auth).csrf_pair();
            post_credentials(&auth, &csrf, "198.51.100.1", &[("username", "ada"), ("password", "x")], &[]);
            prop_assert_eq!(runs_for(&seen, "ada"), 1);
            for user in ["other-1", "other-2"] {
                post_credentials(&auth, &csrf, "203.0.113.1", &[("username", user), ("password", "x")], &[]);
            }
            for (peer, user) in &flood {
                let peer = format!("2001:db8:{peer:x}::1");
                post_credentials(&auth, &csrf, &peer, &[("username", user), ("password", "x")], &[]);
            }
            let ada = post_credentials(&auth, &csrf, "192.0.2.200", &[("username", "ada"), ("password", "x")], &[]);
            prop_assert_eq!(ada, 429, "ada's count survived the flood");
            prop_assert_eq!(runs_for(&seen, "ada"), 1);
            let ip = post_credentials(&auth, &csrf, "203.0.113.1", &[("username", "fresh"), ("password", "x")], &[]);
            prop_assert_eq!(ip, 429, "the address at its limit is still refused");
        }

        /// R1: requests refused on their IP key add no key, whatever
        /// identifiers they carry.
        #[test]
        fn a_request_refused_on_its_ip_adds_no_key(ids in proptest::collection::vec("[ -~]{0,16}", 1..200)) {
            let limits = RateLimits::parse(Some(&json!({ "credentials": { "max": 5, "maxPerIp": 3 } }))).unwrap();
            let store = Arc::new(MemoryStore::with_capacity(10_000));
            let limiter = Limiter::new(limits, store.clone(), TrustedProxies::none(), "secret");
            let req = AuthRequest { remote_address: Some("192.0.2.1".into()), ..AuthRequest::get("http://x/") };
            for user in ["a", "b", "c"] {
                let keys = limiter.keys(Route::Credentials, &req, &[user]);
                prop_assert_eq!(limiter.check(Route::Credentials, &keys, 1).unwrap(), Verdict::Allowed);
            }
            let stored = store.len();
            for id in &ids {
                let keys = limiter.keys(Route::Credentials, &req, &[id.as_str()]);
                let refused = matches!(limiter.check(Route::Credentials, &keys, 1).unwrap(), Verdict::Limited(l) if l.key.starts_with("ip:"));
                prop_assert!(refused);
            }
            prop_assert_eq!(store.len(), stored);
        }
    }

    #[test]
    fn the_memory_store_bound_is_an_option_checked_at_construction() {
        let built = libauth_core::Auth::with_env(
            config(json!({ "rateLimit": { "store": { "type": "memory", "maxKeys": 0 } } })),
            Arc::new(hooks()),
            &std::collections::HashMap::new(),
        );
        assert_eq!(built.err().unwrap().option, "rateLimit.store.maxKeys");
    }
}

mod r2 {
    use super::*;
    use proptest::prelude::*;

    /// Undeclared fields a client may add: any name (but the declared ones
    /// and the CSRF token), any value.
    fn decoys(declared: &'static [&'static str]) -> impl Strategy<Value = Vec<(String, String)>> {
        let name = prop_oneof![Just("username".to_owned()), Just("email".to_owned()), "[a-zA-Z_]{1,10}"]
            .prop_filter("undeclared", move |n| n != "csrfToken" && !declared.contains(&n.as_str()));
        proptest::collection::vec((name, "[ -~]{0,24}"), 1..4)
    }

    fn guess_with(
        auth: &libauth_core::Auth,
        csrf: &(String, String),
        i: usize,
        fields: &[(&str, &str)],
        decoys: &[(String, String)],
    ) {
        let mut all: Vec<(&str, &str)> = fields.to_vec();
        all.extend(decoys.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        // A new address for every guess: only the per-account key can stop them.
        post_credentials(auth, csrf, &format!("10.{}.{}.1", i / 250, i % 250), &all, &[]);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// R2: with `email` declared (the usual email + password form, the
        /// password declared with or without `type: "password"`), arbitrary
        /// undeclared fields on every guess never give a new per-account
        /// key: `authorize` sees the victim's address at most `max` times.
        #[test]
        fn decoy_fields_never_escape_the_declared_account_key(
            per_guess in proptest::collection::vec(decoys(&["email", "password"]), 12),
            typed_password in any::<bool>(),
        ) {
            let password = if typed_password { json!({ "type": "password" }) } else { json!({}) };
            let (auth, seen) = counting_engine(
                json!({ "providers": [{ "type": "credentials", "credentials": { "email": {}, "password": password } }],
                        "rateLimit": { "credentials": { "max": 3 } } }),
                "email",
            );
            let csrf = Browser::new(&auth).csrf_pair();
            for (i, decoys) in per_guess.iter().enumerate() {
                let password = format!("guess-{i}");
                guess_with(&auth, &csrf, i, &[("email", "victim@example.com"), ("password", &password)], decoys);
            }
            prop_assert_eq!(runs_for(&seen, "victim@example.com"), 3);
        }

        /// R2: several declared fields make one key (a tenant and a user);
        /// undeclared decoys do not change it.
        #[test]
        fn several_declared_fields_make_one_key_that_decoys_do_not_change(
            per_guess in proptest::collection::vec(decoys(&["tenant", "username", "password"]), 12),
        ) {
            let (auth, seen) = counting_engine(
                json!({ "providers": [{ "type": "credentials", "credentials": {
                            "tenant": {}, "username": {}, "password": { "type": "password" } } }],
                        "rateLimit": { "credentials": { "max": 3 } } }),
                "username",
            );
            let csrf = Browser::new(&auth).csrf_pair();
            for (i, decoys) in per_guess.iter().enumerate() {
                guess_with(&auth, &csrf, i, &[("tenant", "acme"), ("username", "ada"), ("password", "x")], decoys);
            }
            prop_assert_eq!(runs_for(&seen, "ada"), 3);
        }

        /// R2: with no field declared, `username` and `email` are each
        /// counted: a random value in one does not escape the other's count.
        #[test]
        fn without_declared_fields_username_and_email_are_each_counted(
            junk in proptest::collection::vec("[ -~]{1,16}", 12), vary_username in any::<bool>(),
        ) {
            let (auth, seen) = counting_engine(
                json!({ "providers": [{ "type": "credentials" }], "rateLimit": { "credentials": { "max": 3 } } }),
                if vary_username { "email" } else { "username" },
            );
            let csrf = Browser::new(&auth).csrf_pair();
            for (i, junk) in junk.iter().enumerate() {
                let fields: [(&str, &str); 3] = if vary_username {
                    [("username", junk), ("email", "victim@example.com"), ("password", "x")]
                } else {
                    [("username", "victim"), ("email", junk), ("password", "x")]
                };
                guess_with(&auth, &csrf, i, &fields, &[]);
            }
            let victim = if vary_username { "victim@example.com" } else { "victim" };
            prop_assert_eq!(runs_for(&seen, victim), 3);
        }
    }

    /// The account is the declared field's value in any case and spacing,
    /// and different accounts have different counts.
    #[test]
    fn the_declared_key_is_the_account_not_its_spelling() {
        let (auth, seen) = counting_engine(
            json!({ "providers": [{ "type": "credentials", "credentials": { "email": {}, "password": {} } }],
                    "rateLimit": { "credentials": { "max": 2 } } }),
            "email",
        );
        let csrf = Browser::new(&auth).csrf_pair();
        for (i, email) in ["Victim@Example.com", " victim@example.com", "VICTIM@EXAMPLE.COM "].iter().enumerate() {
            guess_with(&auth, &csrf, i, &[("email", email), ("password", "x")], &[]);
        }
        assert_eq!(runs_for(&seen, "victim@example.com"), 2);
        guess_with(&auth, &csrf, 9, &[("email", "someone@example.com"), ("password", "x")], &[]);
        assert_eq!(runs_for(&seen, "someone@example.com"), 1, "another account has its own count");
    }
}

mod r3 {
    use super::*;
    use proptest::prelude::*;

    const PROXY: &str = "10.0.0.1";
    const CLIENT: &str = "203.0.113.50";

    fn engine(header: Option<&str>) -> (libauth_core::Auth, Arc<Mutex<Vec<String>>>) {
        let mut extra =
            json!({ "trustedProxies": [PROXY], "rateLimit": { "credentials": { "max": 100, "maxPerIp": 5 } } });
        if let Some(h) = header {
            extra["forwardedHeader"] = json!(h);
        }
        counting_engine(extra, "username")
    }

    /// What a client may write in a forwarding header.
    fn spoof() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            any::<[u8; 4]>().prop_map(|b| std::net::IpAddr::from(b).to_string()),
            any::<[u8; 4]>().prop_map(|b| format!("for={}", std::net::IpAddr::from(b))),
            any::<[u16; 8]>().prop_map(|s| format!("for=\"[{}]\"", std::net::IpAddr::from(s))),
            "[ -~]{0,16}",
        ];
        proptest::collection::vec(piece, 0..4).prop_map(|p| p.join(", "))
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        /// R3: the proxy writes `Forwarded` (`forwardedHeader: "forwarded"`);
        /// whatever the client sends in `X-Forwarded-For` (passed through),
        /// its guesses count against its real address.
        #[test]
        fn a_client_x_forwarded_for_never_changes_the_key_behind_a_forwarded_proxy(
            spoofs in proptest::collection::vec(spoof(), 10)
        ) {
            let (auth, seen) = engine(Some("forwarded"));
            let csrf = Browser::new(&auth).csrf_pair();
            let forwarded = format!("for={CLIENT};proto=https");
            for (i, xff) in spoofs.iter().enumerate() {
                let user = format!("user-{i}");
                let headers = [("x-forwarded-for", xff.as_str()), ("forwarded", forwarded.as_str())];
                post_credentials(&auth, &csrf, PROXY, &[("username", &user), ("password", "x")], &headers);
            }
            prop_assert_eq!(seen.lock().unwrap().len(), 5, "the per-IP limit of {}", CLIENT);
        }

        /// R3, the other way (the default, `x-forwarded-for`): the proxy
        /// appends the client to `X-Forwarded-For`; whatever the client
        /// sends in `Forwarded`, or before its address in X-Forwarded-For,
        /// changes nothing.
        #[test]
        fn a_client_forwarded_never_changes_the_key_behind_an_x_forwarded_for_proxy(
            spoofs in proptest::collection::vec((spoof(), spoof()), 10), explicit in any::<bool>()
        ) {
            let (auth, seen) = engine(explicit.then_some("x-forwarded-for"));
            let csrf = Browser::new(&auth).csrf_pair();
            for (i, (fwd, prefix)) in spoofs.iter().enumerate() {
                let user = format!("user-{i}");
                let xff = format!("{prefix}, {CLIENT}");
                let headers = [("forwarded", fwd.as_str()), ("x-forwarded-for", xff.as_str())];
                post_credentials(&auth, &csrf, PROXY, &[("username", &user), ("password", "x")], &headers);
            }
            prop_assert_eq!(seen.lock().unwrap().len(), 5, "the per-IP limit of {}", CLIENT);
        }
    }

    #[test]
    fn forwarded_header_is_checked_at_construction() {
        for bad in [json!("x-real-ip"), json!(1), json!(["forwarded"])] {
            let built = libauth_core::Auth::with_env(
                config(json!({ "trustedProxies": [PROXY], "forwardedHeader": bad })),
                Arc::new(hooks()),
                &std::collections::HashMap::new(),
            );
            assert_eq!(built.err().unwrap().option, "forwardedHeader", "{bad}");
        }
    }
}
