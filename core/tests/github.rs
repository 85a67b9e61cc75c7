//! The built-in GitHub provider end to end through the engine, against a
//! small GitHub simulation on loopback (authorize, access_token, /user,
//! /user/emails): profile mapping, the /user/emails fallback, token errors
//! answered with HTTP 200, state and PKCE, and refresh.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use common::*;
use libauth_core::{Auth, HookMap};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const CLIENT_ID: &str = "gh-client-id";
const CLIENT_SECRET: &str = "gh-client-secret";
const CALLBACK: &str = "http://localhost:3000/auth/callback/github";

/// What the simulated GitHub knows and remembers.
struct SimState {
    /// The user `/user` answers with.
    user: Value,
    /// What `/user/emails` answers with.
    emails: Value,
    /// code → (code_challenge, redirect_uri).
    codes: HashMap<String, (Option<String>, String)>,
    access_tokens: Vec<String>,
    refresh_tokens: Vec<String>,
    /// The next token request answers this error (with HTTP 200, as GitHub).
    next_token_error: Option<&'static str>,
    /// Every request's path (no query).
    paths: Vec<String>,
    counter: u32,
}

#[derive(Clone)]
struct Sim {
    base: String,
    state: Arc<Mutex<SimState>>,
}

struct Request {
    method: String,
    path: String,
    query: HashMap<String, String>,
    headers: HashMap<String, String>,
    form: HashMap<String, String>,
}

fn read_request(stream: &TcpStream) -> Option<Request> {
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_owned();
    let target = parts.next()?.to_owned();
    let mut headers = HashMap::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h).ok()?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        let (k, v) = h.split_once(':')?;
        headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
    }
    let len: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
    let mut body = vec![0; len];
    reader.read_exact(&mut body).ok()?;
    let url = url::Url::parse(&format!("http://sim{target}")).ok()?;
    Some(Request {
        method,
        path: url.path().to_owned(),
        query: url.query_pairs().into_owned().collect(),
        headers,
        form: url::form_urlencoded::parse(&body).into_owned().collect(),
    })
}

fn respond(mut stream: TcpStream, status: u16, extra_headers: &[(&str, &str)], body: &Value) {
    let body = body.to_string();
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
        body.len()
    );
    for (k, v) in extra_headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(body.as_bytes());
}

fn start_sim(user: Value, emails: Value) -> Sim {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let state = Arc::new(Mutex::new(SimState {
        user,
        emails,
        codes: HashMap::new(),
        access_tokens: Vec::new(),
        refresh_tokens: Vec::new(),
        next_token_error: None,
        paths: Vec::new(),
        counter: 0,
    }));
    let shared = state.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { continue };
            // A thread per connection: concurrent sign-ins are served
            // concurrently, as by GitHub.
            let shared = shared.clone();
            std::thread::spawn(move || {
                let Some(req) = read_request(&stream) else { return };
                let (status, headers, body) = handle(&shared, &req);
                let headers: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
                respond(stream, status, &headers, &body);
            });
        }
    });
    Sim { base, state }
}

