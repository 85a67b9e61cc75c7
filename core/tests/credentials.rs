//! Credentials sign-in, the callbacks around it, events, and sign-out.

mod common;

use std::sync::{Arc, Mutex};

use common::*;
use libauth_core::HostError;
use serde_json::{json, Value};

#[test]
fn a_returned_user_signs_in_and_the_session_shows_name_email_image_only() {
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth = auth(json!({}), recording(hooks(), &log, &["events.signIn"], Value::Null));
    let mut b = Browser::new(&auth);
    let res = b.sign_in("ada", "secret");
    assert_eq!(res.status, 302);
    assert_eq!(location(&res), ORIGIN);
    let cookie = res.set_cookies().find(|c| c.starts_with("authjs.session-token=")).unwrap();
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Expires="));

    let session = b.session();
    assert_eq!(
        session["user"],
        json!({"name": "Ada Lovelace", "email": "ada@example.com", "image": "https://img.example/ada.png"})
    );
    assert!(session["expires"].as_str().unwrap().ends_with('Z'));
    // How the user signed in (RFC 8176): a password.
    assert_eq!(session["amr"], json!(["pwd"]));
    assert_eq!(session.as_object().unwrap().len(), 3, "nothing but user, expires and amr: {session}");

    let calls = log.lock().unwrap();
    let (name, message) = &calls[0];
    assert_eq!(name, "events.signIn");
    assert_eq!(message["user"]["id"], "42", "numeric ids become strings");
    assert_eq!(
        message["account"],
        json!({"providerAccountId": "42", "type": "credentials", "provider": "credentials"})
    );
}

#[test]
fn null_or_credentials_signin_redirects_to_the_signin_page_with_a_code() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    let res = b.sign_in("ada", "wrong");
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=CredentialsSignin&code=credentials");
    assert!(!b.has_session_cookie());
    let res = b.sign_in("throw", "x");
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=CredentialsSignin&code=wrong_password");
    assert!(!b.has_session_cookie());
    // The page shows a generic message, not the code's details.
    let page = b.get("/auth/signin?error=CredentialsSignin&code=wrong_password");
    assert!(page.body_str().contains("Sign in failed. Check the details you provided are correct."));
}

#[test]
fn any_other_throw_in_authorize_is_a_configuration_error() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    let res = b.sign_in("boom", "x");
    assert_eq!(location(&res), "http://localhost:3000/auth/error?error=Configuration");
    assert!(!location(&res).contains("exploded"), "the message stays server-side");
    let page = b.get("/auth/error?error=Configuration");
    assert_eq!(page.status, 500);
}

#[test]
fn custom_signin_page_receives_errors() {
    let auth = auth(json!({"pages": {"signIn": "/login"}}), hooks());
    let mut b = Browser::new(&auth);
    let res = b.sign_in("nobody", "x");
    assert_eq!(location(&res), "http://localhost:3000/login?error=CredentialsSignin&code=credentials");
}

#[test]
fn csrf_is_required_and_a_bad_token_changes_nothing() {
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth = auth(json!({}), recording(hooks(), &log, &["events.signIn", "events.signOut"], Value::Null));
    let mut b = Browser::new(&auth);
    let _ = b.csrf();
    for token in [None, Some("wrong"), Some("")] {
        let mut form = vec![("username", "ada"), ("password", "secret")];
        if let Some(t) = token {
            form.push(("csrfToken", t));
        }
        let res = b.post("/auth/callback/credentials", &form);
        assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=MissingCSRF");
        assert!(!b.has_session_cookie());
    }
    // A token without its cookie (another browser's token) fails too.
    let mut other = Browser::new(&auth);
    let stolen = other.csrf();
    let mut fresh = Browser::new(&auth);
    let res = fresh
        .post("/auth/callback/credentials", &[("csrfToken", &stolen), ("username", "ada"), ("password", "secret")]);
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=MissingCSRF");

    // Sign-out and session update without a token change nothing.
    b.sign_in("ada", "secret");
    let before = b.jar.clone();
    let res = b.post("/auth/signout", &[]);
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=MissingCSRF");
    assert_eq!(b.jar, before);
    let res = b.post_json("/auth/session", json!({"data": {"name": "Mallory"}}));
    assert_eq!(res.status, 400);
    assert_eq!(res.body_str(), "null");
    assert_eq!(b.session()["user"]["name"], "Ada Lovelace");
    assert!(log.lock().unwrap().iter().all(|(n, _)| n != "events.signOut"));
}

