//! Passkeys end to end through the engine's routes, with a software
//! authenticator (keys generated per test): register, sign out, sign back
//! in, on the memory and SQLite adapters (PostgreSQL in the integration
//! build), and every way a ceremony must fail.

#[path = "common/authenticator.rs"]
mod authenticator;
mod common;

use std::sync::Arc;

use authenticator::{Alg, SoftAuthenticator};
use common::{location, Browser, ORIGIN, SECRET};
use libauth_core::{Auth, AuthRequest, AuthResponse, Config, HookMap};
use serde_json::{json, Value};

fn passkey_config(adapter: Value, extra: Value) -> Config {
    let mut base = json!({
        "secret": SECRET,
        "trustHost": true,
        "experimental": { "enableWebAuthn": true },
        "adapter": adapter,
        "providers": [{ "type": "webauthn" }],
    });
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        base[k] = v;
    }
    Config::from_value(base).expect("valid passkey config")
}

/// The session shows the user's id (for the passkey calls), as apps do
/// with a session callback.
fn engine(adapter: Value, extra: Value) -> Auth {
    engine_with(adapter, extra, HookMap::new())
}

/// [`engine`] with more hooks.
fn engine_with(adapter: Value, extra: Value, hooks: HookMap) -> Auth {
    let hooks = hooks.on("callbacks.session", |args| {
        let mut session = args["session"].clone();
        let id = args["user"]["id"].as_str().or(args["token"]["sub"].as_str()).map(str::to_owned);
        session["user"]["id"] = id.into();
        Ok(session)
    });
    Auth::with_env(passkey_config(adapter, extra), Arc::new(hooks), &std::collections::HashMap::new())
        .expect("engine builds")
}

fn memory() -> Value {
    json!({ "type": "memory" })
}

fn sqlite(db: &common::TempFile) -> Value {
    json!({ "type": "sqlite", "path": db.0.to_str().unwrap() })
}

#[cfg(feature = "integration")]
fn postgres(schema: &common::TempSchema) -> Value {
    json!({ "type": "postgres", "url": common::postgres_url(), "schema": schema.0 })
}

/// The ceremony's rules, on each built-in adapter: what is stored, spent
/// and undone is the adapter's part of them.
macro_rules! on_every_adapter {
    ($($name:ident),* $(,)?) => {
        mod on_memory {
            $( #[test] fn $name() { super::$name(&super::memory()); } )*
        }
        mod on_sqlite {
            $( #[test] fn $name() { let db = super::common::temp_db_path(); super::$name(&super::sqlite(&db)); } )*
        }
        #[cfg(feature = "integration")]
        mod on_postgres {
            $( #[test] fn $name() { let schema = super::common::temp_schema(); super::$name(&super::postgres(&schema)); } )*
        }
    };
}

on_every_adapter!(
    h1_signed_out_options_never_tell_a_known_email_from_an_unknown_one,
    h1_a_known_email_signs_in_only_with_a_discoverable_ceremony,
    p1_a_registration_never_signs_in_as_the_owner_of_a_stored_credential,
    p2_a_sign_up_email_must_be_an_address,
    p4_expired_challenges_are_purged_with_jwt_sessions,
    attestation_none_with_a_statement_is_refused,
    a_signed_in_user_adds_a_passkey_and_must_say_which_action,
    a_challenge_signs_in_once_even_with_a_zero_counter,
    the_passkey_callback_checks_the_csrf_token,
    a_counter_that_goes_back_is_a_cloned_authenticator,
    broken_registrations_are_refused_and_leave_nothing,
    broken_assertions_are_refused,
    a_stale_or_missing_challenge_is_refused,
    a_registration_replayed_or_sent_for_another_user_attaches_nowhere,
    an_unreadable_session_cookie_on_options_is_signed_out,
    passkeys_are_listed_renamed_and_the_last_one_kept,
    a_second_passkey_can_be_deleted,
    the_account_page_adds_and_removes_passkeys,
    a_passkey_added_by_a_user_with_totp_on_is_kept_only_after_the_code,
);

/// `GET webauthn-options/passkey?<query>`: `(action, options)`.
fn options(browser: &mut Browser, query: &str) -> (String, Value) {
    let res = browser.get(&format!("/auth/webauthn-options/passkey?{query}"));
    assert_eq!(res.status, 200, "options: {}", String::from_utf8_lossy(&res.body));
    let body: Value = res.json().unwrap();
    (body["action"].as_str().unwrap().to_owned(), body["options"].clone())
}

/// `POST callback/passkey` as the browser module sends it.
fn callback(browser: &mut Browser, action: &str, credential: &Value) -> AuthResponse {
    callback_raw(browser, action, &credential.to_string())
}

fn callback_raw(browser: &mut Browser, action: &str, data: &str) -> AuthResponse {
    let csrf = browser.csrf();
    browser.post(
        "/auth/callback/passkey",
        &[("action", action), ("data", data), ("csrfToken", &csrf), ("callbackUrl", "/after")],
    )
}

fn signed_in_as(browser: &mut Browser) -> Option<String> {
    let session = browser.session();
    session["user"]["email"].as_str().map(str::to_owned)
}

fn error_of(res: &AuthResponse) -> String {
    let loc = location(res);
    url::Url::parse(loc)
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "error")
        .map(|(_, v)| v.into_owned())
        .unwrap_or_else(|| panic!("no error in {loc}"))
}

/// Sign up with a passkey (email → register), sign out, sign in with it
/// (discoverable: no email).
fn round_trip(auth: &Auth, alg: Alg, email: &str) {
    let mut browser = Browser::new(auth);
    let mut key = SoftAuthenticator::new(alg, ORIGIN);
    let (action, opts) = options(&mut browser, &format!("email={}", email.to_uppercase()));
    assert_eq!(action, "register");
    assert_eq!(opts["rp"]["id"], "localhost");
    assert_eq!(opts["authenticatorSelection"]["userVerification"], "required");
    let res = callback(&mut browser, "register", &key.register(&opts));
    assert_eq!(res.status, 302, "{res:?}");
    assert_eq!(location(&res), format!("{ORIGIN}/after"));
    assert_eq!(signed_in_as(&mut browser).as_deref(), Some(email));

    let mut browser = Browser::new(auth); // signed out: a new browser
    let (action, opts) = options(&mut browser, "");
    assert_eq!(action, "authenticate");
    assert_eq!(opts["allowCredentials"], json!([]), "discoverable");
    let res = callback(&mut browser, "authenticate", &key.authenticate(&opts));
    assert_eq!(res.status, 302, "{res:?}");
    assert_eq!(location(&res), format!("{ORIGIN}/after"));
    assert_eq!(signed_in_as(&mut browser).as_deref(), Some(email));
}

#[test]
fn es256_eddsa_rs256_register_and_sign_in_on_memory() {
    for alg in [Alg::Es256, Alg::EdDsa, Alg::Rs256] {
        round_trip(&engine(memory(), json!({})), alg, "ada@example.com");
    }
}

#[test]
fn register_and_sign_in_on_sqlite() {
    let db = common::temp_db_path();
    let adapter = json!({ "type": "sqlite", "path": db.0.to_str().unwrap() });
    round_trip(&engine(adapter.clone(), json!({})), Alg::Es256, "ada@example.com");
    // Database sessions, on the same file.
    let auth = engine(adapter, json!({ "session": { "strategy": "database" } }));
    round_trip(&auth, Alg::EdDsa, "grace@example.com");
}

#[cfg(feature = "integration")]
#[test]
fn register_and_sign_in_on_postgres() {
    let schema = common::temp_schema();
    let adapter = json!({ "type": "postgres", "url": common::postgres_url(), "schema": schema.0 });
    round_trip(&engine(adapter.clone(), json!({})), Alg::Es256, "ada@example.com");
    round_trip(&engine(adapter, json!({ "session": { "strategy": "database" } })), Alg::Rs256, "grace@example.com");
}

/// Whether `email` is free: a sign-up with it succeeds (and takes it).
fn email_is_free(auth: &Auth, email: &str) -> bool {
    let mut browser = Browser::new(auth);
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let (action, opts) = options(&mut browser, &format!("email={email}"));
    assert_eq!(action, "register");
    let res = callback(&mut browser, "register", &key.register(&opts));
    res.status == 302 && location(&res) == format!("{ORIGIN}/after") && browser.has_session_cookie()
}

/// Sign `email` up with a new passkey; the signed-in browser.
fn sign_up<'a>(auth: &'a Auth, key: &mut SoftAuthenticator, email: &str) -> Browser<'a> {
    let mut browser = Browser::new(auth);
    let (_, opts) = options(&mut browser, &format!("email={email}"));
    let res = callback(&mut browser, "register", &key.register(&opts));
    assert_eq!(res.status, 302, "{res:?}");
    assert_eq!(signed_in_as(&mut browser).as_deref(), Some(email));
    browser
}

