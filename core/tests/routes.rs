//! Every route's wire format, as the Auth.js v5 client expects it.

mod common;

use common::*;
use libauth_core::AuthRequest;
use serde_json::{json, Value};

#[test]
fn providers_lists_id_name_type_and_urls() {
    let auth = auth(json!({}), hooks());
    let res = Browser::new(&auth).get("/auth/providers");
    assert_eq!(res.status, 200);
    assert_eq!(res.header("content-type"), Some("application/json"));
    assert_eq!(
        res.json().unwrap(),
        json!({"credentials": {
            "id": "credentials", "name": "Credentials", "type": "credentials",
            "signinUrl": "http://localhost:3000/auth/signin/credentials",
            "callbackUrl": "http://localhost:3000/auth/callback/credentials"
        }})
    );
}

#[test]
fn csrf_sets_a_double_submit_cookie_and_reuses_it() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    let res = b.get("/auth/csrf");
    assert_eq!(res.status, 200);
    assert_eq!(res.header("cache-control"), Some("private, no-cache, no-store"));
    let token = res.json().unwrap()["csrfToken"].as_str().unwrap().to_owned();
    assert_eq!(token.len(), 64);
    let cookie = res.set_cookies().find(|c| c.starts_with("authjs.csrf-token=")).unwrap();
    assert!(cookie.starts_with(&format!("authjs.csrf-token={token}%7C")), "{cookie}");
    assert!(cookie.contains("HttpOnly") && cookie.contains("SameSite=Lax") && cookie.contains("Path=/"));
    // Second call: same token, no new cookie.
    let again = b.get("/auth/csrf");
    assert_eq!(again.json().unwrap()["csrfToken"], token.as_str());
    assert_eq!(again.set_cookies().count(), 0);
}

#[test]
fn secure_cookie_names_over_https() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::at(&auth, "https://app.example.com");
    let res = b.get("/auth/csrf");
    let cookie = res.set_cookies().next().unwrap();
    assert!(cookie.starts_with("__Host-authjs.csrf-token="), "{cookie}");
    assert!(cookie.contains("; Secure"));
    let res = b.sign_in("ada", "secret");
    assert!(res.set_cookies().any(|c| c.starts_with("__Secure-authjs.session-token=") && c.contains("Secure")));
    assert_eq!(b.session()["user"]["name"], "Ada Lovelace");
}

#[test]
fn session_without_cookie_is_null() {
    let auth = auth(json!({}), hooks());
    let res = Browser::new(&auth).get("/auth/session");
    assert_eq!(res.status, 200);
    assert_eq!(res.body_str(), "null");
    assert_eq!(res.header("cache-control"), Some("private, no-cache, no-store"));
    assert_eq!(res.set_cookies().count(), 0);
}

#[test]
fn unknown_actions_and_methods_are_bad_requests() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    for path in ["/auth/nope", "/auth", "/auth/session/extra", "/auth/signin/a/b", "/elsewhere"] {
        let res = b.get(path);
        assert_eq!(res.status, 400, "{path}");
        assert_eq!(res.body_str(), "\"Bad request.\"");
    }
    let mut put = AuthRequest::get("http://localhost:3000/auth/session");
    put.method = "PUT".into();
    assert_eq!(auth.handle(&put).status, 400);
    let garbage = AuthRequest::get("not a url");
    assert_eq!(auth.handle(&garbage).status, 400);
    // POST to a GET-only action.
    let csrf = b.csrf();
    let res = b.post("/auth/providers", &[("csrfToken", &csrf)]);
    assert_eq!(location(&res), "http://localhost:3000/auth/error?error=Configuration");
}

#[test]
fn unknown_provider_goes_to_the_configuration_error() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    let csrf = b.csrf();
    let res = b.post("/auth/signin/github", &[("csrfToken", &csrf)]);
    assert_eq!(res.status, 302);
    assert_eq!(location(&res), "http://localhost:3000/auth/error?error=Configuration");
    let res = b.get("/auth/callback/github?code=x");
    assert_eq!(location(&res), "http://localhost:3000/auth/error?error=Configuration");
}

