//! Request handling, independent of the HTTP library: a [`Req`] in, a [`Resp`] out.

use crate::config::{
    api_error_status, AuthorizeMode, Endpoint, Failure, PkceMode, RefreshExpiry, RevokeBody, ScopeErrorMode, SimConfig,
    SimUser,
};
use crate::util::{self, html_escape};
use serde_json::{json, Map, Value};
use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

/// Documented descriptions (reference §5.3) and the one observed for PKCE (§3.2, §10 T6).
pub const DESC_MALFORMED: &str = "The request parameters are malformed.";
pub const DESC_REDIRECT_MISMATCH: &str = "Redirect_uri is not matched with the uri when requesting code.";
pub const DESC_PKCE: &str = "Code verifier or code challenge is invalid.";
/// The reference's example message for `access_token_invalid` (§9.4).
pub const MSG_TOKEN_INVALID: &str = "The access token is invalid or not found in the request.";

/// User-info fields and the scope each needs (reference §9.2), in TikTok's table order.
pub const USER_FIELDS: &[(&str, &str)] = &[
    ("open_id", "user.info.basic"),
    ("union_id", "user.info.basic"),
    ("avatar_url", "user.info.basic"),
    ("avatar_url_100", "user.info.basic"),
    ("avatar_large_url", "user.info.basic"),
    ("display_name", "user.info.basic"),
    ("bio_description", "user.info.profile"),
    ("profile_deep_link", "user.info.profile"),
    ("is_verified", "user.info.profile"),
    ("username", "user.info.profile"),
    ("follower_count", "user.info.stats"),
    ("following_count", "user.info.stats"),
    ("likes_count", "user.info.stats"),
    ("video_count", "user.info.stats"),
    ("profile_web_link", "user.info.profile"),
];

pub(crate) struct Req {
    pub method: String,
    /// Path without the query.
    pub path: String,
    /// Decoded query pairs, in order.
    pub query: Vec<(String, String)>,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Req {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
    }
}

pub(crate) struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    fn new(status: u16, content_type: &str, body: impl Into<Vec<u8>>) -> Self {
        Resp {
            status,
            headers: vec![("Content-Type".into(), content_type.into()), ("Cache-Control".into(), "no-store".into())],
            body: body.into(),
        }
    }
    fn json(status: u16, v: &Value) -> Self {
        Resp::new(status, "application/json; charset=utf-8", serde_json::to_vec(v).expect("JSON"))
    }
    fn html(status: u16, body: String) -> Self {
        Resp::new(status, "text/html; charset=utf-8", body)
    }
    fn text(status: u16, body: &str) -> Self {
        Resp::new(status, "text/plain; charset=utf-8", body.to_string())
    }
    fn redirect(location: &str) -> Self {
        let mut r = Resp::new(302, "text/plain; charset=utf-8", format!("Redirecting to {location}\n"));
        r.headers.push(("Location".into(), location.into()));
        r
    }
    fn with_header(mut self, k: &str, v: &str) -> Self {
        self.headers.push((k.into(), v.into()));
        self
    }
}

struct CodeRecord {
    client_key: String,
    redirect_uri: String,
    scopes: Vec<String>,
    challenge: Option<String>,
    open_id: String,
    expires_at: Instant,
    used: bool,
}

struct Grant {
    client_key: String,
    open_id: String,
    scopes: Vec<String>,
    revoked: bool,
}

struct AccessRecord {
    /// `None` for client-credentials tokens.
    grant: Option<u64>,
    client_key: String,
    expires_at: Instant,
}

struct RefreshRecord {
    grant: u64,
    expires_at: Instant,
    /// False once rotated out.
    active: bool,
}

pub(crate) struct State {
    pub initial: SimConfig,
    pub config: SimConfig,
    pub base_url: String,
    codes: HashMap<String, CodeRecord>,
    grants: HashMap<u64, Grant>,
    next_grant: u64,
    access: HashMap<String, AccessRecord>,
    refresh: HashMap<String, RefreshRecord>,
    failures: VecDeque<Failure>,
    clock_offset: Duration,
    user_info_hits: VecDeque<Instant>,
}

impl State {
    pub fn new(config: SimConfig, base_url: String) -> Self {
        State {
            initial: config.clone(),
            config,
            base_url,
            codes: HashMap::new(),
            grants: HashMap::new(),
            next_grant: 1,
            access: HashMap::new(),
            refresh: HashMap::new(),
            failures: VecDeque::new(),
            clock_offset: Duration::ZERO,
            user_info_hits: VecDeque::new(),
        }
    }