fn sign_up_encoded(auth: &Auth, key: &mut SoftAuthenticator, email: &str) {
    let mut browser = Browser::new(auth);
    let q: String = url::form_urlencoded::byte_serialize(email.as_bytes()).collect();
    let (_, opts) = options(&mut browser, &format!("email={q}"));
    assert_eq!(callback(&mut browser, "register", &key.register(&opts)).status, 302);
    assert_eq!(signed_in_as(&mut browser).as_deref(), Some(email));
}

/// A signed-out options answer with what is random in it (challenge, new
/// user id) and the email itself blanked: what an observer could compare.
fn shape_of(auth: &Auth, query: &str, email: &str) -> (u16, String) {
    let res = Browser::new(auth).get(&format!("/auth/webauthn-options/passkey?{query}"));
    let mut body: Value = res.json().unwrap_or(Value::Null);
    if let Some(options) = body.get_mut("options") {
        options["challenge"] = "CHALLENGE".into();
        if options.get("user").is_some() {
            options["user"]["id"] = "USER".into();
        }
    }
    let cookies = res.headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case("set-cookie")).count();
    (res.status, format!("{cookies} cookies {}", body.to_string().replace(email, "EMAIL")))
}

/// H1: signed out, the options answer for a known email is the answer for
/// an unknown one, whatever the action asked: no "this user exists", no
/// credential ids.
fn h1_signed_out_options_never_tell_a_known_email_from_an_unknown_one(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({ "rateLimit": false }));
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    sign_up(&auth, &mut key, "ada@example.com");
    let id = key.credential_id_b64();
    for action in ["", "&action=register", "&action=authenticate"] {
        let known = shape_of(&auth, &format!("email=ada@example.com{action}"), "ada@example.com");
        let unknown = shape_of(&auth, &format!("email=bob@example.com{action}"), "bob@example.com");
        assert_eq!(known, unknown, "action {action:?}");
        assert_eq!(known.0, 200, "{action:?}: {}", known.1);
        assert!(!known.1.contains(&id), "a credential id leaked: {}", known.1);
    }
    // Without an action, an email means a sign-up ceremony for a new user.
    let (action, opts) = options(&mut Browser::new(&auth), "email=ada@example.com");
    assert_eq!(action, "register");
    assert!(opts["excludeCredentials"].as_array().is_none_or(Vec::is_empty), "{opts}");
}

/// H1: a known user signs in with a discoverable ceremony (email or not);
/// a sign-up with their email gets its ceremony but is refused at the
/// callback, adding nothing to their account.
fn h1_a_known_email_signs_in_only_with_a_discoverable_ceremony(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({}));
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let ada = sign_up(&auth, &mut key, "ada@example.com").session()["user"]["id"].as_str().unwrap().to_owned();
    let mut browser = Browser::new(&auth);
    let (action, opts) = options(&mut browser, "action=authenticate&email=ada@example.com");
    assert_eq!(action, "authenticate");
    assert_eq!(opts["allowCredentials"], json!([]));
    assert_eq!(callback(&mut browser, "authenticate", &key.authenticate(&opts)).status, 302);
    assert_eq!(signed_in_as(&mut browser).as_deref(), Some("ada@example.com"));
    // Someone else signs up with Ada's address: refused, nothing stored.
    let mut eve = Browser::new(&auth);
    let mut eve_key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let (action, opts) = options(&mut eve, "email=ada@example.com&action=register");
    assert_eq!(action, "register");
    let res = callback(&mut eve, "register", &eve_key.register(&opts));
    assert_eq!(error_of(&res), "AccountNotLinked");
    assert!(!eve.has_session_cookie());
    assert_eq!(auth.list_passkeys(&ada).unwrap().len(), 1);
    let mut b = Browser::new(&auth);
    let (_, opts) = options(&mut b, "");
    assert_eq!(error_of(&callback(&mut b, "authenticate", &eve_key.authenticate(&opts))), "WebAuthnVerificationError");
}