#[test]
fn signin_post_for_credentials_goes_to_the_page() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    let csrf = b.csrf();
    let res = b.post("/auth/signin/credentials", &[("csrfToken", &csrf)]);
    assert_eq!(location(&res), "http://localhost:3000/auth/signin");
    let res = b.post("/auth/signin", &[("csrfToken", &csrf)]);
    assert_eq!(location(&res), "http://localhost:3000/auth/signin");
}

#[test]
fn return_redirect_header_turns_redirects_into_json() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    b.extra_headers.push(("X-Auth-Return-Redirect".into(), "1".into()));
    let csrf = b.csrf();
    let res = b.post(
        "/auth/callback/credentials",
        &[("csrfToken", &csrf), ("username", "ada"), ("password", "secret"), ("callbackUrl", "/dashboard")],
    );
    assert_eq!(res.status, 200);
    assert_eq!(res.header("location"), None);
    assert_eq!(res.json().unwrap(), json!({"url": "http://localhost:3000/dashboard"}));
    assert!(res.set_cookies().any(|c| c.starts_with("authjs.session-token=")));
    // Errors too.
    let res = b.post("/auth/callback/credentials", &[("csrfToken", &csrf), ("username", "x")]);
    assert_eq!(
        res.json().unwrap(),
        json!({"url": "http://localhost:3000/auth/signin?error=CredentialsSignin&code=credentials"})
    );
}

#[test]
fn malformed_callback_urls_fall_back_to_the_base_url_on_every_route() {
    let auth = auth(json!({}), hooks());
    for bad in [
        "javascript:alert(1)",
        "ftp://localhost:3000/x",
        "%%%garbage",
        "https://evil.example/steal",
        "//evil.example",
        "http://[::1",
    ] {
        let mut b = Browser::new(&auth);
        // In the cookie: Auth.js v5 answers 500 on every route; we must not.
        b.jar.insert("authjs.callback-url".into(), urlencode(bad));
        for path in [
            "/auth/session",
            "/auth/csrf",
            "/auth/providers",
            "/auth/signin",
            "/auth/signout",
            "/auth/error",
            "/auth/verify-request",
        ] {
            let res = b.get(path);
            assert!(res.status < 500, "{bad} {path}: {}", res.status);
        }
        let res = b.sign_in("ada", "secret");
        assert_eq!(location(&res), ORIGIN, "cookie {bad}");

        // In the query and the body.
        let mut b = Browser::new(&auth);
        let page = b.get(&format!("/auth/signin?callbackUrl={}", urlencode(bad)));
        assert_eq!(page.status, 200);
        assert!(!page.body_str().contains("evil.example"));
        let csrf = b.csrf();
        let res = b.post(
            "/auth/callback/credentials",
            &[("csrfToken", &csrf), ("username", "ada"), ("password", "secret"), ("callbackUrl", bad)],
        );
        assert_eq!(location(&res), ORIGIN, "body {bad}");
        let res = b.post("/auth/signout", &[("csrfToken", &csrf), ("callbackUrl", bad)]);
        assert_eq!(location(&res), ORIGIN, "signout {bad}");
    }
}

#[test]
fn same_origin_callback_urls_are_kept_and_remembered() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    let page = b.get("/auth/signin?callbackUrl=%2Fdashboard%3Ftab%3D1");
    assert!(page.body_str().contains("value=\"http://localhost:3000/dashboard?tab=1\""));
    assert_eq!(
        b.jar.get("authjs.callback-url").map(String::as_str),
        Some("http%3A%2F%2Flocalhost%3A3000%2Fdashboard%3Ftab%3D1")
    );
    // The remembered URL is used when the sign-in POST has none.
    let res = b.sign_in("ada", "secret");
    assert_eq!(location(&res), "http://localhost:3000/dashboard?tab=1");
}

#[test]
fn an_empty_callback_url_neither_overrides_nor_is_remembered() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    b.get("/auth/signin?callbackUrl=%2Fdashboard");
    let csrf = b.csrf();
    let res = b.post(
        "/auth/callback/credentials",
        &[("csrfToken", &csrf), ("username", "ada"), ("password", "secret"), ("callbackUrl", "")],
    );
    assert_eq!(location(&res), "http://localhost:3000/dashboard", "the remembered URL, not the empty one");

    // An empty remembered URL is no URL: the origin.
    let mut b = Browser::new(&auth);
    b.jar.insert("authjs.callback-url".into(), String::new());
    let res = b.sign_in("ada", "secret");
    assert_eq!(location(&res), ORIGIN);
}

