//! The user's own database sessions (the `sessions` route and
//! `Auth::sessions`): list them with where each was made, end one, end the
//! others, end all; on every built-in backend (memory, SQLite, PostgreSQL,
//! and sessions in Redis beside SQLite). Signed-in users sign in through
//! the password provider's routes, as a browser does.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use common::{identity_of, location, postgres_url, temp_db_path, temp_schema, Browser, ORIGIN, SECRET};
use libauth_core::{Auth, AuthRequest, AuthResponse, Config, ErrorType, HookMap};
use serde_json::{json, Value};

type Mailbox = Arc<Mutex<Vec<String>>>;
type Events = Arc<Mutex<Vec<Value>>>;

const FIREFOX: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";
const PASSWORD: &str = "correct horse battery";

fn redis_url() -> String {
    std::env::var("LIBAUTH_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned())
}

fn engine(stores: Value, strategy: &str, mailbox: &Mailbox, events: &Events) -> Auth {
    let mailbox = mailbox.clone();
    let events = events.clone();
    let hooks = HookMap::new()
        .on("providers.password.sendEmail", move |args| {
            mailbox.lock().unwrap().push(args["url"].as_str().unwrap_or_default().to_owned());
            Ok(Value::Null)
        })
        .on("events.sessionsEnded", move |message| {
            events.lock().unwrap().push(message);
            Ok(Value::Null)
        });
    let mut config = json!({
        "secret": SECRET, "trustHost": true,
        "session": { "strategy": strategy },
        "providers": [{ "type": "password", "argon2": { "memoryKib": 64, "iterations": 1 } }],
    });
    for (k, v) in stores.as_object().cloned().unwrap_or_default() {
        match (k.as_str(), v) {
            ("session", Value::Object(session)) => {
                for (option, value) in session {
                    config["session"][option] = value;
                }
            }
            (_, v) => config[k] = v,
        }
    }
    Auth::with_env(Config::from_value(config).expect("valid config"), Arc::new(hooks), &HashMap::new())
        .expect("engine builds")
}

/// A browser with this User-Agent and peer address.
fn browser<'a>(auth: &'a Auth, user_agent: Option<&str>) -> Browser<'a> {
    let mut b = Browser::new(auth);
    if let Some(ua) = user_agent {
        b.extra_headers.push(("user-agent".into(), ua.into()));
    }
    b
}

fn post_from(b: &mut Browser, ip: &str, path: &str, pairs: &[(&str, &str)]) -> AuthResponse {
    let req =
        AuthRequest { remote_address: Some(ip.into()), ..AuthRequest::post_form(format!("{ORIGIN}{path}"), pairs) };
    b.send(req)
}

/// Sign up `email` in `b` and follow the mailed link: signed in.
fn sign_up(b: &mut Browser, mailbox: &Mailbox, email: &str) {
    let csrf = b.csrf();
    let res = b.post("/auth/password/signup", &[("email", email), ("password", PASSWORD), ("csrfToken", &csrf)]);
    assert_eq!(res.status, 302, "{res:?}");
    let url = mailbox.lock().unwrap().pop().expect("a verification mail");
    let res = b.get(url.strip_prefix(ORIGIN).unwrap());
    assert_eq!(res.status, 302, "{res:?}");
    assert!(b.has_session_cookie());
}

fn sign_in(b: &mut Browser, ip: &str, email: &str) {
    let csrf = b.csrf();
    let res = post_from(
        b,
        ip,
        "/auth/callback/password",
        &[("email", email), ("password", PASSWORD), ("csrfToken", &csrf), ("callbackUrl", "/home")],
    );
    assert_eq!(res.status, 302, "{res:?}");
    assert!(b.has_session_cookie(), "{}", location(&res));
}

fn listed(b: &mut Browser) -> Vec<Value> {
    let res = b.get("/auth/sessions");
    assert_eq!(res.status, 200, "{}", res.body_str());
    assert!(res.header("cache-control").is_some_and(|c| c.contains("no-store")));
    res.json().unwrap()["sessions"].as_array().unwrap().clone()
}

fn manage(b: &mut Browser, pairs: &[(&str, &str)]) -> AuthResponse {
    let csrf = b.csrf();
    let mut pairs = pairs.to_vec();
    pairs.push(("csrfToken", &csrf));
    b.post("/auth/sessions", &pairs)
}

fn signed_in(b: &mut Browser) -> bool {
    !b.session().is_null()
}