/// P1: a `webauthn` account stored for a credential id, with or without
/// its passkey, is someone's: registering that credential id again signs
/// in as no one and stores nothing.
fn p1_a_registration_never_signs_in_as_the_owner_of_a_stored_credential(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({ "rateLimit": false }));
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let mut victim = sign_up(&auth, &mut key, "victim@example.com");
    let victim_id = victim.session()["user"]["id"].as_str().unwrap().to_owned();
    // The attacker's authenticator presents the victim's credential id.
    let mut attacker_key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    attacker_key.credential_id = key.credential_id.clone();
    let attempt = |key: &mut SoftAuthenticator, query: &str| {
        let mut attacker = Browser::new(&auth);
        let (_, opts) = options(&mut attacker, query);
        let res = callback(&mut attacker, "register", &key.register(&opts));
        assert!(res.status == 302 && location(&res).contains("error="), "{res:?}");
        assert!(!attacker.has_session_cookie(), "{query}: signed in");
    };
    attempt(&mut attacker_key, "email=eve@example.com");
    // The passkey removed outside libauth (an Auth.js-shaped database):
    // its account row stays, and still names no one to a registration.
    if adapter["type"] != "memory" {
        let direct = libauth_core::store::from_config(adapter, Arc::new(HookMap::new())).unwrap();
        assert!(direct.delete_authenticator(&key.credential_id_b64()).unwrap().is_some());
        assert!(direct.get_user_by_account("passkey", &key.credential_id_b64()).unwrap().is_some());
        for query in ["email=eve@example.com", "email=mallory@example.com&action=register"] {
            attempt(&mut attacker_key, query);
        }
        assert!(direct.get_authenticator(&key.credential_id_b64()).unwrap().is_none(), "the attacker's key stored");
    }
    assert!(auth.list_passkeys(&victim_id).unwrap().len() <= 1);
    // A deletion through libauth leaves neither half: the victim adds a
    // second passkey and deletes the first; its credential id is then free,
    // and a registration presenting it makes a new user, never the victim.
    let mut victim = sign_up(&auth, &mut SoftAuthenticator::new(Alg::Es256, ORIGIN), "victim2@example.com");
    let victim_id = victim.session()["user"]["id"].as_str().unwrap().to_owned();
    let first = auth.list_passkeys(&victim_id).unwrap()[0]["id"].as_str().unwrap().to_owned();
    let (_, opts) = options(&mut victim, "action=register");
    let mut second = SoftAuthenticator::new(Alg::EdDsa, ORIGIN);
    assert_eq!(callback(&mut victim, "register", &second.register(&opts)).status, 302);
    auth.delete_passkey(&victim_id, &first).unwrap();
    if adapter["type"] != "memory" {
        let direct = libauth_core::store::from_config(adapter, Arc::new(HookMap::new())).unwrap();
        assert!(direct.get_user_by_account("passkey", &first).unwrap().is_none(), "the account outlived its passkey");
    }
    let mut thief = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    use base64::Engine as _;
    thief.credential_id = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(&first).unwrap();
    let mut browser = Browser::new(&auth);
    let (_, opts) = options(&mut browser, "email=trudy@example.com");
    callback(&mut browser, "register", &thief.register(&opts));
    assert_ne!(browser.session()["user"]["id"].as_str(), Some(victim_id.as_str()));
    assert_eq!(auth.list_passkeys(&victim_id).unwrap().len(), 1);
}

/// P2: a sign-up's email is an address, checked as the email provider
/// checks it; anything else is refused before a ceremony starts.
fn p2_a_sign_up_email_must_be_an_address(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({ "rateLimit": false }));
    for bad in [
        "admin",
        "root",
        "a@b",
        "@example.com",
        "a@.example.com",
        "a@example.com.",
        "a@b@example.com",
        "a%20b@example.com",
        "%3Ca@example.com%3E",
        "a@example.com,b@example.com",
        "a;b@example.com",
    ] {
        for action in ["", "&action=register"] {
            let res = Browser::new(&auth).get(&format!("/auth/webauthn-options/passkey?email={bad}{action}"));
            assert_eq!(res.status, 400, "{bad:?}");
            assert_eq!(res.json().unwrap()["message"], "not a valid email address", "{bad:?}");
            assert!(res.headers.iter().all(|(k, v)| !k.eq_ignore_ascii_case("set-cookie") || !v.contains("challenge")));
        }
    }
    // Spaces and case are normalised, as the email provider does.
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let mut browser = Browser::new(&auth);
    let (_, opts) = options(&mut browser, "email=%20Ada@Example.COM%20");
    assert_eq!(opts["user"]["name"], "ada@example.com");
    assert_eq!(callback(&mut browser, "register", &key.register(&opts)).status, 302);
    assert_eq!(signed_in_as(&mut browser).as_deref(), Some("ada@example.com"));
}

/// P4: with JWT sessions (no database session sign-in ever purges),
/// expired challenges of anonymous options requests are purged by later
/// passkey requests.
fn p4_expired_challenges_are_purged_with_jwt_sessions(adapter: &Value) {
    let auth = engine(
        adapter.clone(),
        json!({ "rateLimit": false, "session": { "strategy": "jwt" }, "providers": [{ "type": "webauthn", "timeout": 1000 }] }),
    );
    for i in 0..300 {
        let query = if i % 2 == 0 { "" } else { "email=someone@example.com" };
        assert_eq!(Browser::new(&auth).get(&format!("/auth/webauthn-options/passkey?{query}")).status, 200);
    }
    std::thread::sleep(std::time::Duration::from_millis(1200));
    // A later request: the expired rows go.
    assert_eq!(Browser::new(&auth).get("/auth/webauthn-options/passkey").status, 200);
    let left = auth.purge_expired().unwrap().verification_tokens;
    assert_eq!(left, 0, "expired challenges still stored after a later options request");
    // And a later callback purges too (a sign-in with JWT sessions).
    for _ in 0..50 {
        Browser::new(&auth).get("/auth/webauthn-options/passkey");
    }
    std::thread::sleep(std::time::Duration::from_millis(1200));
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let mut browser = Browser::new(&auth);
    let (_, opts) = options(&mut browser, "email=ada@example.com");
    std::thread::sleep(std::time::Duration::from_millis(0));
    assert_eq!(callback(&mut browser, "register", &key.register(&opts)).status, 302);
    assert_eq!(auth.purge_expired().unwrap().verification_tokens, 0);
}