#[test]
fn only_paths_under_base_path_segments_are_routes() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    assert_eq!(b.get("/auth/session").status, 200);
    for path in ["/authsession", "/authx/session", "/auth2/csrf"] {
        assert_eq!(b.get(path).status, 400, "{path}");
        assert_eq!(auth.route(&format!("{ORIGIN}{path}")), None, "{path}");
    }
}

#[test]
fn a_body_at_the_size_bound_is_read_and_one_byte_more_is_413() {
    use libauth_core::http::MAX_BODY_BYTES;
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    let csrf = b.csrf();
    let fill = |len: usize| {
        let head = format!("csrfToken={csrf}&username=ada&password=secret&pad=");
        format!("{head}{}", "p".repeat(len - head.len()))
    };
    let post = |b: &mut Browser, body: String| {
        let mut req = libauth_core::AuthRequest::post_form(format!("{ORIGIN}/auth/callback/credentials"), &[]);
        req.body = Some(body.into_bytes());
        b.send(req)
    };
    let res = post(&mut b, fill(MAX_BODY_BYTES));
    assert_eq!((res.status, location(&res)), (302, ORIGIN), "a body of exactly the bound signs in");
    let res = post(&mut b, fill(MAX_BODY_BYTES + 1));
    assert_eq!(res.status, 413);
}

#[test]
fn admission_is_bounded_by_max_in_flight_and_past_it_the_answer_is_503() {
    let auth = auth(json!({ "hooks": { "maxInFlight": 2 } }), hooks());
    let first = place(&auth).expect("a place");
    let second = place(&auth).expect("a second place");
    assert!(place(&auth).is_none(), "the bound is reached");
    drop(first);
    let third = place(&auth).expect("a place freed by the first");

    // A request that needs host code, past the bound: answered at once.
    let callback = AuthRequest::post_form("http://localhost:3000/auth/callback/credentials", &[("username", "ada")]);
    let res = match auth.admit(libauth_core::Work::Request(&callback)) {
        libauth_core::Admission::Answered(res) => res,
        _ => panic!("past the bound a request is answered, not admitted"),
    };
    drop((second, third));
    assert_eq!(res.status, 503);
    assert_eq!(res.header("retry-after"), Some("1"));
    assert_eq!(res.header("content-type"), Some("application/json"));
    assert!(res.body_str().contains("busy"));
}

#[test]
fn auth_url_sets_origin_and_base_path() {
    let auth = libauth_core::Auth::with_env(
        config(json!({})),
        std::sync::Arc::new(hooks()),
        &[("AUTH_URL".to_string(), "https://app.example.com/api/auth".to_string())]
            .into_iter()
            .collect::<std::collections::HashMap<_, _>>(),
    )
    .unwrap();
    // The request came in over plain http behind a proxy; AUTH_URL wins.
    let mut b = Browser::at(&auth, "http://10.0.0.5:8080");
    let res = b.get("/api/auth/providers");
    assert_eq!(res.json().unwrap()["credentials"]["signinUrl"], "https://app.example.com/api/auth/signin/credentials");
    let res = b.get("/api/auth/csrf");
    assert!(res.set_cookies().next().unwrap().starts_with("__Host-authjs.csrf-token="));
}

