//! End-to-end tests of the simulator over plain HTTP (ureq, no redirects followed).

use serde_json::{json, Value};
use std::collections::HashMap;
use std::time::Duration;
use tiktok_sim::{
    pkce_challenge_base64url, pkce_challenge_hex, Endpoint, Failure, OAuthErrorStatus, PkceMode, RefreshExpiry,
    ScopeErrorMode, SimConfig, SimUser, Simulator,
};

const CB: &str = "http://127.0.0.1:9/api/auth/callback/tiktok";
const ALL: &str = "user.info.basic,user.info.profile,user.info.stats";
const VERIFIER: &str = "sim-test-verifier-0123456789-abcdefghijklmnopqrstuvwxyz.~_";

struct Res {
    status: u16,
    headers: HashMap<String, String>,
    body: String,
}

impl Res {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(&name.to_ascii_lowercase()).map(String::as_str)
    }
    /// Query pairs of the Location header.
    fn location_query(&self) -> HashMap<String, String> {
        let loc =
            self.header("location").unwrap_or_else(|| panic!("no Location (status {}): {}", self.status, self.body));
        url::Url::parse(loc).unwrap().query_pairs().into_owned().collect()
    }
}

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new().redirects(0).timeout(Duration::from_secs(10)).build()
}

fn done(r: Result<ureq::Response, ureq::Error>) -> Res {
    let resp = match r {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("transport error: {e}"),
    };
    let status = resp.status();
    let headers = resp
        .headers_names()
        .into_iter()
        .map(|n| {
            let v = resp.header(&n).unwrap_or("").to_string();
            (n.to_ascii_lowercase(), v)
        })
        .collect();
    let body = resp.into_string().unwrap();
    Res { status, headers, body }
}

fn get(url: &str) -> Res {
    done(agent().get(url).call())
}

fn post_form(url: &str, form: &[(&str, &str)]) -> Res {
    done(agent().post(url).send_form(form))
}

fn post_json(url: &str, v: &Value) -> Res {
    done(agent().post(url).set("Content-Type", "application/json").send_string(&v.to_string()))
}

fn user_info(sim: &Simulator, token: &str, fields: &str) -> Res {
    let url = format!("{}?fields={fields}", sim.urls().userinfo);
    done(agent().get(&url).set("Authorization", &format!("Bearer {token}")).call())
}

fn sim_with(f: impl FnOnce(&mut SimConfig)) -> Simulator {
    let mut c = SimConfig { redirect_uris: vec![CB.into()], ..SimConfig::default() };
    f(&mut c);
    tiktok_sim::start(c)
}

fn sim() -> Simulator {
    sim_with(|_| {})
}

/// Authorize with a base64url PKCE challenge; returns the callback's query.
fn authorize(sim: &Simulator, scope: &str, extra: &str) -> HashMap<String, String> {
    let ch = pkce_challenge_base64url(VERIFIER);
    let url = format!("{}{extra}", sim.authorization_url(CB, scope, "st-123", Some(&ch)));
    let r = get(&url);
    assert_eq!(r.status, 302, "{}", r.body);
    r.location_query()
}

fn exchange(sim: &Simulator, code: &str, verifier: &str) -> Res {
    post_form(
        &sim.urls().token,
        &[
            ("client_key", "sim-client-key"),
            ("client_secret", "sim-client-secret"),
            ("code", code),
            ("grant_type", "authorization_code"),
            ("redirect_uri", CB),
            ("code_verifier", verifier),
        ],
    )
}

fn refresh(sim: &Simulator, token: &str) -> Res {
    post_form(
        &sim.urls().token,
        &[
            ("client_key", "sim-client-key"),
            ("client_secret", "sim-client-secret"),
            ("grant_type", "refresh_token"),
            ("refresh_token", token),
        ],
    )
}

