//! One route-level test per security check: each request is valid in every
//! respect but one, so the test fails when that one check is removed.
//!
//! Which check each test guards (engine file in brackets):
//! - `state_other_than_the_cookies_is_refused`: state param equals the state cookie [routes/oauth.rs]
//! - `state_missing_from_the_callback_is_refused`: state param required [routes/oauth.rs]
//! - `pkce_another_sealed_verifier_is_refused_by_the_provider`: challenge sent, verifier bound to it [routes/oauth.rs]
//! - `pkce_missing_verifier_cookie_is_refused`: verifier cookie required [routes/oauth.rs]
//! - `nonce_other_than_the_cookies_is_refused`: id_token nonce equals the cookie's [oauth/id_token.rs]
//! - `nonce_missing_cookie_is_refused`: nonce cookie required [routes/oauth.rs]
//! - `id_token_signature_by_another_key_with_the_same_kid_is_refused`: JWS signature verified [oauth/id_token.rs]
//! - `id_token_signature_alg_none_is_refused`, `..._hs256_is_refused`: alg allowlist [oauth/id_token.rs]
//! - `id_token_iss/aud/azp/exp/iat_..._is_refused`: that claim's check [oauth/id_token.rs]
//! - `csrf_signin/credentials_callback/signout_...`: double-submit CSRF, per route and per fault: token
//!   present, token equals the cookie's, cookie hash verified, cookie present [csrf.rs, routes/mod.rs]
//! - `redirect_sign_in/sign_out_...`: same-origin callbackUrl (other origin, `//`, `/\`, `javascript:`) [redirect.rs]
//! - `session_cookie_changed_in_any_jwe_part_is_no_session`: JWE tag, tag over the header, empty
//!   encrypted key [jwt.rs]
//! - `control_oauth_and_oidc_sign_in_when_nothing_is_changed`: the unchanged flow succeeds
//! - `the_providers_keys_are_fetched_once_and_then_cached`: the JWKS cache [oauth/id_token.rs]
//! - `the_sealed_state_lives_fifteen_minutes`: the check cookies' lifetime [routes/oauth.rs]
//! - `state_is_sent_only_when_checked_or_proxied`, `check_cookies_stay_lax_for_form_post`:
//!   which checks a provider gets, and its check cookies' SameSite [routes/oauth.rs]
//! - `nonce_is_sent_and_checked_only_when_configured`, `the_id_token_is_used_only_when_the_provider_says_so`:
//!   the OIDC profile's sources [routes/oauth.rs]
//! - `a_discovery_that_fails_during_the_callback_is_logged_as_invalid_endpoints`: the logged cause [routes/oauth.rs]
//!
//! Where a second layer also refuses (PKCE with no verifier cookie: the
//! provider; alg none/HS256: no matching key; a changed ciphertext: not
//! JSON), the test pins the logged cause, so it still fails when the first
//! check is removed.
//!
//! The OAuth and OIDC provider is a small local server (token, user info
//! and JWKS endpoints); the "authorization" step happens in-process: the
//! test reads the authorization URL the engine built and registers the
//! grant the provider would issue for it, then sends the callback itself.

mod common;

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex, OnceLock};

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD as B64};
use base64::Engine as _;
use common::*;
use josekit::jwk::{Jwk, KeyPair as _};
use josekit::jws::{JwsHeader, HS256, RS256};
use josekit::jwt::JwtPayload;
use libauth_core::{Auth, AuthResponse};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

const CLIENT_ID: &str = "checks-client";
const CLIENT_SECRET: &str = "checks-client-secret-0123456789abcdef";
const KID: &str = "k1";
const SESSION: &str = "authjs.session-token";
const REFUSED: &str = "http://localhost:3000/auth/signin?error=OAuthCallbackError";
const MISSING_CSRF: &str = "http://localhost:3000/auth/signin?error=MissingCSRF";

// ---------------------------------------------------------------------------
// The provider.

/// The provider's signing key (published in its JWKS) and an attacker's key.
struct Keys {
    good: Vec<u8>,
    other: Vec<u8>,
    public_jwk: Jwk,
}

fn keys() -> &'static Keys {
    static KEYS: OnceLock<Keys> = OnceLock::new();
    KEYS.get_or_init(|| {
        let good = RS256.generate_key_pair(2048).unwrap();
        let other = RS256.generate_key_pair(2048).unwrap();
        let mut public_jwk = good.to_jwk_public_key();
        public_jwk.set_key_id(KID);
        public_jwk.set_key_use("sig");
        public_jwk.set_algorithm("RS256");
        Keys { good: good.to_der_private_key(), other: other.to_der_private_key(), public_jwk }
    })
}

/// How the provider signs the id_token it returns for a grant.
#[derive(Clone, Copy)]
enum Signing {
    /// RS256 with the key in its JWKS.
    Good,
    /// RS256 with another key, under the same kid.
    OtherKey,
    /// `alg: none`, no signature.
    None,
    /// HS256 keyed with the client secret.
    Hs256,
}

/// The id_token for one grant: the correct claims with `overrides` applied
/// (a null removes a claim), signed as `signing` says.
#[derive(Clone)]
struct IdToken {
    overrides: Value,
    signing: Signing,
}

impl IdToken {
    fn valid() -> Self {
        IdToken { overrides: json!({}), signing: Signing::Good }
    }
    fn with(overrides: Value) -> Self {
        IdToken { overrides, signing: Signing::Good }
    }
    fn signed(signing: Signing) -> Self {
        IdToken { overrides: json!({}), signing }
    }
}