    /// Back to the start: the initial config and user, no codes, tokens, failures or clock offset.
    pub fn reset(&mut self) {
        *self = State::new(self.initial.clone(), std::mem::take(&mut self.base_url));
    }

    /// The simulator's clock (real time plus [`State::advance`]).
    fn now(&self) -> Instant {
        Instant::now() + self.clock_offset
    }

    pub fn advance(&mut self, by: Duration) {
        self.clock_offset += by;
    }

    pub fn clock_offset(&self) -> Duration {
        self.clock_offset
    }

    pub fn push_failure(&mut self, f: Failure) {
        self.failures.push_back(f);
    }

    pub fn clear_failures(&mut self) {
        self.failures.clear();
    }

    pub fn pending_failures(&self) -> Vec<Failure> {
        self.failures.iter().cloned().collect()
    }

    fn take_failure(&mut self, ep: Endpoint) -> Option<Failure> {
        let i = self.failures.iter().position(|f| f.endpoint() == ep)?;
        self.failures.remove(i)
    }

    pub fn summary(&self) -> Value {
        let now = self.now();
        json!({
            "codes_issued": self.codes.len(),
            "codes_unused": self.codes.values().filter(|c| !c.used && c.expires_at > now).count(),
            "grants": self.grants.len(),
            "grants_revoked": self.grants.values().filter(|g| g.revoked).count(),
            "access_tokens": self.access.len(),
            "access_tokens_valid": self.access.values().filter(|a| a.expires_at > now && self.grant_live(a.grant)).count(),
            "refresh_tokens": self.refresh.len(),
            "refresh_tokens_active": self.refresh.values().filter(|r| r.active && r.expires_at > now).count(),
            "pending_failures": serde_json::to_value(self.pending_failures()).unwrap_or(Value::Null),
            "clock_offset_secs": self.clock_offset.as_secs_f64(),
        })
    }

    fn grant_live(&self, grant: Option<u64>) -> bool {
        match grant {
            None => true,
            Some(g) => self.grants.get(&g).is_some_and(|g| !g.revoked),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Routing
// ---------------------------------------------------------------------------------------------

fn route(path: &str) -> &str {
    // TikTok documents trailing slashes; Auth.js, better-auth and arctic drop the one on the
    // authorize URL (§3.1). Accept both forms on every endpoint.
    let p = path.strip_suffix('/').unwrap_or(path);
    if p.is_empty() {
        "/"
    } else {
        p
    }
}

pub(crate) fn handle(st: &mut State, req: &Req) -> Resp {
    let path = route(&req.path);
    let m = req.method.as_str();
    match (m, path) {
        ("GET", "/v2/auth/authorize") => authorize(st, req),
        (_, "/v2/auth/authorize") => method_not_allowed("GET"),
        ("POST", "/v2/oauth/token") => token(st, req),
        (_, "/v2/oauth/token") => method_not_allowed("POST"),
        ("POST", "/v2/oauth/revoke") => revoke(st, req),
        (_, "/v2/oauth/revoke") => method_not_allowed("POST"),
        ("GET", "/v2/user/info") => user_info(st, req),
        (_, "/v2/user/info") => method_not_allowed("GET"),
        ("GET", "/") => index(st),
        (_, p) if p == "/__sim" || p.starts_with("/__sim/") => crate::hooks::handle(st, m, p, req),
        _ => Resp::text(404, "Not found (TikTok Login Kit simulator). See /__sim/ for the routes.\n"),
    }
}

fn method_not_allowed(allow: &str) -> Resp {
    Resp::text(405, "Method not allowed\n").with_header("Allow", allow)
}

fn index(st: &State) -> Resp {
    let u = crate::provider_urls(&st.base_url);
    let body = format!(
        "<!doctype html><meta charset=utf-8><title>TikTok Login Kit simulator</title>\
         <h1>TikTok Login Kit simulator</h1><ul>\
         <li>authorization: <code>{}</code></li><li>token: <code>{}</code></li>\
         <li>revoke: <code>{}</code></li><li>user info: <code>{}</code></li>\
         <li>test hooks: <a href=\"/__sim/\">/__sim/</a></li></ul>\
         <p>client_key <code>{}</code>; registered redirect URIs:</p><ul>{}</ul>",
        html_escape(&u.authorization),
        html_escape(&u.token),
        html_escape(&u.revoke),
        html_escape(&u.userinfo),
        html_escape(&st.config.client_key),
        st.config.redirect_uris.iter().map(|r| format!("<li><code>{}</code></li>", html_escape(r))).collect::<String>(),
    );
    Resp::html(200, body)
}

/// First value of `name` in `pairs`.
fn first<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str())
}

fn non_empty<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    first(pairs, name).filter(|v| !v.is_empty())
}