/// A full login: returns the token response.
fn login(sim: &Simulator, scope: &str) -> Value {
    let q = authorize(sim, scope, "");
    let r = exchange(sim, &q["code"], VERIFIER);
    assert_eq!(r.status, 200, "{}", r.body);
    r.json()
}

fn assert_oauth_error(r: &Res, status: u16, error: &str, description: Option<&str>) {
    assert_eq!(r.status, status, "{}", r.body);
    let v = r.json();
    let obj = v.as_object().unwrap();
    let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["error", "error_description", "log_id"], "flat OAuth error shape: {v}");
    assert_eq!(v["error"], error, "{v}");
    assert_eq!(v["log_id"].as_str().unwrap().len(), 34);
    if let Some(d) = description {
        assert_eq!(v["error_description"], d);
    }
}

fn assert_api_error(r: &Res, status: u16, code: &str) {
    assert_eq!(r.status, status, "{}", r.body);
    let v = r.json();
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(v["error"]["log_id"].is_string());
    assert!(v["error"]["message"].is_string());
    assert_eq!(v["data"], json!({}));
}

#[test]
fn success_flow() {
    let sim = sim();
    let q = authorize(&sim, ALL, "");
    assert_eq!(q["scopes"], ALL);
    assert_eq!(q["state"], "st-123");
    let code = &q["code"];
    assert!(code.contains("*0!"), "code shaped like TikTok's: {code}");

    let r = exchange(&sim, code, VERIFIER);
    assert_eq!(r.status, 200, "{}", r.body);
    let t = r.json();
    let mut keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        ["access_token", "expires_in", "open_id", "refresh_expires_in", "refresh_token", "scope", "token_type"]
    );
    assert!(t["access_token"].as_str().unwrap().starts_with("act."));
    assert!(t["refresh_token"].as_str().unwrap().starts_with("rft."));
    assert_eq!(t["expires_in"], 7200);
    assert_eq!(t["refresh_expires_in"], 15_552_000);
    assert_eq!(t["open_id"], SimUser::default().open_id);
    assert_eq!(t["scope"], ALL);
    assert_eq!(t["token_type"], "Bearer");

    let r = user_info(
        &sim,
        t["access_token"].as_str().unwrap(),
        "open_id,union_id,display_name,username,follower_count,is_verified",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let v = r.json();
    assert_eq!(v["error"]["code"], "ok");
    assert_eq!(v["error"]["message"], "");
    assert!(v["error"]["log_id"].is_string());
    let user = v["data"]["user"].as_object().unwrap();
    assert_eq!(user.len(), 6, "only the requested fields: {v}");
    assert_eq!(user["display_name"], "Sim Creator");
    assert_eq!(user["username"], "sim.creator");
    assert_eq!(user["follower_count"], 1234);
    assert_eq!(user["is_verified"], true);
    assert_eq!(user["open_id"], t["open_id"]);
}

#[test]
fn authorize_without_trailing_slash_and_raw_commas() {
    let sim = sim();
    let url = format!(
        "{}/v2/auth/authorize?client_key=sim-client-key&response_type=code&scope=user.info.basic,user.info.profile&redirect_uri={}&state=s",
        sim.base_url(),
        url::form_urlencoded::byte_serialize(CB.as_bytes()).collect::<String>()
    );
    let r = get(&url);
    assert_eq!(r.status, 302, "{}", r.body);
    assert!(r.header("location").unwrap().contains("scopes=user.info.basic%2Cuser.info.profile"));
    assert_eq!(r.location_query()["scopes"], "user.info.basic,user.info.profile");
}

