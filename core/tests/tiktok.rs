//! TikTok sign-in end to end through the engine, against the local TikTok
//! simulator (tests/tiktok-sim): success, denial, bad and expired codes,
//! token error bodies, user-info error envelopes, scopes, PKCE encodings.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use libauth_core::{Auth, AuthResponse, HookMap};
use serde_json::{json, Value};
use tiktok_sim::{Failure, PkceMode, SimConfig, Simulator};

struct Setup {
    sim: Simulator,
    auth: Auth,
    log: CallLog,
}

fn setup(sim_config: SimConfig, provider_extra: Value) -> Setup {
    let sim = tiktok_sim::start(sim_config);
    let urls = sim.urls();
    let mut provider = json!({
        "builtin": "tiktok",
        "clientId": "sim-client-key",
        "clientSecret": "sim-client-secret",
        "authorization": { "url": urls.authorization },
        "token": urls.token,
        "userinfo": urls.userinfo,
    });
    // Merge one level deep, so `authorization.params` keeps the simulator URL.
    for (k, v) in provider_extra.as_object().cloned().unwrap_or_default() {
        match (provider.get_mut(&k).and_then(Value::as_object_mut), v) {
            (Some(existing), Value::Object(extra)) => existing.extend(extra),
            (_, v) => provider[k] = v,
        }
    }
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let hooks = recording(HookMap::new(), &log, &["logger.error", "events.signIn"], Value::Null);
    let jwt_log = log.clone();
    let hooks = hooks.on("callbacks.jwt", move |args| {
        jwt_log.lock().unwrap().push(("callbacks.jwt".into(), args.clone()));
        Ok(args["token"].clone())
    });
    let auth = Auth::with_env(
        libauth_core::Config::from_value(json!({ "secret": SECRET, "trustHost": true, "providers": [provider] }))
            .unwrap(),
        Arc::new(hooks),
        &std::collections::HashMap::new(),
    )
    .unwrap();
    Setup { sim, auth, log }
}

/// The simulator's answer to an authorize URL: where it sends the user back.
fn authorize_at_sim(url: &str) -> String {
    let agent = ureq::AgentBuilder::new().redirects(0).timeout(Duration::from_secs(5)).build();
    let res = match agent.get(url).call() {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("simulator unreachable: {e}"),
    };
    assert_eq!(res.status(), 302, "the simulator redirects back");
    res.header("location").unwrap().to_owned()
}

/// The user agent following redirects between the app and the simulator.
fn sign_in(b: &mut Browser, sim_params: &str) -> AuthResponse {
    let csrf = b.csrf();
    let res = b.post("/auth/signin/tiktok", &[("csrfToken", &csrf), ("callbackUrl", "/after")]);
    let authorize = location(&res).to_owned();
    let authorize = if sim_params.is_empty() { authorize } else { format!("{authorize}&{sim_params}") };
    let back = authorize_at_sim(&authorize);
    let path = back.strip_prefix(ORIGIN).unwrap_or_else(|| panic!("redirected to {back}"));
    b.get(path)
}

fn logged_errors(log: &CallLog) -> Vec<Value> {
    log.lock().unwrap().iter().filter(|(n, _)| n == "logger.error").map(|(_, a)| a.clone()).collect()
}

#[test]
fn authorization_redirect_speaks_tiktok() {
    let s = setup(SimConfig::default(), json!({}));
    let mut b = Browser::new(&s.auth);
    let csrf = b.csrf();
    let res = b.post("/auth/signin/tiktok", &[("csrfToken", &csrf)]);
    let url = url::Url::parse(location(&res)).unwrap();
    let q: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
    assert_eq!(q["client_key"], "sim-client-key");
    assert!(!q.contains_key("client_id"));
    assert!(!location(&res).contains("sim-client-secret"), "the secret never reaches the browser");
    assert_eq!(q["scope"], "user.info.basic");
    assert_eq!(q["response_type"], "code");
    assert_eq!(q["redirect_uri"], "http://localhost:3000/auth/callback/tiktok");
    assert_eq!(q["code_challenge_method"], "S256");
    assert_eq!(q["code_challenge"].len(), 43, "base64url S256 by default");
    assert!(q["state"].len() > 32);
    for cookie in ["authjs.state=", "authjs.pkce.code_verifier="] {
        let c = res.set_cookies().find(|c| c.starts_with(cookie)).unwrap();
        assert!(c.contains("Max-Age=900") && c.contains("HttpOnly"), "{c}");
    }
    // Without the CSRF token, nothing starts.
    let res = b.post("/auth/signin/tiktok", &[]);
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=MissingCSRF");
}