struct Grant {
    redirect_uri: String,
    challenge: Option<String>,
    nonce: Option<String>,
    id_token: IdToken,
}

#[derive(Default)]
struct SimState {
    grants: HashMap<String, Grant>,
    /// Every token request, and why the provider refused it (if it did).
    token_requests: Vec<Result<(), String>>,
    /// How often the JWKS was fetched.
    jwks_fetches: usize,
}

struct Sim {
    base: String,
    state: Arc<Mutex<SimState>>,
}

impl Sim {
    fn start() -> Sim {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
        let state = Arc::new(Mutex::new(SimState::default()));
        let (st, issuer) = (state.clone(), base.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (st, issuer) = (st.clone(), issuer.clone());
                std::thread::spawn(move || serve(stream, &st, &issuer));
            }
        });
        Sim { base, state }
    }

    /// The user approves the request at the provider: the provider keeps
    /// what the authorization URL bound the code to, and returns the code.
    fn approve(&self, authorization: &HashMap<String, String>, id_token: IdToken) -> String {
        assert_eq!(authorization["client_id"], CLIENT_ID);
        assert_eq!(authorization["response_type"], "code");
        let challenge = authorization.get("code_challenge").cloned();
        if challenge.is_some() {
            assert_eq!(authorization["code_challenge_method"], "S256");
        }
        let code = format!("code-{}", libauth_core::random::hex(8));
        let grant = Grant {
            redirect_uri: authorization["redirect_uri"].clone(),
            challenge,
            nonce: authorization.get("nonce").cloned(),
            id_token,
        };
        self.state.lock().unwrap().grants.insert(code.clone(), grant);
        code
    }

    fn token_requests(&self) -> Vec<Result<(), String>> {
        self.state.lock().unwrap().token_requests.clone()
    }
}

fn serve(mut stream: TcpStream, state: &Mutex<SimState>, issuer: &str) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    let mut headers = HashMap::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = line.split_once(':') {
            headers.insert(k.trim().to_ascii_lowercase(), v.trim().to_owned());
        }
    }
    let length: usize = headers.get("content-length").and_then(|l| l.parse().ok()).unwrap_or(0);
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    let path = request_line.split_whitespace().nth(1).unwrap_or("/").split('?').next().unwrap_or("/").to_owned();
    let (status, reply) = match path.as_str() {
        "/.well-known/openid-configuration" => (
            200,
            json!({ "issuer": issuer, "authorization_endpoint": format!("{issuer}/authorize"),
                "token_endpoint": format!("{issuer}/token"), "jwks_uri": format!("{issuer}/jwks"),
                "userinfo_endpoint": format!("{issuer}/userinfo") }),
        ),
        "/jwks" => {
            state.lock().unwrap().jwks_fetches += 1;
            (200, json!({ "keys": [keys().public_jwk.as_ref()] }))
        }
        "/token" => token(state, issuer, &headers, &body),
        "/userinfo" => match headers.get("authorization").and_then(|a| a.strip_prefix("Bearer at-")) {
            Some(_) => (200, json!({ "sub": "user-1", "name": "Sim User", "email": "user@example.com" })),
            None => (401, json!({ "error": "invalid_token" })),
        },
        _ => (404, json!({ "error": "not_found" })),
    };
    let reply = reply.to_string();
    let head = format!("HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n", reply.len());
    let _ = write!(stream, "{head}connection: close\r\n\r\n{reply}");
}

/// The token endpoint: client authentication, the code (single use), its
/// redirect_uri, and PKCE S256 against the challenge the code was bound to.
fn token(state: &Mutex<SimState>, issuer: &str, headers: &HashMap<String, String>, body: &[u8]) -> (u16, Value) {
    let form: HashMap<String, String> = url::form_urlencoded::parse(body).into_owned().collect();
    let mut state = state.lock().unwrap();
    let verdict = (|| {
        let basic = format!("Basic {}", STANDARD.encode(format!("{CLIENT_ID}:{CLIENT_SECRET}")));
        if headers.get("authorization") != Some(&basic) {
            return Err(("invalid_client", "client authentication failed".to_owned()));
        }
        if form.get("grant_type").map(String::as_str) != Some("authorization_code") {
            return Err(("unsupported_grant_type", "expected authorization_code".to_owned()));
        }
        let code = form.get("code").cloned().unwrap_or_default();
        let grant = state.grants.remove(&code).ok_or(("invalid_grant", "unknown or used code".to_owned()))?;
        if form.get("redirect_uri") != Some(&grant.redirect_uri) {
            return Err(("invalid_grant", "redirect_uri mismatch".to_owned()));
        }
        if let Some(challenge) = &grant.challenge {
            let verifier = form.get("code_verifier").ok_or(("invalid_grant", "code_verifier required".to_owned()))?;
            if B64.encode(Sha256::digest(verifier.as_bytes())) != *challenge {
                return Err(("invalid_grant", "code_verifier does not match code_challenge".to_owned()));
            }
        }
        Ok((code, grant))
    })();
    match verdict {
        Ok((code, grant)) => {
            state.token_requests.push(Ok(()));
            let mut tokens = json!({
                "access_token": format!("at-{code}"), "token_type": "Bearer", "expires_in": 3600,
                "scope": "openid profile email",
            });
            tokens["id_token"] = json!(id_token(issuer, grant.nonce.as_deref(), &grant.id_token));
            (200, tokens)
        }
        Err((error, description)) => {
            state.token_requests.push(Err(description.clone()));
            (400, json!({ "error": error, "error_description": description }))
        }
    }
}