#[test]
fn denial_via_query_and_config() {
    let sim = sim();
    let q = authorize(&sim, ALL, "&sim_action=deny");
    assert_eq!(q["error"], "access_denied");
    assert_eq!(q["error_description"], "The user denied the request");
    assert_eq!(q["state"], "st-123");
    assert!(!q.contains_key("code"));

    let q = authorize(&sim, ALL, "&sim_action=deny&sim_error=unauthorized_client&sim_error_description=not+eligible");
    assert_eq!(q["error"], "unauthorized_client");
    assert_eq!(q["error_description"], "not eligible");

    sim.update_config(|c| {
        c.authorize_mode = tiktok_sim::AuthorizeMode::Deny;
        c.echo_state_on_error = false;
    })
    .unwrap();
    let q = authorize(&sim, ALL, "");
    assert_eq!(q["error"], "access_denied");
    assert!(!q.contains_key("state"));
    // sim_action wins over the configured mode.
    let q = authorize(&sim, ALL, "&sim_action=approve");
    assert!(q.contains_key("code"));
}

#[test]
fn consent_page_lists_scopes() {
    let sim = sim();
    let r = get(&format!("{}&sim_action=consent", sim.authorization_url(CB, ALL, "s", None)));
    assert_eq!(r.status, 200);
    assert!(r.body.contains("name=sim_grant value=\"user.info.stats\""), "{}", r.body);
    assert!(r.body.contains("value=approve") && r.body.contains("value=deny"));
}

#[test]
fn partial_grant_and_field_scopes() {
    let sim = sim();
    let q = authorize(&sim, ALL, "&sim_grant=user.info.basic&sim_grant=user.info.profile");
    assert_eq!(q["scopes"], "user.info.basic,user.info.profile");
    let t = exchange(&sim, &q["code"], VERIFIER).json();
    assert_eq!(t["scope"], "user.info.basic,user.info.profile");
    let at = t["access_token"].as_str().unwrap();

    // A stats field without user.info.stats: 401 scope_not_authorized by default.
    assert_api_error(&user_info(&sim, at, "open_id,follower_count"), 401, "scope_not_authorized");
    // Variant: 400 scope_permission_missed.
    sim.update_config(|c| c.scope_error = ScopeErrorMode::PermissionMissed).unwrap();
    assert_api_error(&user_info(&sim, at, "open_id,follower_count"), 400, "scope_permission_missed");
    // Variant: silently omitted.
    sim.update_config(|c| c.scope_error = ScopeErrorMode::Omit).unwrap();
    let r = user_info(&sim, at, "open_id,follower_count,username");
    assert_eq!(r.status, 200);
    let user = r.json()["data"]["user"].clone();
    assert_eq!(user.as_object().unwrap().len(), 2, "{user}");
    assert!(user.get("follower_count").is_none());

    // Configured grant set, no sim_grant.
    sim.update_config(|c| c.grant_scopes = Some(vec!["user.info.basic".into()])).unwrap();
    assert_eq!(authorize(&sim, ALL, "")["scopes"], "user.info.basic");
}