#[test]
fn successful_sign_in_maps_the_profile_and_builds_the_account() {
    let s = setup(SimConfig::default(), json!({}));
    let mut b = Browser::new(&s.auth);
    let res = sign_in(&mut b, "");
    assert_eq!(location(&res), "http://localhost:3000/after");
    // The check cookies are spent.
    assert!(res.set_cookies().any(|c| c.starts_with("authjs.state=;") && c.contains("Max-Age=0")));
    let user = s.sim.user();
    let session = b.session();
    // TikTok gives no email: the key is absent, as in Auth.js (not `null`),
    // in the session and in what the jwt callback sees.
    assert_eq!(session["user"], json!({ "name": user.display_name, "image": user.avatar_url }));

    let calls = s.log.lock().unwrap();
    let jwt = &calls.iter().find(|(n, a)| n == "callbacks.jwt" && a["trigger"] == "signIn").unwrap().1;
    assert!(jwt["user"].get("email").is_none() && jwt["token"].get("email").is_none(), "{jwt}");
    let account = &jwt["account"];
    assert_eq!(account["provider"], "tiktok");
    assert_eq!(account["type"], "oauth");
    assert_eq!(account["providerAccountId"], user.open_id.as_str());
    assert_eq!(account["token_type"], "bearer");
    assert!(account["access_token"].is_string() && account["refresh_token"].is_string());
    let expires_in = account["expires_in"].as_u64().unwrap();
    let expires_at = account["expires_at"].as_u64().unwrap();
    assert!(expires_at.abs_diff(libauth_core::time::now_seconds() + expires_in) <= 2);
    // The full VideoProviderProfile reaches the callbacks.
    assert_eq!(jwt["profile"]["data"]["user"]["open_id"], user.open_id.as_str());
    assert_eq!(jwt["profile"]["error"]["code"], "ok");
    assert!(jwt["profile"]["data"]["user"].get("username").is_none(), "username needs user.info.profile");
    let event = &calls.iter().find(|(n, _)| n == "events.signIn").unwrap().1;
    assert_eq!(event["account"]["provider"], "tiktok");
    assert!(event["profile"].is_object());
}

#[test]
fn configured_scopes_reach_tiktok_comma_separated() {
    let s = setup(
        SimConfig::default(),
        json!({ "authorization": { "params": { "scope": "user.info.basic user.info.profile" } } }),
    );
    let mut b = Browser::new(&s.auth);
    let csrf = b.csrf();
    let res = b.post("/auth/signin/tiktok", &[("csrfToken", &csrf)]);
    let url = url::Url::parse(location(&res)).unwrap();
    let q: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
    assert_eq!(q["scope"], "user.info.basic,user.info.profile");
}

#[test]
fn granted_scopes_choose_the_user_info_fields() {
    let s = setup(
        SimConfig::default(),
        json!({ "authorization": { "params": { "scope": "user.info.basic,user.info.profile,user.info.stats" } } }),
    );
    let mut b = Browser::new(&s.auth);
    // The user grants profile but refuses stats.
    let res = sign_in(&mut b, "sim_grant=user.info.basic,user.info.profile");
    assert_eq!(location(&res), "http://localhost:3000/after");
    let calls = s.log.lock().unwrap();
    let profile = &calls.iter().find(|(n, a)| n == "callbacks.jwt" && a["trigger"] == "signIn").unwrap().1["profile"];
    assert_eq!(profile["data"]["user"]["username"], s.sim.user().username.as_str());
    assert!(profile["data"]["user"].get("bio_description").is_some());
    assert!(profile["data"]["user"].get("follower_count").is_none(), "stats were not granted");
    drop(calls);
    assert!(logged_errors(&s.log).is_empty(), "{:?}", logged_errors(&s.log));
}

