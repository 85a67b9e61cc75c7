//! Email + password accounts (the `password` provider), through the
//! engine's routes as a browser uses them: sign-up, verification, sign-in,
//! forgotten password, change of password and address, deletion. Mail goes
//! through the provider's `sendEmail` hook, recorded in a mailbox; the
//! SMTP path is in `email_smtp.rs`.

mod common;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use common::{location, Browser, ORIGIN, SECRET};
use libauth_core::store::{AccountStore, SqliteAdapter, UserStore};
use libauth_core::{Auth, AuthResponse, Config, HookMap};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Every mail the provider sent: (kind, to, url).
type Mailbox = Arc<Mutex<Vec<(String, String, Option<String>)>>>;

/// Small Argon2 parameters keep the tests quick; one test uses the defaults.
fn provider(extra: Value) -> Value {
    let mut p = json!({ "type": "password", "argon2": { "memoryKib": 64, "iterations": 1 } });
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        p[k] = v;
    }
    p
}

fn engine_with(config: Value, mailbox: &Mailbox, extra_hooks: HookMap) -> Auth {
    let mailbox = mailbox.clone();
    let hooks = extra_hooks.on("providers.password.sendEmail", move |args| {
        let to = args["to"].as_str().unwrap_or_default().to_owned();
        let url = args["url"].as_str().map(str::to_owned);
        mailbox.lock().unwrap().push((args["kind"].as_str().unwrap_or_default().to_owned(), to, url));
        Ok(Value::Null)
    });
    let mut base = json!({ "secret": SECRET, "trustHost": true, "adapter": { "type": "memory" },
                           "session": { "strategy": "database" } });
    for (k, v) in config.as_object().cloned().unwrap_or_default() {
        base[k] = v;
    }
    Auth::with_env(Config::from_value(base).expect("valid config"), Arc::new(hooks), &HashMap::new())
        .expect("engine builds")
}

fn engine(p: Value, mailbox: &Mailbox) -> Auth {
    engine_with(json!({ "providers": [p] }), mailbox, HookMap::new())
}

fn mails(mailbox: &Mailbox) -> Vec<(String, String, Option<String>)> {
    std::mem::take(&mut *mailbox.lock().unwrap())
}

/// The path and query of a mailed link (the browser follows it).
fn path_of(url: &str) -> String {
    url.strip_prefix(ORIGIN).expect("a link to our origin").to_owned()
}

fn sign_up(b: &mut Browser, email: &str, password: &str) -> AuthResponse {
    let csrf = b.csrf();
    b.post("/auth/password/signup", &[("email", email), ("password", password), ("name", "Ada"), ("csrfToken", &csrf)])
}

fn sign_in(b: &mut Browser, email: &str, password: &str) -> AuthResponse {
    let csrf = b.csrf();
    b.post(
        "/auth/callback/password",
        &[("email", email), ("password", password), ("csrfToken", &csrf), ("callbackUrl", "/home")],
    )
}

/// A response without what differs per request anyway (cookies, and the
/// CSRF token in a page).
fn comparable(res: &AuthResponse) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let headers =
        res.headers.iter().filter(|(k, _)| !k.eq_ignore_ascii_case("set-cookie")).cloned().collect::<Vec<_>>();
    (res.status, headers, res.body.clone())
}

/// Sign up in `b` and follow the verification link: a verified, signed-in user.
fn verified_user<'a>(auth: &'a Auth, mailbox: &Mailbox, email: &str, password: &str) -> Browser<'a> {
    let mut b = Browser::new(auth);
    assert_eq!(sign_up(&mut b, email, password).status, 302);
    let (kind, _, url) = mails(mailbox).pop().expect("a verification mail");
    assert_eq!(kind, "verify-email");
    let res = b.get(&path_of(&url.unwrap()));
    assert_eq!(res.status, 302, "{res:?}");
    assert!(b.has_session_cookie());
    b
}