/// Attestation format `none` carries an empty statement; one with a
/// statement is refused and creates no user.
fn attestation_none_with_a_statement_is_refused(adapter: &Value) {
    use serde_cbor_2::Value as Cbor;
    let auth = engine(adapter.clone(), json!({ "rateLimit": false }));
    let statements: [(&str, Cbor); 3] = [
        ("sig", Cbor::Bytes(vec![1, 2, 3])),
        ("alg", Cbor::Integer((-7).into())),
        ("x5c", Cbor::Array(vec![Cbor::Bytes(vec![0x30])])),
    ];
    for (field, value) in statements {
        let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
        key.att_stmt.insert(Cbor::Text(field.into()), value);
        let mut browser = Browser::new(&auth);
        let (_, opts) = options(&mut browser, "email=ada@example.com");
        let res = callback(&mut browser, "register", &key.register(&opts));
        assert_eq!(error_of(&res), "WebAuthnVerificationError", "{field}");
        assert!(!browser.has_session_cookie());
    }
    assert!(email_is_free(&auth, "ada@example.com"), "a user was created");
}

fn a_signed_in_user_adds_a_passkey_and_must_say_which_action(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({}));
    let mut browser = Browser::new(&auth);
    let mut first = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let (_, opts) = options(&mut browser, "email=ada@example.com");
    callback(&mut browser, "register", &first.register(&opts));
    let user_id = browser.session()["user"]["id"].as_str().unwrap().to_owned();

    // Signed in, no action: which one is ambiguous.
    let res = browser.get("/auth/webauthn-options/passkey");
    assert_eq!(res.status, 400);
    let (action, opts) = options(&mut browser, "action=register");
    assert_eq!(action, "register");
    assert_eq!(opts["excludeCredentials"][0]["id"], first.credential_id_b64(), "no second copy of a passkey");
    let mut second = SoftAuthenticator::new(Alg::EdDsa, ORIGIN);
    let res = callback(&mut browser, "register", &second.register(&opts));
    assert_eq!(res.status, 302, "{res:?}");
    let listed = auth.list_passkeys(&user_id).unwrap();
    assert_eq!(listed.len(), 2);
    // Both sign the same user in.
    for key in [&mut first, &mut second] {
        let mut b = Browser::new(&auth);
        let (_, opts) = options(&mut b, "");
        callback(&mut b, "authenticate", &key.authenticate(&opts));
        assert_eq!(b.session()["user"]["id"], user_id);
    }
}

