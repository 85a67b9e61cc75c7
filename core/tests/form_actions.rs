//! Sign-in and sign-out called from host code (a form action): no CSRF
//! round trip, refusals are typed errors, and the returned cookies make
//! (or end) a session a browser then carries.

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use libauth_core::store::from_config;
use libauth_core::{ActionOutcome, AuthRequest, ErrorType, HookMap, NoHooks};
use serde_json::{json, Map, Value};

/// The host's own request: a form POST to one of its pages, not to an auth
/// route, carrying whatever cookies the browser holds.
fn form_request(b: &Browser, path: &str) -> AuthRequest {
    let mut req = AuthRequest::post_form(format!("{}{path}", b.origin), &[("ignored", "the host read the form")]);
    if !b.jar.is_empty() {
        req.headers.push(("cookie".into(), b.cookie_header()));
    }
    req
}

fn fields(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap()
}

/// Feed the outcome's cookies to the browser, as the host's response does.
fn absorb(b: &mut Browser, outcome: &ActionOutcome) {
    let res = libauth_core::AuthResponse {
        status: 303,
        headers: outcome.set_cookies.iter().map(|c| ("set-cookie".to_owned(), c.clone())).collect(),
        body: Vec::new(),
    };
    b.absorb(&res);
}

#[test]
fn credentials_sign_in_returns_cookies_that_make_a_session() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    let req = form_request(&b, "/login");
    let outcome = auth
        .sign_in(
            "credentials",
            fields(json!({ "username": "ada", "password": "secret", "callbackUrl": "/dashboard" })),
            &req,
        )
        .expect("signed in");
    assert_eq!(outcome.redirect, "http://localhost:3000/dashboard");
    assert!(outcome.set_cookies.iter().any(|c| c.starts_with("authjs.session-token=")), "{:?}", outcome.set_cookies);
    absorb(&mut b, &outcome);
    assert_eq!(b.session()["user"]["name"], "Ada Lovelace");
    // Without a callbackUrl the origin, as the HTTP flow.
    let fresh = Browser::new(&auth);
    let outcome = auth
        .sign_in(
            "credentials",
            fields(json!({ "username": "ada", "password": "secret" })),
            &form_request(&fresh, "/login"),
        )
        .unwrap();
    assert_eq!(outcome.redirect, ORIGIN);
    // Auth.js's server-side name for the target works too.
    let outcome = auth
        .sign_in(
            "credentials",
            fields(json!({ "username": "ada", "password": "secret", "redirectTo": "/account" })),
            &form_request(&fresh, "/login"),
        )
        .unwrap();
    assert_eq!(outcome.redirect, "http://localhost:3000/account");
}

#[test]
fn refusals_are_typed_errors_with_their_code() {
    let auth = auth(json!({}), hooks());
    let b = Browser::new(&auth);
    let req = form_request(&b, "/login");
    let err = auth.sign_in("credentials", fields(json!({ "username": "ada", "password": "nope" })), &req).unwrap_err();
    assert_eq!(err.error_type, ErrorType::CredentialsSignin);
    assert_eq!(err.code.as_deref(), Some("credentials"));

    let err = auth.sign_in("credentials", fields(json!({ "username": "throw", "password": "x" })), &req).unwrap_err();
    assert_eq!(err.error_type, ErrorType::CredentialsSignin);
    assert_eq!(err.code.as_deref(), Some("wrong_password"));

    let err = auth.sign_in("credentials", fields(json!({ "username": "boom", "password": "x" })), &req).unwrap_err();
    assert_eq!(err.error_type, ErrorType::CallbackRouteError);
    assert_eq!(err.code, None);

    let err = auth.sign_in("nope", fields(json!({})), &req).unwrap_err();
    assert_eq!(err.error_type, ErrorType::InvalidProviderType);
}

#[test]
fn a_sign_in_callback_saying_no_is_access_denied() {
    let auth = auth(json!({}), hooks().on("callbacks.signIn", |_| Ok(Value::Bool(false))));
    let b = Browser::new(&auth);
    let err = auth
        .sign_in("credentials", fields(json!({ "username": "ada", "password": "secret" })), &form_request(&b, "/login"))
        .unwrap_err();
    assert_eq!(err.error_type, ErrorType::AccessDenied);
}

#[test]
fn the_callbacks_run_as_in_the_http_flow() {
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let jwt_log = log.clone();
    let hooks = recording(hooks(), &log, &["callbacks.signIn"], Value::Bool(true)).on("callbacks.jwt", move |args| {
        jwt_log.lock().unwrap().push(("callbacks.jwt".into(), args.clone()));
        let mut token = args["token"].clone();
        token["role"] = "admin".into();
        Ok(token)
    });
    let auth = auth(json!({}), hooks);
    let b = Browser::new(&auth);
    auth.sign_in(
        "credentials",
        fields(json!({ "username": "ada", "password": "secret" })),
        &form_request(&b, "/login"),
    )
    .unwrap();
    let calls = log.lock().unwrap();
    let names: Vec<&str> = calls.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["callbacks.signIn", "callbacks.jwt"]);
    assert_eq!(calls[0].1["credentials"]["username"], "ada");
    assert_eq!(calls[1].1["trigger"], "signIn");
}

