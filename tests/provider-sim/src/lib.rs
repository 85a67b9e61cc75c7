//! A declarative simulator of OAuth 2 / OpenID Connect providers, for
//! libauth's conformance tests of its built-in providers. One [`Spec`] per
//! provider says what differs (paths, client authentication, PKCE,
//! `form_post`, the shape of errors, `scope` as an array, refresh, the
//! profile and id_token claims, how `iss` is written); the server plays it
//! on loopback, and [`Failure`]s inject the provider errors and the bad
//! answers a client must survive. Each provider's facts are in
//! `docs/providers/<name>.md`.
//!
//! ```no_run
//! let sim = provider_sim::start(provider_sim::specs::discord());
//! sim.fail_next(provider_sim::Failure::TokenError);
//! ```

pub mod specs;

use std::collections::HashMap;
use std::io::Read;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use base64::Engine as _;
use josekit::jwk::alg::rsa::RsaKeyPair;
use josekit::jws::{JwsHeader, RS256};
use josekit::jwt::JwtPayload;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

pub const CLIENT_ID: &str = "sim-client-id";
pub const CLIENT_SECRET: &str = "sim-client-secret";
/// The request id a provider's error carries for its support (Facebook's
/// `fbtrace_id`, Entra ID's `trace_id`).
pub const TRACE_ID: &str = "sim-trace-0123456789";
/// A tenant the tests don't configure (Entra ID).
pub const FOREIGN_TENANT: &str = "00000000-0000-0000-0000-00000000f0e1";

/// How the client authenticates at the token endpoint.
#[derive(Clone, Debug)]
pub enum ClientAuth {
    /// HTTP Basic with [`CLIENT_ID`] / [`CLIENT_SECRET`].
    Basic,
    /// `client_id` and `client_secret` in the form body.
    Post,
    /// `client_id` and an ES256 JWT `client_secret` (Apple), checked with
    /// this public key (PEM), key id and team id.
    AppleJwt { public_pem: String, key_id: String, team_id: String },
}

/// The shape of a token endpoint error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorStyle {
    /// RFC 6749: HTTP 400, `{error, error_description}`.
    Rfc6749,
    /// Entra ID: RFC 6749 plus `error_codes`, `trace_id`, `correlation_id`.
    Entra,
    /// HTTP 200 with `{error, error_description}` (GitHub-like).
    Status200,
    /// Slack: HTTP 200, `{ok: false, error}`.
    Slack,
    /// Facebook's Graph API: HTTP 400, `{error: {message, type, code, fbtrace_id}}`.
    Graph,
    /// Twitch: HTTP 400, `{status, message}` with no `error`.
    Twitch,
}

/// Refresh tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refresh {
    /// None issued.
    None,
    /// A new refresh token on every refresh; the old one is spent.
    Rotate,
    /// The refresh token stays (the refresh answer has none).
    Keep,
}

/// How the id_token's `iss` is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IssStyle {
    /// The issuer exactly.
    Issuer,
    /// The issuer without its scheme (Google documents both).
    Bare,
    /// `{origin}/{tid}/v2.0`, the token's own tenant (Entra ID).
    Tenant,
}

/// What one provider does. Paths are under the simulator's base URL;
/// `issuer_path` is the issuer under it (OIDC discovery is served at
/// `{issuer}/.well-known/openid-configuration`).
#[derive(Clone, Debug)]
pub struct Spec {
    pub name: &'static str,
    pub authorize_path: String,
    pub token_path: String,
    pub userinfo_path: Option<String>,
    pub jwks_path: Option<String>,
    pub issuer_path: Option<String>,
    pub client_auth: ClientAuth,
    /// Authorization requests without `code_challenge` are refused.
    pub pkce_required: bool,
    /// The callback is an HTML form posted back (`response_mode=form_post`).
    pub form_post: bool,
    /// Form fields posted beside the code on the first consent (Apple's `user`).
    pub form_post_extra: Vec<(String, String)>,
    pub error_style: ErrorStyle,
    /// The token response's `scope` is a JSON array (Twitch).
    pub scope_array: bool,
    pub refresh: Refresh,
    /// Seconds the access token lives.
    pub expires_in: u64,
    /// The user-info answer.
    pub profile: Value,
    /// Claims of the id_token (besides iss, aud, exp, iat, nonce); `None`:
    /// no id_token.
    pub id_token_claims: Option<Value>,
    pub iss_style: IssStyle,
    /// Scopes every authorization request must ask for.
    pub required_scopes: Vec<&'static str>,
    /// Parameters every authorization request must carry (`response_mode`, `claims`, …).
    pub required_params: Vec<(&'static str, &'static str)>,
    /// What the engine must make of it: the session's user and the
    /// account id.
    pub expect_user: Value,
    pub expect_account_id: &'static str,
}

