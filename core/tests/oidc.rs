//! OIDC sign-in end to end against a real OpenID Provider: the npm package
//! `oidc-provider`, started here (tests/oidc-op; `npm ci` there first —
//! scripts/test.sh does it).

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use libauth_core::{Auth, AuthResponse, HookMap};
use serde_json::{json, Value};

/// A running OP; stopped when dropped (its stdin closes).
struct Op {
    child: Child,
    issuer: String,
}

impl Drop for Op {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_op(extra: &[&str]) -> Op {
    // A start that hangs (seen once on a loaded machine) is retried once,
    // then reported with the OP's stderr, never waited on forever.
    match try_start_op(extra) {
        Ok(op) => op,
        Err(first) => {
            try_start_op(extra).unwrap_or_else(|second| panic!("the OP did not start: {first}; again: {second}"))
        }
    }
}

fn try_start_op(extra: &[&str]) -> Result<Op, String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/oidc-op");
    assert!(
        std::path::Path::new(&format!("{root}/node_modules/oidc-provider")).exists(),
        "oidc-provider is not installed: run `npm ci --prefix tests/oidc-op` (scripts/test.sh does)"
    );
    let mut child = Command::new("node")
        .arg(format!("{root}/server.mjs"))
        .args(["--port", "0", "--exit-on-stdin-close", "--redirect-uri", "http://localhost:3000/auth/callback/oidc"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    let stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = tx.send(line);
    });
    let line = match rx.recv_timeout(Duration::from_secs(30)) {
        Ok(line) if !line.is_empty() => line,
        outcome => {
            let _ = child.kill();
            let _ = child.wait();
            let mut err = String::new();
            let _ = std::io::Read::read_to_string(&mut stderr, &mut err);
            let why = if outcome.is_err() { "no start line within 30 s" } else { "it exited" };
            return Err(format!("{why}; stderr: {}", err.trim()));
        }
    };
    // Keep draining stderr so the OP never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut stderr, &mut std::io::sink()));
    let started: Value = serde_json::from_str(&line).map_err(|_| format!("unexpected start line {line:?}"))?;
    Ok(Op { child, issuer: started["issuer"].as_str().unwrap_or_default().to_owned() })
}

fn auth_for(op: &Op, provider_extra: Value, log: &CallLog) -> Auth {
    let mut provider = json!({
        "type": "oidc", "id": "oidc", "name": "Test OP",
        "issuer": op.issuer, "clientId": "libauth-test", "clientSecret": "libauth-test-secret",
    });
    for (k, v) in provider_extra.as_object().cloned().unwrap_or_default() {
        provider[k] = v;
    }
    let hooks = recording(HookMap::new(), log, &["logger.error", "events.signIn"], Value::Null);
    let jwt_log = log.clone();
    let hooks = hooks.on("callbacks.jwt", move |args| {
        jwt_log.lock().unwrap().push(("callbacks.jwt".into(), args.clone()));
        Ok(args["token"].clone())
    });
    Auth::with_env(
        libauth_core::Config::from_value(json!({ "secret": SECRET, "trustHost": true, "providers": [provider] }))
            .unwrap(),
        Arc::new(hooks),
        &std::collections::HashMap::new(),
    )
    .unwrap()
}

/// The user agent at the OP: follows its redirects with its own cookies
/// until the OP sends it back to the app (or shows a form_post page).
struct OpAgent {
    agent: ureq::Agent,
    jar: BTreeMap<String, String>,
}

enum Back {
    Redirect(String),
    FormPost(Vec<(String, String)>),
}

impl OpAgent {
    fn new() -> Self {
        OpAgent {
            agent: ureq::AgentBuilder::new().redirects(0).timeout(Duration::from_secs(10)).build(),
            jar: BTreeMap::new(),
        }
    }