#[test]
fn sign_up_verify_then_sign_in() {
    let mailbox = Mailbox::default();
    let auth = engine(provider(json!({})), &mailbox);
    let mut b = Browser::new(&auth);

    let res = sign_up(&mut b, "Ada@Example.com", "correct horse battery");
    assert_eq!(res.status, 302);
    assert!(location(&res).contains("/auth/verify-request?provider=password&type=password"), "{}", location(&res));
    assert!(!b.has_session_cookie(), "no session before the address is proven");
    let sent = mails(&mailbox);
    assert_eq!(sent.len(), 1);
    assert_eq!((sent[0].0.as_str(), sent[0].1.as_str()), ("verify-email", "ada@example.com"));

    // Signing in before verifying: refused, with a new link.
    let res = sign_in(&mut b, "ada@example.com", "correct horse battery");
    assert!(location(&res).contains("error=CredentialsSignin&code=email_not_verified"), "{}", location(&res));
    assert!(!b.has_session_cookie());
    let resent = mails(&mailbox);
    assert_eq!(resent.len(), 1, "a new verification link");

    // The first link is still good (issued under the same password).
    let res = b.get(&path_of(sent[0].2.as_deref().unwrap()));
    assert_eq!(res.status, 302, "{res:?}");
    assert!(b.has_session_cookie());
    let session = b.session();
    assert_eq!(session["user"]["email"], "ada@example.com");
    // Single use.
    let res = b.get(&path_of(sent[0].2.as_deref().unwrap()));
    assert!(location(&res).contains("error=Verification"), "{}", location(&res));

    // A fresh browser: wrong password, then the right one in another case.
    let mut other = Browser::new(&auth);
    let res = sign_in(&mut other, "ada@example.com", "wrong password!");
    assert!(location(&res).contains("error=CredentialsSignin&code=credentials"), "{}", location(&res));
    let res = sign_in(&mut other, " ADA@example.COM", "correct horse battery");
    assert_eq!(location(&res), format!("{ORIGIN}/home"));
    assert_eq!(other.session()["user"]["email"], "ada@example.com");
}