#[test]
fn untrusted_host_is_a_configuration_error() {
    use std::collections::HashMap;
    let untrusted = || {
        libauth_core::Config::from_value(json!({ "secret": SECRET, "providers": [{ "type": "credentials" }] })).unwrap()
    };
    // No trustHost, no AUTH_URL: the Host header is not trusted, whatever
    // the environment is called (a Rust, Python or C server sets no NODE_ENV).
    for env in [vec![], vec![("NODE_ENV", "development")], vec![("NODE_ENV", "production")]] {
        let env: HashMap<String, String> = env.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect();
        let auth = libauth_core::Auth::with_env(untrusted(), std::sync::Arc::new(hooks()), &env).unwrap();
        let mut b = Browser::new(&auth);
        let res = b.get("/auth/session");
        assert_eq!(res.status, 500, "{env:?}");
        assert_eq!(res.header("content-type"), Some("application/json"), "the API answers JSON");
        assert!(res.body_str().contains("server configuration"));
        let res = b.get("/auth/signin");
        assert_eq!(res.status, 500);
        assert!(res.header("content-type").is_some_and(|t| t.starts_with("text/html")), "a page answers a page");
        assert!(res.body_str().contains("Server error"));
        // A POST to a page's route is the API: JSON.
        let res = b.post("/auth/signin", &[("csrfToken", "x")]);
        assert_eq!((res.status, res.header("content-type")), (500, Some("application/json")));
    }
    // trustHost: true, AUTH_TRUST_HOST or a canonical AUTH_URL opt in.
    let no_env = HashMap::new();
    let auth = libauth_core::Auth::with_env(config(json!({"trustHost": true})), std::sync::Arc::new(hooks()), &no_env)
        .unwrap();
    assert_eq!(Browser::new(&auth).get("/auth/session").status, 200);
    for (k, v) in [("AUTH_TRUST_HOST", "true"), ("AUTH_URL", "http://localhost:3000/auth")] {
        let env: HashMap<String, String> = [(k.to_owned(), v.to_owned())].into_iter().collect();
        let auth = libauth_core::Auth::with_env(untrusted(), std::sync::Arc::new(hooks()), &env).unwrap();
        assert_eq!(Browser::new(&auth).get("/auth/session").status, 200, "{k}");
    }
}

#[test]
fn custom_base_path() {
    let auth = auth(json!({"basePath": "/api/auth/"}), hooks());
    let mut b = Browser::new(&auth);
    assert_eq!(b.get("/api/auth/session").status, 200);
    assert_eq!(b.get("/auth/session").status, 400);
    let csrf = {
        let r = b.get("/api/auth/csrf");
        r.json().unwrap()["csrfToken"].as_str().unwrap().to_owned()
    };
    let res = b.post("/api/auth/callback/credentials", &[("csrfToken", &csrf), ("username", "nobody")]);
    assert_eq!(location(&res), "http://localhost:3000/api/auth/signin?error=CredentialsSignin&code=credentials");
}

#[test]
fn handle_answers_from_json_requests() {
    let auth = auth(json!({}), hooks());
    let req: AuthRequest = serde_json::from_value(json!({
        "method": "GET", "url": "http://localhost:3000/auth/providers", "headers": []
    }))
    .unwrap();
    let res = auth.handle(&req);
    let wire: Value = serde_json::to_value(&res).unwrap();
    assert_eq!(wire["status"], 200);
    assert!(wire["body"].as_str().unwrap().contains("signinUrl"));
}

pub fn urlencode(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

#[test]
fn hookless_requests_are_recognised_for_bindings() {
    let plain = auth(json!({}), hooks());
    assert!(plain.session_is_hookless());
    for (method, url, expected) in [
        ("GET", "http://localhost:3000/auth/session", true),
        ("GET", "http://localhost:3000/auth/csrf?x=1", true),
        ("GET", "http://localhost:3000/auth/providers/", true),
        // The built-in pages reach no hook without a redirect callback or logger.
        ("GET", "http://localhost:3000/auth/signin", true),
        ("GET", "http://localhost:3000/auth/error?error=x", true),
        ("GET", "http://localhost:3000/auth/signin/github", false),
        ("GET", "http://localhost:3000/auth/callback/credentials", false),
        ("POST", "http://localhost:3000/auth/session", false),
        ("POST", "http://localhost:3000/auth/callback/credentials", false),
        // Answered 400 before any route runs.
        ("GET", "http://localhost:3000/other/session", true),
        ("GET", "garbage", true),
        ("PUT", "http://localhost:3000/auth/session", true),
    ] {
        let mut req = AuthRequest::get(url);
        req.method = method.into();
        assert_eq!(answered_inline(&plain, &req).is_some(), expected, "{method} {url}");
    }
    let with_jwt = auth(json!({}), hooks().on("callbacks.jwt", |a| Ok(a["token"].clone())));
    assert!(!with_jwt.session_is_hookless());
    assert!(answered_inline(&with_jwt, &AuthRequest::get("http://localhost:3000/auth/session")).is_none());
    let with_logger = auth(json!({}), hooks().on("logger.error", |_| Ok(Value::Null)));
    assert!(!with_logger.session_is_hookless());
    let with_db = auth(json!({"adapter": {"type": "memory"}}), hooks());
    assert!(!with_db.session_is_hookless(), "a database read blocks");
}