#[test]
fn bad_authorize_requests_show_error_page() {
    let sim = sim();
    let ch = pkce_challenge_base64url(VERIFIER);
    let base = sim.urls().authorization;
    let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let cases = [
        (format!("{base}?client_key=nope&response_type=code&scope=user.info.basic&redirect_uri={}&state=s", enc(CB)), "client_key"),
        (format!("{base}?client_id=sim-client-key&response_type=code&scope=user.info.basic&redirect_uri={}&state=s", enc(CB)), "client_key"),
        (format!("{base}?client_key=sim-client-key&response_type=code&scope=user.info.basic&redirect_uri={}&state=s", enc("http://evil.example/cb")), "redirect_uri"),
        (format!("{base}?client_key=sim-client-key&response_type=code&scope=user.info.basic&redirect_uri={}&state=s", enc(&format!("{CB}/"))), "redirect_uri"),
        (format!("{base}?client_key=sim-client-key&response_type=token&scope=user.info.basic&redirect_uri={}&state=s", enc(CB)), "response_type"),
        (format!("{base}?client_key=sim-client-key&response_type=code&scope=user.info.basic+user.info.profile&redirect_uri={}&state=s", enc(CB)), "scope"),
        (format!("{base}?client_key=sim-client-key&response_type=code&scope=user.info.basic,video.upload&redirect_uri={}&state=s", enc(CB)), "scope"),
        (format!("{base}?client_key=sim-client-key&response_type=code&scope=user.info.basic&redirect_uri={}", enc(CB)), "state"),
        (format!("{base}?client_key=sim-client-key&response_type=code&scope=user.info.basic&redirect_uri={}&state=s&code_challenge={ch}&code_challenge_method=plain", enc(CB)), "code_challenge_method"),
    ];
    for (url, param) in cases {
        let r = get(&url);
        assert_eq!(r.status, 400, "{url}: {}", r.body);
        assert!(r.header("location").is_none(), "no redirect for {url}");
        assert!(r.body.contains("Something went wrong"));
        assert!(r.body.contains(&format!("<li id=\"param\">{param}</li>")), "{url}: {}", r.body);
        assert_eq!(r.header("x-sim-error-parameter"), Some(param));
    }

    // PKCE strict mode.
    sim.update_config(|c| c.pkce_required = true).unwrap();
    let r = get(&sim.authorization_url(CB, "user.info.basic", "s", None));
    assert_eq!(r.header("x-sim-error-parameter"), Some("code_challenge"));
    assert_eq!(get(&sim.authorization_url(CB, "user.info.basic", "s", Some(&ch))).status, 302);
}

#[test]
fn bad_reused_and_expired_codes() {
    let sim = sim_with(|c| c.code_ttl = Duration::from_millis(150));
    // Unknown code.
    assert_oauth_error(&exchange(&sim, "not-a-code", VERIFIER), 200, "invalid_grant", None);
    // Double-encoded code (the '!' sent as %21 literally).
    let q = authorize(&sim, ALL, "");
    let double = q["code"].replace('!', "%21");
    let r = exchange(&sim, &double, VERIFIER);
    assert_oauth_error(&r, 200, "invalid_grant", None);
    assert!(r.header("x-sim-detail").unwrap().contains("encoded twice"));
    // Reused code.
    assert_eq!(exchange(&sim, &q["code"], VERIFIER).status, 200);
    assert_oauth_error(
        &exchange(&sim, &q["code"], VERIFIER),
        200,
        "invalid_grant",
        Some("Authorization code has been used."),
    );
    // Expired code.
    let q = authorize(&sim, ALL, "");
    std::thread::sleep(Duration::from_millis(250));
    assert_oauth_error(
        &exchange(&sim, &q["code"], VERIFIER),
        200,
        "invalid_grant",
        Some("Authorization code is expired."),
    );
    // The simulated clock does the same without sleeping.
    sim.update_config(|c| c.code_ttl = Duration::from_secs(300)).unwrap();
    let q = authorize(&sim, ALL, "");
    sim.advance_clock(Duration::from_secs(301));
    assert_oauth_error(&exchange(&sim, &q["code"], VERIFIER), 200, "invalid_grant", None);
}

#[test]
fn redirect_uri_mismatch_at_token() {
    let sim = sim_with(|c| c.redirect_uris.push("http://127.0.0.1:9/other".into()));
    let q = authorize(&sim, ALL, "");
    let r = post_form(
        &sim.urls().token,
        &[
            ("client_key", "sim-client-key"),
            ("client_secret", "sim-client-secret"),
            ("code", &q["code"]),
            ("grant_type", "authorization_code"),
            ("redirect_uri", "http://127.0.0.1:9/other"),
            ("code_verifier", VERIFIER),
        ],
    );
    assert_oauth_error(&r, 200, "invalid_request", Some(tiktok_sim::DESC_REDIRECT_MISMATCH));
    // The failed attempt did not use the code up.
    assert_eq!(exchange(&sim, &q["code"], VERIFIER).status, 200);
}

