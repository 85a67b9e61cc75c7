//! Regression tests for the second security review, each over the class of
//! inputs rather than the one the review used: a token response naming an
//! identity, request URLs whose Host smuggles a path, server-side actions
//! from another site, admission of page routes, yes/no environment values,
//! the overload log, and provider tokens encrypted at rest.
mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

use common::*;
use libauth_core::{Auth, AuthRequest, Config, ErrorType, HookMap};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

// ---------------------------------------------------------------------------
// A loopback OAuth provider whose token endpoint answers what the test says.

struct Provider {
    base: String,
    token_response: Arc<Mutex<Value>>,
}

impl Provider {
    fn start(user_id: &str) -> Provider {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let token_response = Arc::new(Mutex::new(json!({ "access_token": "at", "token_type": "Bearer" })));
        let (tokens, user) = (
            token_response.clone(),
            json!({ "id": user_id, "name": user_id, "email": format!("{user_id}@example.com") }),
        );
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let Some(path) = read_path(&stream) else { continue };
                let body = if path.ends_with("/token") { tokens.lock().unwrap().clone() } else { user.clone() };
                respond(stream, &body);
            }
        });
        Provider { base, token_response }
    }

    fn config(&self, id: &str) -> Value {
        json!({ "type": "oauth", "id": id, "clientId": "cid", "clientSecret": "cs",
                "authorization": format!("{}/authorize", self.base), "token": format!("{}/token", self.base),
                "userinfo": format!("{}/userinfo", self.base), "checks": ["state"] })
    }
}

fn read_path(stream: &TcpStream) -> Option<String> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let path = line.split_whitespace().nth(1)?.split('?').next()?.to_owned();
    let mut length = 0;
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(path)
}

fn respond(mut stream: TcpStream, body: &Value) {
    let body = body.to_string();
    let head = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        body.len()
    );
    let _ = stream.write_all(head.as_bytes()).and_then(|_| stream.write_all(body.as_bytes()));
}

/// One OAuth sign-in with `provider` in `browser`; the callback's answer.
fn oauth_sign_in(browser: &mut Browser, provider: &str) -> libauth_core::AuthResponse {
    let csrf = browser.csrf();
    let res = browser.post(&format!("/auth/signin/{provider}"), &[("csrfToken", &csrf)]);
    let authorize = url::Url::parse(location(&res)).unwrap();
    let state = authorize.query_pairs().find(|(k, _)| k == "state").unwrap().1.into_owned();
    let state: String = url::form_urlencoded::byte_serialize(state.as_bytes()).collect();
    browser.get(&format!("/auth/callback/{provider}?code=c&state={state}"))
}

// ---------------------------------------------------------------------------
// M1: the identity keys of an account come from the engine.

const IDENTITY: [&str; 4] = ["provider", "type", "providerAccountId", "userId"];

