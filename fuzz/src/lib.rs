//! Shared pieces of the fuzz targets: the engine they drive (fixed secret,
//! `trustHost`, one credentials provider), a CSRF cookie whose token the
//! seeds know, and the checks every target makes on a response.

use std::collections::HashMap;
use std::sync::Arc;

use libauth_core::{Auth, AuthRequest, AuthResponse, Config, HookMap, HostError};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// The fuzzed engine's secret.
pub const SECRET: &str = "libauth-fuzz-secret-0123456789abcdef";
/// The secret of the engine that issues the seed session cookie. It differs
/// from [`SECRET`] on purpose: the seed is a real, well-formed session
/// cookie (so mutations start from the exact shape the engine writes), yet
/// the fuzzed engine must never accept it, or anything made from it.
pub const ISSUER_SECRET: &str = "libauth-fuzz-issuer-secret-fedcba9876543210";
pub const ORIGIN: &str = "http://localhost:3000";
/// Plain-HTTP origin, so the cookie names carry no `__Secure-` prefix.
pub const SESSION_COOKIE: &str = "authjs.session-token";
pub const CSRF_COOKIE: &str = "authjs.csrf-token";
/// The CSRF token the body target's requests carry a valid cookie for: a
/// body that repeats it (the seeds do) passes the double-submit check, so
/// the fuzzer reaches the routes' code behind it.
pub const CSRF_TOKEN: &str = "0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f";

/// The credentials provider's `authorize` hook for the fuzzed engine: it
/// never returns a user (so no input may produce a session), and covers the
/// hook's error paths: `throw` fails with CredentialsSignin and a code,
/// `boom` with a plain error.
pub fn authorize_nobody(args: Value) -> Result<Value, HostError> {
    match args["credentials"]["username"].as_str() {
        Some("throw") => Err(HostError {
            message: "bad password".into(),
            error_type: Some("CredentialsSignin".into()),
            code: Some("wrong_password".into()),
        }),
        Some("boom") => Err(HostError::new("database exploded")),
        _ => Ok(Value::Null),
    }
}

/// The seed issuer's `authorize`: `ada`/`secret` signs in.
pub fn authorize_ada(args: Value) -> Result<Value, HostError> {
    let c = &args["credentials"];
    if c["username"] == "ada" && c["password"] == "secret" {
        Ok(json!({ "id": 42, "name": "Ada Lovelace", "email": "ada@example.com" }))
    } else {
        Ok(Value::Null)
    }
}

/// An engine like the tests build: `secret`, `trustHost: true`, one
/// credentials provider (`username`, `password`).
pub fn engine(secret: &str, hooks: HookMap) -> Auth {
    let config = Config::from_value(json!({
        "secret": secret,
        "trustHost": true,
        "providers": [{
            "type": "credentials",
            "credentials": {
                "username": { "label": "Username", "type": "text" },
                "password": { "label": "Password", "type": "password" }
            }
        }]
    }))
    .expect("valid fuzz config");
    Auth::with_env(config, Arc::new(hooks), &HashMap::<String, String>::new()).expect("engine builds")
}

/// The engine every route-level target fuzzes.
pub fn fuzzed_engine() -> Auth {
    engine(SECRET, HookMap::new().on("providers.credentials.authorize", authorize_nobody))
}

/// `CSRF_COOKIE`'s value for [`CSRF_TOKEN`] under [`SECRET`]:
/// `token|sha256hex(token + secret)`, the format the engine issues.
pub fn csrf_cookie_value() -> String {
    let mut h = Sha256::new();
    h.update(CSRF_TOKEN.as_bytes());
    h.update(SECRET.as_bytes());
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    format!("{CSRF_TOKEN}|{hex}")
}

/// Whether a `Set-Cookie` header sets a session cookie (clearing one is
/// fine: an invalid cookie is cleared).
pub fn sets_session(set_cookie: &str) -> bool {
    let first = set_cookie.split(';').next().unwrap_or_default();
    let Some((name, value)) = first.split_once('=') else {
        return false;
    };
    let clears = value.is_empty()
        || set_cookie.contains("Max-Age=0")
        || set_cookie.contains("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
    name.trim().contains(SESSION_COOKIE) && !clears
}

/// The checks every route-level target makes: no 5xx (the engine turns a
/// panic into a 500, and the AFL panic hook aborts even before that), no
/// session cookie issued.
pub fn check_response(what: &str, res: &AuthResponse) {
    assert!(res.status < 500, "{what}: status {} body {}", res.status, res.body_str());
    for header in res.set_cookies() {
        assert!(!sets_session(header), "{what}: a session cookie was issued: {header}");
    }
}

/// A credentials sign-in as `ada` on `auth` (whose `authorize` must be
/// [`authorize_ada`]): the session token it issues.
pub fn sign_in_ada(auth: &Auth) -> String {
    let res = auth.handle(&AuthRequest::get(format!("{ORIGIN}/auth/csrf")));
    let token = res.json().expect("csrf JSON")["csrfToken"].as_str().expect("csrfToken").to_owned();
    let csrf_cookie = res
        .set_cookies()
        .find_map(|h| h.split(';').next().filter(|c| c.starts_with(&format!("{CSRF_COOKIE}="))))
        .expect("csrf cookie")
        .to_owned();
    let req = AuthRequest::post_form(
        format!("{ORIGIN}/auth/callback/credentials"),
        &[("csrfToken", &token), ("username", "ada"), ("password", "secret")],
    )
    .with_header("cookie", csrf_cookie);
    let res = auth.handle(&req);
    let token = res
        .set_cookies()
        .find_map(|h| h.split(';').next()?.strip_prefix(&format!("{SESSION_COOKIE}=")).map(str::to_owned));
    token.unwrap_or_else(|| panic!("no session cookie issued: {res:?}"))
}

/// Two engines under [`ISSUER_SECRET`] that differ only in the session
/// cache: a small one (4 entries, so fuzzed inputs evict each other) and
/// none. The session cache target requires them to answer alike.
pub fn cache_engines() -> (Auth, Auth) {
    let make = |cache: Value| {
        let hooks = HookMap::new().on("providers.credentials.authorize", authorize_ada);
        let config = Config::from_value(json!({
            "secret": ISSUER_SECRET,
            "trustHost": true,
            "session": { "cache": cache },
            "providers": [{ "type": "credentials", "credentials": { "username": {}, "password": {} } }]
        }))
        .expect("valid fuzz config");
        Auth::with_env(config, Arc::new(hooks), &HashMap::<String, String>::new()).expect("engine builds")
    };
    (make(json!({ "maxEntries": 4, "maxBytes": 65536 })), make(Value::Bool(false)))
}