#[test]
fn sign_in_callback_false_throw_and_redirect_string() {
    let auth_false = auth(json!({}), hooks().on("callbacks.signIn", |_| Ok(Value::Bool(false))));
    let mut b = Browser::new(&auth_false);
    let res = b.sign_in("ada", "secret");
    assert_eq!(location(&res), "http://localhost:3000/auth/error?error=AccessDenied");
    assert!(!b.has_session_cookie());
    let page = b.get("/auth/error?error=AccessDenied");
    assert_eq!(page.status, 403);
    assert!(page.body_str().contains("You do not have permission to sign in."));

    let errors: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth_throw = auth(
        json!({}),
        recording(hooks(), &errors, &["logger.error"], Value::Null)
            .on("callbacks.signIn", |_| Err(HostError::new("user is banned"))),
    );
    let mut b = Browser::new(&auth_throw);
    let res = b.sign_in("ada", "secret");
    assert_eq!(location(&res), "http://localhost:3000/auth/error?error=AccessDenied");
    let logged = errors.lock().unwrap();
    assert!(logged.iter().any(|(_, e)| e["type"] == "AccessDenied" && e["message"] == "user is banned"), "{logged:?}");

    let auth_redirect = auth(json!({}), hooks().on("callbacks.signIn", |_| Ok(json!("/onboarding"))));
    let mut b = Browser::new(&auth_redirect);
    let res = b.sign_in("ada", "secret");
    assert_eq!(location(&res), "http://localhost:3000/onboarding");
    assert!(!b.has_session_cookie(), "a redirect string stops the sign-in");
    // An attacker's absolute URL from signIn is still filtered by the redirect callback.
    let auth_evil = auth(json!({}), hooks().on("callbacks.signIn", |_| Ok(json!("https://evil.example/"))));
    let res = Browser::new(&auth_evil).sign_in("ada", "secret");
    assert_eq!(location(&res), ORIGIN);
}

#[test]
fn sign_in_callback_receives_user_account_and_credentials() {
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth = auth(json!({}), recording(hooks(), &log, &["callbacks.signIn"], json!(true)));
    Browser::new(&auth).sign_in("ada", "secret");
    let calls = log.lock().unwrap();
    let args = &calls[0].1;
    assert_eq!(args["user"]["email"], "ada@example.com");
    assert_eq!(args["account"]["provider"], "credentials");
    assert_eq!(args["credentials"]["username"], "ada");
    assert!(args["credentials"].get("csrfToken").is_none(), "the CSRF token is not passed to host code");
}

#[test]
fn custom_redirect_callback_decides_and_may_allow_other_hosts() {
    let auth = auth(
        json!({}),
        hooks().on("callbacks.redirect", |args| {
            let url = args["url"].as_str().unwrap_or_default();
            Ok(if url.starts_with("https://partner.example/") { json!(url) } else { args["baseUrl"].clone() })
        }),
    );
    let mut b = Browser::new(&auth);
    let csrf = b.csrf();
    let res = b.post(
        "/auth/callback/credentials",
        &[
            ("csrfToken", &csrf),
            ("username", "ada"),
            ("password", "secret"),
            ("callbackUrl", "https://partner.example/x"),
        ],
    );
    assert_eq!(location(&res), "https://partner.example/x");
    // A callback returning javascript: is ignored.
    let bad = common::auth(json!({}), hooks().on("callbacks.redirect", |_| Ok(json!("javascript:alert(1)"))));
    let res = Browser::new(&bad).sign_in("ada", "secret");
    assert_eq!(location(&res), ORIGIN);
}

#[test]
fn jwt_callback_triggers_and_session_callback_exposes_extra_fields() {
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let jwt_log = log.clone();
    let auth = auth(
        json!({}),
        hooks()
            .on("callbacks.jwt", move |args| {
                jwt_log.lock().unwrap().push(("jwt".into(), args.clone()));
                let mut token = args["token"].clone();
                if args["trigger"] == "signIn" {
                    token["role"] = json!("admin");
                    token["userId"] = args["user"]["id"].clone();
                }
                if args["trigger"] == "update" {
                    token["name"] = args["session"]["name"].clone();
                }
                Ok(token)
            })
            .on("callbacks.session", |args| {
                let mut session = args["session"].clone();
                session["role"] = args["token"]["role"].clone();
                Ok(session)
            }),
    );
    let mut b = Browser::new(&auth);
    b.sign_in("ada", "secret");
    let session = b.session();
    assert_eq!(session["role"], "admin");
    assert!(session["user"].get("role").is_none());

    // update(data): POST session with csrfToken and data, JSON as the client sends it.
    let csrf = b.csrf();
    let res = b.post_json("/auth/session", json!({"csrfToken": csrf, "data": {"name": "Countess"}}));
    assert_eq!(res.status, 200);
    assert_eq!(res.json().unwrap()["user"]["name"], "Countess");
    assert!(res.set_cookies().any(|c| c.starts_with("authjs.session-token=")));
    assert_eq!(b.session()["user"]["name"], "Countess");

    let calls = log.lock().unwrap();
    let sign_in = &calls[0].1;
    assert_eq!(sign_in["trigger"], "signIn");
    assert_eq!(sign_in["account"]["type"], "credentials");
    assert_eq!(
        sign_in["token"],
        json!({"name": "Ada Lovelace", "email": "ada@example.com", "picture": "https://img.example/ada.png", "sub": "42"})
    );
    assert!(calls.iter().any(|(_, a)| a["trigger"] == "update" && a["session"]["name"] == "Countess"));
    let plain_read = calls.iter().find(|(_, a)| a.get("trigger").is_none()).expect("a GET session call");
    assert!(plain_read.1.get("user").is_none(), "user/account only on sign-in");
}