#[test]
fn an_untrusted_host_is_refused() {
    let auth = auth(json!({ "trustHost": false }), hooks());
    let b = Browser::new(&auth);
    let err = auth
        .sign_in("credentials", fields(json!({ "username": "ada", "password": "secret" })), &form_request(&b, "/login"))
        .unwrap_err();
    assert_eq!(err.error_type, ErrorType::UntrustedHost);
}

#[test]
fn database_sessions_are_created_and_sign_out_deletes_the_row() {
    let file = temp_db_path();
    let adapter = json!({ "type": "sqlite", "path": file.0 });
    let auth = auth(json!({ "adapter": adapter.clone(), "session": { "strategy": "database" } }), hooks());
    let db = from_config(&adapter, Arc::new(NoHooks)).unwrap();
    let mut b = Browser::new(&auth);
    let outcome = auth
        .sign_in("credentials", fields(json!({ "username": "ada", "password": "secret" })), &form_request(&b, "/login"))
        .unwrap();
    absorb(&mut b, &outcome);
    let token = b.jar.get("authjs.session-token").expect("a session cookie").clone();
    let row = libauth_core::session::stored_session_token(&token);
    assert!(db.get_session_and_user(&row).unwrap().is_some(), "a session row");
    assert_eq!(b.session()["user"]["email"], "ada@example.com");

    let outcome = auth.sign_out(&form_request(&b, "/logout")).unwrap();
    assert_eq!(outcome.redirect, ORIGIN);
    assert!(outcome.set_cookies.iter().any(|c| c.starts_with("authjs.session-token=") && c.contains("Max-Age=0")));
    assert!(db.get_session_and_user(&row).unwrap().is_none(), "the row is gone");
    absorb(&mut b, &outcome);
    assert!(!b.has_session_cookie());
    assert_eq!(b.session(), Value::Null);
}

#[test]
fn jwt_sign_out_clears_the_cookie_and_runs_the_event() {
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth = auth(json!({}), recording(hooks(), &log, &["events.signOut"], Value::Null));
    let mut b = Browser::new(&auth);
    b.sign_in("ada", "secret");
    assert!(b.has_session_cookie());
    let mut req = form_request(&b, "/logout?callbackUrl=%2Fbye");
    req.headers.push(("x-unrelated".into(), "1".into()));
    let outcome = auth.sign_out(&req).unwrap();
    assert_eq!(outcome.redirect, "http://localhost:3000/bye");
    absorb(&mut b, &outcome);
    assert!(!b.has_session_cookie());
    let calls = log.lock().unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].1["token"]["name"], "Ada Lovelace");
}

#[test]
fn oauth_returns_the_authorization_url_and_its_check_cookies() {
    let auth = auth(
        json!({ "providers": [{
            "type": "oauth", "id": "acme", "name": "Acme", "clientId": "client-1", "clientSecret": "s",
            "authorization": "https://idp.example/authorize", "token": "https://idp.example/token",
            "userinfo": "https://idp.example/userinfo", "checks": ["pkce", "state"]
        }] }),
        HookMap::new(),
    );
    let b = Browser::new(&auth);
    let outcome =
        auth.sign_in("acme", fields(json!({ "callbackUrl": "/after" })), &form_request(&b, "/login")).unwrap();
    let url = url::Url::parse(&outcome.redirect).unwrap();
    assert_eq!(url.origin().ascii_serialization(), "https://idp.example");
    assert_eq!(url.path(), "/authorize");
    let param = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    assert_eq!(param("client_id").as_deref(), Some("client-1"));
    assert_eq!(param("redirect_uri").as_deref(), Some("http://localhost:3000/auth/callback/acme"));
    let state = param("state").expect("a state parameter");
    assert!(param("code_challenge").is_some());
    let cookie = |name: &str| {
        outcome
            .set_cookies
            .iter()
            .find_map(|c| c.strip_prefix(&format!("{name}=")).map(|rest| rest.split(';').next().unwrap().to_owned()))
    };
    assert_eq!(cookie("authjs.state").as_deref(), Some(state.as_str()));
    assert!(cookie("authjs.pkce.code_verifier").is_some());
    assert_eq!(cookie("authjs.callback-url").as_deref(), Some("http%3A%2F%2Flocalhost%3A3000%2Fafter"));
}

#[test]
fn email_sends_the_link_and_returns_the_verify_request_page() {
    let mailed = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = mailed.clone();
    let auth = auth(
        json!({ "adapter": { "type": "memory" }, "providers": [{ "type": "email", "sendVerificationRequest": true }] }),
        HookMap::new().on("providers.email.sendVerificationRequest", move |args| {
            sink.lock().unwrap().push(args["url"].as_str().unwrap().to_owned());
            Ok(Value::Null)
        }),
    );
    let b = Browser::new(&auth);
    let outcome =
        auth.sign_in("email", fields(json!({ "email": "Ada@Example.com" })), &form_request(&b, "/login")).unwrap();
    assert_eq!(outcome.redirect, "http://localhost:3000/auth/verify-request?provider=email&type=email");
    let link = mailed.lock().unwrap().pop().expect("a link was mailed");
    assert!(link.starts_with("http://localhost:3000/auth/callback/email?"), "{link}");
    assert!(link.contains("email=ada%40example.com"), "{link}");
}