#[test]
fn pkce_modes() {
    let other = "another-verifier-that-does-not-match-the-challenge-000";
    // Default: standard base64url.
    let sim = sim();
    let q = authorize(&sim, ALL, "");
    assert_oauth_error(&exchange(&sim, &q["code"], other), 200, "invalid_request", Some(tiktok_sim::DESC_PKCE));
    assert_oauth_error(&exchange(&sim, &q["code"], "short"), 200, "invalid_request", Some(tiktok_sim::DESC_PKCE));
    let r = post_form(
        &sim.urls().token,
        &[
            ("client_key", "sim-client-key"),
            ("client_secret", "sim-client-secret"),
            ("code", &q["code"]),
            ("grant_type", "authorization_code"),
            ("redirect_uri", CB),
        ],
    );
    assert_oauth_error(&r, 200, "invalid_request", Some(tiktok_sim::DESC_PKCE));
    assert_eq!(exchange(&sim, &q["code"], VERIFIER).status, 200);

    // A hex challenge is refused in base64url mode ...
    let hex = pkce_challenge_hex(VERIFIER);
    let hex_login = |sim: &Simulator| {
        let r = get(&sim.authorization_url(CB, ALL, "s", Some(&hex)));
        exchange(sim, &r.location_query()["code"], VERIFIER)
    };
    assert_oauth_error(&hex_login(&sim), 200, "invalid_request", Some(tiktok_sim::DESC_PKCE));
    // ... accepted in hex mode, where base64url is refused ...
    sim.update_config(|c| c.pkce = PkceMode::Hex).unwrap();
    assert_eq!(hex_login(&sim).status, 200);
    let q = authorize(&sim, ALL, "");
    assert_oauth_error(&exchange(&sim, &q["code"], VERIFIER), 200, "invalid_request", None);
    // ... and both are accepted in either mode.
    sim.update_config(|c| c.pkce = PkceMode::Either).unwrap();
    assert_eq!(hex_login(&sim).status, 200);
    let q = authorize(&sim, ALL, "");
    assert_eq!(exchange(&sim, &q["code"], VERIFIER).status, 200);

    // Without a challenge (plain web flow) no verifier is needed, and one sent anyway is ignored.
    let r = get(&sim.authorization_url(CB, ALL, "s", None));
    assert_eq!(
        exchange(&sim, &r.location_query()["code"], "ignored-verifier-ignored-verifier-ignored-verifier").status,
        200
    );
}

#[test]
fn token_request_errors() {
    let sim = sim();
    let url = sim.urls().token;
    // JSON body instead of a form (T8).
    let r = post_json(&url, &json!({"client_key": "sim-client-key", "grant_type": "refresh_token"}));
    assert_oauth_error(&r, 200, "invalid_request", Some(tiktok_sim::DESC_MALFORMED));
    // client_id instead of client_key (T2).
    let r = post_form(
        &url,
        &[
            ("client_id", "sim-client-key"),
            ("client_secret", "sim-client-secret"),
            ("grant_type", "client_credentials"),
        ],
    );
    assert_oauth_error(&r, 200, "invalid_request", Some(tiktok_sim::DESC_MALFORMED));
    assert!(r.header("x-sim-detail").unwrap().contains("client_id"));
    // Missing grant_type (T1).
    let r = post_form(&url, &[("client_key", "sim-client-key"), ("client_secret", "sim-client-secret")]);
    assert_oauth_error(&r, 200, "invalid_request", None);
    // Wrong secret (T3).
    let r = post_form(
        &url,
        &[("client_key", "sim-client-key"), ("client_secret", "x"), ("grant_type", "client_credentials")],
    );
    assert_oauth_error(&r, 200, "invalid_client", None);
    // Unsupported grant (T7).
    let r = post_form(
        &url,
        &[("client_key", "sim-client-key"), ("client_secret", "sim-client-secret"), ("grant_type", "password")],
    );
    assert_oauth_error(&r, 200, "unsupported_grant_type", None);
    // RFC 6749 statuses when configured.
    sim.update_config(|c| c.oauth_error_status = OAuthErrorStatus::Rfc6749).unwrap();
    let r = post_form(
        &url,
        &[("client_key", "sim-client-key"), ("client_secret", "x"), ("grant_type", "client_credentials")],
    );
    assert_oauth_error(&r, 401, "invalid_client", None);
    assert_oauth_error(&exchange(&sim, "nope", VERIFIER), 400, "invalid_grant", None);
}