#[test]
fn the_provider_is_credentials_on_the_wire_and_the_sign_in_page_has_its_form() {
    let mailbox = Mailbox::default();
    let auth = engine(provider(json!({})), &mailbox);
    let mut b = Browser::new(&auth);
    let providers = b.get("/auth/providers").json().unwrap();
    assert_eq!(providers["password"]["type"], "credentials");
    assert_eq!(providers["password"]["callbackUrl"], format!("{ORIGIN}/auth/callback/password"));
    let page = String::from_utf8(b.get("/auth/signin").body).unwrap();
    assert!(page.contains(r#"name="password" type="password" autocomplete="current-password""#), "{page}");
    assert!(page.contains("/auth/password/forgot") && page.contains("/auth/password/signup"));
    for path in ["/auth/password/signup", "/auth/password/forgot", "/auth/password/reset?token=x&email=a%40b.co"] {
        let res = b.get(path);
        assert_eq!(res.status, 200, "{path}");
        assert!(res.header("content-security-policy").unwrap().contains("default-src 'none'"));
        assert!(!String::from_utf8(res.body).unwrap().contains("<script"), "{path}: no script");
    }
    // Signed out, the account page sends the browser to sign in.
    assert!(location(&b.get("/auth/password/account")).contains("/auth/signin?callbackUrl="));
}

#[test]
fn answers_say_nothing_about_which_addresses_have_accounts() {
    let mailbox = Mailbox::default();
    let auth = engine(provider(json!({})), &mailbox);
    let mut owner = verified_user(&auth, &mailbox, "taken@example.com", "the owner's password");
    let _ = owner.session();

    // Sign-up: a taken address and a new one get the same answer.
    let mut b = Browser::new(&auth);
    let taken = sign_up(&mut b, "taken@example.com", "an attacker's password");
    let mut c = Browser::new(&auth);
    let fresh = sign_up(&mut c, "fresh@example.com", "a newcomer's password");
    assert_eq!(comparable(&taken), comparable(&fresh));
    let sent = mails(&mailbox);
    let kinds: Vec<(&str, &str)> = sent.iter().map(|(k, to, _)| (k.as_str(), to.as_str())).collect();
    assert_eq!(kinds, [("account-exists", "taken@example.com"), ("verify-email", "fresh@example.com")]);
    // The attacker's password does not sign in to the owner's account.
    let res = sign_in(&mut b, "taken@example.com", "an attacker's password");
    assert!(location(&res).contains("error=CredentialsSignin"));

    // Forgotten password: the same answer for any address; mail only to an account.
    let forgot = |b: &mut Browser, email: &str| {
        let csrf = b.csrf();
        b.post("/auth/password/forgot", &[("email", email), ("csrfToken", &csrf)])
    };
    let known = forgot(&mut b, "taken@example.com");
    let unknown = forgot(&mut c, "nobody@example.com");
    assert_eq!(comparable(&known), comparable(&unknown));
    assert_eq!(mails(&mailbox).len(), 1);

    // Sign-in: an unknown address and a wrong password, the same answer.
    let mut d = Browser::new(&auth);
    let wrong = sign_in(&mut d, "taken@example.com", "not the password");
    let mut e = Browser::new(&auth);
    let nobody = sign_in(&mut e, "nobody@example.com", "not the password");
    assert_eq!(comparable(&wrong), comparable(&nobody));
}

#[test]
fn a_reset_link_sets_a_new_password_once_and_ends_every_session() {
    let mailbox = Mailbox::default();
    let auth = engine(provider(json!({})), &mailbox);
    let mut signed_in = verified_user(&auth, &mailbox, "ada@example.com", "the old password");
    assert!(signed_in.session()["user"].is_object());

    let mut b = Browser::new(&auth);
    let forgot = |b: &mut Browser| {
        let csrf = b.csrf();
        b.post("/auth/password/forgot", &[("email", "ada@example.com"), ("csrfToken", &csrf)]);
        mails(&mailbox).pop().expect("a reset mail").2.expect("a link")
    };
    let first = forgot(&mut b);
    let second = forgot(&mut b);
    let page = b.get(&path_of(&first));
    assert_eq!(page.status, 200);
    let html = String::from_utf8(page.body).unwrap();
    let token = url::Url::parse(&first).unwrap().query_pairs().find(|(k, _)| k == "token").unwrap().1.into_owned();
    assert!(html.contains(&format!(r#"name="token" value="{token}""#)));

    let reset = |b: &mut Browser, token: &str, password: &str| {
        let csrf = b.csrf();
        b.post(
            "/auth/password/reset",
            &[("token", token), ("email", "ada@example.com"), ("password", password), ("csrfToken", &csrf)],
        )
    };
    // Refused by the policy: the page again, the token still good.
    let short = reset(&mut b, &token, "short");
    assert_eq!(short.status, 400);
    assert!(String::from_utf8(short.body).unwrap().contains("at least 8 characters"));
    // A tampered token, a token for another purpose: nothing changes.
    assert!(location(&reset(&mut b, &format!("{token}0"), "a new password")).contains("error=Verification"));
    let res = reset(&mut b, &token, "the new password");
    assert_eq!(res.status, 302, "{res:?}");
    assert!(!location(&res).contains("error"), "{}", location(&res));
    assert!(b.has_session_cookie());
    // Single use; and the other outstanding link died with the old password.
    assert!(location(&reset(&mut b, &token, "another password")).contains("error=Verification"));
    let token2 = url::Url::parse(&second).unwrap().query_pairs().find(|(k, _)| k == "token").unwrap().1.into_owned();
    assert!(location(&reset(&mut b, &token2, "another password")).contains("error=Verification"));
    // The session from before the reset is gone; the old password too.
    assert_eq!(signed_in.session(), Value::Null);
    let mut c = Browser::new(&auth);
    assert!(location(&sign_in(&mut c, "ada@example.com", "the old password")).contains("error"));
    assert!(!location(&sign_in(&mut c, "ada@example.com", "the new password")).contains("error"));
}

#[test]
fn links_are_bound_to_their_purpose_and_address() {
    let mailbox = Mailbox::default();
    let auth = engine(provider(json!({})), &mailbox);
    let mut b = Browser::new(&auth);
    sign_up(&mut b, "ada@example.com", "a good password");
    let verify = mails(&mailbox).pop().unwrap().2.unwrap();
    let token = url::Url::parse(&verify).unwrap().query_pairs().find(|(k, _)| k == "token").unwrap().1.into_owned();
    // The verification token as a reset token: refused.
    let csrf = b.csrf();
    let res = b.post(
        "/auth/password/reset",
        &[("token", &token), ("email", "ada@example.com"), ("password", "hijacked password"), ("csrfToken", &csrf)],
    );
    assert!(location(&res).contains("error=Verification"));
    // For another address: refused.
    sign_up(&mut b, "bob@example.com", "another password");
    let res = b.get(&format!("/auth/password/verify?token={token}&email=bob%40example.com"));
    assert!(location(&res).contains("error=Verification"));
    // Every step refuses a missing CSRF token.
    for step in ["signup", "forgot", "reset", "change", "change-email", "delete"] {
        let res = b.post(&format!("/auth/password/{step}"), &[("email", "ada@example.com")]);
        assert!(location(&res).contains("error=MissingCSRF"), "{step}: {res:?}");
    }
}

#[test]
fn a_signed_in_user_changes_password_and_address_and_deletes_the_account() {
    let mailbox = Mailbox::default();
    let auth = engine(provider(json!({})), &mailbox);
    let mut b = verified_user(&auth, &mailbox, "ada@example.com", "first password");
    let mut elsewhere = Browser::new(&auth);
    sign_in(&mut elsewhere, "ada@example.com", "first password");
    assert!(elsewhere.session()["user"].is_object());

    let page = String::from_utf8(b.get("/auth/password/account").body).unwrap();
    assert!(page.contains("ada@example.com") && page.contains("/auth/password/change"));

    let post = |b: &mut Browser, step: &str, fields: &[(&str, &str)]| {
        let csrf = b.csrf();
        let mut all = fields.to_vec();
        all.push(("csrfToken", &csrf));
        b.post(&format!("/auth/password/{step}"), &all)
    };
    // A wrong current password changes nothing.
    let res = post(&mut b, "change", &[("currentPassword", "nope nope"), ("newPassword", "second password")]);
    assert_eq!(res.status, 400);
    let res = post(&mut b, "change", &[("currentPassword", "first password"), ("newPassword", "second password")]);
    assert!(location(&res).ends_with("notice=password-changed"), "{}", location(&res));
    assert!(b.session()["user"].is_object(), "this browser stays signed in");
    assert_eq!(elsewhere.session(), Value::Null, "the other session ended");

    // The address: a link to the new one, a notice to the old one.
    let res = post(&mut b, "change-email", &[("currentPassword", "second password"), ("newEmail", "ada@new.example")]);
    assert!(location(&res).ends_with("notice=email-sent"));
    let sent = mails(&mailbox);
    let kinds: Vec<(&str, &str)> = sent.iter().map(|(k, to, _)| (k.as_str(), to.as_str())).collect();
    assert_eq!(kinds, [("confirm-new-email", "ada@new.example"), ("email-changing", "ada@example.com")]);
    let res = b.get(&path_of(sent[0].2.as_deref().unwrap()));
    assert!(location(&res).ends_with("notice=email-changed"), "{}", location(&res));
    assert_eq!(b.session()["user"]["email"], "ada@new.example");
    let mut c = Browser::new(&auth);
    assert!(!location(&sign_in(&mut c, "ada@new.example", "second password")).contains("error"));

    // Deletion asks for the password, then removes everything.
    assert_eq!(post(&mut b, "delete", &[("currentPassword", "wrong")]).status, 400);
    let res = post(&mut b, "delete", &[("currentPassword", "second password")]);
    assert_eq!(location(&res), ORIGIN);
    assert!(!b.has_session_cookie());
    assert_eq!(c.session(), Value::Null);
    let mut d = Browser::new(&auth);
    assert!(location(&sign_in(&mut d, "ada@new.example", "second password")).contains("error"));
}

#[test]
fn hashes_from_other_libraries_sign_in_and_are_upgraded() {
    let fixtures: Value =
        serde_json::from_str(include_str!("fixtures/password-hashes.json")).expect("the hash fixtures");
    let path = common::temp_db_path();
    let mailbox = Mailbox::default();
    let config = json!({ "providers": [{ "type": "password" }],
                         "adapter": { "type": "sqlite", "path": path.0.to_str().unwrap() } });
    let auth = engine_with(config, &mailbox, HookMap::new());
    let store = SqliteAdapter::open(&path.0).expect("the same database");
    let mut tried = 0;
    for (i, fixture) in fixtures["hashes"].as_array().unwrap().iter().enumerate() {
        let format = fixture["format"].as_str().unwrap();
        // One of each family; costly defaults (bcrypt 12, Django's 1M) skipped.
        if !["bcrypt-2b", "django-pbkdf2-sha256", "argon2id", "better-auth-scrypt"].contains(&format)
            || fixture["library"].as_str().unwrap().contains("default")
        {
            continue;
        }
        let email = format!("user{i}@example.com");
        let user = store
            .create_user(&libauth_core::store::NewUser {
                id: Some(format!("u{i}")),
                email: Some(email.clone()),
                email_verified: Some(1),
                ..Default::default()
            })
            .unwrap();
        let mut account = libauth_core::store::AdapterAccount::new(
            libauth_core::store::AccountType::Credentials,
            "password",
            &user.id,
        );
        account.user_id = user.id.clone();
        account.extra.insert("password".into(), fixture["hash"].clone());
        store.link_account(&account).unwrap();

        let mut b = Browser::new(&auth);
        let password = fixture["password"].as_str().unwrap();
        let res = sign_in(&mut b, &email, password);
        assert!(!location(&res).contains("error"), "{format} ({}): {}", fixture["library"], location(&res));
        let stored = store.get_account(&user.id, "password").unwrap().unwrap();
        let upgraded = stored.extra["password"].as_str().unwrap();
        assert!(upgraded.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{format}: upgraded to {upgraded}");
        // The new hash signs in too.
        let mut c = Browser::new(&auth);
        assert!(!location(&sign_in(&mut c, &email, password)).contains("error"));
        tried += 1;
    }
    assert!(tried >= 4, "one of each format at least, tried {tried}");
}

#[test]
fn a_host_may_refuse_a_password_with_its_own_message() {
    let mailbox = Mailbox::default();
    let hooks = HookMap::new().on("providers.password.checkPassword", |args| {
        Ok(if args["password"] == "password1234" { json!("This password is in a breach list.") } else { Value::Null })
    });
    let auth = engine_with(json!({ "providers": [provider(json!({}))] }), &mailbox, hooks);
    let mut b = Browser::new(&auth);
    let res = sign_up(&mut b, "ada@example.com", "password1234");
    assert_eq!(res.status, 400);
    assert!(String::from_utf8(res.body).unwrap().contains("This password is in a breach list."));
    assert!(mails(&mailbox).is_empty(), "nothing was created");
    // JSON for custom pages.
    let csrf = b.csrf();
    let req = libauth_core::AuthRequest::post_form(
        format!("{ORIGIN}/auth/password/signup"),
        &[("email", "ada@example.com"), ("password", "password1234"), ("csrfToken", &csrf)],
    );
    let mut req = req;
    req.headers.push(("accept".into(), "application/json".into()));
    let res = b.send(req);
    assert_eq!(res.status, 400);
    assert_eq!(res.json().unwrap()["error"], "PasswordRefused");
}

#[test]
fn host_code_runs_each_step_and_gets_typed_refusals() {
    use libauth_core::{AuthRequest, ErrorType, PasswordAction};
    let mailbox = Mailbox::default();
    let auth = engine(provider(json!({})), &mailbox);
    let request = || {
        let mut req = AuthRequest::post_form(format!("{ORIGIN}/account/signup"), &[]);
        req.remote_address = Some("127.0.0.1".into());
        req
    };
    let fields = |pairs: &[(&str, &str)]| {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), Value::from(*v))).collect::<serde_json::Map<_, _>>()
    };
    let refused = auth
        .password_action(
            PasswordAction::SignUp,
            fields(&[("email", "ada@example.com"), ("password", "short")]),
            &request(),
        )
        .unwrap_err();
    assert_eq!(refused.error_type, ErrorType::PasswordRefused);
    assert!(refused.message.contains("at least 8"), "{}", refused.message);
    let bad = auth
        .password_action(
            PasswordAction::SignUp,
            fields(&[("email", "not an address"), ("password", "long enough")]),
            &request(),
        )
        .unwrap_err();
    assert_eq!(bad.error_type, ErrorType::InvalidEmail);
    let done = auth
        .password_action(
            PasswordAction::SignUp,
            fields(&[("email", "ada@example.com"), ("password", "long enough")]),
            &request(),
        )
        .unwrap();
    assert!(done.redirect.contains("/auth/verify-request"), "{}", done.redirect);
    assert_eq!(mails(&mailbox)[0].0, "verify-email");
    // A request from another site is refused (login CSRF).
    let mut cross = request();
    cross.headers.push(("sec-fetch-site".into(), "cross-site".into()));
    let e = auth.password_action(PasswordAction::RequestPasswordReset, fields(&[("email", "ada@example.com")]), &cross);
    assert_eq!(e.unwrap_err().error_type, ErrorType::MissingCSRF);
    assert!(PasswordAction::ALL.iter().all(|a| PasswordAction::parse(a.as_str()) == Some(*a)));
}

#[test]
fn expired_links_oversized_and_unicode_passwords() {
    let mailbox = Mailbox::default();
    let auth = engine(provider(json!({ "verificationMaxAge": 1 })), &mailbox);
    let mut b = Browser::new(&auth);
    // Unicode: typed full-width at sign-up, ASCII at sign-in (NFKC).
    assert_eq!(sign_up(&mut b, "ada@example.com", "Ｐａｓｓｗｏｒｄ１２３").status, 302);
    let link = mails(&mailbox).pop().unwrap().2.unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let res = b.get(&path_of(&link));
    assert!(location(&res).contains("error=Verification"), "an expired link: {}", location(&res));
    let res = sign_in(&mut b, "ada@example.com", "Password123");
    assert!(location(&res).contains("code=email_not_verified"), "the password matched: {}", location(&res));
    let fresh = mails(&mailbox).pop().unwrap().2.unwrap();
    assert!(!location(&b.get(&path_of(&fresh))).contains("error"));
    assert_eq!(b.session()["user"]["email"], "ada@example.com");

    // Oversized: over maxLength at sign-up is refused; far over the
    // hasher's byte cap never verifies and answers like any wrong password.
    let mut c = Browser::new(&auth);
    let long = "x".repeat(257);
    let res = sign_up(&mut c, "bob@example.com", &long);
    assert_eq!(res.status, 400);
    assert!(String::from_utf8(res.body).unwrap().contains("at most 256 characters"));
    let huge = "y".repeat(40_000);
    let res = sign_in(&mut c, "ada@example.com", &huge);
    assert!(location(&res).contains("error=CredentialsSignin&code=credentials"));
    assert!(!c.has_session_cookie());
}

#[test]
fn sign_ups_are_rate_limited_per_ip() {
    let mailbox = Mailbox::default();
    let auth = engine_with(
        json!({ "providers": [provider(json!({}))], "rateLimit": { "signUp": { "max": 2, "maxPerIp": 2 } } }),
        &mailbox,
        HookMap::new(),
    );
    let mut b = Browser::new(&auth);
    for i in 0..2 {
        assert_eq!(sign_up(&mut b, &format!("u{i}@example.com"), "a long password").status, 302);
    }
    assert_eq!(sign_up(&mut b, "u9@example.com", "a long password").status, 429);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    /// Whatever a form holds, every step answers a redirect, a page or a
    /// 4xx, and never signs anyone in without the right password.
    #[test]
    fn any_form_input_is_answered_without_error(
        step in prop::sample::select(vec!["signup", "forgot", "reset", "change", "change-email", "delete", "verify"]),
        email in "\\PC{0,40}",
        password in "\\PC{0,300}",
        token in "[a-f0-9]{0,70}",
    ) {
        let mailbox = Mailbox::default();
        let auth = engine(provider(json!({})), &mailbox);
        let mut b = Browser::new(&auth);
        let csrf = b.csrf();
        let res = b.post(
            &format!("/auth/password/{step}"),
            &[("email", &email), ("password", &password), ("token", &token), ("newEmail", &email),
              ("currentPassword", &password), ("newPassword", &password), ("csrfToken", &csrf)],
        );
        prop_assert!(res.status < 500, "{step}: {res:?}");
        let res = sign_in(&mut b, &email, &password);
        prop_assert!(res.status < 500);
        prop_assert!(!b.has_session_cookie());
    }
}

/// Two server processes' engines on one database: a link mailed by one
/// works in the other, once; a reset in one ends the sessions the other
/// made.
fn two_engines_share_links_and_sessions(adapter: Value) {
    let mailbox = Mailbox::default();
    let config = json!({ "providers": [provider(json!({}))], "adapter": adapter });
    let a = engine_with(config.clone(), &mailbox, HookMap::new());
    let b = engine_with(config, &mailbox, HookMap::new());
    let mut on_a = Browser::new(&a);
    assert_eq!(sign_up(&mut on_a, "ada@example.com", "first password").status, 302);
    let link = mails(&mailbox).pop().unwrap().2.unwrap();
    let mut on_b = Browser::new(&b);
    assert!(!location(&on_b.get(&path_of(&link))).contains("error"), "verified on the other engine");
    assert_eq!(on_b.session()["user"]["email"], "ada@example.com");
    assert!(location(&on_a.get(&path_of(&link))).contains("error=Verification"), "and spent there too");
    // A reset asked on B, used on A, ends B's session.
    let csrf = on_b.csrf();
    on_b.post("/auth/password/forgot", &[("email", "ada@example.com"), ("csrfToken", &csrf)]);
    let reset = mails(&mailbox).pop().unwrap().2.unwrap();
    let token = url::Url::parse(&reset).unwrap().query_pairs().find(|(k, _)| k == "token").unwrap().1.into_owned();
    let csrf = on_a.csrf();
    let res = on_a.post(
        "/auth/password/reset",
        &[("token", &token), ("email", "ada@example.com"), ("password", "second password"), ("csrfToken", &csrf)],
    );
    assert!(!location(&res).contains("error"), "{}", location(&res));
    assert_eq!(on_b.session(), Value::Null);
    assert_eq!(on_a.session()["user"]["email"], "ada@example.com");
}

#[test]
fn two_engines_on_one_sqlite_file() {
    let path = common::temp_db_path();
    two_engines_share_links_and_sessions(json!({ "type": "sqlite", "path": path.0.to_str().unwrap() }));
}

#[cfg(feature = "integration")]
#[test]
fn two_engines_on_one_postgres_schema() {
    let schema = common::temp_schema();
    two_engines_share_links_and_sessions(
        json!({ "type": "postgres", "url": common::postgres_url(), "schema": schema.0 }),
    );
}