/// The password provider's account page lists the user's passkeys with a
/// button that removes each, and a form the browser module drives to add
/// one (the page then allows that script by its hash); removing goes back
/// to the page with a notice, and the last way to sign in is kept.
fn the_account_page_adds_and_removes_passkeys(adapter: &Value) {
    let providers =
        json!([{ "type": "webauthn" }, { "type": "password", "argon2": { "memoryKib": 64, "iterations": 1 } }]);
    let mail = HookMap::new().on("providers.password.sendEmail", |_| Ok(Value::Null));
    let extra = json!({ "providers": providers, "session": { "strategy": "database" } });
    let auth = engine_with(adapter.clone(), extra, mail);
    let mut browser = Browser::new(&auth);
    let mut first = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let (_, opts) = options(&mut browser, "email=ada@example.com");
    callback(&mut browser, "register", &first.register(&opts));
    let user_id = browser.session()["user"]["id"].as_str().unwrap().to_owned();

    let page = browser.get("/auth/password/account");
    assert_eq!(page.status, 200);
    let html = page.body_str();
    assert!(html.contains("<h2>Passkeys</h2>") && html.contains(r#"data-webauthn-action="register""#), "{html}");
    assert!(html.contains(r#"data-callback-url="http://localhost:3000/auth/account?notice=passkey-added""#));
    assert!(html.contains(&format!(r#"name="id" value="{}""#, first.credential_id_b64())), "the passkey is listed");
    let csp = page.header("content-security-policy").unwrap_or_default();
    assert!(csp.contains("script-src 'sha256-") && html.contains(r#"<script type="module">"#), "{csp}");

    // What the module does on "Add a passkey": a registration for the signed-in user.
    let (action, opts) = options(&mut browser, "action=register");
    assert_eq!(action, "register");
    let mut second = SoftAuthenticator::new(Alg::EdDsa, ORIGIN);
    assert_eq!(callback(&mut browser, "register", &second.register(&opts)).status, 302);
    assert_eq!(auth.list_passkeys(&user_id).unwrap().len(), 2);

    // Remove: back to the page; the last one (no password) stays.
    let remove = |browser: &mut Browser, id: &str| {
        let csrf = browser.csrf();
        let res = browser
            .post("/auth/passkeys", &[("action", "delete"), ("id", id), ("return", "account"), ("csrfToken", &csrf)]);
        common::location(&res).to_owned()
    };
    assert!(remove(&mut browser, &first.credential_id_b64()).ends_with("notice=passkey-removed"));
    assert_eq!(auth.list_passkeys(&user_id).unwrap().len(), 1);
    assert!(remove(&mut browser, &second.credential_id_b64()).ends_with("notice=passkey-last"));
    assert_eq!(auth.list_passkeys(&user_id).unwrap().len(), 1);
    let page = browser.get("/auth/password/account?notice=passkey-last");
    assert!(page.body_str().contains("your only way to sign in"));
    // Without the CSRF token: nothing.
    let res = browser
        .post("/auth/passkeys", &[("action", "delete"), ("id", &second.credential_id_b64()), ("return", "account")]);
    assert_ne!(res.status, 200);
    assert_eq!(auth.list_passkeys(&user_id).unwrap().len(), 1);
}

/// A signed-in user with TOTP on who adds a passkey is asked for a code
/// before it is kept (a stolen session cannot add a way in that skips the
/// second step): nothing is stored until the code is right.
fn a_passkey_added_by_a_user_with_totp_on_is_kept_only_after_the_code(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({}));
    let mut browser = Browser::new(&auth);
    let mut first = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let (_, opts) = options(&mut browser, "email=ada@example.com");
    callback(&mut browser, "register", &first.register(&opts));
    let user_id = browser.session()["user"]["id"].as_str().unwrap().to_owned();
    let key = auth.begin_totp(&user_id, "ada@example.com").unwrap()["secret"].as_str().unwrap().to_owned();
    let code = |seconds: i64| {
        let raw = totp_rs::Secret::Encoded(key.clone()).to_bytes().unwrap();
        let at = (libauth_core::time::now_seconds() as i64 + seconds) as u64;
        libauth_core::two_factor::TotpProfile::default().code_at(&raw, at).unwrap()
    };
    auth.confirm_totp(&user_id, &code(-30)).unwrap();

    // Abandoned at the code: nothing kept.
    let (_, opts) = options(&mut browser, "action=register");
    let mut abandoned = SoftAuthenticator::new(Alg::EdDsa, ORIGIN);
    let res = callback(&mut browser, "register", &abandoned.register(&opts));
    assert!(common::location(&res).ends_with("/auth/two-factor"), "{}", common::location(&res));
    assert_eq!(auth.list_passkeys(&user_id).unwrap().len(), 1);
    browser.jar.remove("authjs.two-factor");

    // With the code: kept.
    let (_, opts) = options(&mut browser, "action=register");
    let mut second = SoftAuthenticator::new(Alg::EdDsa, ORIGIN);
    callback(&mut browser, "register", &second.register(&opts));
    assert_eq!(auth.list_passkeys(&user_id).unwrap().len(), 1, "not before the code");
    let csrf = browser.csrf();
    let res = browser.post("/auth/two-factor", &[("code", &code(0)), ("csrfToken", &csrf)]);
    assert_eq!(res.status, 302, "{}", res.body_str());
    assert_eq!(auth.list_passkeys(&user_id).unwrap().len(), 2);
    assert_eq!(browser.session()["amr"], json!(["mfa", "otp"]));
    // It signs in, as both factors (the provider requires user verification).
    let mut other = Browser::new(&auth);
    let (_, opts) = options(&mut other, "");
    let res = callback(&mut other, "authenticate", &second.authenticate(&opts));
    assert!(common::location(&res).ends_with("/after"), "{}", common::location(&res));
    assert_eq!(other.session()["amr"], json!(["mfa"]));
}

fn a_challenge_signs_in_once_even_with_a_zero_counter(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({}));
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    key.counts = false; // counter stays 0: the counter check cannot help
    let mut browser = Browser::new(&auth);
    let (_, opts) = options(&mut browser, "email=ada@example.com");
    callback(&mut browser, "register", &key.register(&opts));

    let mut victim = Browser::new(&auth);
    let (_, opts) = options(&mut victim, "");
    let assertion = key.authenticate(&opts);
    let captured = victim.jar.clone();
    let res = callback(&mut victim, "authenticate", &assertion);
    assert_eq!(res.status, 302);
    assert!(victim.has_session_cookie());
    // The attacker replays the captured challenge cookie and assertion.
    let mut attacker = Browser::new(&auth);
    attacker.jar = captured;
    attacker.jar.retain(|k, _| !k.contains("session-token"));
    let res = callback(&mut attacker, "authenticate", &assertion);
    assert_eq!(error_of(&res), "WebAuthnVerificationError");
    assert!(!attacker.has_session_cookie());
}

fn the_passkey_callback_checks_the_csrf_token(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({}));
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let mut browser = Browser::new(&auth);
    let (_, opts) = options(&mut browser, "email=ada@example.com");
    let data = key.register(&opts).to_string();
    let res = browser.post("/auth/callback/passkey", &[("action", "register"), ("data", &data)]);
    assert_eq!(error_of(&res), "MissingCSRF");
    assert!(!browser.has_session_cookie());
}

fn a_counter_that_goes_back_is_a_cloned_authenticator(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({}));
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let mut browser = Browser::new(&auth);
    let (_, opts) = options(&mut browser, "email=ada@example.com");
    callback(&mut browser, "register", &key.register(&opts));
    key.counter = 10;
    let mut b = Browser::new(&auth);
    let (_, opts) = options(&mut b, "");
    callback(&mut b, "authenticate", &key.authenticate(&opts)); // 11
    assert!(b.has_session_cookie());
    key.counter = 3; // the clone is behind
    let mut b = Browser::new(&auth);
    let (_, opts) = options(&mut b, "");
    let res = callback(&mut b, "authenticate", &key.authenticate(&opts));
    assert_eq!(error_of(&res), "WebAuthnVerificationError");
    assert!(!b.has_session_cookie());
}

/// Each broken registration: the error page, no session, no user.
fn broken_registrations_are_refused_and_leave_nothing(adapter: &Value) {
    type Breaker = fn(&mut SoftAuthenticator);
    let cases: [(&str, Breaker); 4] = [
        ("wrong origin", |k| k.origin = "https://evil.example".into()),
        ("wrong RP ID", |k| k.rp_id = "evil.example".into()),
        ("no user verification", |k| k.user_verified = false),
        ("an algorithm not offered (ES384)", |k| *k = SoftAuthenticator::new(Alg::Es384, ORIGIN)),
    ];
    for (i, (what, brk)) in cases.into_iter().enumerate() {
        let auth = engine(adapter.clone(), json!({}));
        let mut browser = Browser::new(&auth);
        let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
        brk(&mut key);
        let email = format!("ada{i}@example.com");
        let (_, opts) = options(&mut browser, &format!("email={email}"));
        let res = callback(&mut browser, "register", &key.register(&opts));
        assert_eq!(error_of(&res), "WebAuthnVerificationError", "{what}");
        assert!(!browser.has_session_cookie(), "{what}");
        // Nobody was created: the address still signs up.
        assert!(email_is_free(&auth, &email), "{what}: a half-created user");
    }
}

#[test]
fn user_verification_preferred_accepts_presence_only() {
    let auth = engine(memory(), json!({ "providers": [{ "type": "webauthn", "userVerification": "preferred" }] }));
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    key.user_verified = false;
    let mut browser = Browser::new(&auth);
    let (_, opts) = options(&mut browser, "email=ada@example.com");
    assert_eq!(opts["authenticatorSelection"]["userVerification"], "preferred");
    let res = callback(&mut browser, "register", &key.register(&opts));
    assert_eq!(res.status, 302);
    assert!(browser.has_session_cookie());
}

fn broken_assertions_are_refused(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({}));
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let mut browser = Browser::new(&auth);
    let (_, opts) = options(&mut browser, "email=ada@example.com");
    callback(&mut browser, "register", &key.register(&opts));

    let attempt = |tamper: &dyn Fn(&mut Value), key: &mut SoftAuthenticator| {
        let mut b = Browser::new(&auth);
        let (_, opts) = options(&mut b, "");
        let mut assertion = key.authenticate(&opts);
        tamper(&mut assertion);
        let res = callback(&mut b, "authenticate", &assertion);
        assert!(res.status < 500);
        (error_of(&res), b.has_session_cookie())
    };
    use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
    use base64::Engine as _;
    type Tamper = Box<dyn Fn(&mut Value)>;
    let cases: Vec<(&str, Tamper)> = vec![
        (
            "tampered clientDataJSON",
            Box::new(|a| {
                let cd = B64.decode(a["response"]["clientDataJSON"].as_str().unwrap()).unwrap();
                let mut cd: Value = serde_json::from_slice(&cd).unwrap();
                cd["origin"] = "https://evil.example".into();
                a["response"]["clientDataJSON"] = B64.encode(cd.to_string()).into();
            }),
        ),
        ("bad signature", Box::new(|a| a["response"]["signature"] = B64.encode([0x30, 0x06, 2, 1, 1, 2, 1, 1]).into())),
        (
            "unknown credential",
            Box::new(|a| {
                let id = B64.encode(b"no such credential");
                a["id"] = id.clone().into();
                a["rawId"] = id.into();
            }),
        ),
        ("another user's handle", Box::new(|a| a["response"]["userHandle"] = B64.encode("someone-else").into())),
        ("not base64", Box::new(|a| a["response"]["authenticatorData"] = "!!!".into())),
        ("a wrong type", Box::new(|a| a["response"] = json!(7))),
    ];
    for (what, tamper) in cases {
        let (error, session) = attempt(tamper.as_ref(), &mut key);
        assert_eq!(error, "WebAuthnVerificationError", "{what}");
        assert!(!session, "{what}");
    }
    // And the genuine assertion still works after all that.
    let (_, ok) = {
        let mut b = Browser::new(&auth);
        let (_, opts) = options(&mut b, "");
        let res = callback(&mut b, "authenticate", &key.authenticate(&opts));
        (res.status, b.has_session_cookie())
    };
    assert!(ok);
}

fn a_stale_or_missing_challenge_is_refused(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({}));
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let mut browser = Browser::new(&auth);
    let (_, opts) = options(&mut browser, "email=ada@example.com");
    let credential = key.register(&opts);
    browser.jar.retain(|k, _| !k.contains("challenge"));
    let res = callback(&mut browser, "register", &credential);
    assert_eq!(error_of(&res), "WebAuthnVerificationError");
    // A cookie for another ceremony: an authentication challenge sent
    // with a registration.
    let _ = options(&mut browser, "");
    let res = callback(&mut browser, "register", &credential);
    assert_eq!(error_of(&res), "WebAuthnVerificationError");
}

fn a_registration_replayed_or_sent_for_another_user_attaches_nowhere(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({}));
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let mut ada = Browser::new(&auth);
    let (_, opts) = options(&mut ada, "email=ada@example.com");
    let registration = key.register(&opts);
    let captured = ada.jar.clone();
    assert_eq!(callback(&mut ada, "register", &registration).status, 302);
    // Replayed as is: the challenge is spent.
    let mut eve = Browser::new(&auth);
    eve.jar = captured;
    let res = callback(&mut eve, "register", &registration);
    assert_eq!(error_of(&res), "WebAuthnVerificationError");
    // The same credential id registered afresh for another user: refused,
    // and that user is not left half-created.
    let mut eve = Browser::new(&auth);
    let (_, opts) = options(&mut eve, "email=eve@example.com");
    let res = callback(&mut eve, "register", &key.register(&opts));
    assert_eq!(error_of(&res), "WebAuthnVerificationError");
    assert!(!eve.has_session_cookie());
    assert!(email_is_free(&auth, "eve@example.com"), "eve was left half-created");
}

fn an_unreadable_session_cookie_on_options_is_signed_out(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({}));
    let mut browser = Browser::new(&auth);
    browser.jar.insert("authjs.session-token".into(), "garbage.not.a.jwe".into());
    let (action, _) = options(&mut browser, "");
    assert_eq!(action, "authenticate");
}

#[test]
fn ecdsa_signatures_verify_whatever_the_length_of_r_and_s() {
    // DER drops leading zero bytes, so about 1 signature in 128 has a
    // 31-byte r or s; every one must verify.
    let auth = engine(memory(), json!({ "rateLimit": false }));
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let mut browser = Browser::new(&auth);
    let (_, opts) = options(&mut browser, "email=ada@example.com");
    callback(&mut browser, "register", &key.register(&opts));
    let mut short = 0;
    for _ in 0..300 {
        let mut b = Browser::new(&auth);
        let (_, opts) = options(&mut b, "");
        let assertion = key.authenticate(&opts);
        use base64::Engine as _;
        let sig = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(assertion["response"]["signature"].as_str().unwrap())
            .unwrap();
        if sig.len() < 70 {
            short += 1;
        }
        let res = callback(&mut b, "authenticate", &assertion);
        assert!(b.has_session_cookie(), "assertion with a {}-byte signature refused: {res:?}", sig.len());
    }
    eprintln!("{short} of 300 signatures had a short r or s");
}

fn passkeys_are_listed_renamed_and_the_last_one_kept(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({}));
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let mut browser = Browser::new(&auth);
    let (_, opts) = options(&mut browser, "email=ada@example.com");
    callback(&mut browser, "register", &key.register(&opts));
    let id = key.credential_id_b64();

    let res = browser.get("/auth/passkeys");
    assert_eq!(res.status, 200);
    let list: Value = res.json().unwrap();
    assert_eq!(list["passkeys"][0]["id"], id);
    assert!(list["passkeys"][0].get("credentialPublicKey").is_none());
    let csrf = browser.csrf();
    let res =
        browser.post("/auth/passkeys", &[("action", "rename"), ("id", &id), ("name", "Laptop"), ("csrfToken", &csrf)]);
    assert_eq!(res.status, 200, "{}", String::from_utf8_lossy(&res.body));
    assert_eq!(res.json().unwrap()["passkey"]["name"], "Laptop");
    // Renaming without the CSRF token is refused.
    let res = browser.post("/auth/passkeys", &[("action", "rename"), ("id", &id), ("name", "x")]);
    assert!(res.status == 302 && error_of(&res) == "MissingCSRF");
    // The only way in: not deleted.
    let res = browser.post("/auth/passkeys", &[("action", "delete"), ("id", &id), ("csrfToken", &csrf)]);
    assert_eq!(res.status, 409);
    assert_eq!(res.json().unwrap()["error"], "LastSignInMethod");
    // Another user cannot touch it.
    let mut eve = Browser::new(&auth);
    let mut eve_key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let (_, opts) = options(&mut eve, "email=eve@example.com");
    callback(&mut eve, "register", &eve_key.register(&opts));
    let eve_id = eve.session()["user"]["id"].as_str().unwrap().to_owned();
    assert!(auth.delete_passkey(&eve_id, &id).is_err());
    assert!(auth.rename_passkey(&eve_id, &id, Some("mine")).is_err());
    // Signed out: 401.
    assert_eq!(Browser::new(&auth).get("/auth/passkeys").status, 401);
}

