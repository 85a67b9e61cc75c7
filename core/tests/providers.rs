//! Conformance of every built-in provider beside TikTok and GitHub (which
//! have their own files), end to end through the engine against the
//! declarative provider simulator (`tests/provider-sim`): sign-in and the
//! profile mapped as Auth.js maps it, the user's refusal, the provider's
//! token error (with its `log_id` where it has one), bad answers (HTML, a
//! 500, truncated JSON, no `access_token`), refresh through
//! `Auth::get_access_token` where the provider has refresh tokens, and each
//! provider's quirks: Apple's form_post re-post and minted client secret,
//! Entra ID's tenants, Google's offline access and scheme-less `iss`,
//! Twitch's `scope` array, Facebook's Graph errors, X's required PKCE.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use josekit::jws::ES256;
use libauth_core::{Auth, AuthRequest, AuthResponse, ErrorType, HookMap};
use provider_sim::{specs, Failure, Refresh, Simulator, Spec, CLIENT_ID, CLIENT_SECRET, TRACE_ID};
use serde_json::{json, Value};

const APPLE_TEAM: &str = "TEAM123456";
const APPLE_KEY_ID: &str = "KEY1234567";

/// A provider under test: its simulator and its config pointing at it.
struct Case {
    sim: Simulator,
    config: Value,
}

fn all_cases() -> Vec<Case> {
    [
        "google",
        "apple",
        "microsoft-entra-id",
        "discord",
        "gitlab",
        "twitter",
        "facebook",
        "linkedin",
        "slack",
        "twitch",
        "spotify",
        "keycloak",
        "auth0",
        "okta",
    ]
    .into_iter()
    .map(case)
    .collect()
}