    fn follow(&mut self, start: &str) -> Back {
        let mut url = url::Url::parse(start).unwrap();
        for _ in 0..10 {
            if url.as_str().starts_with(ORIGIN) {
                return Back::Redirect(url.as_str().strip_prefix(ORIGIN).unwrap().to_owned());
            }
            let cookies = self.jar.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ");
            let res = match self.agent.get(url.as_str()).set("cookie", &cookies).call() {
                Ok(r) | Err(ureq::Error::Status(_, r)) => r,
                Err(e) => panic!("OP unreachable: {e}"),
            };
            for header in res.all("set-cookie") {
                let pair = header.split(';').next().unwrap();
                if let Some((k, v)) = pair.split_once('=') {
                    self.jar.insert(k.to_owned(), v.to_owned());
                }
            }
            match res.header("location").map(str::to_owned) {
                Some(next) => url = url.join(&next).unwrap(),
                None => {
                    let html = res.into_string().unwrap();
                    return Back::FormPost(hidden_inputs(&html));
                }
            }
        }
        panic!("too many redirects at the OP");
    }
}

fn hidden_inputs(html: &str) -> Vec<(String, String)> {
    html.split("<input")
        .skip(1)
        .filter_map(|tag| {
            let attr = |name: &str| {
                tag.split(&format!("{name}=\""))
                    .nth(1)
                    .and_then(|r| r.split('"').next())
                    .map(|s| s.replace("&amp;", "&"))
            };
            Some((attr("name")?, attr("value")?))
        })
        .collect()
}

fn start_sign_in(b: &mut Browser) -> String {
    let csrf = b.csrf();
    let res = b.post("/auth/signin/oidc", &[("csrfToken", &csrf), ("callbackUrl", "/home")]);
    location(&res).to_owned()
}

fn finish(b: &mut Browser, back: Back) -> AuthResponse {
    match back {
        Back::Redirect(path) => b.get(&path),
        Back::FormPost(fields) => {
            let pairs: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            b.post("/auth/callback/oidc", &pairs)
        }
    }
}

fn sign_in(b: &mut Browser, op_agent: &mut OpAgent) -> AuthResponse {
    let authorize = start_sign_in(b);
    let back = op_agent.follow(&authorize);
    finish(b, back)
}

fn errors(log: &CallLog) -> Vec<String> {
    log.lock()
        .unwrap()
        .iter()
        .filter(|(n, _)| n == "logger.error")
        .map(|(_, a)| a["message"].as_str().unwrap_or("").to_owned())
        .collect()
}

#[test]
fn oidc_sign_in_with_discovery_pkce_state_and_nonce() {
    let op = start_op(&[]);
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth = auth_for(&op, json!({}), &log);
    let mut b = Browser::new(&auth);
    let authorize = start_sign_in(&mut b);
    let q: std::collections::HashMap<_, _> = url::Url::parse(&authorize).unwrap().query_pairs().into_owned().collect();
    assert!(authorize.starts_with(&op.issuer));
    assert_eq!(q["scope"], "openid profile email");
    assert!(q.contains_key("nonce") && q.contains_key("state") && q.contains_key("code_challenge"));
    let res = finish(&mut b, OpAgent::new().follow(&authorize));
    assert_eq!(location(&res), "http://localhost:3000/home", "errors: {:?}", errors(&log));
    let session = b.session();
    assert_eq!(session["user"]["email"], "test@example.com");
    assert_eq!(session["user"]["name"], "Test User");

    let calls = log.lock().unwrap();
    let jwt = &calls.iter().find(|(n, a)| n == "callbacks.jwt" && a["trigger"] == "signIn").unwrap().1;
    assert_eq!(jwt["account"]["type"], "oidc");
    assert_eq!(jwt["account"]["providerAccountId"], "user-123");
    assert_eq!(jwt["account"]["token_type"], "bearer");
    assert!(jwt["account"]["id_token"].is_string() && jwt["account"]["expires_at"].is_u64());
    assert_eq!(jwt["profile"]["sub"], "user-123");
    assert_eq!(jwt["profile"]["iss"], op.issuer.as_str());
}

