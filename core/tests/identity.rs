//! An identity is what was verified: each sign-in says whether its email
//! was proven, the session carries it (the engine's JWT claim, or the user
//! row), no jwt callback can forge or drop it, and an account created
//! without proof of its address keeps nothing of its first party once the
//! address's owner proves it (pre-account hijacking).

#[path = "common/authenticator.rs"]
mod authenticator;
mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use authenticator::{Alg, SoftAuthenticator};
use common::{identity_of, Browser, ORIGIN, SECRET};
use libauth_core::{Auth, Config, HookMap, Identity};
use proptest::prelude::*;
use serde_json::{json, Value};

fn engine(config: Value, hooks: HookMap) -> Auth {
    Auth::with_env(Config::from_value(config).expect("valid config"), Arc::new(hooks), &HashMap::new())
        .expect("engine builds")
}

/// `authorize` signs in whoever the form names, with the address the form
/// gives, and says it proved it when the form's `proven` is `yes`.
fn self_declared_hooks() -> HookMap {
    HookMap::new().on("providers.credentials.authorize", |args| {
        let c = &args["credentials"];
        let mut user = json!({ "id": c["username"], "email": c["email"], "name": "Someone" });
        if c["proven"] == "yes" {
            user["emailVerified"] = json!(true);
        }
        Ok(user)
    })
}

fn sign_in(b: &mut Browser, username: &str, email: &str, proven: bool) {
    let csrf = b.csrf();
    let res = b.post(
        "/auth/callback/credentials",
        &[
            ("username", username),
            ("email", email),
            ("proven", if proven { "yes" } else { "no" }),
            ("password", "x"),
            ("csrfToken", &csrf),
        ],
    );
    assert_eq!(res.status, 302, "{res:?}");
    assert!(!common::location(&res).contains("error"), "{}", common::location(&res));
}

#[test]
fn a_credentials_sign_in_proves_nothing_unless_authorize_says_so() {
    let auth = engine(
        json!({ "secret": SECRET, "trustHost": true, "providers": [{ "type": "credentials" }] }),
        self_declared_hooks(),
    );
    let mut b = Browser::new(&auth);
    sign_in(&mut b, "u1", "Ada@Example.com", false);
    let id = identity_of(&b).unwrap();
    assert_eq!(
        id,
        Identity { subject: "credentials:u1".into(), email: Some("ada@example.com".into()), email_verified: false }
    );
    let mut b = Browser::new(&auth);
    sign_in(&mut b, "u2", "ada@example.com", true);
    assert!(identity_of(&b).unwrap().email_verified);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Whatever the jwt callback does with the token at sign-in and on
    /// every later read (drop the claim, forge it, rewrite `email` and
    /// `sub` from the client's `update()` data), the identity stays what
    /// the sign-in established.
    #[test]
    fn no_jwt_callback_forges_or_drops_the_identity(
        forged_sub in "[a-z]{1,8}",
        forged_email in "[a-z]{1,8}(@[a-z]{1,6}\\.com)?",
        mode in 0u8..3,
    ) {
        let (sub, email) = (forged_sub.clone(), forged_email.clone());
        let hooks = self_declared_hooks().on("callbacks.jwt", move |args| {
            let mut token = args["token"].clone();
            match mode {
                0 => token = json!({ "sub": sub, "email": email, "exp": token["exp"], "iat": token["iat"] }),
                1 => token["libauth"] = json!({ "sub": sub, "email": email, "emailVerified": true }),
                _ => { token.as_object_mut().unwrap().remove("libauth"); }
            }
            if let Some(data) = args.get("session").filter(|s| s.is_object()) {
                token["email"] = data["email"].clone();
            }
            Ok(token)
        });
        let auth = engine(json!({ "secret": SECRET, "trustHost": true, "providers": [{ "type": "credentials" }] }), hooks);
        let mut b = Browser::new(&auth);
        sign_in(&mut b, "victim-free", "me@example.com", false);
        let expected = Identity { subject: "credentials:victim-free".into(), email: Some("me@example.com".into()), email_verified: false };
        prop_assert_eq!(identity_of(&b), Some(expected.clone()));
        // The client's update() sends whatever it likes; a refresh re-reads.
        let csrf = b.csrf();
        let res = b.post_json("/auth/session", json!({ "csrfToken": csrf, "data": { "email": forged_email } }));
        prop_assert_eq!(res.status, 200);
        b.get("/auth/session");
        prop_assert_eq!(identity_of(&b), Some(expected));
    }
}

#[test]
fn a_database_session_reads_the_proof_from_the_user_row() {
    let auth = engine(
        json!({ "secret": SECRET, "trustHost": true, "adapter": { "type": "memory" },
                "session": { "strategy": "database" }, "providers": [{ "type": "credentials" }] }),
        self_declared_hooks(),
    );
    let mut b = Browser::new(&auth);
    sign_in(&mut b, "row-1", "row@example.com", true);
    let id = identity_of(&b).unwrap();
    assert_eq!((id.subject.as_str(), id.email_verified), ("row-1", true));
    let mut b = Browser::new(&auth);
    sign_in(&mut b, "row-2", "other@example.com", false);
    assert!(!identity_of(&b).unwrap().email_verified);
}