/// A failure for the next request it applies to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The user denies consent: the callback gets `error=access_denied`.
    Deny,
    /// The token endpoint answers an error in the provider's style.
    TokenError,
    /// The token endpoint answers an HTML page with HTTP 200.
    Html,
    /// The token endpoint answers HTTP 500 (an HTML error page).
    Status500,
    /// The token endpoint's JSON is cut off.
    Truncated,
    /// A token response without `access_token`.
    NoAccessToken,
    /// The id_token is from another tenant (`tid` and `iss`; Entra ID).
    ForeignTenant,
}

/// One request the simulator received.
#[derive(Clone, Debug)]
pub struct Seen {
    pub method: String,
    pub path: String,
    pub query: HashMap<String, String>,
    pub form: HashMap<String, String>,
    pub headers: HashMap<String, String>,
}

struct Grant {
    challenge: Option<String>,
    redirect_uri: String,
    nonce: Option<String>,
}

struct State {
    spec: Spec,
    base: String,
    key: &'static RsaKeyPair,
    codes: HashMap<String, Grant>,
    access_tokens: Vec<String>,
    refresh_tokens: Vec<String>,
    failures: Vec<Failure>,
    seen: Vec<Seen>,
    counter: u64,
}

/// A running simulator; dropping it stops the server.
pub struct Simulator {
    base: String,
    state: Arc<Mutex<State>>,
    server: Arc<tiny_http::Server>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

/// Start `spec` on 127.0.0.1, an ephemeral port.
pub fn start(spec: Spec) -> Simulator {
    let server = Arc::new(tiny_http::Server::http("127.0.0.1:0").expect("provider-sim: bind"));
    let addr = server.server_addr().to_ip().expect("an IP listener");
    let base = format!("http://{addr}");
    // One signing key per process: RSA key generation is slow, and each
    // simulator still serves only its own JWKS.
    static KEY: std::sync::OnceLock<RsaKeyPair> = std::sync::OnceLock::new();
    let key = KEY.get_or_init(|| RS256.generate_key_pair(2048).expect("an RSA key"));
    let state = Arc::new(Mutex::new(State {
        spec,
        base: base.clone(),
        key,
        codes: HashMap::new(),
        access_tokens: Vec::new(),
        refresh_tokens: Vec::new(),
        failures: Vec::new(),
        seen: Vec::new(),
        counter: 0,
    }));
    let stop = Arc::new(AtomicBool::new(false));
    let thread = {
        let (server, state, stop) = (server.clone(), state.clone(), stop.clone());
        std::thread::spawn(move || serve(&server, &state, &stop))
    };
    Simulator { base, state, server, stop, thread: Some(thread) }
}

impl Simulator {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> &str {
        &self.base
    }

    /// `{base}{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The issuer, for OIDC providers.
    pub fn issuer(&self) -> Option<String> {
        self.lock().spec.issuer_path.as_ref().map(|p| format!("{}{p}", self.base))
    }

    pub fn spec(&self) -> Spec {
        self.lock().spec.clone()
    }

    /// Queue a failure for the next request it applies to.
    pub fn fail_next(&self, failure: Failure) {
        self.lock().failures.push(failure);
    }

    /// Every request so far.
    pub fn seen(&self) -> Vec<Seen> {
        self.lock().seen.clone()
    }