#[test]
fn jwt_callback_returning_null_ends_the_session() {
    let auth = auth(
        json!({}),
        hooks().on("callbacks.jwt", |args| {
            Ok(if args["trigger"] == "signIn" { args["token"].clone() } else { Value::Null })
        }),
    );
    let mut b = Browser::new(&auth);
    b.sign_in("ada", "secret");
    assert!(b.has_session_cookie());
    assert_eq!(b.session(), Value::Null);
    assert!(!b.has_session_cookie(), "the cookie was cleared");
}

#[test]
fn events_have_the_spec_shapes_and_a_throwing_event_breaks_nothing() {
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth =
        auth(json!({}), recording(hooks(), &log, &["events.signIn", "events.session", "events.signOut"], Value::Null));
    let mut b = Browser::new(&auth);
    b.sign_in("ada", "secret");
    b.session();
    let csrf = b.csrf();
    let res = b.post("/auth/signout", &[("csrfToken", &csrf), ("callbackUrl", "/bye")]);
    assert_eq!(location(&res), "http://localhost:3000/bye");
    assert!(!b.has_session_cookie());
    assert_eq!(b.session(), Value::Null);

    let calls = log.lock().unwrap();
    let names: Vec<&str> = calls.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["events.signIn", "events.session", "events.signOut"]);
    assert!(calls[1].1["session"]["user"].is_object() && calls[1].1["token"]["sub"] == "42");
    assert_eq!(calls[2].1["token"]["email"], "ada@example.com");

    let throwing = common::auth(
        json!({}),
        hooks()
            .on("events.signIn", |_| Err(HostError::new("audit log down")))
            .on("events.signOut", |_| Err(HostError::new("audit log down")))
            .on("events.session", |_| Err(HostError::new("audit log down"))),
    );
    let mut b = Browser::new(&throwing);
    assert_eq!(location(&b.sign_in("ada", "secret")), ORIGIN);
    assert_eq!(b.session()["user"]["name"], "Ada Lovelace");
    let csrf = b.csrf();
    b.post("/auth/signout", &[("csrfToken", &csrf)]);
    assert!(!b.has_session_cookie());
}

#[test]
fn sign_out_without_a_session_just_redirects() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    let csrf = b.csrf();
    let res = b.post("/auth/signout", &[("csrfToken", &csrf)]);
    assert_eq!(location(&res), ORIGIN);
}

#[test]
fn users_without_id_get_a_random_one() {
    let auth = auth(
        json!({}),
        libauth_core::HookMap::new().on("providers.credentials.authorize", |_| Ok(json!({"email": "x@example.com"}))),
    );
    let mut b = Browser::new(&auth);
    b.sign_in("any", "thing");
    let session = b.session();
    assert_eq!(session["user"], json!({"email": "x@example.com"}));
}

/// A refused password is logged once, as a warning a deployer can filter,
/// with its code; never as an (empty) error line.
#[test]
fn a_refused_sign_in_is_one_warning() {
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let hooks = recording(hooks(), &log, &["logger.error", "logger.warn"], Value::Null).on(
        "providers.credentials.authorize",
        |args| match args["credentials"]["username"].as_str() {
            // A bare `throw new CredentialsSignin()` arrives with no message
            // of its own, or with its class name: nothing to add.
            Some("bare") => Err(HostError { error_type: Some("CredentialsSignin".into()), ..HostError::new("") }),
            Some("named") => {
                Err(HostError { error_type: Some("CredentialsSignin".into()), ..HostError::new("CredentialsSignin") })
            }
            _ => authorize(args),
        },
    );
    let auth = auth(json!({}), hooks);
    for (username, expected) in [
        ("nobody", "a credentials sign-in was refused (code credentials): authorize returned no user"),
        ("throw", "a credentials sign-in was refused (code wrong_password): bad password"),
        ("bare", "a credentials sign-in was refused (code credentials)"),
        ("named", "a credentials sign-in was refused (code credentials)"),
    ] {
        log.lock().unwrap().clear();
        let mut b = Browser::new(&auth);
        b.sign_in(username, "x");
        let calls = log.lock().unwrap();
        assert!(calls.iter().all(|(name, _)| name != "logger.error"), "{calls:?}");
        let warnings: Vec<_> = calls.iter().filter(|(name, _)| name == "logger.warn").collect();
        assert_eq!(warnings.len(), 1, "{calls:?}");
        assert_eq!(warnings[0].1["code"], "CredentialsSignin");
        assert_eq!(warnings[0].1["message"], expected);
    }
}