// -- Pre-account hijacking: a passkey sign-up for someone else's address ----

fn passkey_and_email(adapter: Value, mailed: Arc<Mutex<Option<String>>>) -> Auth {
    let hooks = HookMap::new().on("providers.email.sendVerificationRequest", move |args| {
        *mailed.lock().unwrap() = args["url"].as_str().map(str::to_owned);
        Ok(Value::Null)
    });
    engine(
        json!({ "secret": SECRET, "trustHost": true, "experimental": { "enableWebAuthn": true },
                "adapter": adapter,
                "providers": [{ "type": "webauthn" }, { "type": "email", "sendVerificationRequest": true }] }),
        hooks,
    )
}

fn passkey_options(b: &mut Browser, query: &str) -> Value {
    let res = b.get(&format!("/auth/webauthn-options/passkey?{query}"));
    assert_eq!(res.status, 200, "{}", String::from_utf8_lossy(&res.body));
    res.json().unwrap()["options"].clone()
}

fn passkey_callback(b: &mut Browser, action: &str, credential: &Value) -> libauth_core::AuthResponse {
    let csrf = b.csrf();
    let data = credential.to_string();
    b.post("/auth/callback/passkey", &[("action", action), ("data", &data), ("csrfToken", &csrf)])
}

fn email_link_sign_in<'a>(auth: &'a Auth, mailed: &Arc<Mutex<Option<String>>>, email: &str) -> Browser<'a> {
    let mut b = Browser::new(auth);
    let csrf = b.csrf();
    b.post("/auth/signin/email", &[("email", email), ("csrfToken", &csrf)]);
    let link = mailed.lock().unwrap().take().expect("a link was mailed");
    let res = b.get(link.strip_prefix(ORIGIN).unwrap());
    assert_eq!(res.status, 302);
    assert!(!common::location(&res).contains("error"), "{}", common::location(&res));
    b
}

fn the_owner_claims_a_squatted_address(adapter: &Value) {
    let mailed = Arc::new(Mutex::new(None));
    let auth = passkey_and_email(adapter.clone(), mailed.clone());
    // The attacker, signed out, signs up with a passkey for the victim's address.
    let mut attacker = Browser::new(&auth);
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let opts = passkey_options(&mut attacker, "action=register&email=victim@example.com");
    let res = passkey_callback(&mut attacker, "register", &key.register(&opts));
    assert_eq!(res.status, 302);
    let squatter = identity_of(&attacker).expect("the attacker is signed in");
    assert!(!squatter.email_verified, "a passkey sign-up proves no address");

    // The owner proves the address with a link to their inbox.
    let owner = email_link_sign_in(&auth, &mailed, "victim@example.com");
    let owned = identity_of(&owner).unwrap();
    assert!(owned.email_verified);
    assert_eq!(owned.subject, squatter.subject, "the owner keeps the user (and the app's records under its id)");

    // Nothing the attacker set up survives: their session ended, their
    // passkey no longer signs in.
    assert_eq!(identity_of(&attacker), None, "the attacker's session is gone");
    let mut attacker = Browser::new(&auth);
    let opts = passkey_options(&mut attacker, "");
    passkey_callback(&mut attacker, "authenticate", &key.authenticate(&opts));
    assert_eq!(identity_of(&attacker), None, "the attacker's passkey is gone");
    // The owner is still signed in, and signs in again the same way.
    assert_eq!(identity_of(&owner), Some(owned.clone()));
    let again = email_link_sign_in(&auth, &mailed, "victim@example.com");
    assert_eq!(identity_of(&again), Some(owned));
}

fn a_proven_account_is_not_claimed_again(adapter: &Value) {
    let mailed = Arc::new(Mutex::new(None));
    let auth = passkey_and_email(adapter.clone(), mailed.clone());
    let owner = email_link_sign_in(&auth, &mailed, "owner@example.com");
    let first = identity_of(&owner).unwrap();
    // A second link (another device) signs in to the same user and keeps
    // the first device's session.
    let second = email_link_sign_in(&auth, &mailed, "owner@example.com");
    assert_eq!(identity_of(&second), Some(first.clone()));
    assert_eq!(identity_of(&owner), Some(first));
}

macro_rules! on_every_adapter {
    ($($name:ident),* $(,)?) => {
        mod on_memory {
            $( #[test] fn $name() { super::$name(&serde_json::json!({ "type": "memory" })); } )*
        }
        mod on_sqlite {
            $( #[test] fn $name() {
                let db = super::common::temp_db_path();
                super::$name(&serde_json::json!({ "type": "sqlite", "path": db.0.to_str().unwrap() }));
            } )*
        }
        #[cfg(feature = "integration")]
        mod on_postgres {
            $( #[test] fn $name() {
                let schema = super::common::temp_schema();
                super::$name(&serde_json::json!({ "type": "postgres", "url": super::common::postgres_url(), "schema": schema.0 }));
            } )*
        }
    };
}

on_every_adapter!(the_owner_claims_a_squatted_address, a_proven_account_is_not_claimed_again);