    /// Requests to `path`.
    pub fn seen_at(&self, path: &str) -> Vec<Seen> {
        self.lock().seen.iter().filter(|s| s.path == path).cloned().collect()
    }

    /// Forget every refresh token (the user revoked the app).
    pub fn revoke_refresh_tokens(&self) {
        self.lock().refresh_tokens.clear();
    }
}

impl Drop for Simulator {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.server.unblock();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn json_resp(status: u16, body: &Value) -> Resp {
    Resp {
        status,
        headers: vec![("content-type".into(), "application/json".into())],
        body: body.to_string().into_bytes(),
    }
}

fn html_resp(status: u16, body: &str) -> Resp {
    Resp { status, headers: vec![("content-type".into(), "text/html".into())], body: body.as_bytes().to_vec() }
}

fn serve(server: &tiny_http::Server, state: &Mutex<State>, stop: &AtomicBool) {
    loop {
        let rq = server.recv();
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(mut rq) = rq else { continue };
        let url = rq.url().to_owned();
        let (path, query) = url.split_once('?').unwrap_or((&url, ""));
        let mut body = Vec::new();
        let _ = rq.as_reader().take(1 << 20).read_to_end(&mut body);
        let seen = Seen {
            method: rq.method().as_str().to_ascii_uppercase(),
            path: path.to_owned(),
            query: url::form_urlencoded::parse(query.as_bytes()).into_owned().collect(),
            form: url::form_urlencoded::parse(&body).into_owned().collect(),
            headers: rq
                .headers()
                .iter()
                .map(|h| (h.field.as_str().as_str().to_ascii_lowercase(), h.value.as_str().to_owned()))
                .collect(),
        };
        let resp = {
            let mut st = state.lock().unwrap_or_else(|e| e.into_inner());
            st.seen.push(seen.clone());
            st.counter += 1;
            handle(&mut st, &seen)
        };
        let mut out = tiny_http::Response::from_data(resp.body).with_status_code(resp.status);
        for (k, v) in &resp.headers {
            if let Ok(h) = tiny_http::Header::from_bytes(k.as_bytes(), v.as_bytes()) {
                out.add_header(h);
            }
        }
        let _ = rq.respond(out);
    }
}

fn take_failure(st: &mut State, applies: &[Failure]) -> Option<Failure> {
    let i = st.failures.iter().position(|f| applies.contains(f))?;
    Some(st.failures.remove(i))
}

fn handle(st: &mut State, req: &Seen) -> Resp {
    let spec = st.spec.clone();
    let discovery =
        spec.issuer_path.as_ref().map(|p| format!("{}/.well-known/openid-configuration", p.trim_end_matches('/')));
    if Some(&req.path) == discovery.as_ref() {
        return json_resp(200, &discovery_doc(st));
    }
    if req.path == spec.authorize_path {
        return authorize(st, req);
    }
    if req.path == spec.token_path && req.method == "POST" {
        return token(st, req);
    }
    if Some(&req.path) == spec.jwks_path.as_ref() {
        let mut jwk = st.key.to_jwk_public_key();
        jwk.set_key_id("sim-key-1");
        jwk.set_algorithm("RS256");
        jwk.set_key_use("sig");
        return json_resp(200, &json!({ "keys": [Value::Object(jwk.as_ref().clone())] }));
    }
    if Some(&req.path) == spec.userinfo_path.as_ref() {
        let bearer = req.headers.get("authorization").and_then(|a| a.strip_prefix("Bearer ")).unwrap_or_default();
        if !st.access_tokens.iter().any(|t| t == bearer) {
            return json_resp(401, &json!({ "error": "invalid_token", "message": "Unauthorized" }));
        }
        return json_resp(200, &spec.profile);
    }
    json_resp(404, &json!({ "message": "Not Found" }))
}

fn issuer(st: &State) -> String {
    format!("{}{}", st.base, st.spec.issuer_path.as_deref().unwrap_or_default())
}

fn discovery_doc(st: &State) -> Value {
    let s = &st.spec;
    let at = |p: &str| format!("{}{p}", st.base);
    json!({
        "issuer": issuer(st),
        "authorization_endpoint": at(&s.authorize_path),
        "token_endpoint": at(&s.token_path),
        "userinfo_endpoint": s.userinfo_path.as_deref().map(at),
        "jwks_uri": s.jwks_path.as_deref().map(at),
        "response_types_supported": ["code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["RS256"],
    })
}

/// The authorization endpoint: the user consents at once (or denies, with
/// [`Failure::Deny`]).
fn authorize(st: &mut State, req: &Seen) -> Resp {
    let q = &req.query;
    let refuse = |why: &str| html_resp(400, &format!("<html><body>provider-sim: {why}</body></html>"));
    if q.get("client_id").map(String::as_str) != Some(CLIENT_ID) {
        return refuse("unknown client_id");
    }
    if q.get("response_type").map(String::as_str) != Some("code") {
        return refuse("response_type must be code");
    }
    let Some(redirect_uri) = q.get("redirect_uri").cloned() else { return refuse("no redirect_uri") };
    let scopes: Vec<&str> = q.get("scope").map(|s| s.split(' ').collect()).unwrap_or_default();
    let spec = st.spec.clone();
    let mut back: Vec<(String, String)> = Vec::new();
    if let Some(missing) = spec.required_scopes.iter().find(|s| !scopes.contains(s)) {
        back.push(("error".into(), "invalid_scope".into()));
        back.push(("error_description".into(), format!("scope {missing} is required")));
    } else if let Some((k, v)) = spec.required_params.iter().find(|(k, v)| q.get(*k).map(String::as_str) != Some(*v)) {
        back.push(("error".into(), "invalid_request".into()));
        back.push(("error_description".into(), format!("{k} must be {v}")));
    } else if spec.pkce_required
        && (q.get("code_challenge").is_none() || q.get("code_challenge_method").map(String::as_str) != Some("S256"))
    {
        back.push(("error".into(), "invalid_request".into()));
        back.push(("error_description".into(), "PKCE (S256) is required".into()));
    } else if take_failure(st, &[Failure::Deny]).is_some() {
        back.push(("error".into(), "access_denied".into()));
        back.push(("error_description".into(), "The user denied the request".into()));
    } else {
        let code = format!("code-{}", st.counter);
        st.codes.insert(
            code.clone(),
            Grant {
                challenge: q.get("code_challenge").cloned(),
                redirect_uri: redirect_uri.clone(),
                nonce: q.get("nonce").cloned(),
            },
        );
        back.push(("code".into(), code));
        back.extend(spec.form_post_extra.iter().cloned());
    }
    if let Some(state) = q.get("state") {
        back.push(("state".into(), state.clone()));
    }
    if spec.form_post {
        // The provider's page posts the fields to the app (cross-site).
        let inputs: String = back
            .iter()
            .map(|(k, v)| format!(r#"<input type="hidden" name="{}" value="{}">"#, escape(k), escape(v)))
            .collect();
        let page = format!(
            r#"<html><body onload="document.forms[0].submit()"><form method="post" action="{}">{inputs}</form></body></html>"#,
            escape(&redirect_uri)
        );
        return html_resp(200, &page);
    }
    let mut to = url::Url::parse(&redirect_uri).expect("an absolute redirect_uri");
    to.query_pairs_mut().extend_pairs(back.iter());
    Resp { status: 302, headers: vec![("location".into(), to.to_string())], body: Vec::new() }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('"', "&quot;").replace('<', "&lt;").replace('>', "&gt;")
}

/// An error at the token endpoint, as this provider writes it.
fn token_error(style: ErrorStyle, error: &str, description: &str) -> Resp {
    match style {
        ErrorStyle::Rfc6749 => json_resp(400, &json!({ "error": error, "error_description": description })),
        ErrorStyle::Entra => json_resp(
            400,
            &json!({ "error": error, "error_description": format!("AADSTS70008: {description}"), "error_codes": [70008],
                     "timestamp": "2026-01-01 00:00:00Z", "trace_id": TRACE_ID, "correlation_id": "sim-correlation" }),
        ),
        ErrorStyle::Status200 => json_resp(200, &json!({ "error": error, "error_description": description })),
        ErrorStyle::Slack => json_resp(200, &json!({ "ok": false, "error": error })),
        ErrorStyle::Graph => json_resp(
            400,
            &json!({ "error": { "message": description, "type": "OAuthException", "code": 100, "fbtrace_id": TRACE_ID } }),
        ),
        // Twitch names no OAuth error: `error` is the HTTP reason.
        ErrorStyle::Twitch => {
            let message = match error {
                "invalid_grant" if description.contains("refresh") => "Invalid refresh token",
                "invalid_grant" => "Invalid authorization code",
                _ => description,
            };
            json_resp(400, &json!({ "error": "Bad Request", "status": 400, "message": message }))
        }
    }
}

fn client_ok(spec: &Spec, req: &Seen) -> bool {
    let form = |k: &str| req.form.get(k).map(String::as_str);
    match &spec.client_auth {
        ClientAuth::Basic => {
            let expected = format!("Basic {}", STANDARD.encode(format!("{CLIENT_ID}:{CLIENT_SECRET}")));
            req.headers.get("authorization") == Some(&expected)
        }
        ClientAuth::Post => form("client_id") == Some(CLIENT_ID) && form("client_secret") == Some(CLIENT_SECRET),
        ClientAuth::AppleJwt { public_pem, key_id, team_id } => {
            let Some(jwt) = form("client_secret") else { return false };
            let Ok(verifier) = josekit::jws::ES256.verifier_from_pem(public_pem.as_bytes()) else { return false };
            let Ok((payload, header)) = josekit::jwt::decode_with_verifier(jwt, &verifier) else { return false };
            let now = SystemTime::now();
            form("client_id") == Some(CLIENT_ID)
                && header.key_id() == Some(key_id.as_str())
                && payload.issuer() == Some(team_id.as_str())
                && payload.subject() == Some(CLIENT_ID)
                && payload.expires_at().is_some_and(|exp| exp > now)
        }
    }
}

fn token(st: &mut State, req: &Seen) -> Resp {
    let spec = st.spec.clone();
    let style = spec.error_style;
    if !client_ok(&spec, req) {
        return token_error(style, "invalid_client", "Client authentication failed.");
    }
    match take_failure(
        st,
        &[Failure::TokenError, Failure::Html, Failure::Status500, Failure::Truncated, Failure::NoAccessToken],
    ) {
        Some(Failure::TokenError) => return token_error(style, "invalid_grant", "The code has expired."),
        Some(Failure::Html) => return html_resp(200, "<!DOCTYPE html><html><body>Maintenance</body></html>"),
        Some(Failure::Status500) => return html_resp(500, "<html><body>Internal Server Error</body></html>"),
        Some(Failure::Truncated) => {
            return Resp {
                status: 200,
                headers: vec![("content-type".into(), "application/json".into())],
                body: br#"{"access_token": "at-trunc", "token_ty"#.to_vec(),
            }
        }
        Some(Failure::NoAccessToken) => return json_resp(200, &json!({ "token_type": "Bearer", "expires_in": 3600 })),
        _ => {}
    }
    let form = |k: &str| req.form.get(k).cloned();
    let mut nonce = None;
    let mut rotated_from_refresh = false;
    match form("grant_type").as_deref() {
        Some("authorization_code") => {
            let Some(grant) = form("code").and_then(|c| st.codes.remove(&c)) else {
                return token_error(style, "invalid_grant", "Unknown or spent code.");
            };
            if form("redirect_uri").as_deref() != Some(grant.redirect_uri.as_str()) {
                return token_error(style, "invalid_grant", "redirect_uri mismatch.");
            }
            if let Some(challenge) = grant.challenge {
                let verifier = form("code_verifier").unwrap_or_default();
                if URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes())) != challenge {
                    return token_error(style, "invalid_grant", "PKCE verification failed.");
                }
            }
            nonce = grant.nonce;
        }
        Some("refresh_token") if spec.refresh != Refresh::None => {
            let given = form("refresh_token").unwrap_or_default();
            let Some(i) = st.refresh_tokens.iter().position(|t| *t == given) else {
                return token_error(style, "invalid_grant", "The refresh token is invalid or revoked.");
            };
            if spec.refresh == Refresh::Rotate {
                st.refresh_tokens.remove(i);
            }
            rotated_from_refresh = true;
        }
        _ => return token_error(style, "unsupported_grant_type", "Unsupported grant type."),
    }
    let n = st.counter;
    let access = format!("at-{n}");
    st.access_tokens.push(access.clone());
    let scope: Vec<&str> = spec.required_scopes.clone();
    let mut body = json!({
        "access_token": access,
        "token_type": "Bearer",
        "expires_in": spec.expires_in,
        "scope": if spec.scope_array { json!(scope) } else { json!(scope.join(" ")) },
    });
    let issue_refresh = match spec.refresh {
        Refresh::None => false,
        Refresh::Rotate => true,
        Refresh::Keep => !rotated_from_refresh,
    };
    if issue_refresh {
        let refresh = format!("rt-{n}");
        st.refresh_tokens.push(refresh.clone());
        body["refresh_token"] = json!(refresh);
    }
    if let Some(claims) = spec.id_token_claims.clone() {
        let foreign = take_failure(st, &[Failure::ForeignTenant]).is_some();
        body["id_token"] = json!(id_token(st, claims, nonce, foreign));
    }
    json_resp(200, &body)
}

fn id_token(st: &State, claims: Value, nonce: Option<String>, foreign: bool) -> String {
    let mut payload = JwtPayload::from_map(claims.as_object().cloned().unwrap_or_default()).expect("claims");
    let mut tid = payload.claim("tid").and_then(Value::as_str).map(str::to_owned);
    if foreign {
        tid = Some(FOREIGN_TENANT.to_owned());
        payload.set_claim("tid", Some(json!(FOREIGN_TENANT))).expect("tid");
    }
    let iss = match st.spec.iss_style {
        IssStyle::Issuer => issuer(st),
        IssStyle::Bare => issuer(st).split_once("://").map(|(_, r)| r.to_owned()).unwrap_or_default(),
        IssStyle::Tenant => format!("{}/{}/v2.0", st.base, tid.unwrap_or_default()),
    };
    payload.set_issuer(iss);
    payload.set_audience(vec![CLIENT_ID]);
    let now = SystemTime::now();
    payload.set_issued_at(&now);
    payload.set_expires_at(&(now + Duration::from_secs(600)));
    if let Some(nonce) = nonce {
        payload.set_claim("nonce", Some(json!(nonce))).expect("nonce");
    }
    let mut header = JwsHeader::new();
    header.set_key_id("sim-key-1");
    let signer = RS256.signer_from_jwk(&st.key.to_jwk_key_pair()).expect("a signer");
    josekit::jwt::encode_with_signer(&payload, &header, &signer).expect("an id_token")
}

/// The hidden fields of an HTML form (a provider's `form_post` page, or the
/// app's re-post page), and its `action`.
pub fn form_fields(html: &str) -> (String, Vec<(String, String)>) {
    let attr = |tag: &str, name: &str| -> Option<String> {
        let start = tag.find(&format!("{name}=\""))? + name.len() + 2;
        let end = tag[start..].find('"')? + start;
        Some(unescape(&tag[start..end]))
    };
    let action = html.split("<form").nth(1).and_then(|t| attr(t.split('>').next()?, "action")).unwrap_or_default();
    let fields = html
        .split("<input")
        .skip(1)
        .filter_map(|t| {
            let tag = t.split('>').next()?;
            Some((attr(tag, "name")?, attr(tag, "value")?))
        })
        .collect();
    (action, fields)
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"").replace("&lt;", "<").replace("&gt;", ">").replace("&#39;", "'").replace("&amp;", "&")
}