#[test]
fn client_credentials() {
    let sim = sim();
    let r = post_form(
        &sim.urls().token,
        &[
            ("client_key", "sim-client-key"),
            ("client_secret", "sim-client-secret"),
            ("grant_type", "client_credentials"),
        ],
    );
    assert_eq!(r.status, 200);
    let v = r.json();
    assert!(v["access_token"].as_str().unwrap().starts_with("clt."));
    assert_eq!(v["expires_in"], 7200);
    assert_eq!(v["token_type"], "Bearer");
    assert!(v.get("refresh_token").is_none());
    // Not a user token.
    assert_api_error(&user_info(&sim, v["access_token"].as_str().unwrap(), "open_id"), 401, "access_token_invalid");
}

#[test]
fn injected_token_error() {
    let sim = sim();
    sim.set_next_failure(Failure::token("server_error", "Simulated outage."));
    let q = authorize(&sim, ALL, "");
    let r = exchange(&sim, &q["code"], VERIFIER);
    assert_oauth_error(&r, 200, "server_error", Some("Simulated outage."));
    // One-shot, and the code was not used up.
    assert_eq!(exchange(&sim, &q["code"], VERIFIER).status, 200);

    // Same through the HTTP hook, with an explicit status.
    let r = post_json(
        &format!("{}/__sim/fail", sim.base_url()),
        &json!({"endpoint": "token", "error": "temporarily_unavailable", "error_description": "later", "status": 503}),
    );
    assert_eq!(r.status, 200, "{}", r.body);
    let t = refresh(&sim, "whatever");
    assert_oauth_error(&t, 503, "temporarily_unavailable", Some("later"));

    // A raw, non-JSON answer.
    sim.set_next_failure(Failure::raw(Endpoint::Token, 502, "text/html", "<h1>Bad gateway</h1>"));
    let r = refresh(&sim, "whatever");
    assert_eq!((r.status, r.body.as_str()), (502, "<h1>Bad gateway</h1>"));
    assert!(sim.pending_failures().is_empty());
}

#[test]
fn user_info_errors() {
    let sim = sim();
    let t = login(&sim, ALL);
    let at = t["access_token"].as_str().unwrap();

    // Injected error envelope; status from TikTok's table.
    sim.set_next_failure(Failure::user_info("internal_error", "Simulated failure."));
    let r = user_info(&sim, at, "open_id");
    assert_api_error(&r, 500, "internal_error");
    assert_eq!(r.json()["error"]["message"], "Simulated failure.");
    // An error envelope with HTTP 200 via the hook.
    post_json(
        &format!("{}/__sim/fail", sim.base_url()),
        &json!({"endpoint": "user_info", "code": "access_token_invalid", "status": 200}),
    );
    assert_api_error(&user_info(&sim, at, "open_id"), 200, "access_token_invalid");
    assert_eq!(user_info(&sim, at, "open_id").status, 200);

    // No / bad token.
    let r = done(agent().get(&format!("{}?fields=open_id", sim.urls().userinfo)).call());
    assert_api_error(&r, 401, "access_token_invalid");
    assert_eq!(r.json()["error"]["message"], tiktok_sim::MSG_TOKEN_INVALID);
    assert_api_error(&user_info(&sim, "act.bogus", "open_id"), 401, "access_token_invalid");
    // Missing / unknown fields.
    assert_api_error(&user_info(&sim, at, ""), 400, "invalid_params");
    assert_api_error(&user_info(&sim, at, "open_id,email"), 400, "invalid_params");
    // Expired token (simulated clock).
    sim.advance_clock(Duration::from_secs(7201));
    assert_api_error(&user_info(&sim, at, "open_id"), 401, "access_token_invalid");
}