/// Every combination of identity keys in a token response, on every kind of
/// store: the attacker's provider never reaches the victim's account, and
/// the account the jwt callback and the adapter see names the provider and
/// profile that signed in.
#[test]
fn a_token_response_never_names_the_account() {
    let victim_idp = Provider::start("victim-1");
    let evil_idp = Provider::start("mallory-1");
    for mask in 1u32..16 {
        let mut tokens = json!({ "access_token": "evil-at", "token_type": "Bearer" });
        for (bit, key) in IDENTITY.iter().enumerate() {
            if mask & (1 << bit) != 0 {
                tokens[*key] = match *key {
                    "provider" => json!("good"),
                    "type" => json!("credentials"),
                    "providerAccountId" => json!("victim-1"),
                    _ => json!("victim-user-id"),
                };
            }
        }
        *evil_idp.token_response.lock().unwrap() = tokens;
        for adapter in [json!({ "type": "memory" }), json!({ "type": "sqlite", "path": ":memory:" })] {
            let auth = auth(
                json!({ "adapter": adapter, "session": { "strategy": "database" },
                        "providers": [victim_idp.config("good"), evil_idp.config("evil")] }),
                HookMap::new(),
            );
            let mut victim = Browser::new(&auth);
            oauth_sign_in(&mut victim, "good");
            assert_eq!(victim.session()["user"]["email"], "victim-1@example.com");
            let mut attacker = Browser::new(&auth);
            oauth_sign_in(&mut attacker, "evil");
            let session = attacker.session();
            assert_eq!(session["user"]["email"], "mallory-1@example.com", "mask {mask} on {adapter}: {session}");
        }
        // JWT sessions: the account handed to the jwt callback.
        let seen = Arc::new(Mutex::new(Vec::<Value>::new()));
        let log = seen.clone();
        let hooks = HookMap::new().on("callbacks.jwt", move |args| {
            if !args["account"].is_null() {
                log.lock().unwrap().push(args["account"].clone());
            }
            Ok(args["token"].clone())
        });
        let auth = auth(json!({ "providers": [evil_idp.config("evil")] }), hooks);
        oauth_sign_in(&mut Browser::new(&auth), "evil");
        let account = seen.lock().unwrap().pop().expect("the jwt callback saw the account");
        assert_eq!(account["provider"], "evil", "mask {mask}");
        assert_eq!(account["type"], "oauth", "mask {mask}");
        assert_eq!(account["providerAccountId"], "mallory-1", "mask {mask}");
        assert!(account.get("userId").is_none_or(|id| id != "victim-user-id"), "mask {mask}");
        assert_eq!(account["access_token"], "evil-at", "the token fields are kept");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

    /// For any token response, the account's identity is the engine's and
    /// every other field is the provider's.
    #[test]
    fn any_token_response_keeps_the_engines_identity(
        fields in proptest::collection::vec(
            (prop_oneof![prop::sample::select(IDENTITY.to_vec()).prop_map(str::to_owned), "[a-zA-Z_]{1,12}"],
             prop_oneof![any::<String>().prop_map(Value::from), any::<i64>().prop_map(Value::from), Just(Value::Null)]),
            0..10)
    ) {
        let tokens: Map<String, Value> = fields.into_iter().collect();
        let account = libauth_core::oauth::account_from_tokens("mine", "oidc", "me-1", &tokens);
        prop_assert_eq!(&account["provider"], "mine");
        prop_assert_eq!(&account["type"], "oidc");
        prop_assert_eq!(&account["providerAccountId"], "me-1");
        prop_assert!(!account.contains_key("userId"));
        for (key, value) in &tokens {
            if !IDENTITY.contains(&key.as_str()) && !matches!(key.as_str(), "token_type" | "expires_at") {
                prop_assert_eq!(&account[key], value);
            }
        }
    }
}

// ---------------------------------------------------------------------------
// M2: one parse of the request URL; a Host that smuggles a path is a 400.

fn hookless_engine() -> &'static Auth {
    static AUTH: std::sync::OnceLock<Auth> = std::sync::OnceLock::new();
    AUTH.get_or_init(|| {
        // An OAuth provider nothing listens for: a callback that ran would
        // fail on its state check, visibly (a redirect, not JSON).
        let provider = json!({ "type": "oauth", "id": "github", "clientId": "c", "clientSecret": "s",
            "authorization": "http://127.0.0.1:9/a", "token": "http://127.0.0.1:9/t", "userinfo": "http://127.0.0.1:9/u" });
        auth(json!({ "providers": [provider] }), HookMap::new())
    })
}