/// Comma-separated list; whitespace around items is trimmed, empty items dropped, duplicates removed.
fn split_commas(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for item in s.split(',').map(str::trim).filter(|i| !i.is_empty()) {
        if !out.iter().any(|o| o == item) {
            out.push(item.to_string());
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// GET /v2/auth/authorize/  (reference §3, §4, §10 A1–A7)
// ---------------------------------------------------------------------------------------------

fn redirect_uri_registered(registered: &[String], uri: &str) -> bool {
    registered.iter().any(|r| {
        if r == uri {
            return true;
        }
        // Desktop wildcard port, e.g. http://127.0.0.1:*/callback/ (§2).
        if let Some((prefix, suffix)) = r.split_once(":*") {
            if let Some(rest) = uri.strip_prefix(prefix).and_then(|r| r.strip_prefix(':')) {
                let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
                return digits > 0 && &rest[digits..] == suffix;
            }
        }
        false
    })
}

/// TikTok's own error page (§3.3): no redirect, names the offending parameter.
fn error_page(st: &State, parameter: &str, detail: &str) -> Resp {
    let body = format!(
        "<!doctype html><html><head><meta charset=utf-8><title>TikTok</title></head><body>\
         <h1>Something went wrong</h1>\
         <p>We couldn't log in with TikTok. This may be due to specific app settings.</p>\
         <p>If you're a developer, correct the following and try again:</p>\
         <ul><li id=\"param\">{p}</li></ul>\
         <hr><p><small>TikTok Login Kit simulator: {d}</small></p></body></html>",
        p = html_escape(parameter),
        d = html_escape(detail),
    );
    Resp::html(st.config.authorize_error_status, body)
        .with_header("X-Sim-Error-Parameter", parameter)
        .with_header("X-Sim-Detail", detail)
}

fn append_query(base: &str, pairs: &[(&str, &str)]) -> String {
    match url::Url::parse(base) {
        Ok(mut u) => {
            {
                let mut q = u.query_pairs_mut();
                for (k, v) in pairs {
                    q.append_pair(k, v);
                }
            }
            u.to_string()
        }
        Err(_) => base.to_string(),
    }
}

fn authorize(st: &mut State, req: &Req) -> Resp {
    let q = &req.query;
    let injected = st.take_failure(Endpoint::Authorize);
    match &injected {
        Some(Failure::AuthorizePage { parameter }) => {
            return error_page(st, parameter, "failure injected through the test hooks")
        }
        Some(Failure::Raw { status, body, content_type, .. }) => return Resp::new(*status, content_type, body.clone()),
        _ => {}
    }
    let cfg = &st.config;

    // A1: client_key (generic clients send client_id instead, §11.1).
    let Some(client_key) = non_empty(q, "client_key") else {
        let detail = if first(q, "client_id").is_some() {
            "client_key is missing (client_id was sent: TikTok expects client_key)"
        } else {
            "client_key is missing"
        };
        return error_page(st, "client_key", detail);
    };
    if client_key != cfg.client_key {
        return error_page(st, "client_key", "Client info is illegal or malformed: unknown client_key");
    }
    // A2: redirect_uri must match a registered one exactly.
    let Some(redirect_uri) = non_empty(q, "redirect_uri") else {
        return error_page(st, "redirect_uri", "redirect_uri is missing");
    };
    if !redirect_uri_registered(&cfg.redirect_uris, redirect_uri) {
        return error_page(
            st,
            "redirect_uri",
            "redirect_uri is not one of the app's registered redirect URIs (exact match)",
        );
    }
    // A4: response_type.
    match first(q, "response_type") {
        Some("code") => {}
        Some(_) => return error_page(st, "response_type", "unsupported_response_type: response_type must be code"),
        None => return error_page(st, "response_type", "response_type is missing"),
    }
    // A3: scope, comma-separated, each enabled for the app.
    let requested = split_commas(first(q, "scope").unwrap_or(""));
    if requested.is_empty() {
        return error_page(st, "scope", "scope is missing");
    }
    if let Some(bad) = requested.iter().find(|s| !cfg.app_scopes.contains(s)) {
        return error_page(
            st,
            "scope",
            &format!("invalid_scope: {bad:?} is unknown or not enabled for this app (scopes are comma-separated)"),
        );
    }
    // state
    let state = non_empty(q, "state");
    if cfg.require_state && state.is_none() {
        return error_page(st, "state", "state is missing");
    }
    // A5: PKCE.
    let challenge = non_empty(q, "code_challenge");
    if challenge.is_some() {
        match first(q, "code_challenge_method") {
            Some("S256") => {}
            _ => return error_page(st, "code_challenge_method", "code_challenge_method must be S256"),
        }
    } else if cfg.pkce_required {
        return error_page(st, "code_challenge", "code_challenge is required (PKCE strict mode)");
    }

    // Injected redirect failure, after validation (there must be a valid redirect_uri).
    if let Some(Failure::AuthorizeRedirect { error, error_description }) = injected {
        return error_redirect(st, redirect_uri, state, &error, &error_description);
    }

    // What the simulated user does.
    let mode = match first(q, "sim_action") {
        None | Some("") => cfg.authorize_mode,
        Some("approve") | Some("auto_approve") => AuthorizeMode::AutoApprove,
        Some("deny") => AuthorizeMode::Deny,
        Some("consent") => AuthorizeMode::Consent,
        Some(other) => {
            return error_page(st, "sim_action", &format!("sim_action {other:?} is not one of approve, deny, consent"))
        }
    };
    match mode {
        AuthorizeMode::Deny => {
            let error = non_empty(q, "sim_error").unwrap_or(&cfg.deny_error).to_string();
            let desc = first(q, "sim_error_description").unwrap_or(&cfg.deny_error_description).to_string();
            error_redirect(st, redirect_uri, state, &error, &desc)
        }
        AuthorizeMode::Consent => consent_page(st, req, &requested),
        AuthorizeMode::AutoApprove => {
            // Granted = requested ∩ (sim_grant values | configured grant set | everything).
            let sim_grant: Vec<&str> = q.iter().filter(|(k, _)| k == "sim_grant").map(|(_, v)| v.as_str()).collect();
            let allowed: Option<Vec<String>> = if !sim_grant.is_empty() {
                Some(sim_grant.iter().flat_map(|v| split_commas(v)).collect())
            } else {
                cfg.grant_scopes.clone()
            };
            let granted: Vec<String> = match allowed {
                Some(a) => requested.iter().filter(|s| a.contains(s)).cloned().collect(),
                None => requested.clone(),
            };
            let code = util::new_code();
            let record = CodeRecord {
                client_key: client_key.to_string(),
                redirect_uri: redirect_uri.to_string(),
                scopes: granted.clone(),
                challenge: challenge.map(str::to_string),
                open_id: cfg.user.open_id.clone(),
                expires_at: st.now() + cfg.code_ttl,
                used: false,
            };
            st.codes.insert(code.clone(), record);
            let scopes = granted.join(",");
            let mut pairs = vec![("code", code.as_str()), ("scopes", scopes.as_str())];
            if let Some(s) = state {
                pairs.push(("state", s));
            }
            Resp::redirect(&append_query(redirect_uri, &pairs))
        }
    }
}

fn error_redirect(st: &State, redirect_uri: &str, state: Option<&str>, error: &str, desc: &str) -> Resp {
    let mut pairs = vec![("error", error), ("error_description", desc)];
    if let (true, Some(s)) = (st.config.echo_state_on_error, state) {
        pairs.push(("state", s));
    }
    Resp::redirect(&append_query(redirect_uri, &pairs))
}

fn consent_page(st: &State, req: &Req, requested: &[String]) -> Resp {
    let hidden: String = req
        .query
        .iter()
        .filter(|(k, _)| !k.starts_with("sim_"))
        .map(|(k, v)| format!("<input type=hidden name=\"{}\" value=\"{}\">", html_escape(k), html_escape(v)))
        .collect();
    let boxes: String = requested
        .iter()
        .map(|s| {
            format!("<label><input type=checkbox name=sim_grant value=\"{0}\" checked> {0}</label><br>", html_escape(s))
        })
        .collect();
    let u = &st.config.user;
    let body = format!(
        "<!doctype html><html><head><meta charset=utf-8><title>Authorize - TikTok (simulator)</title></head><body>\
         <h1>Authorize this app?</h1><p>Logged in as <b>{name}</b> (@{user}) &mdash; simulated test user.</p>\
         <form method=get action=\"{action}\">{hidden}<input type=hidden name=sim_grant value=\"\">\
         <p>Scopes requested (uncheck to refuse one):</p>{boxes}\
         <p><button type=submit name=sim_action value=approve>Authorize</button> \
         <button type=submit name=sim_action value=deny>Cancel</button></p></form></body></html>",
        name = html_escape(&u.display_name),
        user = html_escape(&u.username),
        action = html_escape(&req.path),
    );
    Resp::html(200, body)
}

// ---------------------------------------------------------------------------------------------
// POST /v2/oauth/token/  (reference §5, §6, §8, §10 T1–T8, R1)
// ---------------------------------------------------------------------------------------------

fn oauth_error(st: &State, error: &str, description: &str, detail: &str) -> Resp {
    let status = st.config.oauth_error_status.status_for(error);
    oauth_error_with_status(status, error, description).with_header("X-Sim-Detail", detail)
}

fn oauth_error_with_status(status: u16, error: &str, description: &str) -> Resp {
    Resp::json(status, &json!({ "error": error, "error_description": description, "log_id": util::new_log_id() }))
}

fn injected_oauth(st: &State, f: Failure) -> Resp {
    match f {
        Failure::Token { error, error_description, status } | Failure::Revoke { error, error_description, status } => {
            let status = status.unwrap_or_else(|| st.config.oauth_error_status.status_for(&error));
            oauth_error_with_status(status, &error, &error_description)
        }
        Failure::Raw { status, body, content_type, .. } => Resp::new(status, &content_type, body),
        _ => Resp::text(500, "unexpected failure kind\n"),
    }
}

/// Parse a form body; `Err` is a ready error response (T8: JSON or other bodies are refused).
fn parse_form(st: &State, req: &Req) -> Result<Vec<(String, String)>, Resp> {
    if let Some(ct) = req.header("content-type") {
        let ct = ct.to_ascii_lowercase();
        if !ct.starts_with("application/x-www-form-urlencoded") {
            return Err(oauth_error(
                st,
                "invalid_request",
                DESC_MALFORMED,
                &format!("Content-Type {ct:?}: the body must be application/x-www-form-urlencoded"),
            ));
        }
    }
    Ok(url::form_urlencoded::parse(&req.body).into_owned().collect())
}

/// `client_key` + `client_secret` in the body (§1: no HTTP Basic). `Err` is a ready error response.
fn client_auth(st: &State, req: &Req, form: &[(String, String)]) -> Result<(), Resp> {
    let Some(key) = non_empty(form, "client_key") else {
        let detail = if first(form, "client_id").is_some() {
            "client_key is missing (client_id was sent: TikTok expects client_key)"
        } else if req.header("authorization").is_some_and(|a| a.to_ascii_lowercase().starts_with("basic ")) {
            "client_key is missing (HTTP Basic client authentication is not documented: send client_key and client_secret in the body)"
        } else {
            "client_key is missing"
        };
        return Err(oauth_error(st, "invalid_request", DESC_MALFORMED, detail));
    };
    let Some(secret) = non_empty(form, "client_secret") else {
        return Err(oauth_error(st, "invalid_request", DESC_MALFORMED, "client_secret is missing"));
    };
    if key != st.config.client_key || secret != st.config.client_secret {
        return Err(oauth_error(
            st,
            "invalid_client",
            "Client key or client secret is invalid.",
            "unknown client_key or wrong client_secret",
        ));
    }
    Ok(())
}

fn token(st: &mut State, req: &Req) -> Resp {
    if let Some(f) = st.take_failure(Endpoint::Token) {
        return injected_oauth(st, f);
    }
    let form = match parse_form(st, req) {
        Ok(f) => f,
        Err(r) => return r,
    };
    let Some(grant_type) = non_empty(&form, "grant_type").map(str::to_string) else {
        return oauth_error(st, "invalid_request", DESC_MALFORMED, "grant_type is missing");
    };
    if let Err(r) = client_auth(st, req, &form) {
        return r;
    }
    match grant_type.as_str() {
        "authorization_code" => token_from_code(st, &form),
        "refresh_token" => token_from_refresh(st, &form),
        "client_credentials" => {
            if !st.config.client_credentials {
                return oauth_error(
                    st,
                    "unauthorized_client",
                    "The client is not authorized to use this grant type.",
                    "client_credentials is switched off in the simulator config",
                );
            }
            let token = util::new_token("clt");
            let ttl = st.config.client_token_ttl;
            st.access.insert(
                token.clone(),
                AccessRecord { grant: None, client_key: st.config.client_key.clone(), expires_at: st.now() + ttl },
            );
            Resp::json(200, &json!({ "access_token": token, "expires_in": ttl.as_secs(), "token_type": "Bearer" }))
        }
        other => oauth_error(
            st,
            "unsupported_grant_type",
            "The grant type is not supported.",
            &format!("grant_type {other:?} is not authorization_code, refresh_token or client_credentials"),
        ),
    }
}

fn pkce_ok(mode: PkceMode, challenge: &str, verifier: Option<&str>) -> bool {
    let Some(v) = verifier.filter(|v| util::verifier_is_well_formed(v)) else {
        return false;
    };
    let b64 = || util::pkce_challenge_base64url(v) == challenge;
    let hex = || util::pkce_challenge_hex(v).eq_ignore_ascii_case(challenge);
    match mode {
        PkceMode::Base64Url => b64(),
        PkceMode::Hex => hex(),
        PkceMode::Either => b64() || hex(),
    }
}

fn token_from_code(st: &mut State, form: &[(String, String)]) -> Resp {
    let Some(code) = non_empty(form, "code") else {
        return oauth_error(st, "invalid_request", DESC_MALFORMED, "code is missing");
    };
    let Some(redirect_uri) = non_empty(form, "redirect_uri") else {
        return oauth_error(st, "invalid_request", DESC_MALFORMED, "redirect_uri is missing");
    };
    let now = st.now();
    let Some(rec) = st.codes.get(code) else {
        let detail = if code.contains('%') {
            "unknown code (it contains '%': was it URL-encoded twice or not decoded?)"
        } else {
            "unknown code"
        };
        return oauth_error(st, "invalid_grant", "Authorization code is invalid.", detail);
    };
    if rec.used {
        return oauth_error(st, "invalid_grant", "Authorization code has been used.", "the code was already exchanged");
    }
    if now >= rec.expires_at {
        return oauth_error(
            st,
            "invalid_grant",
            "Authorization code is expired.",
            "the code's lifetime (code_ttl) has passed",
        );
    }
    if rec.client_key != st.config.client_key {
        return oauth_error(
            st,
            "invalid_grant",
            "Authorization code is invalid.",
            "the code was issued to another client",
        );
    }
    if rec.redirect_uri != redirect_uri {
        return oauth_error(
            st,
            "invalid_request",
            DESC_REDIRECT_MISMATCH,
            &format!("redirect_uri {redirect_uri:?} differs from the authorize request's {:?}", rec.redirect_uri),
        );
    }
    if let Some(ch) = &rec.challenge {
        if !pkce_ok(st.config.pkce, ch, non_empty(form, "code_verifier")) {
            let detail = format!(
                "code_verifier is missing, malformed or does not match the challenge (accepted encoding: {:?})",
                st.config.pkce
            );
            return oauth_error(st, "invalid_request", DESC_PKCE, &detail);
        }
    }
    let rec = st.codes.get_mut(code).expect("checked above");
    rec.used = true;
    let (client_key, open_id, scopes) = (rec.client_key.clone(), rec.open_id.clone(), rec.scopes.clone());
    let grant = st.next_grant;
    st.next_grant += 1;
    st.grants.insert(grant, Grant { client_key, open_id, scopes, revoked: false });
    let refresh = util::new_token("rft");
    st.refresh.insert(refresh.clone(), RefreshRecord { grant, expires_at: now + st.config.refresh_ttl, active: true });
    issue(st, grant, &refresh, now)
}

/// The seven-field success body (§5.2), with a new access token for `grant`.
fn issue(st: &mut State, grant: u64, refresh: &str, now: Instant) -> Resp {
    let access = util::new_token("act");
    let ttl = st.config.access_ttl;
    let g = &st.grants[&grant];
    let (open_id, scope) = (g.open_id.clone(), g.scopes.join(","));
    st.access.insert(
        access.clone(),
        AccessRecord { grant: Some(grant), client_key: g.client_key.clone(), expires_at: now + ttl },
    );
    let refresh_left = st.refresh[refresh].expires_at.saturating_duration_since(now);
    Resp::json(
        200,
        &json!({
            "access_token": access,
            "expires_in": ttl.as_secs(),
            "open_id": open_id,
            // Remaining lifetime, to the nearest second.
            "refresh_expires_in": refresh_left.as_secs_f64().round() as u64,
            "refresh_token": refresh,
            "scope": scope,
            "token_type": "Bearer",
        }),
    )
}

fn token_from_refresh(st: &mut State, form: &[(String, String)]) -> Resp {
    let Some(old) = non_empty(form, "refresh_token").map(str::to_string) else {
        return oauth_error(st, "invalid_request", DESC_MALFORMED, "refresh_token is missing");
    };
    let now = st.now();
    let invalid =
        |st: &State, detail: &str| oauth_error(st, "invalid_grant", "Refresh token is invalid or expired.", detail);
    let Some(rec) = st.refresh.get(&old) else {
        return invalid(st, "unknown refresh token");
    };
    if !rec.active {
        return invalid(st, "this refresh token was rotated out: use the one from the latest response");
    }
    if now >= rec.expires_at {
        return invalid(st, "the refresh token has expired (refresh_ttl)");
    }
    let (grant, old_expiry) = (rec.grant, rec.expires_at);
    match st.grants.get(&grant) {
        Some(g) if g.revoked => return invalid(st, "the grant was revoked"),
        Some(g) if g.client_key != st.config.client_key => return invalid(st, "issued to another client"),
        Some(_) => {}
        None => return invalid(st, "unknown grant"),
    }
    let new_expiry = match st.config.refresh_expiry {
        RefreshExpiry::Restart => now + st.config.refresh_ttl,
        RefreshExpiry::Keep => old_expiry,
    };
    let refresh = if st.config.rotate_refresh_tokens {
        st.refresh.get_mut(&old).expect("checked").active = false;
        let new = util::new_token("rft");
        st.refresh.insert(new.clone(), RefreshRecord { grant, expires_at: new_expiry, active: true });
        new
    } else {
        st.refresh.get_mut(&old).expect("checked").expires_at = new_expiry;
        old
    };
    issue(st, grant, &refresh, now)
}

// ---------------------------------------------------------------------------------------------
// POST /v2/oauth/revoke/  (reference §7, §10 V1)
// ---------------------------------------------------------------------------------------------

fn revoke(st: &mut State, req: &Req) -> Resp {
    if let Some(f) = st.take_failure(Endpoint::Revoke) {
        return injected_oauth(st, f);
    }
    let form = match parse_form(st, req) {
        Ok(f) => f,
        Err(r) => return r,
    };
    if let Err(r) = client_auth(st, req, &form) {
        return r;
    }
    let Some(token) = non_empty(&form, "token") else {
        return oauth_error(st, "invalid_request", DESC_MALFORMED, "token is missing");
    };
    let now = st.now();
    let live = st
        .access
        .get(token)
        .filter(|a| a.expires_at > now && a.client_key == st.config.client_key && st.grant_live(a.grant));
    let Some(rec) = live else {
        return oauth_error(
            st,
            "invalid_request",
            "The access token is invalid or expired.",
            "token is not a live access token of this client (revoke takes the access token, not the refresh token)",
        );
    };
    match rec.grant {
        // Revoking a user token disconnects the app: every token of the grant stops working.
        Some(g) => st.grants.get_mut(&g).expect("grant").revoked = true,
        None => {
            st.access.remove(token);
        }
    }
    match st.config.revoke_body {
        RevokeBody::EmptyObject => Resp::json(200, &json!({})),
        RevokeBody::Empty => Resp::new(200, "application/json; charset=utf-8", Vec::new()),
    }
}

// ---------------------------------------------------------------------------------------------
// GET /v2/user/info/  (reference §9, §10 U1–U6)
// ---------------------------------------------------------------------------------------------

fn api_error(st: &State, status: u16, code: &str, message: &str) -> Resp {
    let err = json!({ "code": code, "message": message, "log_id": util::new_log_id() });
    let body =
        if st.config.user_info_error_data { json!({ "data": {}, "error": err }) } else { json!({ "error": err }) };
    Resp::json(status, &body)
}

fn user_field(u: &SimUser, name: &str) -> Value {
    match name {
        "open_id" => json!(u.open_id),
        "union_id" => json!(u.union_id),
        "avatar_url" => json!(u.avatar_url),
        "avatar_url_100" => json!(u.avatar_url_100),
        "avatar_large_url" => json!(u.avatar_large_url),
        "display_name" => json!(u.display_name),
        "bio_description" => json!(u.bio_description),
        "profile_deep_link" => json!(u.profile_deep_link),
        "is_verified" => json!(u.is_verified),
        "username" => json!(u.username),
        "follower_count" => json!(u.follower_count),
        "following_count" => json!(u.following_count),
        "likes_count" => json!(u.likes_count),
        "video_count" => json!(u.video_count),
        "profile_web_link" => json!(u.profile_web_link),
        _ => Value::Null,
    }
}

fn user_info(st: &mut State, req: &Req) -> Resp {
    if let Some(f) = st.take_failure(Endpoint::UserInfo) {
        return match f {
            Failure::UserInfo { code, message, status } => {
                let status = status.unwrap_or_else(|| api_error_status(&code));
                api_error(st, status, &code, &message)
            }
            Failure::Raw { status, body, content_type, .. } => Resp::new(status, &content_type, body),
            _ => Resp::text(500, "unexpected failure kind\n"),
        };
    }
    let now = st.now();
    // U5: 600 requests per sliding minute, counted for the whole app.
    if let Some(limit) = st.config.user_info_rate_limit {
        while st.user_info_hits.front().is_some_and(|t| now.duration_since(*t) >= Duration::from_secs(60)) {
            st.user_info_hits.pop_front();
        }
        if st.user_info_hits.len() >= limit as usize {
            return api_error(st, 429, "rate_limit_exceeded", "API rate limit exceeded, please retry later.");
        }
        st.user_info_hits.push_back(now);
    }
    // U1, U2, U6: Authorization: Bearer <access_token>.
    let token = req.header("authorization").and_then(|h| {
        let (scheme, rest) = h.trim().split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim()).filter(|t| !t.is_empty())
    });
    let grant = token
        .and_then(|t| st.access.get(t))
        .filter(|a| a.expires_at > now)
        .and_then(|a| a.grant)
        .and_then(|g| st.grants.get(&g))
        .filter(|g| !g.revoked);
    let Some(grant) = grant else {
        return api_error(st, 401, "access_token_invalid", MSG_TOKEN_INVALID);
    };
    // U4: fields.
    let fields = split_commas(first(&req.query, "fields").unwrap_or(""));
    if fields.is_empty() {
        return api_error(st, 400, "invalid_params", "The fields parameter is missing or empty.");
    }
    let known = |f: &str| {
        USER_FIELDS
            .iter()
            .find(|(n, _)| *n == f)
            .filter(|(n, _)| *n != "profile_web_link" || st.config.profile_web_link)
    };
    if let Some(bad) = fields.iter().find(|f| known(f).is_none()) {
        return api_error(st, 400, "invalid_params", &format!("Invalid field: {bad}."));
    }
    // U3: fields whose scope was not granted.
    let missing: Vec<(&String, &str)> = fields
        .iter()
        .map(|f| (f, known(f).expect("checked").1))
        .filter(|(_, scope)| !grant.scopes.iter().any(|s| s == scope))
        .collect();
    let mut served: Vec<&String> = fields.iter().collect();
    if !missing.is_empty() {
        let mut scopes: Vec<&str> = missing.iter().map(|(_, s)| *s).collect();
        scopes.dedup();
        match st.config.scope_error {
            ScopeErrorMode::NotAuthorized => {
                return api_error(
                    st,
                    401,
                    "scope_not_authorized",
                    "The user did not authorize the scope required for completing this request.",
                )
            }
            ScopeErrorMode::PermissionMissed => {
                let names: Vec<&str> = missing.iter().map(|(f, _)| f.as_str()).collect();
                return api_error(
                    st,
                    400,
                    "scope_permission_missed",
                    &format!(
                        "The fields {} need scopes the access token lacks: {}.",
                        names.join(","),
                        scopes.join(",")
                    ),
                );
            }
            ScopeErrorMode::Omit => served.retain(|f| !missing.iter().any(|(m, _)| m == f)),
        }
    }
    let mut user = Map::new();
    for f in served {
        user.insert(f.clone(), user_field(&st.config.user, f));
    }
    Resp::json(
        200,
        &json!({
            "data": { "user": user },
            "error": { "code": "ok", "message": "", "log_id": util::new_log_id() },
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcard_port() {
        let reg = vec!["http://127.0.0.1:*/callback/".to_string()];
        assert!(redirect_uri_registered(&reg, "http://127.0.0.1:5173/callback/"));
        assert!(!redirect_uri_registered(&reg, "http://127.0.0.1:/callback/"));
        assert!(!redirect_uri_registered(&reg, "http://127.0.0.1:5173/callback/x"));
        assert!(!redirect_uri_registered(&reg, "http://localhost:5173/callback/"));
    }

    #[test]
    fn commas() {
        assert_eq!(split_commas("a, b,,a ,c"), vec!["a", "b", "c"]);
        assert_eq!(split_commas("a b"), vec!["a b"]);
    }
}