#[test]
fn user_info_rate_limit() {
    let sim = sim_with(|c| c.user_info_rate_limit = Some(2));
    let at = login(&sim, ALL)["access_token"].as_str().unwrap().to_string();
    assert_eq!(user_info(&sim, &at, "open_id").status, 200);
    assert_eq!(user_info(&sim, &at, "open_id").status, 200);
    assert_api_error(&user_info(&sim, &at, "open_id"), 429, "rate_limit_exceeded");
    sim.advance_clock(Duration::from_secs(61));
    assert_eq!(user_info(&sim, &at, "open_id").status, 200);
}

#[test]
fn refresh_rotation() {
    let sim = sim();
    let t = login(&sim, ALL);
    let rt1 = t["refresh_token"].as_str().unwrap();
    sim.advance_clock(Duration::from_secs(7201));
    assert_api_error(&user_info(&sim, t["access_token"].as_str().unwrap(), "open_id"), 401, "access_token_invalid");

    let r = refresh(&sim, rt1);
    assert_eq!(r.status, 200, "{}", r.body);
    let t2 = r.json();
    assert_eq!(t2.as_object().unwrap().len(), 7);
    let rt2 = t2["refresh_token"].as_str().unwrap();
    assert_ne!(rt1, rt2, "rotated");
    assert_eq!(t2["scope"], ALL);
    assert_eq!(t2["open_id"], t["open_id"]);
    assert_eq!(t2["refresh_expires_in"], 15_552_000, "restarts by default");
    assert_eq!(user_info(&sim, t2["access_token"].as_str().unwrap(), "open_id").status, 200);
    // The old refresh token is dead (R1).
    assert_oauth_error(&refresh(&sim, rt1), 200, "invalid_grant", None);
    assert_eq!(refresh(&sim, rt2).status, 200);
    // Unknown refresh token.
    assert_oauth_error(&refresh(&sim, "rft.nope"), 200, "invalid_grant", None);
}

#[test]
fn refresh_without_rotation_and_keep_expiry() {
    let sim = tiktok_sim::start(SimConfig {
        redirect_uris: vec![CB.into()],
        refresh_expiry: RefreshExpiry::Keep,
        ..SimConfig::classic()
    });
    let t = login(&sim, ALL);
    assert_eq!(t["expires_in"], 86_400);
    assert_eq!(t["refresh_expires_in"], 31_536_000);
    let rt = t["refresh_token"].as_str().unwrap();
    sim.advance_clock(Duration::from_secs(1000));
    let t2 = refresh(&sim, rt).json();
    assert_eq!(t2["refresh_token"], rt, "not rotated");
    assert_eq!(t2["refresh_expires_in"], 31_536_000 - 1000, "keeps counting down");
    assert_eq!(refresh(&sim, rt).status, 200, "still usable");
    sim.advance_clock(Duration::from_secs(31_536_000));
    assert_oauth_error(&refresh(&sim, rt), 200, "invalid_grant", None);
}

#[test]
fn revoke() {
    let sim = sim();
    let t = login(&sim, ALL);
    let at = t["access_token"].as_str().unwrap();
    let form = |token: &str| {
        post_form(
            &sim.urls().revoke,
            &[("client_key", "sim-client-key"), ("client_secret", "sim-client-secret"), ("token", token)],
        )
    };
    let r = form(at);
    assert_eq!((r.status, r.body.as_str()), (200, "{}"));
    assert_api_error(&user_info(&sim, at, "open_id"), 401, "access_token_invalid");
    assert_oauth_error(&refresh(&sim, t["refresh_token"].as_str().unwrap()), 200, "invalid_grant", None);
    assert_oauth_error(&form(at), 200, "invalid_request", None);
}