fn a_second_passkey_can_be_deleted(adapter: &Value) {
    let auth = engine(adapter.clone(), json!({}));
    let mut first = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let mut browser = Browser::new(&auth);
    let (_, opts) = options(&mut browser, "email=ada@example.com");
    callback(&mut browser, "register", &first.register(&opts));
    let (_, opts) = options(&mut browser, "action=register");
    let mut second = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    callback(&mut browser, "register", &second.register(&opts));
    let user = browser.session()["user"]["id"].as_str().unwrap().to_owned();
    auth.delete_passkey(&user, &first.credential_id_b64()).unwrap();
    assert_eq!(auth.list_passkeys(&user).unwrap().len(), 1);
    // The deleted one signs in no more.
    let mut b = Browser::new(&auth);
    let (_, opts) = options(&mut b, "");
    let res = callback(&mut b, "authenticate", &first.authenticate(&opts));
    assert_eq!(error_of(&res), "WebAuthnVerificationError");
}

#[test]
fn passkey_options_and_verification_are_rate_limited() {
    let auth = engine(memory(), json!({ "rateLimit": { "passkey": { "window": 60, "max": 2, "maxPerIp": 3 } } }));
    let mut browser = Browser::new(&auth);
    // Per email (however it is spelt): the third options request for one
    // address is refused.
    for email in ["ada@example.com", "ADA@example.com"] {
        assert_eq!(browser.get(&format!("/auth/webauthn-options/passkey?email={email}")).status, 200);
    }
    let mut json_client = Browser::new(&auth);
    json_client.extra_headers.push(("accept".into(), "application/json".into()));
    let res = json_client.get("/auth/webauthn-options/passkey?email=%20Ada@Example.com");
    assert_eq!(res.status, 429);
    assert!(res.header("retry-after").is_some());
    assert_eq!(res.json().unwrap()["error"], "RateLimited");
    // Per IP: the verification counts too; the fourth request from one
    // address is refused whatever it is.
    let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
    let res = callback(&mut browser, "register", &key.register(&json!({ "challenge": "x", "user": { "id": "eA" } })));
    assert_eq!(res.status, 429, "the third request from this IP");
    let mut elsewhere = Browser::new(&auth);
    elsewhere.extra_headers.push(("x-test".into(), "1".into()));
    let req = AuthRequest {
        remote_address: Some("10.9.8.7".into()),
        ..AuthRequest::get(format!("{ORIGIN}/auth/webauthn-options/passkey"))
    };
    assert_eq!(elsewhere.send(req).status, 200, "another client is not limited");
}