/// The simulator of `name` and the provider config a deployer would write,
/// pointed at it (an issuer for OIDC providers, `baseUrl` for GitLab,
/// endpoint URLs for the others).
fn case(name: &str) -> Case {
    let mut config = json!({ "builtin": name, "clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET });
    let spec = match name {
        "google" => specs::google(),
        "apple" => {
            let pair = ES256.generate_key_pair().unwrap();
            let public = String::from_utf8(pair.to_pem_public_key()).unwrap();
            config = json!({ "builtin": "apple", "clientId": CLIENT_ID, "teamId": APPLE_TEAM, "keyId": APPLE_KEY_ID,
                             "privateKey": String::from_utf8(pair.to_pem_private_key()).unwrap() });
            specs::apple(public, APPLE_KEY_ID, APPLE_TEAM)
        }
        "microsoft-entra-id" => specs::entra(),
        "discord" => specs::discord(),
        "gitlab" => specs::gitlab(),
        "twitter" => specs::twitter(),
        "facebook" => specs::facebook(),
        "linkedin" => specs::linkedin(),
        "slack" => specs::slack(),
        "twitch" => specs::twitch(),
        "spotify" => specs::spotify(),
        "keycloak" => specs::keycloak(),
        "auth0" => specs::auth0(),
        "okta" => specs::okta(),
        other => panic!("no spec for {other}"),
    };
    let sim = provider_sim::start(spec.clone());
    match name {
        "gitlab" => config["baseUrl"] = json!(sim.url("/gitlab")),
        "discord" | "twitter" | "facebook" | "spotify" => {
            config["authorization"] = json!({ "url": sim.url(&spec.authorize_path) });
            config["token"] = json!(sim.url(&spec.token_path));
            config["userinfo"] = json!(sim.url(spec.userinfo_path.as_deref().unwrap()));
        }
        _ => config["issuer"] = json!(sim.issuer().unwrap()),
    }
    Case { sim, config }
}

struct Setup {
    auth: Auth,
    log: CallLog,
    _db: TempFile,
}

/// An engine with the provider, accounts stored in SQLite (refresh reads
/// them), JWT sessions, and every error and sign-in recorded.
fn setup(config: &Value) -> Setup {
    let db = temp_db_path();
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let hooks = recording(HookMap::new(), &log, &["logger.error", "events.signIn"], Value::Null);
    let config = libauth_core::Config::from_value(json!({
        "secret": SECRET, "trustHost": true, "session": { "strategy": "jwt" },
        "adapter": { "type": "sqlite", "path": db.0 }, "providers": [config],
    }))
    .unwrap();
    let auth = Auth::with_env(config, Arc::new(hooks), &HashMap::new()).unwrap();
    Setup { auth, log, _db: db }
}

fn logged_errors(log: &CallLog) -> Vec<String> {
    let calls = log.lock().unwrap();
    calls.iter().filter(|(n, _)| n == "logger.error").map(|(_, a)| a.to_string()).collect()
}

fn last_sign_in(log: &CallLog) -> Value {
    let calls = log.lock().unwrap();
    calls.iter().rev().find(|(n, _)| n == "events.signIn").expect("a signIn event").1.clone()
}

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new().redirects(0).timeout(Duration::from_secs(5)).build()
}

/// The app's answer to a cross-site `form_post`: the browser sends no
/// `SameSite=Lax` cookie, so the engine sees none.
fn cross_site_post(auth: &Auth, action: &str, fields: &[(String, String)]) -> AuthResponse {
    let pairs: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let mut req = AuthRequest::post_form(action, &pairs);
    req.headers.push(("origin".into(), "null".into()));
    req.remote_address = Some("127.0.0.1".into());
    auth.handle(&req)
}

/// Sign in with the provider: the app's redirect, the simulator's consent,
/// and the callback (for form_post: the cross-site POST, the app's
/// re-post page, and the re-post). Returns the callback's answer.
fn sign_in(b: &mut Browser, name: &str) -> AuthResponse {
    let csrf = b.csrf();
    let res = b.post(&format!("/auth/signin/{name}"), &[("csrfToken", &csrf), ("callbackUrl", "/after")]);
    assert_eq!(res.status, 302, "{res:?}");
    let to = location(&res).to_owned();
    let res = match agent().get(&to).call() {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("simulator unreachable: {e}"),
    };
    if res.status() == 302 {
        let back = res.header("location").unwrap().to_owned();
        return b.get(back.strip_prefix(ORIGIN).expect("back to the app"));
    }
    let status = res.status();
    let page = res.into_string().unwrap();
    assert_eq!(status, 200, "the provider refused the authorization request: {page}");
    let (action, fields) = provider_sim::form_fields(&page);
    let repost = cross_site_post(b.auth, &action, &fields);
    if repost.status != 200 {
        return repost; // an error before any re-post (e.g. the provider's error)
    }
    let csp = repost.header("content-security-policy").unwrap().to_owned();
    assert!(csp.contains("script-src 'sha256-") && !csp.contains("unsafe-inline"), "{csp}");
    let html = String::from_utf8(repost.body.clone()).unwrap();
    let (again, fields) = provider_sim::form_fields(&html);
    assert_eq!(again, action, "re-posted to the same callback");
    let pairs: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    b.post(again.strip_prefix(ORIGIN).unwrap(), &pairs)
}

const SIGNIN_ERROR: &str = "http://localhost:3000/auth/signin?error=OAuthCallbackError";

#[test]
fn every_provider_signs_in_and_maps_the_profile_as_authjs() {
    for c in all_cases() {
        let spec = c.sim.spec();
        let s = setup(&c.config);
        let mut b = Browser::new(&s.auth);
        let res = sign_in(&mut b, spec.name);
        assert_eq!(location(&res), "http://localhost:3000/after", "{}: {:?}", spec.name, logged_errors(&s.log));
        let session = b.session();
        assert_eq!(session["user"], spec.expect_user, "{}", spec.name);
        let event = last_sign_in(&s.log);
        assert_eq!(event["account"]["provider"], spec.name);
        assert_eq!(event["account"]["providerAccountId"], spec.expect_account_id, "{}", spec.name);
        assert_eq!(event["account"]["type"], if spec.id_token_claims.is_some() { "oidc" } else { "oauth" });
        // `scope` is stored as the standard space-separated string (Twitch sends an array).
        assert!(event["account"]["scope"].is_string(), "{}: {}", spec.name, event["account"]);
        assert!(logged_errors(&s.log).is_empty(), "{}: {:?}", spec.name, logged_errors(&s.log));
    }
}

#[test]
fn every_provider_ends_a_refusal_on_the_signin_page() {
    for c in all_cases() {
        let name = c.sim.spec().name;
        let s = setup(&c.config);
        c.sim.fail_next(Failure::Deny);
        let mut b = Browser::new(&s.auth);
        let res = sign_in(&mut b, name);
        assert_eq!(location(&res), SIGNIN_ERROR, "{name}");
        assert!(!b.has_session_cookie());
        let errors = logged_errors(&s.log);
        assert!(errors.iter().any(|e| e.contains("access_denied")), "{name}: {errors:?}");
        assert!(c.sim.seen_at(&c.sim.spec().token_path).is_empty(), "{name}: no token request after a refusal");
    }
}

#[test]
fn every_provider_reports_its_token_errors_with_their_names_and_log_ids() {
    for c in all_cases() {
        let spec = c.sim.spec();
        let s = setup(&c.config);
        c.sim.fail_next(Failure::TokenError);
        let mut b = Browser::new(&s.auth);
        let res = sign_in(&mut b, spec.name);
        assert_eq!(location(&res), SIGNIN_ERROR, "{}", spec.name);
        assert!(!b.has_session_cookie());
        let errors = logged_errors(&s.log).join("\n");
        let expected = match spec.error_style {
            provider_sim::ErrorStyle::Graph => "OAuthException/100",
            provider_sim::ErrorStyle::Twitch => "invalid_grant: Invalid authorization code",
            _ => "invalid_grant",
        };
        assert!(errors.contains(expected), "{}: {errors}", spec.name);
        if matches!(spec.error_style, provider_sim::ErrorStyle::Graph | provider_sim::ErrorStyle::Entra) {
            assert!(errors.contains(&format!("log_id {TRACE_ID}")), "{}: {errors}", spec.name);
        }
    }
}

#[test]
fn bad_answers_end_on_the_signin_page_never_a_5xx() {
    for c in all_cases() {
        let name = c.sim.spec().name;
        let s = setup(&c.config);
        for (failure, logged) in [
            (Failure::Html, "not JSON"),
            (Failure::Status500, "500"),
            (Failure::Truncated, "not JSON"),
            (Failure::NoAccessToken, "no access_token"),
        ] {
            c.sim.fail_next(failure);
            let mut b = Browser::new(&s.auth);
            let res = sign_in(&mut b, name);
            assert!(res.status < 500, "{name} {failure:?}: {res:?}");
            assert_eq!(location(&res), SIGNIN_ERROR, "{name} {failure:?}");
            assert!(!b.has_session_cookie());
            let errors = logged_errors(&s.log);
            assert!(errors.last().is_some_and(|e| e.contains(logged)), "{name} {failure:?}: {errors:?}");
        }
        // And the provider still works afterwards.
        let mut b = Browser::new(&s.auth);
        assert_eq!(location(&sign_in(&mut b, name)), "http://localhost:3000/after", "{name}");
    }
}

#[test]
fn refresh_through_get_access_token_where_the_provider_has_it() {
    for c in all_cases() {
        let spec = c.sim.spec();
        if spec.refresh == Refresh::None {
            continue;
        }
        // Access tokens that are already within the refresh skew (60 s).
        let mut spec_short = spec.clone();
        spec_short.expires_in = 30;
        drop(c.sim);
        let Case { sim, config } = rebind(spec.name, spec_short);
        let s = setup(&config);
        let mut b = Browser::new(&s.auth);
        assert_eq!(location(&sign_in(&mut b, spec.name)), "http://localhost:3000/after", "{}", spec.name);
        let user_id = b.session()["user"]["id"].as_str().map(str::to_owned);
        let user_id = user_id.unwrap_or_else(|| last_sign_in(&s.log)["user"]["id"].as_str().unwrap().to_owned());
        let first = last_sign_in(&s.log)["account"]["access_token"].as_str().unwrap().to_owned();
        let fresh = s.auth.get_access_token(&user_id, spec.name).unwrap().expect("an account");
        assert_ne!(fresh.access_token, first, "{}: refreshed", spec.name);
        let grants: Vec<String> =
            sim.seen_at(&spec.token_path).iter().filter_map(|r| r.form.get("grant_type").cloned()).collect();
        assert_eq!(grants.last().map(String::as_str), Some("refresh_token"), "{}", spec.name);
        // Again: with the rotated refresh token that was stored, or the
        // same one (a provider that keeps it), within the refresh lease's
        // window: the lease ended with the first refresh.
        let again = s.auth.get_access_token(&user_id, spec.name).unwrap().unwrap();
        assert_ne!(again.access_token, fresh.access_token, "{}", spec.name);
        // Revoked at the provider: a typed error.
        sim.revoke_refresh_tokens();
        let err = s.auth.get_access_token(&user_id, spec.name).unwrap_err();
        assert_eq!(err.error_type, ErrorType::RefreshTokenRevoked, "{}: {err}", spec.name);
    }
}

/// A fresh simulator for `spec` and its config (Apple's key is in both).
fn rebind(name: &str, spec: Spec) -> Case {
    let mut c = case(name);
    if name == "apple" {
        // The new case made its own key pair: keep it, with the new lifetime.
        let mut s = c.sim.spec();
        s.expires_in = spec.expires_in;
        drop(c.sim);
        c.sim = provider_sim::start(s);
        c.config["issuer"] = json!(c.sim.issuer().unwrap());
        return c;
    }
    drop(c.sim);
    let sim = provider_sim::start(spec.clone());
    let mut config = c.config;
    match name {
        "gitlab" => config["baseUrl"] = json!(sim.url("/gitlab")),
        "discord" | "twitter" | "facebook" | "spotify" => {
            config["authorization"] = json!({ "url": sim.url(&spec.authorize_path) });
            config["token"] = json!(sim.url(&spec.token_path));
            config["userinfo"] = json!(sim.url(spec.userinfo_path.as_deref().unwrap()));
        }
        _ => config["issuer"] = json!(sim.issuer().unwrap()),
    }
    Case { sim, config }
}

#[test]
fn apple_form_post_is_reposted_same_site_and_the_check_cookies_stay_lax() {
    let c = case("apple");
    let s = setup(&c.config);
    let mut b = Browser::new(&s.auth);
    let csrf = b.csrf();
    let res = b.post("/auth/signin/apple", &[("csrfToken", &csrf)]);
    for cookie in res.set_cookies().filter(|c| c.starts_with("authjs.state") || c.starts_with("authjs.nonce")) {
        assert!(cookie.ends_with("SameSite=Lax"), "{cookie}");
    }
    let q: HashMap<String, String> = url::Url::parse(location(&res)).unwrap().query_pairs().into_owned().collect();
    assert_eq!(q["response_mode"], "form_post");
    assert_eq!(q["scope"], "name email");
    assert!(q.contains_key("nonce") && q.contains_key("state") && !q.contains_key("code_challenge"), "{q:?}");

    // The re-post page carries the fields, HTML-escaped, and nothing runs but its hashed script.
    let fields = vec![
        ("code".to_owned(), "c-1".to_owned()),
        ("state".to_owned(), q["state"].clone()),
        ("user".to_owned(), r#"{"name":{"firstName":"<b>&"}}"#.to_owned()),
    ];
    let page = cross_site_post(&s.auth, "http://localhost:3000/auth/callback/apple", &fields);
    assert_eq!(page.status, 200);
    assert!(page.set_cookies().next().is_none(), "nothing is spent before the re-post");
    let html = String::from_utf8(page.body.clone()).unwrap();
    assert!(html.contains("&lt;b&gt;&amp;") && !html.contains("<b>"), "{html}");
    let (_, reposted) = provider_sim::form_fields(&html);
    assert!(reposted.contains(&("user".to_owned(), fields[2].1.clone())));
    // A re-post that again arrives without cookies is the usual error, not a loop.
    let again = cross_site_post(&s.auth, "http://localhost:3000/auth/callback/apple", &reposted);
    assert_eq!(location(&again), SIGNIN_ERROR);
    assert!(logged_errors(&s.log).iter().any(|e| e.contains("InvalidCheck")));
}

#[test]
fn apple_client_secret_is_minted_once_and_reused() {
    let c = case("apple");
    let s = setup(&c.config);
    for _ in 0..2 {
        let mut b = Browser::new(&s.auth);
        assert_eq!(location(&sign_in(&mut b, "apple")), "http://localhost:3000/after", "{:?}", logged_errors(&s.log));
    }
    let secrets: Vec<String> = c.sim.seen_at("/auth/token").iter().map(|r| r.form["client_secret"].clone()).collect();
    assert_eq!(secrets.len(), 2);
    assert_eq!(secrets[0], secrets[1], "cached until it nears expiry");
    let claims = josekit::jwt::decode_header(&secrets[0]).unwrap();
    assert_eq!(claims.claim("alg"), Some(&json!("ES256")));
    // A later sign-in without the `user` field: the name falls back to the email.
    let mut spec = c.sim.spec();
    spec.form_post_extra.clear();
    drop(c.sim);
    let sim = provider_sim::start(spec);
    let mut config = c.config.clone();
    config["issuer"] = json!(sim.issuer().unwrap());
    let s = setup(&config);
    let mut b = Browser::new(&s.auth);
    assert_eq!(location(&sign_in(&mut b, "apple")), "http://localhost:3000/after");
    assert_eq!(b.session()["user"]["name"], "jane@privaterelay.appleid.com");
}

#[test]
fn apple_refuses_a_bad_private_key_at_configuration() {
    let config = libauth_core::Config::from_value(json!({ "secret": SECRET, "trustHost": true,
        "providers": [{ "builtin": "apple", "clientId": "x", "teamId": "T", "keyId": "K", "privateKey": "nope" }] }))
    .unwrap();
    let Err(err) = Auth::with_env(config, Arc::new(HookMap::new()), &HashMap::new()) else { panic!("refused") };
    assert!(err.to_string().contains("privateKey"), "{err}");
    // A PEM on one line, its newlines written `\n` (as in an environment variable): accepted.
    let pem = String::from_utf8(ES256.generate_key_pair().unwrap().to_pem_private_key()).unwrap();
    let env: HashMap<String, String> = [
        ("AUTH_APPLE_ID", "com.example.web"),
        ("AUTH_APPLE_TEAM_ID", APPLE_TEAM),
        ("AUTH_APPLE_KEY_ID", APPLE_KEY_ID),
        ("AUTH_APPLE_PRIVATE_KEY", &pem.trim_end().replace('\n', "\\n")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v.to_owned()))
    .collect();
    let config = libauth_core::Config::from_value(
        json!({ "secret": SECRET, "trustHost": true, "providers": [{ "builtin": "apple" }] }),
    )
    .unwrap();
    assert!(Auth::with_env(config, Arc::new(HookMap::new()), &env).is_ok(), "the key from the environment");
    // teamId without the rest.
    let config = libauth_core::Config::from_value(json!({ "secret": SECRET, "trustHost": true,
        "providers": [{ "builtin": "apple", "clientId": "x", "clientSecret": "y", "teamId": "T" }] }))
    .unwrap();
    assert!(Auth::with_env(config, Arc::new(HookMap::new()), &HashMap::new()).is_err());
}

#[test]
fn entra_refuses_an_id_token_from_another_tenant() {
    let c = case("microsoft-entra-id");
    let s = setup(&c.config);
    c.sim.fail_next(Failure::ForeignTenant);
    let mut b = Browser::new(&s.auth);
    let res = sign_in(&mut b, "microsoft-entra-id");
    assert_eq!(location(&res), SIGNIN_ERROR);
    let errors = logged_errors(&s.log).join("\n");
    assert!(errors.contains("not the configured tenant"), "{errors}");
    // The scope Auth.js asks for, User.Read included.
    let authorize = &c.sim.seen_at(&c.sim.spec().authorize_path)[0];
    assert_eq!(authorize.query["scope"], "openid profile email User.Read");
}

#[test]
fn entra_common_and_organizations_tenants_accept_any_tenant() {
    for tenant in ["common", "organizations"] {
        let mut spec = specs::entra();
        for path in [&mut spec.authorize_path, &mut spec.token_path] {
            *path = path.replace(specs::TENANT, tenant);
        }
        spec.jwks_path = spec.jwks_path.map(|p| p.replace(specs::TENANT, tenant));
        spec.issuer_path = spec.issuer_path.map(|p| p.replace(specs::TENANT, tenant));
        let sim = provider_sim::start(spec);
        let config = json!({ "builtin": "microsoft-entra-id", "clientId": CLIENT_ID, "clientSecret": CLIENT_SECRET,
                             "issuer": sim.issuer().unwrap() });
        let s = setup(&config);
        for failure in [None, Some(Failure::ForeignTenant)] {
            if let Some(f) = failure {
                sim.fail_next(f);
            }
            let mut b = Browser::new(&s.auth);
            let res = sign_in(&mut b, "microsoft-entra-id");
            assert_eq!(location(&res), "http://localhost:3000/after", "{tenant}: {:?}", logged_errors(&s.log));
        }
    }
    // A tenant named by its domain can't be checked against `tid`.
    let config = libauth_core::Config::from_value(json!({ "secret": SECRET, "trustHost": true,
        "providers": [{ "builtin": "microsoft-entra-id", "clientId": "x", "clientSecret": "y",
                        "issuer": "https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0" }] }))
    .unwrap();
    assert!(Auth::with_env(config, Arc::new(HookMap::new()), &HashMap::new()).is_err());
}

#[test]
fn google_offline_access_asks_for_a_refresh_token() {
    let mut c = case("google");
    c.config["offlineAccess"] = json!(true);
    let s = setup(&c.config);
    let mut b = Browser::new(&s.auth);
    assert_eq!(location(&sign_in(&mut b, "google")), "http://localhost:3000/after", "{:?}", logged_errors(&s.log));
    let authorize = &c.sim.seen_at("/google/authorize")[0];
    assert_eq!(authorize.query["access_type"], "offline");
    assert_eq!(authorize.query["prompt"], "consent");
    // Without the option: neither.
    let c = case("google");
    let s = setup(&c.config);
    let mut b = Browser::new(&s.auth);
    sign_in(&mut b, "google");
    let authorize = &c.sim.seen_at("/google/authorize")[0];
    assert!(!authorize.query.contains_key("access_type") && !authorize.query.contains_key("prompt"));
    // An option a provider does not take is refused.
    let config = libauth_core::Config::from_value(json!({ "secret": SECRET, "trustHost": true,
        "providers": [{ "builtin": "discord", "clientId": "x", "clientSecret": "y", "offlineAccess": true }] }))
    .unwrap();
    let Err(err) = Auth::with_env(config, Arc::new(HookMap::new()), &HashMap::new()) else { panic!("refused") };
    assert!(err.to_string().contains("offlineAccess"), "{err}");
}

#[test]
fn quirks_on_the_wire() {
    // Facebook: explicit fields, the pinned version, the secret in the body.
    let c = case("facebook");
    let s = setup(&c.config);
    sign_in(&mut Browser::new(&s.auth), "facebook");
    assert_eq!(c.sim.seen_at("/v23.0/me")[0].query["fields"], "id,name,email,picture");
    assert_eq!(c.sim.seen_at("/v23.0/oauth/access_token")[0].form["client_secret"], CLIENT_SECRET);
    // Twitch: the claims parameter and client_secret_post.
    let c = case("twitch");
    let s = setup(&c.config);
    sign_in(&mut Browser::new(&s.auth), "twitch");
    let token = &c.sim.seen_at("/oauth2/token")[0];
    assert!(token.form.contains_key("client_secret") && !token.headers.contains_key("authorization"));
    // X: PKCE cannot be turned off.
    let mut config = case("twitter").config;
    config["checks"] = json!(["state"]);
    let config =
        libauth_core::Config::from_value(json!({ "secret": SECRET, "trustHost": true, "providers": [config] }))
            .unwrap();
    let Err(err) = Auth::with_env(config, Arc::new(HookMap::new()), &HashMap::new()) else { panic!("refused") };
    assert!(err.to_string().contains("PKCE"), "{err}");
    // Slack: the nonce is the only check (Auth.js's), and it is verified.
    let c = case("slack");
    let s = setup(&c.config);
    sign_in(&mut Browser::new(&s.auth), "slack");
    let authorize = &c.sim.seen_at("/slack/authorize")[0];
    assert!(authorize.query.contains_key("nonce") && !authorize.query.contains_key("state"));
}

#[test]
fn every_builtin_is_on_the_signin_page_with_its_logo_and_reads_its_env() {
    let ids = [
        "google",
        "apple",
        "microsoft-entra-id",
        "discord",
        "gitlab",
        "twitter",
        "facebook",
        "linkedin",
        "slack",
        "twitch",
        "spotify",
        "keycloak",
        "auth0",
        "okta",
    ];
    let mut env = HashMap::new();
    for id in ids {
        let key = id.to_ascii_uppercase().replace('-', "_");
        env.insert(format!("AUTH_{key}_ID"), format!("{id}-id"));
        env.insert(format!("AUTH_{key}_SECRET"), "s".to_owned());
    }
    for id in ["KEYCLOAK", "AUTH0", "OKTA"] {
        env.insert(format!("AUTH_{id}_ISSUER"), "https://idp.example.com".to_owned());
    }
    let providers: Vec<Value> = ids.iter().map(|id| json!({ "builtin": id })).collect();
    let config =
        libauth_core::Config::from_value(json!({ "secret": SECRET, "trustHost": true, "providers": providers }))
            .unwrap();
    let auth = Auth::with_env(config, Arc::new(HookMap::new()), &env).unwrap();
    let mut b = Browser::new(&auth);
    let listed = b.get("/auth/providers").json().unwrap();
    for id in ids {
        assert_eq!(listed[id]["id"], id, "{listed}");
    }
    assert_eq!(listed["microsoft-entra-id"]["name"], "Microsoft Entra ID");
    assert_eq!(listed["twitter"]["type"], "oauth");
    assert_eq!(listed["google"]["type"], "oidc");
    let page = String::from_utf8(b.get("/auth/signin").body).unwrap();
    assert_eq!(page.matches("data:image/svg+xml;base64,").count(), ids.len(), "a logo per provider");
    // The env's client id is the one sent.
    let csrf = b.csrf();
    let res = b.post("/auth/signin/discord", &[("csrfToken", &csrf)]);
    assert!(location(&res).starts_with("https://discord.com/api/oauth2/authorize?"));
    assert!(location(&res).contains("client_id=discord-id"));
    let res = b.post("/auth/signin/microsoft-entra-id", &[("csrfToken", &csrf)]);
    assert!(location(&res).starts_with("https://login.microsoftonline.com/common/oauth2/v2.0/authorize?"));
    let res = b.post("/auth/signin/facebook", &[("csrfToken", &csrf)]);
    assert!(location(&res).starts_with("https://www.facebook.com/v23.0/dialog/oauth?"));
}

/// What each provider's own answer proves about the address, as the
/// simulators send it (the providers' documented claims): `email_verified`
/// (Apple's as the string "true"), Discord's `verified`, GitLab's
/// `confirmed_at`; never Entra ID's `email`, nor an address with no claim.
const PROVEN_BY_DEFAULT: &[(&str, bool)] = &[
    ("google", true),
    ("apple", true),
    ("microsoft-entra-id", false),
    ("discord", true),
    ("gitlab", true),
    ("twitter", false),
    ("facebook", false),
    ("linkedin", true),
    ("slack", true),
    ("twitch", false),
    ("spotify", false),
    ("keycloak", true),
    ("auth0", true),
    ("okta", true),
];

/// Every provider's flag turned off (or made a lookalike: `"yes"`, `1`,
/// `"false"`), where it has one.
fn without_proof(mut spec: Spec, flag: &Value) -> Spec {
    for target in [Some(&mut spec.profile), spec.id_token_claims.as_mut()].into_iter().flatten() {
        if let Some(map) = target.as_object_mut() {
            for key in ["email_verified", "verified"] {
                if map.contains_key(key) {
                    map.insert(key.into(), flag.clone());
                }
            }
            if map.contains_key("confirmed_at") {
                map.insert("confirmed_at".into(), Value::Null);
            }
        }
    }
    spec
}

#[test]
fn every_provider_proves_an_address_only_through_its_own_claim() {
    for (name, proven) in PROVEN_BY_DEFAULT {
        let c = case(name);
        let s = setup(&c.config);
        let mut b = Browser::new(&s.auth);
        assert_eq!(location(&sign_in(&mut b, name)), "http://localhost:3000/after", "{name}");
        let identity = identity_of(&b).expect("a session has an identity");
        assert_eq!(identity.email_verified, *proven, "{name}: {identity:?}");
        assert!(!identity.subject.is_empty());
    }
    // The same providers with the flag false, or any value but true.
    for flag in [json!(false), json!("false"), json!("yes"), json!(1)] {
        for (name, _) in PROVEN_BY_DEFAULT.iter().filter(|(n, p)| *p && *n != "apple") {
            let c = rebind(name, without_proof(case(name).sim.spec(), &flag));
            let s = setup(&c.config);
            let mut b = Browser::new(&s.auth);
            assert_eq!(location(&sign_in(&mut b, name)), "http://localhost:3000/after", "{name}");
            let identity = identity_of(&b).expect("a session has an identity");
            assert!(!identity.email_verified, "{name} with {flag}: {identity:?}");
        }
    }
}