#[test]
fn user_denial_ends_on_the_signin_error() {
    let s = setup(SimConfig::default(), json!({}));
    let mut b = Browser::new(&s.auth);
    let res = sign_in(&mut b, "sim_action=deny");
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    assert!(!b.has_session_cookie());
}

#[test]
fn token_errors_never_make_a_session() {
    // An error body with HTTP 200, as TikTok does.
    let s = setup(SimConfig::default(), json!({}));
    s.sim.set_next_failure(Failure::token("invalid_grant", "Authorization code is invalid."));
    let mut b = Browser::new(&s.auth);
    let res = sign_in(&mut b, "");
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    assert!(!b.has_session_cookie());
    let errors = logged_errors(&s.log);
    let message = errors[0]["message"].as_str().unwrap();
    assert!(message.contains("invalid_grant") && message.contains("log_id"), "{message}");

    // A server error with a non-JSON body.
    s.sim.set_next_failure(Failure::raw(tiktok_sim::Endpoint::Token, 502, "text/html", "<html>bad gateway</html>"));
    let mut b = Browser::new(&s.auth);
    assert_eq!(location(&sign_in(&mut b, "")), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
}

#[test]
fn a_bad_or_expired_code_is_refused() {
    let s = setup(SimConfig { code_ttl: Duration::from_secs(60), ..SimConfig::default() }, json!({}));
    let mut b = Browser::new(&s.auth);
    // Follow the flow by hand to tamper with the code.
    let csrf = b.csrf();
    let res = b.post("/auth/signin/tiktok", &[("csrfToken", &csrf)]);
    let back = authorize_at_sim(location(&res));
    let mut url = url::Url::parse(&back).unwrap();
    let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    url.query_pairs_mut().clear().extend_pairs(pairs.iter().map(|(k, v)| {
        if k == "code" {
            (k.clone(), format!("{v}x"))
        } else {
            (k.clone(), v.clone())
        }
    }));
    let res = b.get(url.as_str().strip_prefix(ORIGIN).unwrap());
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=OAuthCallbackError");

    // Expired: the simulator's clock moves past the code's lifetime.
    let mut b = Browser::new(&s.auth);
    let csrf = b.csrf();
    let res = b.post("/auth/signin/tiktok", &[("csrfToken", &csrf)]);
    let back = authorize_at_sim(location(&res));
    s.sim.advance_clock(Duration::from_secs(120));
    let res = b.get(back.strip_prefix(ORIGIN).unwrap());
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    assert!(logged_errors(&s.log).iter().any(|e| e["message"].as_str().unwrap().contains("expired")));
    assert!(!b.has_session_cookie());
}

#[test]
fn user_info_error_envelope_is_logged_with_its_log_id() {
    let s = setup(SimConfig::default(), json!({}));
    s.sim.set_next_failure(Failure::user_info(
        "access_token_invalid",
        "The access token is invalid or not found in the request.",
    ));
    let mut b = Browser::new(&s.auth);
    let res = sign_in(&mut b, "");
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    assert!(!b.has_session_cookie());
    let errors = logged_errors(&s.log);
    let message = errors[0]["message"].as_str().unwrap();
    assert!(message.contains("access_token_invalid") && message.contains("log_id"), "{message}");
}

#[test]
fn state_and_pkce_are_verified() {
    let s = setup(SimConfig::default(), json!({}));
    let csrf_flow = |b: &mut Browser| {
        let csrf = b.csrf();
        let res = b.post("/auth/signin/tiktok", &[("csrfToken", &csrf)]);
        authorize_at_sim(location(&res)).strip_prefix(ORIGIN).unwrap().to_owned()
    };
    // Another browser's callback (no state cookie): refused.
    let mut attacker = Browser::new(&s.auth);
    let callback = csrf_flow(&mut attacker);
    let mut victim = Browser::new(&s.auth);
    let res = victim.get(&callback);
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    assert!(!victim.has_session_cookie());
    // A mismatched state: refused.
    let mut b = Browser::new(&s.auth);
    let callback = csrf_flow(&mut b);
    let res = b.get(&callback.replace("state=", "state=x"));
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    // Without the PKCE verifier cookie: refused.
    let mut b = Browser::new(&s.auth);
    let callback = csrf_flow(&mut b);
    b.jar.remove("authjs.pkce.code_verifier");
    let res = b.get(&callback);
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
    let errors = logged_errors(&s.log);
    assert!(errors.iter().any(|e| e["message"].as_str().unwrap().contains("InvalidCheck")));
}

#[test]
fn hex_pkce_challenge_option() {
    let hex_sim = SimConfig { pkce: PkceMode::Hex, ..SimConfig::default() };
    let s = setup(hex_sim.clone(), json!({ "pkceChallenge": "hex" }));
    let mut b = Browser::new(&s.auth);
    assert_eq!(location(&sign_in(&mut b, "")), "http://localhost:3000/after");
    // The standard encoding against a hex-only TikTok fails cleanly.
    let s = setup(hex_sim, json!({}));
    let mut b = Browser::new(&s.auth);
    assert_eq!(location(&sign_in(&mut b, "")), "http://localhost:3000/auth/signin?error=OAuthCallbackError");
}

#[test]
fn refresh_helper_rotates_the_refresh_token() {
    let s = setup(SimConfig::default(), json!({}));
    // The refresh token of the latest sign-in.
    let signed_in_refresh_token = || {
        let mut b = Browser::new(&s.auth);
        sign_in(&mut b, "");
        let calls = s.log.lock().unwrap();
        calls.iter().rev().find(|(n, a)| n == "callbacks.jwt" && a["trigger"] == "signIn").unwrap().1["account"]
            ["refresh_token"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    let open_id = s.sim.user().open_id.clone();
    // TikTok names the account (`open_id`): a caller naming another is refused.
    let err = s.auth.refresh_access_token("tiktok", &signed_in_refresh_token(), Some("someone-else")).unwrap_err();
    assert_eq!(err.error_type, libauth_core::ErrorType::OAuthCallbackError);

    let refresh = signed_in_refresh_token();
    // Without the caller's id, TikTok's `open_id` is the account id.
    let fresh = s.auth.refresh_access_token("tiktok", &refresh, None).unwrap();
    assert_eq!(fresh["providerAccountId"], open_id.as_str());
    assert!(fresh["access_token"].is_string());
    assert_ne!(fresh["refresh_token"].as_str().unwrap(), refresh);
    assert_eq!(fresh["token_type"], "bearer");
    assert!(fresh["expires_at"].as_u64().unwrap() > libauth_core::time::now_seconds());
    // The rotated-out token no longer works: TikTok says invalid_grant.
    let err = s.auth.refresh_access_token("tiktok", &refresh, Some(&open_id)).unwrap_err();
    assert_eq!(err.error_type, libauth_core::ErrorType::RefreshTokenRevoked);
    // The rotated-in one does, with the caller's (matching) id.
    let again = s.auth.refresh_access_token("tiktok", fresh["refresh_token"].as_str().unwrap(), Some(&open_id));
    assert_eq!(again.unwrap()["providerAccountId"], open_id.as_str());
}

#[test]
fn built_in_defaults_can_be_overridden_and_env_supplies_credentials() {
    let env: std::collections::HashMap<String, String> = [
        ("AUTH_TIKTOK_ID".to_string(), "env-key".to_string()),
        ("AUTH_TIKTOK_SECRET".to_string(), "env-secret".to_string()),
    ]
    .into_iter()
    .collect();
    let config = libauth_core::Config::from_value(json!({
        "secret": SECRET, "trustHost": true,
        "providers": [{ "builtin": "tiktok", "name": "TikTok (staging)", "authorization": { "params": { "disable_auto_auth": "1" } } }]
    }))
    .unwrap();
    let auth = Auth::with_env(config, Arc::new(HookMap::new()), &env).unwrap();
    let mut b = Browser::new(&auth);
    let providers = b.get("/auth/providers").json().unwrap();
    assert_eq!(providers["tiktok"]["name"], "TikTok (staging)");
    assert_eq!(providers["tiktok"]["type"], "oauth");
    let csrf = b.csrf();
    let res = b.post("/auth/signin/tiktok", &[("csrfToken", &csrf)]);
    let target = location(&res);
    assert!(target.starts_with("https://www.tiktok.com/v2/auth/authorize/?"), "{target}");
    assert!(target.contains("client_key=env-key") && target.contains("disable_auto_auth=1"));
    // The sign-in page has a TikTok button posting to signin/tiktok.
    let page = b.get("/auth/signin").body_str().to_owned();
    assert!(page.contains(r#"action="http://localhost:3000/auth/signin/tiktok""#));
    assert!(page.contains("Sign in with TikTok (staging)"));
}

#[test]
fn redirect_proxy_forwards_the_callback_to_the_originating_deployment() {
    let proxy_callback = "https://auth.example.com/auth/callback/tiktok";
    let mut sim_config = SimConfig::default();
    sim_config.redirect_uris.push(proxy_callback.into());
    let sim = tiktok_sim::start(sim_config);
    let urls = sim.urls();
    let provider = json!({
        "builtin": "tiktok", "clientId": "sim-client-key", "clientSecret": "sim-client-secret",
        "authorization": { "url": urls.authorization }, "token": urls.token, "userinfo": urls.userinfo,
    });
    let build = |env: &[(&str, &str)]| {
        let env: std::collections::HashMap<String, String> =
            env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let config = libauth_core::Config::from_value(
            json!({ "secret": SECRET, "trustHost": true, "providers": [provider.clone()] }),
        )
        .unwrap();
        Auth::with_env(config, Arc::new(HookMap::new()), &env).unwrap()
    };
    // The stable deployment registered at TikTok, and a preview on another origin.
    let proxy = build(&[
        ("AUTH_URL", "https://auth.example.com/auth"),
        ("AUTH_REDIRECT_PROXY_URL", "https://auth.example.com/auth"),
        ("AUTH_REDIRECT_PROXY_ORIGINS", "http://localhost:3000"),
    ]);
    // The same proxy without the preview's origin in its list.
    let strict_proxy = build(&[
        ("AUTH_URL", "https://auth.example.com/auth"),
        ("AUTH_REDIRECT_PROXY_URL", "https://auth.example.com/auth"),
        ("AUTH_REDIRECT_PROXY_ORIGINS", "https://*.preview.example.com"),
    ]);
    let preview = build(&[("AUTH_REDIRECT_PROXY_URL", "https://auth.example.com/auth")]);

    let mut b = Browser::new(&preview);
    let csrf = b.csrf();
    let res = b.post("/auth/signin/tiktok", &[("csrfToken", &csrf), ("callbackUrl", "/after")]);
    let authorize = location(&res).to_owned();
    assert!(
        authorize.contains("redirect_uri=https%3A%2F%2Fauth.example.com%2Fauth%2Fcallback%2Ftiktok"),
        "{authorize}"
    );
    let at_proxy = authorize_at_sim(&authorize);
    assert!(at_proxy.starts_with(proxy_callback));
    // An origin the deployer did not list gets nothing forwarded: the
    // callback ends on the proxy's own error page, code and state unsent.
    let refused = strict_proxy.handle(&libauth_core::AuthRequest::get(at_proxy.clone()));
    assert_eq!(refused.status, 302);
    assert_eq!(refused.header("location"), Some("https://auth.example.com/auth/signin?error=OAuthCallbackError"));
    // The proxy has no cookies of this browser: it forwards by the sealed state.
    let forwarded = proxy.handle(&libauth_core::AuthRequest::get(at_proxy));
    assert_eq!(forwarded.status, 302);
    let back = forwarded.header("location").unwrap();
    assert!(back.starts_with("http://localhost:3000/auth/callback/tiktok?"), "{back}");
    let res = b.get(back.strip_prefix(ORIGIN).unwrap());
    assert_eq!(location(&res), "http://localhost:3000/after");
    assert_eq!(b.session()["user"]["name"], sim.user().display_name.as_str());

    // A state the proxy can't open (another secret) is not forwarded anywhere.
    let forged = format!("{proxy_callback}?code=x&state=not-a-sealed-state");
    let res = proxy.handle(&libauth_core::AuthRequest::get(forged));
    assert_eq!(res.header("location"), Some("https://auth.example.com/auth/signin?error=OAuthCallbackError"));
}

#[test]
fn with_an_adapter_the_first_sign_in_creates_the_user_and_links_the_account() {
    let sim = tiktok_sim::start(SimConfig::default());
    let urls = sim.urls();
    let db = temp_db_path();
    let adapter = json!({ "type": "sqlite", "path": db.0 });
    let config = libauth_core::Config::from_value(json!({
        "secret": SECRET, "trustHost": true, "adapter": adapter, "pages": { "newUser": "/welcome" },
        "providers": [{ "builtin": "tiktok", "clientId": "sim-client-key", "clientSecret": "sim-client-secret",
            "authorization": { "url": urls.authorization }, "token": urls.token, "userinfo": urls.userinfo }]
    }))
    .unwrap();
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let hooks =
        recording(HookMap::new(), &log, &["events.createUser", "events.linkAccount", "events.signIn"], Value::Null);
    let auth = Auth::with_env(config, Arc::new(hooks), &std::collections::HashMap::new()).unwrap();
    let probe = libauth_core::store::from_config(&adapter, Arc::new(libauth_core::NoHooks)).unwrap();

    let mut b = Browser::new(&auth);
    let res = sign_in(&mut b, "");
    assert_eq!(location(&res), "http://localhost:3000/welcome?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fafter");
    let open_id = s_open_id(&sim);
    let user = probe.get_user_by_account("tiktok", &open_id).unwrap().expect("user linked to the TikTok account");
    assert_eq!(user.name.as_deref(), Some(sim.user().display_name.as_str()));
    assert_eq!(user.email, None, "TikTok gives no email");
    assert_eq!(b.session()["user"]["name"], sim.user().display_name.as_str());

    // Signing in again: the same user, nothing created.
    let mut again = Browser::new(&auth);
    assert_eq!(location(&sign_in(&mut again, "")), "http://localhost:3000/after");
    let calls = log.lock().unwrap();
    assert_eq!(calls.iter().filter(|(n, _)| n == "events.createUser").count(), 1);
    let link = &calls.iter().find(|(n, _)| n == "events.linkAccount").unwrap().1;
    assert_eq!(link["account"]["provider"], "tiktok");
    assert!(link["account"]["access_token"].is_string());
    let sign_ins: Vec<&Value> = calls.iter().filter(|(n, _)| n == "events.signIn").map(|(_, a)| a).collect();
    assert_eq!((sign_ins[0]["isNewUser"].clone(), sign_ins[1]["isNewUser"].clone()), (json!(true), json!(false)));
    assert_eq!(sign_ins[1]["user"]["id"], user.id.as_str());
}

fn s_open_id(sim: &Simulator) -> String {
    sim.user().open_id
}

#[test]
fn jwt_strategy_with_an_adapter_signals_sign_up() {
    let sim = tiktok_sim::start(SimConfig::default());
    let urls = sim.urls();
    let config = libauth_core::Config::from_value(json!({
        "secret": SECRET, "trustHost": true, "adapter": { "type": "memory" }, "session": { "strategy": "jwt" },
        "providers": [{ "builtin": "tiktok", "clientId": "sim-client-key", "clientSecret": "sim-client-secret",
            "authorization": { "url": urls.authorization }, "token": urls.token, "userinfo": urls.userinfo }]
    }))
    .unwrap();
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let jwt_log = log.clone();
    let hooks = HookMap::new().on("callbacks.jwt", move |args| {
        jwt_log.lock().unwrap().push(("jwt".into(), args.clone()));
        Ok(args["token"].clone())
    });
    let auth = Auth::with_env(config, Arc::new(hooks), &std::collections::HashMap::new()).unwrap();
    sign_in(&mut Browser::new(&auth), "");
    sign_in(&mut Browser::new(&auth), "");
    let calls = log.lock().unwrap();
    let triggers: Vec<&Value> = calls.iter().map(|(_, a)| &a["trigger"]).collect();
    assert_eq!(triggers, [&json!("signUp"), &json!("signIn")]);
    assert_eq!(calls[0].1["isNewUser"], true);
    // The token's subject is the stored user's id, not TikTok's open_id.
    assert_ne!(calls[0].1["token"]["sub"], sim.user().open_id.as_str());
    assert_eq!(calls[0].1["token"]["sub"], calls[1].1["token"]["sub"]);
}

#[test]
fn stored_account_is_read_and_refreshed_through_the_adapter() {
    let sim = tiktok_sim::start(SimConfig::default());
    let urls = sim.urls();
    let db = temp_db_path();
    let config = libauth_core::Config::from_value(json!({
        "secret": SECRET, "trustHost": true, "adapter": { "type": "sqlite", "path": db.0 },
        "providers": [{ "builtin": "tiktok", "clientId": "sim-client-key", "clientSecret": "sim-client-secret",
            "authorization": { "url": urls.authorization }, "token": urls.token, "userinfo": urls.userinfo }]
    }))
    .unwrap();
    let auth = Auth::with_env(config, Arc::new(HookMap::new()), &std::collections::HashMap::new()).unwrap();
    let mut b = Browser::new(&auth);
    sign_in(&mut b, "");
    let open_id = s_open_id(&sim);
    let adapter =
        libauth_core::store::from_config(&json!({ "type": "sqlite", "path": db.0 }), Arc::new(libauth_core::NoHooks))
            .unwrap();
    let user = adapter.get_user_by_account("tiktok", &open_id).unwrap().unwrap();

    assert!(auth.get_account(&user.id, "github").unwrap().is_none(), "no such account");
    assert!(auth.get_account("nobody", "tiktok").unwrap().is_none());
    let stored = auth.get_account(&user.id, "tiktok").unwrap().expect("the linked account");
    assert_eq!((stored.provider_account_id.as_str(), stored.user_id.as_str()), (open_id.as_str(), user.id.as_str()));
    let (access, refresh) = (stored.access_token.clone().unwrap(), stored.refresh_token.clone().unwrap());
    assert!(stored.scope.as_deref().unwrap_or_default().contains("user.info.basic"), "{:?}", stored.scope);
    assert!(stored.expires_at.unwrap() > 0);

    let fresh = auth.refresh_account(&user.id, "tiktok").unwrap().expect("refreshed");
    assert_ne!(fresh.access_token.as_deref(), Some(access.as_str()), "a new access token");
    assert_ne!(fresh.refresh_token.as_deref(), Some(refresh.as_str()), "TikTok rotates the refresh token");
    assert_eq!(fresh.scope, stored.scope, "scope kept");
    // Stored: a second read sees the new tokens, and the old refresh token
    // is spent at TikTok.
    assert_eq!(auth.get_account(&user.id, "tiktok").unwrap().unwrap(), fresh);
    assert!(auth.refresh_access_token("tiktok", &refresh, Some(&open_id)).is_err());
    assert!(auth.refresh_account(&user.id, "tiktok").unwrap().is_some(), "the stored (rotated) token still works");

    // Without an adapter there is nothing to read.
    let bare = libauth_core::Config::from_value(json!({ "secret": SECRET, "providers": [{ "type": "credentials" }] }));
    let bare = Auth::new(bare.unwrap(), Arc::new(HookMap::new()));
    assert!(bare.is_err() || bare.unwrap().get_account("1", "tiktok").is_err());
}