#[test]
fn a_wrong_nonce_is_refused() {
    let op = start_op(&[]);
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth = auth_for(&op, json!({}), &log);
    let mut b = Browser::new(&auth);
    let authorize = start_sign_in(&mut b);
    // The OP signs a nonce other than the one in our cookie.
    let mut url = url::Url::parse(&authorize).unwrap();
    let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    url.query_pairs_mut().clear().extend_pairs(pairs.iter().map(|(k, v)| {
        if k == "nonce" {
            (k.clone(), "attacker-nonce".to_owned())
        } else {
            (k.clone(), v.clone())
        }
    }));
    let res = finish(&mut b, OpAgent::new().follow(url.as_str()));
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    assert!(!b.has_session_cookie());
    assert!(errors(&log).iter().any(|e| e.contains("nonce mismatch")), "{:?}", errors(&log));
}

#[test]
fn a_tampered_id_token_is_refused() {
    let op = start_op(&[]);
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth = auth_for(&op, json!({}), &log);
    let mut b = Browser::new(&auth);
    sign_in(&mut b, &mut OpAgent::new());
    let id_token = {
        let calls = log.lock().unwrap();
        calls.iter().find(|(n, a)| n == "callbacks.jwt" && a["trigger"] == "signIn").unwrap().1["account"]["id_token"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let nonce = {
        let calls = log.lock().unwrap();
        calls.iter().find(|(n, a)| n == "callbacks.jwt" && a["trigger"] == "signIn").unwrap().1["profile"]["nonce"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let libauth_core::providers::ProviderKind::OAuth(p) = &auth.providers().get("oidc").unwrap().kind else { panic!() };
    let endpoints = libauth_core::oauth::endpoints(p).unwrap();
    // The real token verifies...
    assert!(libauth_core::oauth::verify_id_token(p, &endpoints, &id_token, Some(&nonce)).is_ok());
    // ...a changed payload does not (the claims say another user).
    let parts: Vec<&str> = id_token.split('.').collect();
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let mut claims: Value = serde_json::from_slice(&b64.decode(parts[1]).unwrap()).unwrap();
    claims["sub"] = json!("admin");
    let forged = format!("{}.{}.{}", parts[0], b64.encode(claims.to_string()), parts[2]);
    let err = libauth_core::oauth::verify_id_token(p, &endpoints, &forged, Some(&nonce)).unwrap_err();
    assert!(err.to_string().contains("signature"), "{err}");
    // alg none is refused outright.
    let none = format!("{}.{}.", b64.encode(r#"{"alg":"none"}"#), parts[1]);
    assert!(libauth_core::oauth::verify_id_token(p, &endpoints, &none, Some(&nonce)).is_err());
    // And the wrong nonce.
    assert!(libauth_core::oauth::verify_id_token(p, &endpoints, &id_token, Some("other")).is_err());
}

#[test]
fn rotated_keys_are_fetched_on_an_unknown_kid() {
    let op = start_op(&[]);
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth = auth_for(&op, json!({}), &log);
    let mut b = Browser::new(&auth);
    assert_eq!(location(&sign_in(&mut b, &mut OpAgent::new())), "http://localhost:3000/home");
    // Rotate, dropping the old keys: new id_tokens carry a kid we have not seen.
    let rotated: Value = ureq::post(&format!("{}/__test/rotate", op.issuer))
        .send_json(json!({ "keep_old": false }))
        .unwrap()
        .into_json()
        .unwrap();
    let new_kid = rotated["signing_kids"]["RS256"].as_str().unwrap().to_owned();
    assert_ne!(rotated["previous_kids"]["RS256"].as_str().unwrap(), new_kid);
    let mut b = Browser::new(&auth);
    let res = sign_in(&mut b, &mut OpAgent::new());
    assert_eq!(location(&res), "http://localhost:3000/home", "errors: {:?}", errors(&log));
    assert!(b.has_session_cookie());
    // The second sign-in's id_token was signed with the new key.
    let calls = log.lock().unwrap();
    let last = calls.iter().rev().find(|(n, a)| n == "callbacks.jwt" && a["trigger"] == "signIn").unwrap();
    let id_token = last.1["account"]["id_token"].as_str().unwrap();
    let header = josekit::jwt::decode_header(id_token).unwrap();
    assert_eq!(header.claim("kid").and_then(Value::as_str), Some(new_kid.as_str()));
}

#[test]
fn form_post_response_mode() {
    let op = start_op(&[]);
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth = auth_for(&op, json!({ "authorization": { "params": { "response_mode": "form_post" } } }), &log);
    let mut b = Browser::new(&auth);
    let csrf = b.csrf();
    let res = b.post("/auth/signin/oidc", &[("csrfToken", &csrf), ("callbackUrl", "/home")]);
    // The check cookies stay SameSite=Lax: a cross-site POST back without
    // them is re-posted from our origin (see tests/providers.rs).
    let state_cookie = res.set_cookies().find(|c| c.starts_with("authjs.state=")).unwrap();
    assert!(state_cookie.contains("SameSite=Lax"), "{state_cookie}");
    let back = OpAgent::new().follow(location(&res));
    assert!(matches!(back, Back::FormPost(_)), "the OP answers with an auto-posting form");
    let res = finish(&mut b, back);
    assert_eq!(location(&res), "http://localhost:3000/home", "errors: {:?}", errors(&log));
    assert_eq!(b.session()["user"]["email"], "test@example.com");
}

#[test]
fn es256_id_tokens_and_configured_userinfo() {
    let op = start_op(&["--id-token-alg", "ES256", "--id-token-claims", "conform"]);
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    // With conform claims the id_token has only `sub`: user info fills in the rest.
    let auth = auth_for(&op, json!({ "userinfo": { "params": {} } }), &log);
    let mut b = Browser::new(&auth);
    let res = sign_in(&mut b, &mut OpAgent::new());
    assert_eq!(location(&res), "http://localhost:3000/home", "errors: {:?}", errors(&log));
    let session = b.session();
    assert_eq!(session["user"]["email"], "test@example.com");
}

#[test]
fn provider_errors_and_unreachable_providers_end_on_the_signin_page() {
    let op = start_op(&[]);
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth = auth_for(&op, json!({}), &log);
    let mut b = Browser::new(&auth);
    let authorize = start_sign_in(&mut b);
    let state = url::Url::parse(&authorize).unwrap().query_pairs().find(|(k, _)| k == "state").unwrap().1.into_owned();
    let res = b.get(&format!("/auth/callback/oidc?error=access_denied&error_description=nope&state={state}"));
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    // An issuer that is down: sign-in start fails cleanly, no 500.
    drop(op);
    let dead = auth_for(
        &Op { child: Command::new("true").spawn().unwrap(), issuer: "http://127.0.0.1:9".into() },
        json!({}),
        &log,
    );
    let mut b = Browser::new(&dead);
    let csrf = b.csrf();
    let res = b.post("/auth/signin/oidc", &[("csrfToken", &csrf)]);
    assert_eq!(res.status, 302);
    assert!(location(&res).starts_with("http://localhost:3000/auth/signin?error="), "{}", location(&res));
}

#[test]
fn an_email_owned_by_another_user_is_not_linked_unless_allowed() {
    let op = start_op(&[]);
    let db = temp_db_path();
    let adapter = json!({ "type": "sqlite", "path": db.0 });
    let probe = libauth_core::store::from_config(&adapter, Arc::new(libauth_core::NoHooks)).unwrap();
    let existing = probe
        .create_user(&libauth_core::store::NewUser { email: Some("test@example.com".into()), ..Default::default() })
        .unwrap();
    let build = |dangerous: bool| {
        let config = libauth_core::Config::from_value(json!({
            "secret": SECRET, "trustHost": true, "adapter": adapter,
            "providers": [{ "type": "oidc", "id": "oidc", "issuer": op.issuer, "clientId": "libauth-test",
                "clientSecret": "libauth-test-secret", "allowDangerousEmailAccountLinking": dangerous }]
        }))
        .unwrap();
        Auth::with_env(config, Arc::new(HookMap::new()), &std::collections::HashMap::new()).unwrap()
    };
    let strict = build(false);
    let mut b = Browser::new(&strict);
    let res = sign_in(&mut b, &mut OpAgent::new());
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=OAuthAccountNotLinked");
    assert!(!b.has_session_cookie());
    assert!(probe.get_user_by_account("oidc", "user-123").unwrap().is_none(), "nothing half-written");

    let lenient = build(true);
    let mut b = Browser::new(&lenient);
    assert_eq!(location(&sign_in(&mut b, &mut OpAgent::new())), "http://localhost:3000/home");
    assert_eq!(probe.get_user_by_account("oidc", "user-123").unwrap().unwrap().id, existing.id);
}

#[test]
fn a_discovery_document_for_another_issuer_is_refused() {
    let op = start_op(&[]);
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    // The OP's real document, but we were told to trust another issuer.
    let impostor = op.issuer.replace("127.0.0.1", "localhost");
    let auth = auth_for(
        &op,
        json!({ "issuer": impostor, "wellKnown": format!("{}/.well-known/openid-configuration", op.issuer) }),
        &log,
    );
    let mut b = Browser::new(&auth);
    let csrf = b.csrf();
    let res = b.post("/auth/signin/oidc", &[("csrfToken", &csrf)]);
    assert!(location(&res).starts_with("http://localhost:3000/auth/signin?error="), "{}", location(&res));
    assert!(errors(&log).iter().any(|e| e.contains("issuer mismatch")), "{:?}", errors(&log));
}

/// A user whose linked OIDC account proves the user's address (the OP says
/// `email_verified: true`) has it recorded at sign-in: a later email link
/// then finds a proven user and claims nothing, and linking by email can
/// use it. An address the provider does not vouch for records nothing.
#[test]
fn the_users_own_account_proving_its_address_records_the_proof() {
    let op = start_op(&[]);
    let db = temp_db_path();
    let adapter = json!({ "type": "sqlite", "path": db.0 });
    let probe = libauth_core::store::from_config(&adapter, Arc::new(libauth_core::NoHooks)).unwrap();
    let make = |email: &str| {
        let user = probe
            .create_user(&libauth_core::store::NewUser { email: Some(email.into()), ..Default::default() })
            .unwrap();
        let account =
            libauth_core::store::AdapterAccount::new(libauth_core::store::AccountType::Oidc, "oidc", "user-123");
        probe.link_account(&libauth_core::store::AdapterAccount { user_id: user.id.clone(), ..account }).unwrap();
        user
    };
    let config = libauth_core::Config::from_value(json!({
        "secret": SECRET, "trustHost": true, "adapter": adapter,
        "providers": [{ "type": "oidc", "id": "oidc", "issuer": op.issuer, "clientId": "libauth-test",
            "clientSecret": "libauth-test-secret" }]
    }))
    .unwrap();
    let auth = Auth::with_env(config, Arc::new(HookMap::new()), &std::collections::HashMap::new()).unwrap();

    // The stored address is the OP's, which it says it verified.
    let user = make("TEST@example.com");
    assert!(user.email_verified.is_none());
    let mut b = Browser::new(&auth);
    assert_eq!(location(&sign_in(&mut b, &mut OpAgent::new())), "http://localhost:3000/home");
    assert!(probe.get_user(&user.id).unwrap().unwrap().email_verified.is_some());
    assert!(identity_of(&b).unwrap().email_verified);

    // Another address on the user: the OP vouches for its own, not this one.
    probe.delete_user(&user.id).unwrap();
    let other = make("someone-else@example.com");
    let mut b = Browser::new(&auth);
    assert_eq!(location(&sign_in(&mut b, &mut OpAgent::new())), "http://localhost:3000/home");
    assert!(probe.get_user(&other.id).unwrap().unwrap().email_verified.is_none());
    assert!(!identity_of(&b).unwrap().email_verified);
}