#[test]
fn config_errors_name_the_option() {
    let build = |config: Value| {
        Auth::with_env(Config::from_value(config).unwrap(), Arc::new(HookMap::new()), &std::collections::HashMap::new())
            .err()
            .expect("refused")
    };
    let e = build(json!({ "secret": SECRET, "adapter": memory(), "providers": [{ "type": "webauthn" }] }));
    assert_eq!(e.kind.map(|k| k.as_str()), Some("ExperimentalFeatureNotEnabled"));
    assert_eq!(e.option, "experimental.enableWebAuthn");
    let e = build(
        json!({ "secret": SECRET, "experimental": { "enableWebAuthn": true }, "providers": [{ "type": "webauthn" }] }),
    );
    assert_eq!(e.kind.map(|k| k.as_str()), Some("MissingAdapter"));
    let e = build(json!({ "secret": SECRET, "experimental": { "enableWebAuthn": true }, "adapter": memory(),
                          "providers": [{ "type": "webauthn", "relayingParty": { "id": "other.example", "origin": "https://app.example.com" } }] }));
    assert_eq!(e.option, "providers[0].relayingParty.id");
    let e = build(json!({ "secret": SECRET, "experimental": { "enableWebAuthn": true }, "adapter": memory(),
                          "providers": [{ "type": "webauthn", "userVerification": "never" }] }));
    assert_eq!(e.option, "providers[0].userVerification");
}

/// P1: a host adapter that could not delete a passkey whole (its account
/// unlinked, the passkey deleted) is refused when passkeys are on, naming
/// what it lacks.
#[test]
fn p1_a_host_adapter_without_the_delete_methods_is_a_config_error() {
    // Every adapter method the engine knows, passkeys' included.
    let methods: Vec<&str> =
        libauth_core::store::METHODS.iter().chain(&libauth_core::store::AUTHENTICATOR_METHODS).copied().collect();
    let build = |skip: &[&str]| {
        let mut hooks = HookMap::new();
        for m in methods.iter().filter(|m| !skip.contains(m)) {
            hooks = hooks.on(&format!("adapter.{m}"), |_| Ok(Value::Null));
        }
        let config = json!({ "secret": SECRET, "experimental": { "enableWebAuthn": true }, "adapter": { "type": "host" },
                             "providers": [{ "type": "webauthn" }] });
        Auth::with_env(Config::from_value(config).unwrap(), Arc::new(hooks), &std::collections::HashMap::new())
    };
    assert!(build(&[]).is_ok());
    for skip in [&["unlinkAccount"][..], &["deleteAuthenticator"], &["unlinkAccount", "deleteAuthenticator"]] {
        let e = build(skip).err().expect("refused");
        assert_eq!(e.kind.map(|k| k.as_str()), Some("MissingAdapterMethods"), "{skip:?}");
        for m in skip {
            assert!(e.message.contains(&format!("adapter.{m}")), "{skip:?}: {}", e.message);
        }
    }
}