/// Host header text: host-like pieces and the characters a URL parser
/// reads as path, query, fragment, credentials or escapes.
fn host_header() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        4 => Just("localhost".to_owned()),
        2 => Just(":3000".to_owned()),
        1 => Just("\\auth\\callback\\github".to_owned()),
        1 => Just("/auth/callback/github".to_owned()),
        1 => Just("?code=c&state=s&y=".to_owned()),
        1 => prop::sample::select(vec!["\\", "/", "?", "#", "@", "%2F", "%5C", " ", "[", "]", ":", ".", "..", "é", "\t", "%"])
            .prop_map(str::to_owned),
        2 => "[a-z0-9.-]{1,8}",
    ];
    proptest::collection::vec(piece, 1..6).prop_map(|parts| parts.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Whatever the Host, the route the bindings' decision sees is the one
    /// `handle` runs: `GET /auth/session` answers as the session route (or
    /// 400 when the host is not a plain `host[:port]`), never as a callback.
    #[test]
    fn the_host_never_changes_the_route(host in host_header()) {
        let auth = hookless_engine();
        // The binding builds the URL from the Host it was sent.
        let url = format!("http://{host}/auth/session");
        let req = AuthRequest::get(url.clone()).with_header("host", &host);
        let route = auth.route(&url).filter(|_| libauth_core::http::is_host_and_port(&host));
        let inline = answered_inline(auth, &req).is_some();
        let res = auth.handle(&req);
        prop_assert!(inline, "a session read or a 400 needs no permit: {url:?}");
        match route {
            Some((libauth_core::Action::Session, None)) => {
                prop_assert_eq!(res.status, 200, "{:?}", url);
                prop_assert!(res.json().is_some(), "{:?}", url);
            }
            None => prop_assert_eq!(res.status, 400, "{:?}", url),
            other => prop_assert!(false, "{url:?} routed as {other:?}"),
        }
        if !libauth_core::http::is_host_and_port(&host) {
            prop_assert_eq!(res.status, 400, "an invalid Host is refused: {:?}", host);
        }
    }
}

#[test]
fn a_host_with_a_smuggled_callback_is_a_bad_request_without_a_permit() {
    let auth = auth(json!({ "hooks": { "maxInFlight": 1 }, "adapter": { "type": "memory" } }), hooks());
    let held = place(&auth).expect("the only place");
    for host in [
        "localhost:3000\\auth\\callback\\credentials?code=c&state=s&y=",
        "localhost:3000/auth/callback/credentials?x=",
        "user@localhost:3000",
        "localhost:3000#",
        "localhost:99999",
        "[::1",
        "",
    ] {
        let req = AuthRequest::get(format!("http://{host}/auth/session")).with_header("host", host);
        match answered_inline(&auth, &req) {
            Some(res) => assert_eq!(res.status, 400, "{host:?}"),
            _ => panic!("{host:?}: a bad request must be answered at once"),
        }
    }
    drop(held);
    for host in ["localhost:3000", "127.0.0.1:8080", "[::1]:3000", "[::1]", "auth.example.com", "my_host"] {
        let url = format!("http://{host}/auth/csrf");
        assert!(auth.route(&url).is_some(), "{host:?} is a valid host");
        let req = AuthRequest::get(url).with_header("host", host);
        assert_eq!(auth.handle_admitted(&req).status, 200, "{host:?}");
    }
    // Two Host headers, or a forwarded host that is not one, are refused too.
    let twice = AuthRequest::get(format!("{ORIGIN}/auth/csrf"))
        .with_header("host", "localhost:3000")
        .with_header("Host", "evil");
    assert_eq!(auth.handle_admitted(&twice).status, 400);
    let forwarded =
        AuthRequest::get(format!("{ORIGIN}/auth/csrf")).with_header("x-forwarded-host", "a.example, b/auth");
    assert_eq!(auth.handle_admitted(&forwarded).status, 400);
}

// ---------------------------------------------------------------------------
// M4: server-side sign-in and sign-out refuse cross-site requests.

fn form_request(headers: &[(&str, &str)]) -> AuthRequest {
    let mut req = AuthRequest::get(format!("{ORIGIN}/login"));
    req.method = "POST".into();
    for (name, value) in headers {
        req = req.with_header(name, *value);
    }
    req
}

fn credentials() -> Map<String, Value> {
    json!({ "username": "ada", "password": "secret" }).as_object().unwrap().clone()
}