fn backends() -> Vec<(&'static str, Value, Box<dyn std::any::Any>)> {
    let file = temp_db_path();
    let redis_file = temp_db_path();
    let schema = temp_schema();
    vec![
        ("memory", json!({ "adapter": { "type": "memory" } }), Box::new(())),
        ("sqlite", json!({ "adapter": { "type": "sqlite", "path": file.0 } }), Box::new(file)),
        (
            "postgres",
            json!({ "adapter": { "type": "postgres", "url": postgres_url(), "schema": schema.0 } }),
            Box::new(schema),
        ),
        (
            "sqlite + redis",
            json!({
                "adapter": { "type": "sqlite", "path": redis_file.0 },
                "secondaryStorage": { "type": "redis", "url": redis_url(),
                                      "keyPrefix": format!("libauth-test-{}:", libauth_core::random::hex(6)) },
            }),
            Box::new(redis_file),
        ),
    ]
}

#[test]
fn a_user_lists_and_ends_their_own_sessions_on_every_backend() {
    for (name, stores, _guard) in backends() {
        let (mailbox, events) = (Mailbox::default(), Events::default());
        let auth = engine(stores, "database", &mailbox, &events);

        let mut laptop = browser(&auth, Some(FIREFOX));
        sign_up(&mut laptop, &mailbox, "ada@example.com");
        let mut phone = browser(&auth, Some(IPHONE));
        sign_in(&mut phone, "203.0.113.77", "ada@example.com");
        let mut other = browser(&auth, None);
        sign_in(&mut other, "2001:db8:1:2::9", "ada@example.com");
        let mut eve = browser(&auth, Some(FIREFOX));
        sign_up(&mut eve, &mailbox, "eve@example.com");

        // The list: this browser's first, each with where it was made, and
        // never a token.
        let list = listed(&mut laptop);
        assert_eq!(list.len(), 3, "{name}: {list:?}");
        assert_eq!(list[0]["current"], true, "{name}");
        assert_eq!(list[0]["device"], "Firefox on Linux", "{name}");
        assert_eq!(list[0]["ip"], "127.0.0.0/24", "{name}");
        assert!(list[1..].iter().all(|s| s["current"] == false), "{name}");
        let phone_entry = list.iter().find(|s| s["ip"] == "203.0.113.0/24").expect("the phone's session");
        assert_eq!(phone_entry["device"], "Safari on iPhone", "{name}");
        assert_eq!(phone_entry["userAgent"], IPHONE, "{name}");
        let other_entry = list.iter().find(|s| s["ip"] == "2001:db8:1::/48").expect("the third session");
        assert_eq!((other_entry["device"].clone(), other_entry["userAgent"].clone()), (Value::Null, Value::Null));
        for s in &list {
            for key in ["createdAt", "lastActiveAt", "expires"] {
                assert!(s[key].as_str().is_some_and(|t| t.ends_with('Z')), "{name}: {key} of {s}");
            }
        }
        let body = laptop.get("/auth/sessions").body_str().to_owned();
        for b in [&laptop, &phone, &other] {
            for value in b.jar.values() {
                assert!(!body.contains(value.as_str()), "{name}: a cookie value in the list");
            }
        }

        // Ending needs the CSRF token; a signed-out browser gets 401; a JWT
        // is not involved.
        let phone_id = phone_entry["id"].as_str().unwrap().to_owned();
        let res = laptop.post("/auth/sessions", &[("action", "end"), ("id", &phone_id)]);
        assert_eq!(res.status, 302, "{name}");
        assert!(location(&res).contains("error=MissingCSRF"), "{name}: {}", location(&res));
        assert!(signed_in(&mut phone), "{name}: a request without the CSRF token ended nothing");
        let mut stranger = browser(&auth, None);
        assert_eq!(stranger.get("/auth/sessions").status, 401);
        assert_eq!(manage(&mut stranger, &[("action", "endAll")]).status, 401);

        // Another user cannot end Ada's session by its id, nor see it.
        let res = manage(&mut eve, &[("action", "end"), ("id", &phone_id)]);
        assert_eq!(res.status, 404, "{name}");
        assert_eq!(res.json().unwrap()["error"], "SessionTokenError");
        assert!(signed_in(&mut phone), "{name}");
        assert_eq!(listed(&mut eve).len(), 1, "{name}");
        assert!(events.lock().unwrap().is_empty());

        // End one: the phone is signed out, the rest stay.
        let res = manage(&mut laptop, &[("action", "end"), ("id", &phone_id)]);
        assert_eq!(res.status, 200, "{name}: {}", res.body_str());
        assert!(!signed_in(&mut phone), "{name}: the ended session reads as signed out");
        assert!(signed_in(&mut laptop) && signed_in(&mut other) && signed_in(&mut eve), "{name}");
        assert_eq!(manage(&mut laptop, &[("action", "end"), ("id", &phone_id)]).status, 404, "{name}: ended once");
        assert_eq!(manage(&mut laptop, &[("action", "rename")]).status, 400, "{name}");

        // End the others: the laptop stays.
        let res = manage(&mut laptop, &[("action", "endOthers")]);
        assert_eq!(res.json().unwrap()["ended"], 1, "{name}");
        assert!(!signed_in(&mut other) && signed_in(&mut laptop) && signed_in(&mut eve), "{name}");
        assert_eq!(listed(&mut laptop).len(), 1, "{name}");

        // From the server: list, end all.
        let ada = identity_of(&laptop).expect("a stored user").subject;
        let from_server = auth.sessions(&ada, &json!({ "action": "list" })).unwrap();
        assert_eq!(from_server.as_array().unwrap().len(), 1, "{name}");
        assert_eq!(from_server[0]["current"], false, "{name}: no cookie given, no current session");
        let with_cookie =
            json!({ "action": "list", "url": format!("{ORIGIN}/account"), "cookie": laptop.cookie_header() });
        assert_eq!(auth.sessions(&ada, &with_cookie).unwrap()[0]["current"], true, "{name}");
        assert_eq!(auth.sessions(&ada, &json!({ "action": "endAll" })).unwrap()["ended"], 1, "{name}");
        assert!(!signed_in(&mut laptop) && signed_in(&mut eve), "{name}");
        let err = auth.sessions(&ada, &json!({ "action": "end", "id": phone_id })).unwrap_err();
        assert_eq!(err.error_type, ErrorType::SessionTokenError, "{name}: {err}");
        let err = auth.sessions(&ada, &json!({ "action": "nope" })).unwrap_err();
        assert_eq!(err.error_type, ErrorType::UnknownAction);

        let seen: Vec<(Value, Value)> =
            events.lock().unwrap().iter().map(|e| (e["scope"].clone(), e["ended"].clone())).collect();
        assert_eq!(seen, [(json!("one"), json!(1)), (json!("others"), json!(1)), (json!("all"), json!(1))], "{name}");
        assert!(events.lock().unwrap().iter().all(|e| e["userId"] == ada.as_str()), "{name}");
    }
}