fn handle(state: &Mutex<SimState>, req: &Request) -> (u16, Vec<(&'static str, String)>, Value) {
    let mut st = state.lock().unwrap();
    st.paths.push(req.path.clone());
    st.counter += 1;
    let n = st.counter;
    let bearer = req.headers.get("authorization").and_then(|a| a.strip_prefix("Bearer ")).map(str::to_owned);
    let authorized = bearer.is_some_and(|t| st.access_tokens.contains(&t));
    match (req.method.as_str(), req.path.as_str()) {
        ("GET", "/login/oauth/authorize") => {
            let q = &req.query;
            assert_eq!(q.get("client_id").map(String::as_str), Some(CLIENT_ID));
            let redirect_uri = q["redirect_uri"].clone();
            let code = format!("code-{n}");
            st.codes.insert(code.clone(), (q.get("code_challenge").cloned(), redirect_uri.clone()));
            let mut back = url::Url::parse(&redirect_uri).unwrap();
            back.query_pairs_mut().append_pair("code", &code);
            if let Some(state) = q.get("state") {
                back.query_pairs_mut().append_pair("state", state);
            }
            (302, vec![("location", back.to_string())], json!({}))
        }
        ("POST", "/login/oauth/access_token") => {
            // GitHub answers form-encoded unless asked for JSON.
            assert_eq!(req.headers.get("accept").map(String::as_str), Some("application/json"));
            let basic = base64::engine::general_purpose::STANDARD.encode(format!("{CLIENT_ID}:{CLIENT_SECRET}"));
            let error = |e: &str| (200, vec![], json!({ "error": e, "error_description": format!("sim: {e}") }));
            if req.headers.get("authorization") != Some(&format!("Basic {basic}")) {
                return error("incorrect_client_credentials");
            }
            if let Some(e) = st.next_token_error.take() {
                return error(e);
            }
            let f = &req.form;
            match f.get("grant_type").map(String::as_str) {
                Some("authorization_code") => {
                    let Some((challenge, redirect_uri)) = f.get("code").and_then(|c| st.codes.remove(c)) else {
                        return error("bad_verification_code");
                    };
                    if f.get("redirect_uri") != Some(&redirect_uri) {
                        return error("redirect_uri_mismatch");
                    }
                    if let Some(challenge) = challenge {
                        let verifier = f.get("code_verifier").map(String::as_str).unwrap_or_default();
                        let computed =
                            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier));
                        if computed != challenge {
                            return error("bad_verification_code");
                        }
                    }
                }
                Some("refresh_token") => {
                    let Some(i) = st.refresh_tokens.iter().position(|t| Some(t) == f.get("refresh_token")) else {
                        return error("bad_refresh_token");
                    };
                    st.refresh_tokens.remove(i);
                }
                _ => return error("unsupported_grant_type"),
            }
            let (access, refresh) = (format!("gho_{n}"), format!("ghr_{n}"));
            st.access_tokens.push(access.clone());
            st.refresh_tokens.push(refresh.clone());
            // A GitHub App with expiring user tokens: no account id here.
            let body = json!({
                "access_token": access, "token_type": "bearer", "scope": "read:user,user:email",
                "expires_in": 28800, "refresh_token": refresh, "refresh_token_expires_in": 15897600,
            });
            (200, vec![], body)
        }
        ("GET", "/user") if authorized => (200, vec![], st.user.clone()),
        ("GET", "/user/emails") if authorized => (200, vec![], st.emails.clone()),
        ("GET", _) => (401, vec![], json!({ "message": "Bad credentials" })),
        _ => (404, vec![], json!({ "message": "Not Found" })),
    }
}

impl Sim {
    fn provider(&self) -> Value {
        json!({
            "builtin": "github", "clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET,
            "authorization": { "url": format!("{}/login/oauth/authorize", self.base) },
            "token": format!("{}/login/oauth/access_token", self.base),
            "userinfo": format!("{}/user", self.base),
        })
    }

    fn paths(&self) -> Vec<String> {
        self.state.lock().unwrap().paths.clone()
    }
}

fn octocat(email: Value) -> Value {
    json!({
        "login": "octocat", "id": 583231, "name": null, "email": email,
        "avatar_url": "https://avatars.githubusercontent.com/u/583231?v=4",
    })
}

struct Setup {
    sim: Sim,
    auth: Auth,
    log: CallLog,
}

fn setup(user: Value, emails: Value) -> Setup {
    let sim = start_sim(user, emails);
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let hooks = recording(HookMap::new(), &log, &["logger.error"], Value::Null);
    let jwt_log = log.clone();
    let hooks = hooks.on("callbacks.jwt", move |args| {
        jwt_log.lock().unwrap().push(("callbacks.jwt".into(), args.clone()));
        Ok(args["token"].clone())
    });
    let config =
        libauth_core::Config::from_value(json!({ "secret": SECRET, "trustHost": true, "providers": [sim.provider()] }))
            .unwrap();
    let auth = Auth::with_env(config, Arc::new(hooks), &HashMap::new()).unwrap();
    Setup { sim, auth, log }
}

/// Follow the sign-in to the simulated GitHub; returns the app's callback path.
fn authorize(b: &mut Browser) -> String {
    let csrf = b.csrf();
    let res = b.post("/auth/signin/github", &[("csrfToken", &csrf), ("callbackUrl", "/after")]);
    let agent = ureq::AgentBuilder::new().redirects(0).timeout(Duration::from_secs(5)).build();
    let res = match agent.get(location(&res)).call() {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("simulator unreachable: {e}"),
    };
    assert_eq!(res.status(), 302);
    res.header("location").unwrap().strip_prefix(ORIGIN).unwrap().to_owned()
}