#[test]
fn server_side_actions_refuse_requests_from_another_site() {
    let auth = auth(json!({}), hooks());
    let refused: &[&[(&str, &str)]] = &[
        &[("origin", "https://evil.example")],
        &[("origin", "http://localhost:3001")],
        &[("origin", "https://localhost:3000")],
        &[("origin", "null")],
        &[("origin", "http://localhost:3000.evil.example")],
        &[("sec-fetch-site", "cross-site")],
        &[("sec-fetch-site", "Cross-Site"), ("origin", ORIGIN)],
    ];
    for headers in refused {
        let err = auth.sign_in("credentials", credentials(), &form_request(headers)).unwrap_err();
        assert_eq!(err.error_type, ErrorType::MissingCSRF, "{headers:?}");
        let err = auth.sign_out(&form_request(headers)).unwrap_err();
        assert_eq!(err.error_type, ErrorType::MissingCSRF, "{headers:?}");
    }
    let allowed: &[&[(&str, &str)]] = &[
        &[],
        &[("origin", ORIGIN)],
        &[("origin", "HTTP://LOCALHOST:3000")],
        &[("sec-fetch-site", "same-origin"), ("origin", ORIGIN)],
        &[("sec-fetch-site", "none")],
    ];
    for headers in allowed {
        let out = auth.sign_in("credentials", credentials(), &form_request(headers));
        assert!(out.is_ok(), "{headers:?}: {out:?}");
        assert!(auth.sign_out(&form_request(headers)).is_ok(), "{headers:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any Origin but ours is refused.
    #[test]
    fn any_other_origin_is_refused(scheme in "https?", host in "[a-z]{1,10}(\\.[a-z]{2,5})?", port in prop::option::of(1u16..)) {
        let origin = match port { Some(p) => format!("{scheme}://{host}:{p}"), None => format!("{scheme}://{host}") };
        prop_assume!(!origin.eq_ignore_ascii_case(ORIGIN));
        let auth = form_actions_engine();
        let res = auth.sign_in("credentials", credentials(), &form_request(&[("origin", &origin)]));
        prop_assert!(res.is_err(), "{}", origin);
    }
}

fn form_actions_engine() -> &'static Auth {
    static AUTH: std::sync::OnceLock<Auth> = std::sync::OnceLock::new();
    AUTH.get_or_init(|| auth(json!({}), hooks()))
}

// ---------------------------------------------------------------------------
// Admission: pages that reach no hook keep answering at maxInFlight.

#[test]
fn pages_that_reach_no_host_code_answer_past_max_in_flight() {
    let auth = auth(
        json!({ "hooks": { "maxInFlight": 1 }, "adapter": { "type": "memory" },
                           "session": { "strategy": "database" } }),
        hooks(),
    );
    let _held = place(&auth).expect("the only place");
    for path in [
        "/auth/signin",
        "/auth/signin?callbackUrl=/x",
        "/auth/error?error=Configuration",
        "/auth/verify-request",
        "/auth/signout",
    ] {
        let req = AuthRequest::get(format!("{ORIGIN}{path}"));
        assert!(answered_inline(&auth, &req).is_some(), "{path}");
        assert_ne!(auth.handle_admitted(&req).status, 503, "{path}");
    }
    for req in [
        AuthRequest::get(format!("{ORIGIN}/auth/session")),
        AuthRequest::post_form(format!("{ORIGIN}/auth/callback/credentials"), &[("username", "ada")]),
    ] {
        assert_eq!(auth.handle_admitted(&req).status, 503, "{}", req.url);
    }
    // A redirect callback (reached by `callbackUrl`) makes the page host code.
    let hooked =
        auth_with(json!({ "hooks": { "maxInFlight": 1 } }), hooks().on("callbacks.redirect", |a| Ok(a["url"].clone())));
    let _held = place(&hooked).expect("the only place");
    assert_eq!(hooked.handle_admitted(&AuthRequest::get(format!("{ORIGIN}/auth/signin"))).status, 503);
}

fn auth_with(extra: Value, hooks: HookMap) -> Auth {
    auth(extra, hooks)
}

/// A flood of refusals is one log line per interval, with the count.
#[test]
fn refusals_past_max_in_flight_are_logged_once_per_interval() {
    let warnings = Arc::new(Mutex::new(Vec::<Value>::new()));
    let log = warnings.clone();
    let hooks = hooks().on("logger.warn", move |args| {
        log.lock().unwrap().push(args);
        Ok(Value::Null)
    });
    let auth = auth(json!({ "hooks": { "maxInFlight": 1 } }), hooks);
    let _held = place(&auth).expect("the only place");
    for _ in 0..200 {
        let res = auth.handle_admitted(&AuthRequest::get(format!("{ORIGIN}/auth/session")));
        assert_eq!(res.status, 503);
        assert!(auth.get_session_admitted(&AuthRequest::get(format!("{ORIGIN}/x"))).is_err());
    }
    let overloaded: Vec<Value> =
        warnings.lock().unwrap().iter().filter(|w| w["code"] == "overloaded").cloned().collect();
    assert_eq!(overloaded.len(), 1, "{overloaded:?}");
}

// ---------------------------------------------------------------------------
// AUTH_TRUST_HOST: only a clear yes turns trust on.

#[test]
fn auth_trust_host_reads_yes_and_no_and_refuses_anything_else() {
    let build = |value: &str| {
        let env: HashMap<String, String> = [("AUTH_TRUST_HOST".to_owned(), value.to_owned())].into();
        let config = Config::from_value(json!({ "secret": SECRET })).unwrap();
        Auth::with_env(config, Arc::new(HookMap::new()), &env).map(|a| a.settings().trust_host)
    };
    for no in ["false", "FALSE", "False", "0", "no", "NO", "off", "Off", "", " false "] {
        assert_eq!(build(no).ok(), Some(false), "{no:?}");
    }
    for yes in ["true", "TRUE", "1", "yes", "on", "ON"] {
        assert_eq!(build(yes).ok(), Some(true), "{yes:?}");
    }
    for unclear in ["flase", "2", "y", "enabled", "-1"] {
        let err = build(unclear).err().unwrap_or_else(|| panic!("{unclear:?} accepted"));
        assert_eq!(err.option, "AUTH_TRUST_HOST", "{unclear:?}");
    }
}

// ---------------------------------------------------------------------------
// encryptTokens: provider tokens sealed in the database.

#[test]
fn encrypted_tokens_are_sealed_in_sqlite_and_read_back_after_rotation() {
    let idp = Provider::start("user-7");
    *idp.token_response.lock().unwrap() = json!({ "access_token": "plain-access", "refresh_token": "plain-refresh", "token_type": "Bearer", "expires_in": 3600 });
    let db = temp_db_path();
    let adapter = json!({ "type": "sqlite", "path": db.0.to_str().unwrap() });
    let first =
        auth(json!({ "adapter": adapter, "encryptTokens": true, "providers": [idp.config("idp")] }), HookMap::new());
    let mut browser = Browser::new(&first);
    oauth_sign_in(&mut browser, "idp");
    let user_id = browser.session()["user"]["email"].as_str().map(|_| ()).and(Some(()));
    assert!(user_id.is_some(), "signed in");
    drop(first);

    let conn = rusqlite_connection(&db.0);
    let (access, refresh): (String, String) =
        conn.query_row("SELECT access_token, refresh_token FROM accounts", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    assert!(access.starts_with("enc:v1:") && refresh.starts_with("enc:v1:"), "{access} {refresh}");
    let owner: String = conn.query_row("SELECT user_id FROM accounts", [], |r| r.get(0)).unwrap();

    // A rotated secret still reads them.
    let rotated = Auth::with_env(
        Config::from_value(json!({ "secret": ["a-brand-new-secret-that-is-long-enough", SECRET], "trustHost": true,
            "adapter": { "type": "sqlite", "path": db.0.to_str().unwrap() }, "encryptTokens": true,
            "providers": [idp.config("idp")] }))
        .unwrap(),
        Arc::new(HookMap::new()),
        &HashMap::new(),
    )
    .unwrap();
    let account = rotated.get_account(&owner, "idp").unwrap().expect("linked");
    assert_eq!(account.access_token.as_deref(), Some("plain-access"));
    assert_eq!(account.refresh_token.as_deref(), Some("plain-refresh"));

    let err = Auth::new(
        Config::from_value(json!({ "secret": SECRET, "encryptTokens": true })).unwrap(),
        Arc::new(HookMap::new()),
    )
    .err()
    .expect("refused without an adapter");
    assert_eq!(err.option, "encryptTokens");
}

fn rusqlite_connection(path: &std::path::Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).unwrap()
}