/// `backends()` with JWT sessions whose sign-out times are read again
/// after `interval` seconds; memory left out, which two engines cannot share.
fn shared_jwt_backends(interval: u64) -> Vec<(&'static str, Value, Box<dyn std::any::Any>)> {
    backends()
        .into_iter()
        .filter(|(name, _, _)| *name != "memory")
        .map(|(name, mut stores, guard)| {
            stores["session"] = json!({ "revocationCheck": { "interval": interval } });
            (name, stores, guard)
        })
        .collect()
}

/// A browser on another engine (another server process) with `b`'s cookies.
fn same_cookies_on<'a>(auth: &'a Auth, b: &Browser) -> Browser<'a> {
    let mut copy = browser(auth, None);
    copy.jar = b.jar.clone();
    copy
}

/// Signing out everywhere with JWT sessions: the engine that records it
/// refuses the ended sessions at once; another engine on the same store (a
/// second server process) within the configured interval, reading each
/// user's sign-out time at most once per interval.
#[test]
fn jwt_sessions_end_everywhere_within_the_interval() {
    const INTERVAL: u64 = 1;
    for (name, stores, _guard) in shared_jwt_backends(INTERVAL) {
        let (mailbox, events) = (Mailbox::default(), Events::default());
        let here = engine(stores.clone(), "jwt", &mailbox, &events);
        let there = engine(stores, "jwt", &mailbox, &Events::default());

        let mut laptop = browser(&here, Some(FIREFOX));
        sign_up(&mut laptop, &mailbox, "ada@example.com");
        let mut phone = browser(&here, Some(IPHONE));
        sign_in(&mut phone, "203.0.113.77", "ada@example.com");
        let mut tablet = browser(&there, None);
        sign_in(&mut tablet, "198.51.100.1", "ada@example.com");
        let mut eve = browser(&here, None);
        sign_up(&mut eve, &mailbox, "eve@example.com");
        let ada = identity_of(&laptop).unwrap().subject;
        let mut phone_there = same_cookies_on(&there, &phone);
        assert!(signed_in(&mut phone) && signed_in(&mut phone_there) && signed_in(&mut tablet), "{name}");

        // JWT sessions are not listed, nor ended one by one, nor "all but
        // this one" from the server (no cookie to re-issue there).
        assert_eq!(laptop.get("/auth/sessions").status, 400, "{name}");
        let err = here.end_other_sessions(&ada, None).unwrap_err();
        assert_eq!(err.error_type, ErrorType::UnsupportedStrategy, "{name}");
        // Without the CSRF token nothing ends.
        let res = laptop.post("/auth/sessions", &[("action", "endOthers")]);
        assert!(location(&res).contains("error=MissingCSRF"), "{name}");
        assert!(signed_in(&mut phone), "{name}");

        // End the others from the laptop: its cookie is re-issued and stays
        // good; the phone ends at once on this engine.
        let reads_before = there.sign_out_reads().unwrap();
        let stolen = phone.jar.clone();
        let res = manage(&mut laptop, &[("action", "endOthers")]);
        assert_eq!(res.status, 200, "{name}: {}", res.body_str());
        assert!(res.json().unwrap()["before"].as_str().is_some_and(|t| t.ends_with('Z')), "{name}");
        assert!(signed_in(&mut laptop), "{name}: the browser that ended the others stays signed in");
        assert!(!signed_in(&mut phone), "{name}: ended at once where it was recorded");
        assert!(signed_in(&mut eve), "{name}: another user's session stands");
        assert!(!phone.has_session_cookie(), "{name}: an ended session's cookie is cleared");
        // An ended cookie (a thief's copy) can do nothing: not re-issue
        // itself past the sign-out by ending the others, not act at all.
        let mut thief = browser(&here, None);
        thief.jar = stolen;
        assert_eq!(manage(&mut thief, &[("action", "endOthers")]).status, 401, "{name}");
        assert_eq!(manage(&mut thief, &[("action", "endAll")]).status, 401, "{name}");
        assert!(!signed_in(&mut thief), "{name}");

        // The other engine: ended within the interval (it trusts what it
        // read for that long), then for good.
        let deadline = std::time::Instant::now() + std::time::Duration::from_millis(INTERVAL * 1000 + 500);
        while signed_in(&mut phone_there) {
            assert!(std::time::Instant::now() < deadline, "{name}: still signed in past the interval");
            phone_there = same_cookies_on(&there, &phone_there);
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        assert!(!signed_in(&mut tablet), "{name}: the tablet signed in there before the sign-out, so it ended");
        let mut laptop_there = same_cookies_on(&there, &laptop);
        assert!(signed_in(&mut laptop_there), "{name}: the re-issued laptop cookie stands there too");
        // At most one store read of Ada's time per interval (and one for a
        // first sight of each user), however many reads were served.
        let reads = there.sign_out_reads().unwrap() - reads_before;
        assert!(reads <= 3, "{name}: {reads} store reads");

        // From the server, on the other engine: all of them, the laptop's
        // too; that engine refuses its cookie at once.
        assert_eq!(there.end_all_sessions(&ada).unwrap(), 0, "{name}: no stored session to count");
        assert!(!signed_in(&mut same_cookies_on(&there, &laptop)), "{name}");
        std::thread::sleep(std::time::Duration::from_millis(INTERVAL * 1000 + 100));
        assert!(!signed_in(&mut laptop), "{name}: ended here within the interval");
        assert!(signed_in(&mut eve), "{name}");

        // Signing in again after it works, on either engine.
        let mut again = browser(&there, None);
        sign_in(&mut again, "198.51.100.1", "ada@example.com");
        assert!(signed_in(&mut again) && signed_in(&mut same_cookies_on(&here, &again)), "{name}");

        let seen: Vec<(Value, bool)> =
            events.lock().unwrap().iter().map(|e| (e["scope"].clone(), e["before"].is_string())).collect();
        assert_eq!(seen, [(json!("others"), true)], "{name}: this engine's events");
    }
}

/// A password change ends the user's other JWT sessions and keeps this
/// browser's; a reset ends every one signed in to before it.
#[test]
fn password_change_and_reset_end_other_jwt_sessions() {
    for (name, stores, _guard) in shared_jwt_backends(60) {
        let (mailbox, events) = (Mailbox::default(), Events::default());
        let auth = engine(stores, "jwt", &mailbox, &events);
        let mut laptop = browser(&auth, None);
        sign_up(&mut laptop, &mailbox, "ada@example.com");
        let mut phone = browser(&auth, None);
        sign_in(&mut phone, "203.0.113.77", "ada@example.com");

        let csrf = laptop.csrf();
        let res = laptop.post(
            "/auth/password/change",
            &[("currentPassword", PASSWORD), ("newPassword", "a new horse battery"), ("csrfToken", &csrf)],
        );
        assert_eq!(res.status, 302, "{name}: {}", location(&res));
        assert!(location(&res).contains("notice=password-changed"), "{name}: {}", location(&res));
        assert!(signed_in(&mut laptop), "{name}: the browser that changed it stays");
        assert!(!signed_in(&mut phone), "{name}: the other session ended");

        // A reset from a third browser ends the laptop too.
        let mut other = browser(&auth, None);
        let csrf = other.csrf();
        let res = other.post("/auth/password/forgot", &[("email", "ada@example.com"), ("csrfToken", &csrf)]);
        assert_eq!(res.status, 302, "{name}: {}", location(&res));
        let link = mailbox.lock().unwrap().pop().expect("a reset mail");
        let token = url::Url::parse(&link).unwrap().query_pairs().find(|(k, _)| k == "token").unwrap().1.into_owned();
        let csrf = other.csrf();
        let res = other.post(
            "/auth/password/reset",
            &[
                ("email", "ada@example.com"),
                ("token", &token),
                ("password", "a third horse battery"),
                ("csrfToken", &csrf),
            ],
        );
        assert_eq!(res.status, 302, "{name}: {}", location(&res));
        assert!(signed_in(&mut other), "{name}: signed in by the reset");
        assert!(!signed_in(&mut laptop), "{name}: signed in before the reset, so ended");
        let scopes: Vec<Value> = events.lock().unwrap().iter().map(|e| e["scope"].clone()).collect();
        assert_eq!(scopes, [json!("others"), json!("all")], "{name}");
    }
}

/// Tokens issued without the sign-in time (by Auth.js, without the
/// engine's claim; by a libauth before `authTime`): judged by `iat`, and a
/// re-issue keeps the sign-in time (or reads the store first).
#[test]
fn tokens_without_a_sign_in_time_are_judged_by_iat() {
    use libauth_core::jwt::JwtCodec;
    let file = temp_db_path();
    let (mailbox, events) = (Mailbox::default(), Events::default());
    let stores = json!({ "adapter": { "type": "sqlite", "path": file.0 }, "session": { "updateAge": 0 } });
    let auth = engine(stores, "jwt", &mailbox, &events);
    let codec = JwtCodec::new(vec![SECRET.to_owned()], &["authjs.session-token"]);
    let now = libauth_core::time::now_seconds();
    let token = |claims: Value, iat: u64| {
        let mut b = browser(&auth, None);
        let value = codec.encode_at(claims.as_object().unwrap(), "authjs.session-token", 3600, iat).unwrap();
        b.jar.insert("authjs.session-token".into(), value);
        b
    };
    let old_libauth = json!({ "sub": "u1", "libauth": { "sub": "u1", "emailVerified": false } });
    let authjs = json!({ "sub": "u1", "name": "Ada" });
    let mut before = [token(old_libauth.clone(), now - 10), token(authjs.clone(), now - 10)];
    // updateAge 0: every read re-issues; the libauth one gains `authTime`.
    for b in before.iter_mut() {
        assert!(signed_in(b));
    }
    assert_eq!(auth.end_all_sessions("u1").unwrap(), 0);
    for b in before.iter_mut() {
        assert!(!signed_in(b), "a token re-issued after its sign-in still carries when that was");
    }
    // Issued after the sign-out (the next second: `iat` is whole seconds).
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let later = libauth_core::time::now_seconds();
    for claims in [old_libauth, authjs] {
        assert!(signed_in(&mut token(claims, later)));
    }
    // A token naming no user is not checked.
    assert!(signed_in(&mut token(json!({ "name": "nobody" }), now - 10)));
}

/// Where no sign-out can be kept, asking for the check is a configuration
/// error naming the option, and ending JWT sessions is refused.
#[test]
fn the_check_needs_a_store_that_keeps_sign_outs() {
    let (mailbox, events) = (Mailbox::default(), Events::default());
    let config = |extra: Value| {
        let mut c = json!({ "secret": SECRET, "trustHost": true, "providers": [], "session": { "strategy": "jwt" } });
        for (k, v) in extra.as_object().unwrap() {
            c[k] = v.clone();
        }
        Config::from_value(c).unwrap()
    };
    let built = |extra: Value| Auth::with_env(config(extra), Arc::new(HookMap::new()), &HashMap::new());
    let err = built(json!({ "session": { "strategy": "jwt", "revocationCheck": true } })).err().unwrap();
    assert_eq!(err.option, "session.revocationCheck");
    let err = built(json!({ "session": { "strategy": "jwt", "revocationCheck": { "interval": -1 } } })).err().unwrap();
    assert_eq!(err.option, "session.revocationCheck.interval");

    let no_adapter = built(json!({})).unwrap();
    assert_eq!(no_adapter.sign_out_reads(), None);
    assert_eq!(no_adapter.end_all_sessions("u1").unwrap_err().error_type, ErrorType::MissingAdapter);
    let off = engine(
        json!({ "adapter": { "type": "memory" }, "session": { "revocationCheck": false } }),
        "jwt",
        &mailbox,
        &events,
    );
    assert_eq!(off.end_all_sessions("u1").unwrap_err().error_type, ErrorType::UnsupportedStrategy);
}

/// While the store cannot be read, a user whose sign-out time was never
/// read has no session for the request (the cookie is kept); once read, the
/// last time read judges.
#[test]
fn an_unreadable_store_refuses_unknown_users_and_keeps_cookies() {
    let file = temp_db_path();
    let (mailbox, events) = (Mailbox::default(), Events::default());
    let down = json!({
        "adapter": { "type": "sqlite", "path": file.0 },
        "secondaryStorage": { "type": "redis", "url": "redis://127.0.0.1:1", "keyPrefix": "libauth-test-down:" },
    });
    let up = json!({ "adapter": { "type": "sqlite", "path": file.0 } });
    let auth_up = engine(up, "jwt", &mailbox, &events);
    let mut b = browser(&auth_up, None);
    sign_up(&mut b, &mailbox, "ada@example.com");
    let auth_down = engine(down, "jwt", &mailbox, &events);
    let mut there = same_cookies_on(&auth_down, &b);
    let res = there.get("/auth/session");
    assert!(res.status < 500, "{}", res.status);
    assert!(res.json().unwrap().is_null(), "no session while its user's sign-outs cannot be read");
    assert!(res.header("set-cookie").is_none(), "the cookie is kept: {res:?}");
    // The same store with the check off: the session (it was never the
    // session's own data that could not be read).
    let mut off = json!({
        "adapter": { "type": "sqlite", "path": file.0 },
        "secondaryStorage": { "type": "redis", "url": "redis://127.0.0.1:1", "keyPrefix": "libauth-test-down:" },
    });
    off["session"] = json!({ "revocationCheck": false });
    let auth_off = engine(off, "jwt", &mailbox, &events);
    assert!(signed_in(&mut same_cookies_on(&auth_off, &b)));
}

/// The built-in account page lists the user's other sessions (database
/// sessions) with a button that ends each and one that ends them all, in
/// the page's language; with JWT sessions, the button that ends every other
/// one. Each form posts to the sessions route and comes back to the page.
#[test]
fn the_account_page_lists_and_ends_the_other_sessions() {
    let (mailbox, events) = (Mailbox::default(), Events::default());
    let auth = engine(json!({ "adapter": { "type": "memory" } }), "database", &mailbox, &events);
    let mut laptop = browser(&auth, Some(FIREFOX));
    sign_up(&mut laptop, &mailbox, "ada@example.com");
    let mut phone = browser(&auth, Some(IPHONE));
    sign_in(&mut phone, "203.0.113.77", "ada@example.com");
    let mut tablet = browser(&auth, None);
    sign_in(&mut tablet, "198.51.100.1", "ada@example.com");

    let page = laptop.get("/auth/password/account");
    assert_eq!(page.status, 200);
    let html = page.body_str().to_owned();
    assert!(html.contains("Signed in elsewhere") && html.contains("Sign out everywhere else"), "{html}");
    assert!(html.contains("Safari on iPhone") && html.contains("Network 203.0.113.0/24, last active "), "{html}");
    assert!(html.contains("Unknown browser"), "the tablet sent no User-Agent: {html}");
    assert!(!html.contains("Firefox on Linux"), "this browser's own session is not listed");
    let phone_id = listed(&mut laptop).iter().find(|s| s["ip"] == "203.0.113.0/24").unwrap()["id"].clone();
    assert!(html.contains(&format!(r#"name="id" value="{}""#, phone_id.as_str().unwrap())));

    // The phone's form: back to the page with a notice; the phone is out.
    let csrf = laptop.csrf();
    let res = laptop.post(
        "/auth/sessions",
        &[("action", "end"), ("id", phone_id.as_str().unwrap()), ("return", "account"), ("csrfToken", &csrf)],
    );
    assert_eq!(res.status, 302);
    assert!(location(&res).ends_with("/auth/account?notice=sessions-ended"), "{}", location(&res));
    assert!(!signed_in(&mut phone) && signed_in(&mut tablet) && signed_in(&mut laptop));
    let html = laptop.get(location(&res).strip_prefix(ORIGIN).unwrap()).body_str().to_owned();
    assert!(html.contains("Those sessions were signed out."), "{html}");
    // The same id again: back to the page, without the notice.
    let csrf = laptop.csrf();
    let res = laptop.post(
        "/auth/sessions",
        &[("action", "end"), ("id", phone_id.as_str().unwrap()), ("return", "account"), ("csrfToken", &csrf)],
    );
    assert!(location(&res).ends_with("/auth/account"), "{}", location(&res));

    // In German; then "everywhere else".
    laptop.extra_headers.push(("accept-language".into(), "de".into()));
    let html = laptop.get("/auth/password/account").body_str().to_owned();
    assert!(html.contains("Anderswo angemeldet") && html.contains("Dieses Gerät abmelden"), "{html}");
    let csrf = laptop.csrf();
    let res = laptop.post("/auth/sessions", &[("action", "endOthers"), ("return", "account"), ("csrfToken", &csrf)]);
    assert!(location(&res).contains("notice=sessions-ended"), "{}", location(&res));
    assert!(!signed_in(&mut tablet) && signed_in(&mut laptop));
    let html = laptop.get("/auth/password/account").body_str().to_owned();
    assert!(!html.contains("Anderswo angemeldet"), "no other session left to show");

    // JWT sessions: only "everywhere else", which keeps this browser.
    let file = temp_db_path();
    let jwt = engine(json!({ "adapter": { "type": "sqlite", "path": file.0 } }), "jwt", &mailbox, &events);
    let mut laptop = browser(&jwt, None);
    sign_up(&mut laptop, &mailbox, "grace@example.com");
    let mut phone = browser(&jwt, None);
    sign_in(&mut phone, "203.0.113.77", "grace@example.com");
    let html = laptop.get("/auth/password/account").body_str().to_owned();
    assert!(html.contains("Sign out every other browser and device"), "{html}");
    assert!(!html.contains("Sign out this device"), "JWT sessions are not listed");
    let csrf = laptop.csrf();
    let res = laptop.post("/auth/sessions", &[("action", "endOthers"), ("return", "account"), ("csrfToken", &csrf)]);
    assert!(location(&res).contains("notice=sessions-ended"), "{}", location(&res));
    assert!(signed_in(&mut laptop) && !signed_in(&mut phone));
}

#[test]
fn jwt_sessions_are_not_listed() {
    let (mailbox, events) = (Mailbox::default(), Events::default());
    let auth = engine(json!({ "adapter": { "type": "memory" } }), "jwt", &mailbox, &events);
    let mut b = browser(&auth, Some(FIREFOX));
    sign_up(&mut b, &mailbox, "ada@example.com");
    let res = b.get("/auth/sessions");
    assert_eq!(res.status, 400);
    assert_eq!(res.json().unwrap()["error"], "UnsupportedStrategy");
    let ada = identity_of(&b).unwrap().subject;
    let err = auth.sessions(&ada, &json!({ "action": "list" })).unwrap_err();
    assert_eq!(err.error_type, ErrorType::UnsupportedStrategy);
}

/// A session stored before sessions recorded where they were made (a
/// database migrated from an older libauth) is listed without details and
/// can be ended.
#[test]
fn sessions_from_before_the_migration_are_listed_without_details() {
    use libauth_core::store::{AdapterSession, SessionDetails, SessionStore, SqliteAdapter, UserStore};
    let file = temp_db_path();
    let (mailbox, events) = (Mailbox::default(), Events::default());
    let auth = engine(json!({ "adapter": { "type": "sqlite", "path": file.0 } }), "database", &mailbox, &events);
    let mut b = browser(&auth, Some(FIREFOX));
    sign_up(&mut b, &mailbox, "ada@example.com");
    let ada = identity_of(&b).unwrap().subject;

    let store = SqliteAdapter::open(&file.0).unwrap();
    assert!(store.get_user(&ada).unwrap().is_some());
    let far = libauth_core::time::now_millis() as i64 + 3_600_000;
    store.create_session(&AdapterSession { session_token: "old".into(), user_id: ada.clone(), expires: far }).unwrap();
    let list = listed(&mut b);
    assert_eq!(list.len(), 2);
    let old = list.iter().find(|s| s["createdAt"].is_null()).expect("the old session");
    assert_eq!((old["device"].clone(), old["ip"].clone()), (Value::Null, Value::Null));
    assert_eq!(manage(&mut b, &[("action", "end"), ("id", old["id"].as_str().unwrap())]).status, 200);
    assert!(store.get_session("old").unwrap().is_none());
    assert!(signed_in(&mut b));

    // Made by a server whose clock is an hour ahead: listed, last active
    // when it was made (never a panic on the out-of-order times).
    let ahead = libauth_core::time::now_millis() as i64 + 3_600_000;
    let details = SessionDetails { created_at: Some(ahead), user_agent: Some("x".into()), ip: None };
    let session = AdapterSession { session_token: "ahead".into(), user_id: ada.clone(), expires: far };
    store.create_session_with_details(&session, &details).unwrap();
    let list = listed(&mut b);
    let ahead_entry = list.iter().find(|s| s["userAgent"] == "x").expect("the session made ahead");
    assert_eq!(ahead_entry["lastActiveAt"], ahead_entry["createdAt"]);
}

/// A session Redis stored before it kept the stored token in the hash
/// (an upgrade with live sessions) cannot be listed, but ending the
/// others or all of them still ends it, and a current one is kept.
#[test]
fn redis_sessions_from_before_the_upgrade_still_end() {
    use libauth_core::store::redis::{RedisOptions, RedisPool};
    let (file, prefix) = (temp_db_path(), format!("libauth-test-{}:", libauth_core::random::hex(6)));
    let (mailbox, events) = (Mailbox::default(), Events::default());
    let stores = json!({
        "adapter": { "type": "sqlite", "path": file.0 },
        "secondaryStorage": { "type": "redis", "url": redis_url(), "keyPrefix": prefix },
    });
    let auth = engine(stores, "database", &mailbox, &events);
    let mut laptop = browser(&auth, Some(FIREFOX));
    sign_up(&mut laptop, &mailbox, "ada@example.com");
    let ada = identity_of(&laptop).unwrap().subject;

    // Two sessions as the older layout wrote them: userId and expires only.
    let pool = RedisPool::new(&RedisOptions { key_prefix: prefix.clone(), ..RedisOptions::new(redis_url()) }).unwrap();
    let far = libauth_core::time::now_millis() as i64 + 3_600_000;
    let legacy = |raw: &str| {
        let stored = libauth_core::session::stored_session_token(raw);
        // The Redis layout's key: the SHA-256 of the length-prefixed stored token.
        let member: String = {
            use sha2::Digest;
            let mut hash = sha2::Sha256::new();
            hash.update((stored.len() as u64).to_be_bytes());
            hash.update(stored.as_bytes());
            hash.finalize().iter().map(|b| format!("{b:02x}")).collect()
        };
        let (key, set) = (pool.key(&format!("session:{member}")), pool.key(&format!("user-sessions:{ada}")));
        pool.run(|c| {
            redis::pipe()
                .cmd("HSET")
                .arg(&key)
                .arg("userId")
                .arg(&ada)
                .arg("expires")
                .arg(far)
                .cmd("SADD")
                .arg(&set)
                .arg(&member)
                .query::<()>(c)
        })
        .unwrap();
        let mut b = browser(&auth, None);
        b.jar.insert("authjs.session-token".into(), raw.into());
        b
    };
    let mut old_phone = legacy("old-phone");
    let mut old_tablet = legacy("old-tablet");
    assert!(signed_in(&mut old_phone) && signed_in(&mut old_tablet));
    assert_eq!(listed(&mut laptop).len(), 1, "the old sessions are not listed");

    // Ending the others from an old session keeps it and ends the rest.
    assert_eq!(manage(&mut old_phone, &[("action", "endOthers")]).json().unwrap()["ended"], 2);
    assert!(signed_in(&mut old_phone));
    assert!(!signed_in(&mut old_tablet) && !signed_in(&mut laptop));
    assert_eq!(auth.end_all_sessions(&ada).unwrap(), 1);
    assert!(!signed_in(&mut old_phone));
}

/// The account page needs no password provider: with credentials and
/// database sessions it shows the second factor and the other sessions
/// (no password forms); signed out it sends the browser to sign in and back;
/// without an adapter there is no stored user to show.
#[test]
fn the_account_page_without_the_password_provider() {
    let auth = common::auth(
        json!({ "adapter": { "type": "memory" }, "session": { "strategy": "database" } }),
        common::hooks(),
    );
    let mut laptop = Browser::new(&auth);
    let mut phone = Browser::new(&auth);
    for b in [&mut laptop, &mut phone] {
        assert_eq!(b.sign_in("ada", "secret").status, 302);
    }
    let page = laptop.get("/auth/account");
    assert_eq!(page.status, 200);
    let html = page.body_str();
    assert!(html.contains("Two-factor authentication") && html.contains("Signed in elsewhere"), "{html}");
    assert!(!html.contains("currentPassword"), "no password forms without the password provider");
    // The second factor is set up from here too.
    let csrf = laptop.csrf();
    let res = laptop.post("/auth/two-factor/setup", &[("code", ""), ("csrfToken", &csrf)]);
    assert!(res.body_str().contains("data:image/svg+xml;base64,"));
    // Ending the other session comes back here.
    let csrf = laptop.csrf();
    let res = laptop.post("/auth/sessions", &[("action", "endOthers"), ("return", "account"), ("csrfToken", &csrf)]);
    assert!(location(&res).ends_with("/auth/account?notice=sessions-ended"), "{}", location(&res));
    assert!(!signed_in(&mut phone));
    // Signed out: to the sign-in page, then back.
    let mut stranger = Browser::new(&auth);
    let res = stranger.get("/auth/account");
    assert!(location(&res).contains("/auth/signin?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fauth%2Faccount"));
    // A notice is looked up, never shown as sent.
    let page = laptop.get("/auth/account?notice=%3Cscript%3E");
    assert!(!page.body_str().contains("<script>") && page.status == 200);

    let jwt_only = common::auth(json!({}), common::hooks());
    let mut b = Browser::new(&jwt_only);
    b.sign_in("ada", "secret");
    let res = b.get("/auth/account");
    assert!(location(&res).ends_with("/auth/error?error=Configuration"), "{}", location(&res));
}