fn id_token(issuer: &str, nonce: Option<&str>, spec: &IdToken) -> String {
    let now = libauth_core::time::now_seconds();
    let mut claims = json!({
        "iss": issuer, "aud": CLIENT_ID, "sub": "user-1", "iat": now, "exp": now + 300,
        "nonce": nonce, "name": "Sim User", "email": "user@example.com",
    });
    for (k, v) in spec.overrides.as_object().unwrap() {
        if v.is_null() {
            claims.as_object_mut().unwrap().remove(k);
        } else {
            claims[k] = v.clone();
        }
    }
    let payload = JwtPayload::from_map(claims.as_object().unwrap().clone()).unwrap();
    let mut header = JwsHeader::new();
    header.set_token_type("JWT");
    header.set_key_id(KID);
    match spec.signing {
        Signing::Good => {
            josekit::jwt::encode_with_signer(&payload, &header, &RS256.signer_from_der(&keys().good).unwrap()).unwrap()
        }
        Signing::OtherKey => {
            josekit::jwt::encode_with_signer(&payload, &header, &RS256.signer_from_der(&keys().other).unwrap()).unwrap()
        }
        Signing::Hs256 => {
            josekit::jwt::encode_with_signer(&payload, &header, &HS256.signer_from_bytes(CLIENT_SECRET).unwrap())
                .unwrap()
        }
        Signing::None => {
            let header = json!({ "alg": "none", "typ": "JWT", "kid": KID });
            format!("{}.{}.", B64.encode(header.to_string()), B64.encode(claims.to_string()))
        }
    }
}

// ---------------------------------------------------------------------------
// The engine.

struct Setup {
    sim: Sim,
    auth: Auth,
    log: CallLog,
}

/// Credentials, a plain OAuth provider (`oauth`: state + PKCE) and an OIDC
/// provider (`oidc`: state + PKCE + nonce, id_token checked against the
/// configured issuer), all against the local provider.
fn setup() -> Setup {
    let sim = Sim::start();
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let base = &sim.base;
    let hooks = recording(hooks(), &log, &["logger.error"], Value::Null);
    let authorize_log = log.clone();
    let hooks = hooks.on("providers.credentials.authorize", move |args| {
        authorize_log.lock().unwrap().push(("authorize".into(), args.clone()));
        authorize(args)
    });
    let auth = auth(
        json!({ "providers": [
            { "type": "credentials", "credentials": { "username": {}, "password": {} } },
            { "type": "oauth", "id": "oauth", "clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET,
              "authorization": format!("{base}/authorize"), "token": format!("{base}/token"),
              "userinfo": format!("{base}/userinfo") },
            { "type": "oidc", "id": "oidc", "clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET,
              "issuer": base, "authorization": format!("{base}/authorize"), "token": format!("{base}/token"),
              "jwksUri": format!("{base}/jwks") },
        ] }),
        hooks,
    );
    Setup { sim, auth, log }
}

