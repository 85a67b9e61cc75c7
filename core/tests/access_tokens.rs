//! `get_access_token` against the TikTok simulator (which rotates refresh
//! tokens, so a refresh token spent twice is refused): fresh tokens are
//! returned as stored, concurrent calls make one refresh, a revoked refresh
//! token is a typed error and an event.
mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::*;
use libauth_core::{Auth, ErrorType, HookMap};
use serde_json::{json, Value};
use tiktok_sim::{SimConfig, Simulator};

struct Setup {
    sim: Simulator,
    auth: Arc<Auth>,
    user_id: String,
    events: Arc<Mutex<Vec<Value>>>,
    _db: TempFile,
}

/// A user signed in with TikTok, its account stored in SQLite, with an
/// access token that lives `access_ttl` (the simulator's).
fn signed_in(access_ttl: Duration) -> Setup {
    let sim = tiktok_sim::start(SimConfig { access_ttl, ..SimConfig::default() });
    let urls = sim.urls();
    let db = temp_db_path();
    let events = Arc::new(Mutex::new(Vec::new()));
    let log = events.clone();
    let hooks = HookMap::new().on("events.refreshTokenRevoked", move |args| {
        log.lock().unwrap().push(args);
        Ok(Value::Null)
    });
    let config = libauth_core::Config::from_value(json!({
        "secret": SECRET, "trustHost": true, "adapter": { "type": "sqlite", "path": db.0 },
        "providers": [{ "builtin": "tiktok", "clientId": "sim-client-key", "clientSecret": "sim-client-secret",
            "authorization": { "url": urls.authorization }, "token": urls.token, "userinfo": urls.userinfo }]
    }))
    .unwrap();
    let auth = Arc::new(Auth::with_env(config, Arc::new(hooks), &std::collections::HashMap::new()).unwrap());
    let mut b = Browser::new(&auth);
    let csrf = b.csrf();
    let res = b.post("/auth/signin/tiktok", &[("csrfToken", &csrf)]);
    let agent = ureq::AgentBuilder::new().redirects(0).build();
    let back = match agent.get(location(&res)).call() {
        Ok(r) | Err(ureq::Error::Status(_, r)) => r.header("location").unwrap().to_owned(),
        Err(e) => panic!("{e}"),
    };
    assert_eq!(b.get(back.strip_prefix(ORIGIN).unwrap()).status, 302);
    let adapter =
        libauth_core::adapter::from_config(&json!({ "type": "sqlite", "path": db.0 }), Arc::new(libauth_core::NoHooks))
            .unwrap();
    let user_id = adapter.get_user_by_account("tiktok", &sim.user().open_id).unwrap().unwrap().id;
    Setup { sim, auth, user_id, events, _db: db }
}

fn refreshes(sim: &Simulator) -> u64 {
    // Every refresh rotates the refresh token: one more issued each time.
    sim.state_summary()["refresh_tokens"].as_u64().unwrap() - 1
}

#[test]
fn a_fresh_token_is_returned_as_stored() {
    let s = signed_in(Duration::from_secs(3600));
    let stored = s.auth.get_account(&s.user_id, "tiktok").unwrap().unwrap();
    let token = s.auth.get_access_token(&s.user_id, "tiktok").unwrap().unwrap();
    assert_eq!(Some(token.access_token), stored.access_token);
    assert_eq!(refreshes(&s.sim), 0);
    assert!(s.auth.get_access_token("nobody", "tiktok").unwrap().is_none());
}

#[test]
fn fifty_concurrent_calls_make_one_refresh() {
    // Tokens that live 30 s are due (the default skew is 60 s).
    let s = signed_in(Duration::from_secs(30));
    let stored = s.auth.get_account(&s.user_id, "tiktok").unwrap().unwrap();
    // New tokens live an hour, so the refreshed one is fresh.
    s.sim.update_config(|c| c.access_ttl = Duration::from_secs(3600)).unwrap();
    let threads: Vec<_> = (0..50)
        .map(|_| {
            let (auth, user) = (s.auth.clone(), s.user_id.clone());
            std::thread::spawn(move || auth.get_access_token(&user, "tiktok"))
        })
        .collect();
    let tokens: Vec<String> = threads.into_iter().map(|t| t.join().unwrap().unwrap().unwrap().access_token).collect();
    assert_eq!(refreshes(&s.sim), 1, "one refresh request at the provider");
    assert!(tokens.iter().all(|t| t == &tokens[0]), "everyone got the one new token");
    assert_ne!(Some(&tokens[0]), stored.access_token.as_ref());
    let now = s.auth.get_account(&s.user_id, "tiktok").unwrap().unwrap();
    assert_eq!(now.access_token.as_ref(), Some(&tokens[0]), "stored");
    assert_ne!(now.refresh_token, stored.refresh_token, "the rotated refresh token is stored");
    // And a later call uses it without refreshing again.
    s.auth.get_access_token(&s.user_id, "tiktok").unwrap().unwrap();
    assert_eq!(refreshes(&s.sim), 1);
}

#[test]
fn a_revoked_refresh_token_is_a_typed_error_and_an_event() {
    let s = signed_in(Duration::from_secs(30));
    let stored = s.auth.get_account(&s.user_id, "tiktok").unwrap().unwrap();
    // Spend the stored refresh token elsewhere (as a leaked copy would):
    // TikTok rotates it out.
    s.auth
        .refresh_access_token("tiktok", stored.refresh_token.as_deref().unwrap(), Some(&stored.provider_account_id))
        .unwrap();
    let err = s.auth.get_access_token(&s.user_id, "tiktok").unwrap_err();
    assert_eq!(err.error_type, ErrorType::RefreshTokenRevoked, "{err}");
    let events = s.events.lock().unwrap();
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["provider"], "tiktok");
    assert_eq!(events[0]["userId"], s.user_id.as_str());
    assert!(events[0].get("refreshToken").is_none(), "no token in the event");
}