#[test]
fn the_sign_in_page_offers_passkeys_under_a_hash_only_csp() {
    let auth = engine(memory(), json!({}));
    let res = Browser::new(&auth).get("/auth/signin");
    let html = String::from_utf8(res.body.clone()).unwrap();
    assert!(html.contains(r#"autocomplete="username webauthn""#));
    assert!(html.contains(r#"data-webauthn-provider="passkey""#));
    let csp = res.header("content-security-policy").unwrap();
    assert!(csp.contains("script-src 'sha256-") && !csp.contains("unsafe-inline'; img") || csp.contains("style-src"));
    assert!(!csp.contains("script-src 'self'") && !csp.contains("script-src 'unsafe-inline'"));
    // The hash is the inline script's.
    let start = html.find("<script type=\"module\">").unwrap() + "<script type=\"module\">".len();
    let end = html[start..].find("</script>").unwrap() + start;
    use base64::Engine as _;
    use sha2::Digest as _;
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(&html.as_bytes()[start..end]));
    assert!(csp.contains(&format!("'sha256-{hash}'")), "{csp}");
    // And the module is served for custom pages.
    let res = Browser::new(&auth).get("/auth/webauthn.js");
    assert_eq!(res.status, 200);
    assert!(res.header("content-type").unwrap().starts_with("text/javascript"));
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        /// Whatever the callback is sent, it answers without a 5xx and
        /// signs no one in.
        #[test]
        fn the_callback_never_fails_open(data in ".{0,300}", action in prop_oneof!["register", "authenticate", ".{0,12}"]) {
            let auth = engine(memory(), json!({ "rateLimit": false }));
            let mut browser = Browser::new(&auth);
            let _ = browser.get("/auth/webauthn-options/passkey?email=a@example.com");
            let res = callback_raw(&mut browser, &action, &data);
            prop_assert!(res.status < 500);
            prop_assert!(!browser.has_session_cookie());
        }

        /// JSON of roughly the right shape, with wrong types and junk inside.
        #[test]
        fn shaped_junk_is_refused(id in "[A-Za-z0-9_-]{0,40}", field in any::<Option<i64>>(), junk in "[A-Za-z0-9_-]{0,200}") {
            let auth = engine(memory(), json!({ "rateLimit": false }));
            let mut browser = Browser::new(&auth);
            let (_, _opts) = options(&mut browser, "");
            let assertion = json!({ "id": id, "rawId": id, "type": "public-key",
                "response": { "clientDataJSON": junk, "authenticatorData": junk, "signature": field, "userHandle": null } });
            let res = callback(&mut browser, "authenticate", &assertion);
            prop_assert!(res.status < 500);
            prop_assert!(!browser.has_session_cookie());
        }

        /// H1 over the class: for any two addresses, one signed up and one
        /// not, and any action asked, the signed-out answers look alike.
        #[test]
        fn h1_options_do_not_depend_on_account_existence(
            known in "[a-z0-9._+-]{1,12}@[a-z0-9-]{1,10}\\.(com|org|example)",
            unknown in "[a-z0-9._+-]{1,12}@[a-z0-9-]{1,10}\\.(com|org|example)",
            action in prop_oneof![Just(""), Just("&action=register"), Just("&action=authenticate")],
        ) {
            prop_assume!(known != unknown && !known.contains(&unknown) && !unknown.contains(&known));
            let auth = engine(memory(), json!({ "rateLimit": false }));
            let mut key = SoftAuthenticator::new(Alg::Es256, ORIGIN);
            sign_up_encoded(&auth, &mut key, &known);
            let q = |e: &str| url::form_urlencoded::byte_serialize(e.as_bytes()).collect::<String>();
            let a = shape_of(&auth, &format!("email={}{action}", q(&known)), &known);
            let b = shape_of(&auth, &format!("email={}{action}", q(&unknown)), &unknown);
            prop_assert_eq!(&a, &b);
            prop_assert!(!a.1.contains(&key.credential_id_b64()));
        }

        /// P2 over the class: a string without exactly one `@` between a
        /// non-empty local part and a dotted domain never starts a sign-up.
        #[test]
        fn p2_a_non_address_never_starts_a_sign_up(
            junk in "[a-zA-Z0-9 ._+<>()!,;-]{1,40}",
            domain in "[a-z0-9-]{0,10}",
            action in prop_oneof![Just(""), Just("&action=register")],
        ) {
            let auth = engine(memory(), json!({ "rateLimit": false }));
            for email in [junk.clone(), format!("{junk}@{domain}"), format!("@{domain}.com"), format!("{junk}@@{domain}.com")] {
                let q: String = url::form_urlencoded::byte_serialize(email.as_bytes()).collect();
                let res = Browser::new(&auth).get(&format!("/auth/webauthn-options/passkey?email={q}{action}"));
                if email.trim().is_empty() {
                    continue;
                }
                prop_assert_eq!(res.status, 400, "{:?} was accepted", email);
            }
        }

        /// Any query to the options route: no 5xx.
        #[test]
        fn options_queries_never_fail(query in "[ -~]{0,120}") {
            let auth = engine(memory(), json!({ "rateLimit": false }));
            let mut browser = Browser::new(&auth);
            let url = format!("{ORIGIN}/auth/webauthn-options/passkey?{query}");
            let Ok(req) = std::panic::catch_unwind(|| AuthRequest::get(url)) else { return Ok(()) };
            let res = browser.send(req);
            prop_assert!(res.status < 500, "{} {:?}", res.status, String::from_utf8_lossy(&res.body));
        }
    }
}