#[test]
fn http_hooks_user_config_reset() {
    let sim = sim();
    let base = sim.base_url().to_string();
    let r = post_json(&format!("{base}/__sim/user"), &json!({"display_name": "Other Name", "follower_count": 7}));
    assert_eq!(r.status, 200, "{}", r.body);
    let at = login(&sim, ALL)["access_token"].as_str().unwrap().to_string();
    let u = user_info(&sim, &at, "display_name,follower_count,username").json()["data"]["user"].clone();
    assert_eq!(u, json!({"display_name": "Other Name", "follower_count": 7, "username": "sim.creator"}));

    let r = post_json(&format!("{base}/__sim/config"), &json!({"pkce": "hex", "access_ttl_secs": 60}));
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(sim.config().pkce, PkceMode::Hex);
    assert_eq!(sim.config().access_ttl, Duration::from_secs(60));
    let r = post_json(&format!("{base}/__sim/config"), &json!({"redirect_uris": []}));
    assert_eq!(r.status, 400, "invalid config refused");
    assert_eq!(get(&format!("{base}/__sim/state")).json()["access_tokens"], 1);

    let r = post_json(&format!("{base}/__sim/reset"), &json!({}));
    assert_eq!(r.status, 200);
    assert_eq!(sim.config().pkce, PkceMode::Base64Url);
    assert_eq!(sim.user().display_name, "Sim Creator");
    assert_api_error(&user_info(&sim, &at, "open_id"), 401, "access_token_invalid");
    assert!(get(&format!("{base}/__sim/")).json()["urls"]["token"].as_str().unwrap().ends_with("/v2/oauth/token/"));
}

#[test]
fn library_set_user_and_authorize_failures() {
    let sim = sim();
    sim.set_user(SimUser { open_id: "other-open-id".into(), ..SimUser::default() });
    assert_eq!(login(&sim, "user.info.basic")["open_id"], "other-open-id");

    sim.set_next_failure(Failure::authorize_redirect("server_error", "Try again"));
    let q = authorize(&sim, ALL, "");
    assert_eq!((q["error"].as_str(), q["state"].as_str()), ("server_error", "st-123"));
    sim.set_next_failure(Failure::authorize_page("scope"));
    let r = get(&sim.authorization_url(CB, ALL, "s", None));
    assert_eq!((r.status, r.header("x-sim-error-parameter")), (400, Some("scope")));
    assert!(authorize(&sim, ALL, "").contains_key("code"));
}

#[test]
fn platform_rules_and_wildcard_port() {
    let web = SimConfig {
        platform: tiktok_sim::Platform::Web,
        redirect_uris: vec!["http://x.example/cb".into()],
        ..SimConfig::default()
    };
    assert!(Simulator::bind("127.0.0.1:0", web).is_err(), "web needs https");
    let web = SimConfig {
        platform: tiktok_sim::Platform::Web,
        redirect_uris: vec!["https://x.example/cb?x=1".into()],
        ..SimConfig::default()
    };
    assert!(Simulator::bind("127.0.0.1:0", web).is_err(), "no query");

    let sim = tiktok_sim::start(SimConfig {
        platform: tiktok_sim::Platform::Desktop,
        redirect_uris: vec!["http://127.0.0.1:*/callback/".into()],
        pkce: PkceMode::Hex,
        ..SimConfig::default()
    });
    let cb = "http://127.0.0.1:54321/callback/";
    let r = get(&sim.authorization_url(cb, "user.info.basic", "s", Some(&pkce_challenge_hex(VERIFIER))));
    assert_eq!(r.status, 302, "{}", r.body);
    assert!(r.header("location").unwrap().starts_with(cb));
}