fn errors(log: &CallLog) -> Vec<String> {
    log.lock()
        .unwrap()
        .iter()
        .filter(|(n, _)| n == "logger.error")
        .map(|(_, a)| a["message"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The first cause of the last error logged.
fn last_cause(log: &CallLog) -> String {
    let log = log.lock().unwrap();
    let (_, args) = log.iter().rev().find(|(n, _)| n == "logger.error").expect("an error was logged");
    args["cause"][0].as_str().unwrap_or_default().to_owned()
}

fn authorize_calls(log: &CallLog) -> usize {
    log.lock().unwrap().iter().filter(|(n, _)| n == "authorize").count()
}

/// POST signin/<provider>: the query of the authorization URL.
fn begin(b: &mut Browser, provider: &str) -> HashMap<String, String> {
    let csrf = b.csrf();
    let res = b.post(&format!("/auth/signin/{provider}"), &[("csrfToken", &csrf), ("callbackUrl", "/home")]);
    url::Url::parse(location(&res)).unwrap().query_pairs().into_owned().collect()
}

fn callback(b: &mut Browser, provider: &str, code: &str, state: Option<&str>) -> AuthResponse {
    let mut query = url::form_urlencoded::Serializer::new(String::new());
    query.append_pair("code", code);
    if let Some(state) = state {
        query.append_pair("state", state);
    }
    b.get(&format!("/auth/callback/{provider}?{}", query.finish()))
}

/// Refused: back to sign-in, no session, and exactly `cause` logged last.
fn assert_refused(s: &Setup, b: &mut Browser, res: &AuthResponse, cause: &str) {
    let errors = errors(&s.log);
    assert_eq!((res.status, location(res)), (302, REFUSED), "errors: {errors:?}");
    assert_eq!(errors.last().map(String::as_str), Some(cause), "all errors: {errors:?}");
    assert!(!b.has_session_cookie());
    assert_eq!(b.session(), Value::Null);
}

fn assert_signed_in(s: &Setup, b: &mut Browser, res: &AuthResponse) {
    assert_eq!(location(res), "http://localhost:3000/home", "errors: {:?}", errors(&s.log));
    assert_eq!(b.session()["user"]["email"], "user@example.com");
}

// ---------------------------------------------------------------------------
// The unchanged flows: what every test below changes one thing in.

#[test]
fn control_oauth_and_oidc_sign_in_when_nothing_is_changed() {
    let s = setup();
    for provider in ["oauth", "oidc"] {
        let mut b = Browser::new(&s.auth);
        let q = begin(&mut b, provider);
        assert_eq!(q.contains_key("nonce"), provider == "oidc");
        let code = s.sim.approve(&q, IdToken::valid());
        let res = callback(&mut b, provider, &code, Some(&q["state"]));
        assert_signed_in(&s, &mut b, &res);
    }
    assert_eq!(s.sim.token_requests(), vec![Ok(()), Ok(())]);
    assert!(errors(&s.log).is_empty(), "{:?}", errors(&s.log));
}

/// An engine with one `oauth` provider (PKCE only) against `sim`, plus `extra` options.
fn pkce_only_provider(sim: &Sim, extra: Value) -> Auth {
    let base = &sim.base;
    let mut p = json!({ "type": "oauth", "id": "oauth", "clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET,
        "authorization": format!("{base}/authorize"), "token": format!("{base}/token"),
        "userinfo": format!("{base}/userinfo"), "checks": ["pkce"] });
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    auth(json!({ "providers": [p] }), libauth_core::HookMap::new())
}

/// An engine with one `oidc` provider against `sim`, plus `extra` options.
fn oidc_provider(sim: &Sim, extra: Value) -> Auth {
    let base = &sim.base;
    let mut p = json!({ "type": "oidc", "id": "oidc", "clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET,
        "issuer": base, "authorization": format!("{base}/authorize"), "token": format!("{base}/token"),
        "jwksUri": format!("{base}/jwks") });
    for (k, v) in extra.as_object().unwrap() {
        p[k] = v.clone();
    }
    auth(json!({ "providers": [p] }), libauth_core::HookMap::new())
}

/// Sign in through `auth`'s `oidc` provider; the session's user.
fn oidc_sign_in(sim: &Sim, auth: &Auth, id_token: IdToken) -> (HashMap<String, String>, Value) {
    let mut b = Browser::new(auth);
    let q = begin(&mut b, "oidc");
    let code = sim.approve(&q, id_token);
    callback(&mut b, "oidc", &code, q.get("state").map(String::as_str));
    (q, b.session()["user"].clone())
}

#[test]
fn endpoints_not_configured_are_discovered() {
    let sim = Sim::start();
    let base = sim.base.clone();
    let oidc = |p: Value| {
        let mut provider = json!({ "type": "oidc", "id": "oidc", "clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET,
            "issuer": base });
        for (k, v) in p.as_object().unwrap() {
            provider[k] = v.clone();
        }
        auth(json!({ "providers": [provider] }), libauth_core::HookMap::new())
    };
    // Only the token endpoint is missing; then only the keys.
    for configured in [
        json!({ "authorization": format!("{base}/authorize"), "jwksUri": format!("{base}/jwks") }),
        json!({ "authorization": format!("{base}/authorize"), "token": format!("{base}/token") }),
    ] {
        let (_, user) = oidc_sign_in(&sim, &oidc(configured.clone()), IdToken::valid());
        assert_eq!(user["email"], "user@example.com", "{configured}");
    }
}

#[test]
fn a_discovery_that_fails_during_the_callback_is_logged_as_invalid_endpoints() {
    let sim = Sim::start();
    // The flow starts on a deployment whose provider has every endpoint
    // configured, and comes back to one (same secret, say after a redeploy)
    // that must discover them, from an issuer that serves no discovery.
    let start = oidc_provider(&sim, json!({}));
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let discovering = auth(
        json!({ "providers": [{ "type": "oidc", "id": "oidc", "clientId": CLIENT_ID,
            "clientSecret": CLIENT_SECRET, "issuer": format!("{}/elsewhere", sim.base) }] }),
        recording(libauth_core::HookMap::new(), &log, &["logger.error"], Value::Null),
    );
    let mut b = Browser::new(&start);
    let q = begin(&mut b, "oidc");
    let code = sim.approve(&q, IdToken::valid());
    let mut back = Browser::new(&discovering);
    back.jar = b.jar.clone();
    let res = callback(&mut back, "oidc", &code, Some(&q["state"]));
    assert_eq!(location(&res), REFUSED);
    let cause = last_cause(&log);
    assert!(cause.starts_with("InvalidEndpoints: "), "{cause}");
}

#[test]
fn nonce_is_sent_and_checked_only_when_configured() {
    let sim = Sim::start();
    let without = oidc_provider(&sim, json!({ "checks": ["state", "pkce"] }));
    let (q, user) = oidc_sign_in(&sim, &without, IdToken::with(json!({ "nonce": null })));
    assert!(!q.contains_key("nonce"), "{q:?}");
    assert_eq!(user["email"], "user@example.com", "no nonce cookie is asked for");
}

#[test]
fn the_id_token_is_used_only_when_the_provider_says_so() {
    let sim = Sim::start();
    // idToken: false: the profile comes from user info; the id_token is not read.
    let base = sim.base.clone();
    let userinfo_only = oidc_provider(&sim, json!({ "idToken": false, "userinfo": format!("{base}/userinfo") }));
    let (_, user) = oidc_sign_in(&sim, &userinfo_only, IdToken::signed(Signing::OtherKey));
    assert_eq!(user["email"], "user@example.com");
    // A configured user-info endpoint is read even when the id_token has a profile.
    let both = oidc_provider(&sim, json!({ "userinfo": format!("{base}/userinfo") }));
    let (_, user) = oidc_sign_in(&sim, &both, IdToken::with(json!({ "name": "Name In The Id Token" })));
    assert_eq!(user["name"], "Sim User", "user info completes the id_token's claims");
}

#[test]
fn state_is_sent_only_when_checked_or_proxied() {
    let sim = Sim::start();
    let pkce_only = pkce_only_provider(&sim, json!({}));
    let q = begin(&mut Browser::new(&pkce_only), "oauth");
    assert!(!q.contains_key("state"), "{q:?}");
    assert!(q.contains_key("code_challenge"));
    // Behind a redirect proxy the state carries the origin, so it is always sent.
    let proxied = pkce_only_provider(&sim, json!({ "redirectProxyUrl": "https://proxy.example/auth" }));
    let q = begin(&mut Browser::new(&proxied), "oauth");
    assert!(q.contains_key("state"), "{q:?}");
}

#[test]
fn check_cookies_stay_lax_for_form_post() {
    let sim = Sim::start();
    let verifier_cookie = |response_mode: &str| {
        let authorization =
            json!({ "url": format!("{}/authorize", sim.base), "params": { "response_mode": response_mode } });
        let auth = pkce_only_provider(&sim, json!({ "authorization": authorization }));
        let mut b = Browser::new(&auth);
        let csrf = b.csrf();
        let res = b.post("/auth/signin/oauth", &[("csrfToken", &csrf)]);
        let cookie = res.set_cookies().find(|c| c.starts_with("authjs.pkce.code_verifier=")).unwrap().to_owned();
        cookie
    };
    let lax = verifier_cookie("query");
    assert!(lax.ends_with("; SameSite=Lax") && !lax.contains("Secure"), "{lax}");
    // form_post too: the cross-site POST back is answered with a same-site re-post.
    let form_post = verifier_cookie("form_post");
    assert!(form_post.ends_with("; SameSite=Lax"), "{form_post}");
}

#[test]
fn the_sealed_state_lives_fifteen_minutes() {
    let s = setup();
    let mut b = Browser::new(&s.auth);
    let q = begin(&mut b, "oauth");
    let codec = libauth_core::jwt::JwtCodec::new(vec![SECRET.to_owned()], &["authjs.state"]);
    let state = codec.decode(&q["state"], "authjs.state").expect("the state is sealed with the secret");
    assert_eq!(state["exp"].as_u64().unwrap() - state["iat"].as_u64().unwrap(), 15 * 60);
}

#[test]
fn the_providers_keys_are_fetched_once_and_then_cached() {
    let s = setup();
    for _ in 0..3 {
        let mut b = Browser::new(&s.auth);
        let q = begin(&mut b, "oidc");
        let code = s.sim.approve(&q, IdToken::valid());
        let res = callback(&mut b, "oidc", &code, Some(&q["state"]));
        assert_signed_in(&s, &mut b, &res);
    }
    assert_eq!(s.sim.state.lock().unwrap().jwks_fetches, 1);
}

// ---------------------------------------------------------------------------
// state

#[test]
fn state_other_than_the_cookies_is_refused() {
    let s = setup();
    for provider in ["oauth", "oidc"] {
        let mut b = Browser::new(&s.auth);
        let q = begin(&mut b, provider);
        // A state the engine sealed, but for another browser.
        let other = begin(&mut Browser::new(&s.auth), provider);
        let code = s.sim.approve(&q, IdToken::valid());
        let res = callback(&mut b, provider, &code, Some(&other["state"]));
        assert_refused(&s, &mut b, &res, "InvalidCheck: state mismatch");
    }
}

#[test]
fn state_missing_from_the_callback_is_refused() {
    let s = setup();
    for provider in ["oauth", "oidc"] {
        let mut b = Browser::new(&s.auth);
        let q = begin(&mut b, provider);
        let code = s.sim.approve(&q, IdToken::valid());
        let res = callback(&mut b, provider, &code, None);
        assert_refused(&s, &mut b, &res, "InvalidCheck: state missing from the callback");
    }
    assert!(s.sim.token_requests().is_empty(), "no code was exchanged");
}

// ---------------------------------------------------------------------------
// PKCE

#[test]
fn pkce_another_sealed_verifier_is_refused_by_the_provider() {
    let s = setup();
    for provider in ["oauth", "oidc"] {
        let mut b = Browser::new(&s.auth);
        let q = begin(&mut b, provider);
        let mut other = Browser::new(&s.auth);
        begin(&mut other, provider);
        let verifier = other.jar["authjs.pkce.code_verifier"].clone();
        assert_ne!(b.jar["authjs.pkce.code_verifier"], verifier);
        b.jar.insert("authjs.pkce.code_verifier".into(), verifier);
        let code = s.sim.approve(&q, IdToken::valid());
        let res = callback(&mut b, provider, &code, Some(&q["state"]));
        assert_refused(
            &s,
            &mut b,
            &res,
            "token endpoint error invalid_grant: code_verifier does not match code_challenge (HTTP 400)",
        );
    }
    let refusals = vec![Err("code_verifier does not match code_challenge".to_owned()); 2];
    assert_eq!(s.sim.token_requests(), refusals);
}

#[test]
fn pkce_missing_verifier_cookie_is_refused() {
    let s = setup();
    for provider in ["oauth", "oidc"] {
        let mut b = Browser::new(&s.auth);
        let q = begin(&mut b, provider);
        b.jar.remove("authjs.pkce.code_verifier");
        let code = s.sim.approve(&q, IdToken::valid());
        let res = callback(&mut b, provider, &code, Some(&q["state"]));
        assert_refused(&s, &mut b, &res, "InvalidCheck: PKCE code_verifier cookie was missing");
    }
    assert!(s.sim.token_requests().is_empty(), "no code was exchanged");
}

// ---------------------------------------------------------------------------
// The id_token, through the OIDC callback.

/// An OIDC sign-in whose provider returns `id_token`; everything else valid.
fn oidc_with(s: &Setup, id_token: IdToken, cause: &str) {
    let mut b = Browser::new(&s.auth);
    let q = begin(&mut b, "oidc");
    let code = s.sim.approve(&q, id_token);
    let res = callback(&mut b, "oidc", &code, Some(&q["state"]));
    assert_refused(s, &mut b, &res, cause);
    assert_eq!(s.sim.token_requests().last(), Some(&Ok(())), "the provider accepted the exchange");
}

#[test]
fn nonce_other_than_the_cookies_is_refused() {
    let s = setup();
    oidc_with(&s, IdToken::with(json!({ "nonce": "another-nonce" })), "invalid id_token: nonce mismatch");
}

#[test]
fn nonce_missing_cookie_is_refused() {
    let s = setup();
    let mut b = Browser::new(&s.auth);
    let q = begin(&mut b, "oidc");
    b.jar.remove("authjs.nonce");
    let code = s.sim.approve(&q, IdToken::valid());
    let res = callback(&mut b, "oidc", &code, Some(&q["state"]));
    assert_refused(&s, &mut b, &res, "InvalidCheck: nonce cookie was missing");
}

#[test]
fn id_token_signature_by_another_key_with_the_same_kid_is_refused() {
    let s = setup();
    let mut b = Browser::new(&s.auth);
    let q = begin(&mut b, "oidc");
    let code = s.sim.approve(&q, IdToken::signed(Signing::OtherKey));
    let res = callback(&mut b, "oidc", &code, Some(&q["state"]));
    assert_eq!(location(&res), REFUSED);
    let last = errors(&s.log).pop().unwrap();
    assert!(last.starts_with("invalid id_token: signature:"), "{last}");
    // The logged cause names the kind: a failed id_token check is InvalidCheck.
    let cause = last_cause(&s.log);
    assert!(cause.starts_with("InvalidCheck: invalid id_token"), "{cause}");
    assert!(!b.has_session_cookie());
    assert_eq!(b.session(), Value::Null);
}

#[test]
fn id_token_signature_alg_none_is_refused() {
    let s = setup();
    oidc_with(&s, IdToken::signed(Signing::None), "invalid id_token: unsupported alg \"none\"");
}

#[test]
fn id_token_signature_hs256_is_refused() {
    let s = setup();
    oidc_with(&s, IdToken::signed(Signing::Hs256), "invalid id_token: unsupported alg \"HS256\"");
}

#[test]
fn id_token_iss_of_another_issuer_is_refused() {
    let s = setup();
    let cause = format!("invalid id_token: iss is not {}", s.sim.base);
    oidc_with(&s, IdToken::with(json!({ "iss": "https://other-issuer.example" })), &cause);
}

#[test]
fn id_token_aud_of_another_client_is_refused() {
    let s = setup();
    oidc_with(
        &s,
        IdToken::with(json!({ "aud": "another-client" })),
        "invalid id_token: aud does not contain our client id",
    );
}

#[test]
fn id_token_azp_of_another_client_is_refused() {
    let s = setup();
    // One audience, ours; azp present and someone else's.
    oidc_with(&s, IdToken::with(json!({ "azp": "another-client" })), "invalid id_token: azp is not our client id");
}

#[test]
fn id_token_exp_in_the_past_is_refused() {
    let s = setup();
    let now = libauth_core::time::now_seconds();
    oidc_with(&s, IdToken::with(json!({ "iat": now - 600, "exp": now - 120 })), "invalid id_token: expired");
}

#[test]
fn id_token_iat_in_the_future_is_refused() {
    let s = setup();
    let now = libauth_core::time::now_seconds();
    oidc_with(
        &s,
        IdToken::with(json!({ "iat": now + 600, "exp": now + 900 })),
        "invalid id_token: iat is in the future",
    );
}

// ---------------------------------------------------------------------------
// CSRF

/// The four ways a POST can fail the double-submit check; each sends
/// everything else a valid request has.
#[derive(Debug, Clone, Copy)]
enum CsrfFault {
    NoToken,
    OtherBrowsersToken,
    AlteredCookieHash,
    NoCookie,
}

const CSRF_FAULTS: [CsrfFault; 4] =
    [CsrfFault::NoToken, CsrfFault::OtherBrowsersToken, CsrfFault::AlteredCookieHash, CsrfFault::NoCookie];

/// POST `path` from `b` with `fields` and a CSRF token spoiled by `fault`.
fn post_with(b: &mut Browser, path: &str, fields: &[(&str, &str)], fault: CsrfFault) -> AuthResponse {
    let token = b.csrf();
    let given = match fault {
        CsrfFault::NoToken => None,
        CsrfFault::OtherBrowsersToken => Some(Browser::new(b.auth).csrf()),
        CsrfFault::AlteredCookieHash => {
            let cookie = b.jar["authjs.csrf-token"].clone();
            let (t, hash) = cookie.split_once("%7C").unwrap();
            let first = if hash.starts_with('0') { '1' } else { '0' };
            b.jar.insert("authjs.csrf-token".into(), format!("{t}%7C{first}{}", &hash[1..]));
            Some(token)
        }
        CsrfFault::NoCookie => {
            b.jar.remove("authjs.csrf-token");
            Some(token)
        }
    };
    let mut pairs = fields.to_vec();
    if let Some(given) = &given {
        pairs.push(("csrfToken", given));
    }
    b.post(path, &pairs)
}

/// What a refused POST must look like: back to sign-in with MissingCSRF,
/// that cause logged, and `unchanged` (nothing else happened) true. Every
/// fault is tried; the ones let through are returned.
fn refused_faults(s: &Setup, mut attempt: impl FnMut(CsrfFault) -> (AuthResponse, Result<(), String>)) -> Vec<String> {
    let mut let_through = Vec::new();
    for fault in CSRF_FAULTS {
        let before = errors(&s.log).len();
        let (res, unchanged) = attempt(fault);
        let logged = errors(&s.log)[before..].to_vec();
        let refused = res.status == 302 && res.header("location") == Some(MISSING_CSRF);
        if !refused || logged != ["CSRF token was missing or invalid"] || unchanged.is_err() {
            let_through.push(format!(
                "{fault:?}: {} {:?}, logged {logged:?}, {unchanged:?}",
                res.status,
                res.header("location")
            ));
        }
    }
    let_through
}

#[test]
fn csrf_signin_starts_no_oauth_flow() {
    let s = setup();
    let let_through = refused_faults(&s, |fault| {
        let mut b = Browser::new(&s.auth);
        let res = post_with(&mut b, "/auth/signin/oidc", &[("callbackUrl", "/home")], fault);
        let set: Vec<String> = res
            .set_cookies()
            .filter(|c| ["authjs.state=", "authjs.pkce", "authjs.nonce"].iter().any(|n| c.starts_with(n)))
            .map(str::to_owned)
            .collect();
        let unchanged = if set.is_empty() { Ok(()) } else { Err(format!("check cookies set: {set:?}")) };
        (res, unchanged)
    });
    assert!(let_through.is_empty(), "{let_through:#?}");
}

#[test]
fn csrf_credentials_callback_creates_no_session() {
    let s = setup();
    let let_through = refused_faults(&s, |fault| {
        let mut b = Browser::new(&s.auth);
        let res =
            post_with(&mut b, "/auth/callback/credentials", &[("username", "ada"), ("password", "secret")], fault);
        let session = b.session();
        let unchanged = if b.has_session_cookie() || session != Value::Null {
            Err(format!("signed in: {session}"))
        } else {
            Ok(())
        };
        (res, unchanged)
    });
    assert!(let_through.is_empty(), "{let_through:#?}");
    assert_eq!(authorize_calls(&s.log), 0, "authorize never ran");
}

#[test]
fn csrf_signout_ends_no_session() {
    let s = setup();
    let let_through = refused_faults(&s, |fault| {
        let mut b = Browser::new(&s.auth);
        assert_eq!(location(&b.sign_in("ada", "secret")), "http://localhost:3000");
        let res = post_with(&mut b, "/auth/signout", &[], fault);
        let cleared = res.set_cookies().any(|c| c.starts_with(SESSION));
        let session = b.session();
        let unchanged = if cleared || session["user"]["name"] != "Ada Lovelace" {
            Err(format!("signed out: cookie cleared {cleared}, session {session}"))
        } else {
            Ok(())
        };
        (res, unchanged)
    });
    assert!(let_through.is_empty(), "{let_through:#?}");
}

// ---------------------------------------------------------------------------
// Redirects

const FOREIGN: [&str; 5] = [
    "http://evil.example/x",
    "https://localhost:3000.evil.example/",
    "//evil.example/x",
    "/\\evil.example/x",
    "javascript:alert(document.cookie)",
];

fn encode(value: &str) -> String {
    percent_encoding::utf8_percent_encode(value, percent_encoding::NON_ALPHANUMERIC).to_string()
}

#[test]
fn redirect_sign_in_callback_url_in_query_body_or_cookie_stays_on_our_origin() {
    let s = setup();
    let mut escaped = Vec::new();
    for target in FOREIGN {
        for carrier in ["query", "body", "cookie"] {
            let mut b = Browser::new(&s.auth);
            let csrf = b.csrf();
            let pairs = [("csrfToken", csrf.as_str()), ("username", "ada"), ("password", "secret")];
            let res = post_with_callback_url(&mut b, "/auth/callback/credentials", &pairs, target, carrier);
            if location(&res) != "http://localhost:3000" {
                escaped.push(format!("{target} in {carrier} -> {}", location(&res)));
            }
            assert!(b.has_session_cookie(), "{target} in {carrier}: the sign-in itself succeeded");
            if b.jar["authjs.callback-url"] != "http%3A%2F%2Flocalhost%3A3000" {
                escaped.push(format!("{target} in {carrier} -> cookie {}", b.jar["authjs.callback-url"]));
            }
        }
    }
    assert!(escaped.is_empty(), "{escaped:#?}");
}

/// POST `path` with `target` as the callback URL, carried in the query, the
/// body or the callback-url cookie.
fn post_with_callback_url(
    b: &mut Browser,
    path: &str,
    pairs: &[(&str, &str)],
    target: &str,
    carrier: &str,
) -> libauth_core::AuthResponse {
    let mut pairs = pairs.to_vec();
    let path = match carrier {
        "query" => format!("{path}?callbackUrl={}", encode(target)),
        "body" => {
            pairs.push(("callbackUrl", target));
            path.to_owned()
        }
        _ => {
            b.jar.insert("authjs.callback-url".into(), encode(target));
            path.to_owned()
        }
    };
    b.post(&path, &pairs)
}

#[test]
fn redirect_sign_out_callback_url_in_query_body_or_cookie_stays_on_our_origin() {
    let s = setup();
    let mut escaped = Vec::new();
    for target in FOREIGN {
        for carrier in ["query", "body", "cookie"] {
            let mut b = Browser::new(&s.auth);
            b.sign_in("ada", "secret");
            let csrf = b.csrf();
            let res = post_with_callback_url(&mut b, "/auth/signout", &[("csrfToken", csrf.as_str())], target, carrier);
            if location(&res) != "http://localhost:3000" {
                escaped.push(format!("{target} in {carrier} -> {}", location(&res)));
            }
            assert!(!b.has_session_cookie(), "{target} in {carrier}: the sign-out itself succeeded");
        }
    }
    assert!(escaped.is_empty(), "{escaped:#?}");
}

// ---------------------------------------------------------------------------
// The session cookie

/// The session's JWE key (A256CBC-HS512: MAC key ‖ AES key), derived here
/// from the secret as Auth.js does, to show what an attacker could change
/// in the plaintext if the tag did not stop them.
fn session_key() -> [u8; 64] {
    let mut key = [0u8; 64];
    hkdf::Hkdf::<Sha256>::new(Some(SESSION.as_bytes()), SECRET.as_bytes())
        .expand(format!("Auth.js Generated Encryption Key ({SESSION})").as_bytes(), &mut key)
        .unwrap();
    key
}

/// An IV changed in one byte so that (CBC being malleable) the plaintext
/// still parses, with one letter of a value changed: without the tag, the
/// engine would read another session.
fn flip_iv(parts: &[String]) -> String {
    use aes::cipher::{block_padding::Pkcs7, BlockDecryptMut, KeyIvInit};
    let key = session_key();
    let iv = B64.decode(&parts[2]).unwrap();
    let ciphertext = B64.decode(&parts[3]).unwrap();
    let plain = cbc::Decryptor::<aes::Aes256>::new_from_slices(&key[32..], &iv)
        .unwrap()
        .decrypt_padded_vec_mut::<Pkcs7>(&ciphertext)
        .unwrap();
    let original: Map<String, Value> = serde_json::from_slice(&plain).unwrap();
    for i in 0..16 {
        if !plain[i].is_ascii_lowercase() {
            continue;
        }
        let mut changed = plain.clone();
        changed[i] = if plain[i] == b'z' { b'y' } else { plain[i] + 1 };
        let Ok(parsed) = serde_json::from_slice::<Map<String, Value>>(&changed) else { continue };
        if parsed.keys().eq(original.keys()) && parsed != original {
            let mut iv = iv.clone();
            iv[i] ^= plain[i] ^ changed[i];
            return B64.encode(iv);
        }
    }
    panic!("no letter of a value in the first block: {}", String::from_utf8_lossy(&plain));
}

#[test]
fn session_cookie_changed_in_any_jwe_part_is_no_session() {
    let s = setup();
    let mut b = Browser::new(&s.auth);
    b.sign_in("ada", "secret");
    let token = b.jar[SESSION].clone();
    let parts: Vec<String> = token.split('.').map(str::to_owned).collect();
    assert_eq!(parts.len(), 5);
    assert!(parts[1].is_empty(), "alg dir: no encrypted key");
    let change_byte = |part: &str, at: usize| {
        let mut bytes = B64.decode(part).unwrap();
        bytes[at] ^= 0x01;
        B64.encode(bytes)
    };
    // The header: `kid` becomes `kiD`, still valid JSON naming no key, so
    // the (only) key is used: only the tag, which covers the header, stops it.
    let header = String::from_utf8(B64.decode(&parts[0]).unwrap()).unwrap();
    assert!(header.contains("\"kid\""), "{header}");
    let header = B64.encode(header.replacen("\"kid\"", "\"kiD\"", 1));
    let cases = [
        ("header", 0, header, "authentication tag mismatch"),
        ("encrypted key", 1, B64.encode([0u8]), "dir has an empty encrypted key"),
        ("iv", 2, flip_iv(&parts), "authentication tag mismatch"),
        ("ciphertext", 3, change_byte(&parts[3], 0), "authentication tag mismatch"),
        ("tag", 4, change_byte(&parts[4], 0), "authentication tag mismatch"),
    ];
    // Every part is tried, and every failure reported.
    let mut failures = Vec::new();
    for (what, index, part, cause) in cases {
        let mut changed = parts.clone();
        changed[index] = part;
        let mut c = Browser::new(&s.auth);
        c.jar.insert(SESSION.into(), changed.join("."));
        let before = errors(&s.log).len();
        let res = c.get("/auth/session");
        let session = res.json().unwrap();
        let cleared = res.set_cookies().any(|c| c.starts_with(&format!("{SESSION}=;")));
        let last = errors(&s.log)[before..].last().cloned().unwrap_or_default();
        if res.status != 200 || session != Value::Null || !cleared || !last.contains(cause) {
            failures
                .push(format!("{what}: status {}, session {session}, cleared {cleared}, logged {last:?}", res.status));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    // The unchanged cookie is still a session.
    assert_eq!(b.session()["user"]["name"], "Ada Lovelace");
}