fn sign_in(b: &mut Browser) -> String {
    let callback = authorize(b);
    location(&b.get(&callback)).to_owned()
}

fn sign_in_args(log: &CallLog) -> Value {
    let calls = log.lock().unwrap();
    calls.iter().rev().find(|(n, a)| n == "callbacks.jwt" && a["trigger"] == "signIn").unwrap().1.clone()
}

fn logged_errors(log: &CallLog) -> Vec<String> {
    let calls = log.lock().unwrap();
    calls.iter().filter(|(n, _)| n == "logger.error").map(|(_, a)| a["message"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn authorization_redirect_speaks_github() {
    let s = setup(octocat(json!(null)), json!([]));
    let mut b = Browser::new(&s.auth);
    let csrf = b.csrf();
    let res = b.post("/auth/signin/github", &[("csrfToken", &csrf)]);
    let url = url::Url::parse(location(&res)).unwrap();
    assert_eq!(url.path(), "/login/oauth/authorize");
    let q: HashMap<_, _> = url.query_pairs().into_owned().collect();
    assert_eq!(q["client_id"], CLIENT_ID);
    assert_eq!(q["scope"], "read:user user:email");
    assert_eq!(q["redirect_uri"], CALLBACK);
    assert_eq!(q["response_type"], "code");
    assert_eq!(q["code_challenge_method"], "S256");
    assert!(q["state"].len() > 32);
    assert!(!location(&res).contains(CLIENT_SECRET));
}

#[test]
fn sign_in_maps_the_profile_as_authjs() {
    let s = setup(octocat(json!("octocat@github.com")), json!([]));
    let mut b = Browser::new(&s.auth);
    assert_eq!(sign_in(&mut b), "http://localhost:3000/after");
    // name ?? login, avatar_url as the image.
    assert_eq!(
        b.session()["user"],
        json!({ "name": "octocat", "email": "octocat@github.com", "image": "https://avatars.githubusercontent.com/u/583231?v=4" })
    );
    let args = sign_in_args(&s.log);
    assert_eq!(args["account"]["provider"], "github");
    assert_eq!(args["account"]["type"], "oauth");
    assert_eq!(args["account"]["providerAccountId"], "583231", "String(profile.id)");
    assert_eq!(args["profile"]["login"], "octocat");
    // A public email: /user/emails is asked once, only to learn whether
    // GitHub verified it (this simulator lists none: unproven).
    assert_eq!(s.sim.paths().iter().filter(|p| *p == "/user/emails").count(), 1);
    assert!(logged_errors(&s.log).is_empty(), "{:?}", logged_errors(&s.log));
}

#[test]
fn without_a_public_email_the_primary_verified_one_is_used() {
    let emails = json!([
        { "email": "old@example.com", "primary": false, "verified": true, "visibility": null },
        { "email": "octocat@example.com", "primary": true, "verified": true, "visibility": "private" },
    ]);
    let mut user = octocat(json!(null));
    user["name"] = json!("The Octocat");
    let s = setup(user, emails);
    let mut b = Browser::new(&s.auth);
    assert_eq!(sign_in(&mut b), "http://localhost:3000/after");
    let session = b.session();
    assert_eq!(session["user"]["email"], "octocat@example.com");
    assert_eq!(session["user"]["name"], "The Octocat");
    assert!(s.sim.paths().contains(&"/user/emails".to_owned()));
    assert_eq!(sign_in_args(&s.log)["profile"]["email"], "octocat@example.com");

    // A primary address not verified is never used.
    s.sim.state.lock().unwrap().emails =
        json!([{ "email": "unverified@example.com", "primary": true, "verified": false }]);
    let mut b = Browser::new(&s.auth);
    assert_eq!(sign_in(&mut b), "http://localhost:3000/after");
    assert_eq!(b.session()["user"]["email"], Value::Null);
    // /user/emails refused (no user:email scope granted): still signed in, no email.
    s.sim.state.lock().unwrap().emails = json!({ "message": "Not Found" });
    let mut b = Browser::new(&s.auth);
    assert_eq!(sign_in(&mut b), "http://localhost:3000/after");
    assert_eq!(b.session()["user"]["email"], Value::Null);
}

#[test]
fn a_token_error_answered_with_200_makes_no_session() {
    let s = setup(octocat(json!(null)), json!([]));
    s.sim.state.lock().unwrap().next_token_error = Some("bad_verification_code");
    let mut b = Browser::new(&s.auth);
    assert_eq!(sign_in(&mut b), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    assert!(!b.has_session_cookie());
    let errors = logged_errors(&s.log);
    assert!(errors.iter().any(|m| m.contains("bad_verification_code")), "{errors:?}");
    assert!(!s.sim.paths().contains(&"/user".to_owned()), "no user info without a token");

    // Wrong client credentials are a token error as well.
    let mut provider = s.sim.provider();
    provider["clientSecret"] = json!("wrong");
    let config =
        libauth_core::Config::from_value(json!({ "secret": SECRET, "trustHost": true, "providers": [provider] }))
            .unwrap();
    let auth = Auth::with_env(config, Arc::new(HookMap::new()), &HashMap::new()).unwrap();
    let mut b = Browser::new(&auth);
    assert_eq!(sign_in(&mut b), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
}

#[test]
fn state_and_pkce_are_verified() {
    let s = setup(octocat(json!("octocat@github.com")), json!([]));
    // Another browser's callback (no state cookie): refused.
    let mut attacker = Browser::new(&s.auth);
    let callback = authorize(&mut attacker);
    let mut victim = Browser::new(&s.auth);
    assert_eq!(location(&victim.get(&callback)), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    assert!(!victim.has_session_cookie());
    // A mismatched state: refused.
    let mut b = Browser::new(&s.auth);
    let callback = authorize(&mut b);
    let res = b.get(&callback.replace("state=", "state=x"));
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    // Without the PKCE verifier cookie: refused before any token request.
    let mut b = Browser::new(&s.auth);
    let callback = authorize(&mut b);
    b.jar.remove("authjs.pkce.code_verifier");
    let before = s.sim.paths().len();
    assert_eq!(location(&b.get(&callback)), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    assert_eq!(s.sim.paths().len(), before);
    // Another sign-in's verifier: the simulator's PKCE check refuses it.
    let mut first = Browser::new(&s.auth);
    let _ = authorize(&mut first);
    let mut b = Browser::new(&s.auth);
    let callback = authorize(&mut b);
    let other_verifier = first.jar["authjs.pkce.code_verifier"].clone();
    b.jar.insert("authjs.pkce.code_verifier".into(), other_verifier);
    assert_eq!(location(&b.get(&callback)), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    let errors = logged_errors(&s.log);
    assert!(errors.iter().any(|m| m.contains("InvalidCheck")), "{errors:?}");
    assert!(errors.iter().any(|m| m.contains("bad_verification_code")), "{errors:?}");
    // And the untouched flow signs in.
    let mut b = Browser::new(&s.auth);
    assert_eq!(sign_in(&mut b), "http://localhost:3000/after");
}

#[test]
fn refresh_keeps_the_account_id_the_caller_knows() {
    let s = setup(octocat(json!("octocat@github.com")), json!([]));
    let mut b = Browser::new(&s.auth);
    sign_in(&mut b);
    let refresh = sign_in_args(&s.log)["account"]["refresh_token"].as_str().unwrap().to_owned();
    // GitHub's token response does not name the account: the caller's id stays.
    let fresh = s.auth.refresh_access_token("github", &refresh, Some("583231")).unwrap();
    assert_eq!(fresh["providerAccountId"], "583231");
    assert_eq!(fresh["provider"], "github");
    assert!(fresh["access_token"].as_str().unwrap().starts_with("gho_"));
    assert!(fresh["expires_at"].as_u64().unwrap() > libauth_core::time::now_seconds());
    // Not known to the caller either: left out, never "".
    let next = fresh["refresh_token"].as_str().unwrap();
    let fresh = s.auth.refresh_access_token("github", next, None).unwrap();
    assert!(fresh.get("providerAccountId").is_none(), "{fresh:?}");
    // A rotated-out refresh token is refused.
    let err = s.auth.refresh_access_token("github", &refresh, Some("583231")).unwrap_err();
    assert_eq!(err.error_type, libauth_core::ErrorType::OAuthCallbackError);
}

#[test]
fn defaults_are_github_and_overridable() {
    let env: HashMap<String, String> =
        [("AUTH_GITHUB_ID".to_string(), "env-id".to_string()), ("AUTH_GITHUB_SECRET".to_string(), "s".to_string())]
            .into_iter()
            .collect();
    let config = libauth_core::Config::from_value(json!({
        "secret": SECRET, "trustHost": true,
        "providers": [{ "builtin": "github", "authorization": { "params": { "scope": "read:user", "allow_signup": "false" } } }]
    }))
    .unwrap();
    let auth = Auth::with_env(config, Arc::new(HookMap::new()), &env).unwrap();
    let mut b = Browser::new(&auth);
    let providers = b.get("/auth/providers").json().unwrap();
    assert_eq!(providers["github"]["name"], "GitHub");
    assert_eq!(providers["github"]["type"], "oauth");
    let csrf = b.csrf();
    let res = b.post("/auth/signin/github", &[("csrfToken", &csrf)]);
    let target = location(&res);
    assert!(target.starts_with("https://github.com/login/oauth/authorize?"), "{target}");
    assert!(target.contains("client_id=env-id") && target.contains("allow_signup=false"), "{target}");
    assert!(target.contains("scope=read%3Auser&") || target.ends_with("scope=read%3Auser"), "{target}");

    // An unknown built-in names the known ones.
    let config = libauth_core::Config::from_value(json!({
        "secret": SECRET, "trustHost": true, "providers": [{ "builtin": "myspace", "clientId": "x", "clientSecret": "y" }]
    }))
    .unwrap();
    let Err(err) = Auth::with_env(config, Arc::new(HookMap::new()), &HashMap::new()) else {
        panic!("an unknown built-in is refused")
    };
    let err = err.to_string();
    assert!(err.contains("tiktok") && err.contains("github"), "{err}");
}

/// Concurrent first sign-ins of one GitHub account (several tabs, a double
/// submit, several workers) with database sessions, released together at
/// the callback: every one signs in, all as the same user; the user and
/// the account are created once (one createUser, one linkAccount event).
fn concurrent_first_sign_ins(adapter: Value) {
    const BROWSERS: usize = 16;
    let sim = start_sim(octocat(json!("octocat@github.com")), json!([]));
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let hooks =
        recording(HookMap::new(), &log, &["events.createUser", "events.linkAccount", "logger.error"], Value::Null);
    let config = libauth_core::Config::from_value(
        json!({ "secret": SECRET, "trustHost": true, "providers": [sim.provider()], "adapter": adapter.clone() }),
    )
    .unwrap();
    let auth = Auth::with_env(config, Arc::new(hooks), &HashMap::new()).unwrap();
    let db = libauth_core::store::from_config(&adapter, Arc::new(libauth_core::NoHooks)).unwrap();
    let mut browsers: Vec<Browser> = (0..BROWSERS).map(|_| Browser::new(&auth)).collect();
    let callbacks: Vec<String> = browsers.iter_mut().map(authorize).collect();
    let barrier = std::sync::Barrier::new(BROWSERS);
    let outcomes: Vec<(String, Option<String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = browsers
            .iter_mut()
            .zip(callbacks)
            .map(|(b, callback)| {
                let barrier = &barrier;
                s.spawn(move || {
                    barrier.wait();
                    let to = location(&b.get(&callback)).to_owned();
                    (to, b.jar.get("authjs.session-token").cloned())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let errors = logged_errors(&log);
    assert!(outcomes.iter().all(|(to, _)| to == "http://localhost:3000/after"), "{outcomes:?}; errors: {errors:?}");
    let users: std::collections::BTreeSet<String> = outcomes
        .iter()
        .map(|(_, token)| {
            let stored = libauth_core::session::stored_session_token(token.as_deref().expect("a session cookie"));
            db.get_session_and_user(&stored).unwrap().expect("a session row").1.id
        })
        .collect();
    assert_eq!(users.len(), 1, "one user for every sign-in: {users:?}");
    let owner = db.get_user_by_account("github", "583231").unwrap().expect("the account is linked");
    assert_eq!(users.first(), Some(&owner.id));
    let calls = log.lock().unwrap();
    let count = |name: &str| calls.iter().filter(|(n, _)| n == name).count();
    assert_eq!((count("events.createUser"), count("events.linkAccount")), (1, 1), "created and linked once");
}

#[test]
fn concurrent_first_sign_ins_on_sqlite() {
    let file = temp_db_path();
    concurrent_first_sign_ins(json!({ "type": "sqlite", "path": file.0 }));
}

#[test]
#[cfg(feature = "integration")] // the PostgreSQL server
fn concurrent_first_sign_ins_on_postgres() {
    let schema = temp_schema();
    concurrent_first_sign_ins(json!({ "type": "postgres", "url": postgres_url(), "schema": schema.0 }));
}

#[test]
fn an_address_is_proven_only_when_github_lists_it_verified() {
    let cases = [
        // (public email, /user/emails, proven)
        (
            json!("octocat@github.com"),
            json!([{ "email": "octocat@github.com", "primary": true, "verified": true }]),
            true,
        ),
        (
            json!("Octocat@GitHub.com"),
            json!([{ "email": "octocat@github.com", "primary": false, "verified": true }]),
            true,
        ),
        (
            json!("octocat@github.com"),
            json!([{ "email": "octocat@github.com", "primary": true, "verified": false }]),
            false,
        ),
        (
            json!("octocat@github.com"),
            json!([{ "email": "other@github.com", "primary": true, "verified": true }]),
            false,
        ),
        (json!("octocat@github.com"), json!([{ "email": "octocat@github.com", "verified": "true" }]), false),
        (json!("octocat@github.com"), json!({ "message": "Not Found" }), false),
        (json!(null), json!([{ "email": "private@github.com", "primary": true, "verified": true }]), true),
        (json!(null), json!([{ "email": "private@github.com", "primary": true, "verified": false }]), false),
    ];
    for (public, emails, proven) in cases {
        let s = setup(octocat(public.clone()), emails.clone());
        let mut b = Browser::new(&s.auth);
        assert_eq!(sign_in(&mut b), "http://localhost:3000/after");
        let identity = identity_of(&b).expect("an identity");
        assert_eq!(identity.email_verified, proven, "{public} with {emails}: {identity:?}");
        assert_eq!(identity.subject, "github:583231");
    }
}

/// A `locale` the `profile` callback maps (as an OpenID Connect provider's
/// `locale` claim would be) is stored on the new user, and the built-in
/// pages of a database session follow it (`i18n.resolve`'s `user` step); a
/// value that is not tag-shaped is not stored.
#[test]
fn a_mapped_profile_locale_is_stored_on_the_user_and_picks_the_pages_language() {
    for (mapped, expected) in [(json!("ja-JP"), "ja"), (json!("<b>fr</b>"), "en"), (json!(7), "en")] {
        let sim = start_sim(octocat(json!("octocat@github.com")), json!([]));
        let stored = Arc::new(Mutex::new(Vec::<Value>::new()));
        let seen = stored.clone();
        let hooks = HookMap::new().on("providers.github.profile", move |args| {
            let p = &args["profile"];
            Ok(json!({ "id": p["id"], "name": p["login"], "email": p["email"], "image": p["avatar_url"],
                       "locale": mapped.clone() }))
        });
        let hooks = hooks.on("events.createUser", move |args| {
            seen.lock().unwrap().push(args["user"].clone());
            Ok(Value::Null)
        });
        let config = libauth_core::Config::from_value(json!({
            "secret": SECRET, "trustHost": true, "providers": [sim.provider()],
            "adapter": { "type": "memory" }, "session": { "strategy": "database" },
        }))
        .unwrap();
        let auth = Auth::with_env(config, Arc::new(hooks), &HashMap::new()).unwrap();
        let mut b = Browser::new(&auth);
        assert_eq!(sign_in(&mut b), "http://localhost:3000/after");
        let user = stored.lock().unwrap()[0].clone();
        match expected {
            "ja" => assert_eq!(user["locale"], "ja-JP"),
            _ => assert!(user.get("locale").is_none(), "{user}"),
        }
        let html = b.get("/auth/signin").body_str().to_owned();
        assert!(html.starts_with(&format!("<!DOCTYPE html>\n<html lang=\"{expected}\">")), "{expected}: {html}");
        // Signed out, the page is the default's again.
        let anonymous = Browser::new(&auth).get("/auth/signin").body_str().to_owned();
        assert!(anonymous.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    }
}
