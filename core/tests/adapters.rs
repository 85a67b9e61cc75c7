//! The adapter conformance suite: one set of checks (`mod suite`), run
//! against every adapter (`conformance!` below): memory, SQLite (a temporary
//! file), PostgreSQL (the server on 127.0.0.1:5432, a fresh schema per test,
//! dropped afterwards) and the host adapter. Then what is specific to one
//! adapter or to the `adapter` config option.
//!
//! PostgreSQL: `LIBAUTH_TEST_POSTGRES_URL` overrides the default
//! `postgres://postgres@127.0.0.1:5432/test`. Those tests need the server, so
//! they are compiled with the `integration` feature only (`scripts/test.sh`
//! enables it and starts the server); there they never skip: with no server
//! they fail.

mod common;

use common::temp_db_path;
#[cfg(feature = "integration")]
use common::{postgres_url, temp_schema};
use std::sync::{Arc, Barrier};
use std::thread;

use libauth_core::adapter::{
    constraint, from_config, AccountType, Adapter, AdapterAccount, AdapterError, AdapterSession, AdapterUser,
    MemoryAdapter, NewUser, UserUpdate, VerificationToken,
};
use libauth_core::{HookMap, Host, HostError, NoHooks};
use serde_json::{json, Value};

const NOW: i64 = 1_763_800_000_123; // 2025-11-22, with milliseconds
const DAY: i64 = 86_400_000;

/// An adapter under test, and whatever must be cleaned up after it.
struct Fixture {
    adapter: Arc<dyn Adapter>,
    /// Whether the adapter reports violations as `AdapterError::Constraint`
    /// with our constraint names, and a missing user as `NotFound`. The host
    /// adapter cannot: a host adapter's exception is opaque to us, so there
    /// only "it failed, and not as Unavailable" is checked.
    typed_errors: bool,
    _cleanup: Option<Box<dyn std::any::Any>>,
}

fn memory() -> Fixture {
    let adapter = from_config(&json!({ "type": "memory" }), Arc::new(NoHooks)).unwrap();
    Fixture { adapter, typed_errors: true, _cleanup: None }
}

fn sqlite() -> Fixture {
    let file = temp_db_path();
    let adapter = from_config(&json!({ "type": "sqlite", "path": file.0 }), Arc::new(NoHooks)).unwrap();
    Fixture { adapter, typed_errors: true, _cleanup: Some(Box::new(file)) }
}

#[cfg(feature = "integration")]
fn postgres() -> Fixture {
    let schema = temp_schema();
    let config = json!({ "type": "postgres", "url": postgres_url(), "schema": schema.0, "connectTimeout": 5 });
    let adapter = from_config(&config, Arc::new(NoHooks)).unwrap();
    Fixture { adapter, typed_errors: true, _cleanup: Some(Box::new(schema)) }
}

/// The host adapter over hooks that a binding would provide. Here the hooks
/// are Rust closures (`HookMap`) over a `MemoryAdapter`: this tests the hook
/// plumbing (argument and result JSON in Auth.js's shapes, dates as ISO
/// strings, errors), not a real host language's adapter; the bindings' own
/// tests do that.
fn host() -> Fixture {
    let store = Arc::new(MemoryAdapter::new());
    let adapter = from_config(&json!({ "type": "host" }), Arc::new(memory_hooks(store))).unwrap();
    Fixture { adapter, typed_errors: false, _cleanup: None }
}

fn host_error(e: AdapterError) -> HostError {
    HostError::new(e.to_string())
}

fn parse<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, HostError> {
    serde_json::from_value(v).map_err(|e| HostError::new(format!("bad arguments: {e}")))
}

fn to_value<T: serde::Serialize>(v: T) -> Result<Value, HostError> {
    serde_json::to_value(v).map_err(|e| HostError::new(e.to_string()))
}

fn string_arg(args: &Value) -> Result<&str, HostError> {
    args.as_str().ok_or_else(|| HostError::new(format!("expected a string argument, got {args}")))
}

/// A date as Auth.js hands it to a JS adapter (after JSON): an ISO string.
fn expect_iso_date(args: &Value, key: &str) -> Result<(), HostError> {
    match &args[key] {
        Value::String(s) if libauth_core::adapter::date::parse_iso(s).is_some() => Ok(()),
        Value::Null if key == "emailVerified" => Ok(()),
        other => Err(HostError::new(format!("{key} should be an ISO date string, got {other}"))),
    }
}

fn memory_hooks(store: Arc<MemoryAdapter>) -> HookMap {
    let s = store.clone();
    let hooks = HookMap::new().on("adapter.createUser", move |args| {
        expect_iso_date(&args, "emailVerified")?;
        if !args["id"].is_string() {
            return Err(HostError::new("Auth.js passes createUser an id"));
        }
        to_value(s.create_user(&parse(args)?).map_err(host_error)?)
    });
    let s = store.clone();
    let hooks = hooks.on("adapter.getUser", move |args| to_value(s.get_user(string_arg(&args)?).map_err(host_error)?));
    let s = store.clone();
    let hooks = hooks.on("adapter.getUserByEmail", move |args| {
        to_value(s.get_user_by_email(string_arg(&args)?).map_err(host_error)?)
    });
    let s = store.clone();
    let hooks = hooks.on("adapter.getUserByAccount", move |args| {
        let provider = args["provider"].as_str().unwrap_or_default();
        let id = args["providerAccountId"].as_str().unwrap_or_default();
        to_value(s.get_user_by_account(provider, id).map_err(host_error)?)
    });
    let s = store.clone();
    let hooks = hooks.on("adapter.updateUser", move |args| to_value(s.update_user(&parse(args)?).map_err(host_error)?));
    let s = store.clone();
    let hooks = hooks.on("adapter.deleteUser", move |args| {
        s.delete_user(string_arg(&args)?).map_err(host_error)?;
        Ok(Value::Null)
    });
    let s = store.clone();
    let hooks = hooks.on("adapter.linkAccount", move |args| {
        let account: AdapterAccount = parse(args.clone())?;
        s.link_account(&account).map_err(host_error)?;
        Ok(args)
    });
    let s = store.clone();
    let hooks = hooks.on("adapter.unlinkAccount", move |args| {
        let provider = args["provider"].as_str().unwrap_or_default();
        let id = args["providerAccountId"].as_str().unwrap_or_default();
        s.unlink_account(provider, id).map_err(host_error)?;
        Ok(Value::Null)
    });
    let s = store.clone();
    let hooks = hooks.on("adapter.createSession", move |args| {
        expect_iso_date(&args, "expires")?;
        to_value(s.create_session(&parse(args)?).map_err(host_error)?)
    });
    let s = store.clone();
    let hooks = hooks.on("adapter.getSessionAndUser", move |args| {
        Ok(match s.get_session_and_user(string_arg(&args)?).map_err(host_error)? {
            Some((session, user)) => json!({ "session": session, "user": user }),
            None => Value::Null,
        })
    });
    let s = store.clone();
    let hooks = hooks.on("adapter.updateSession", move |args| {
        expect_iso_date(&args, "expires")?;
        let token = args["sessionToken"].as_str().unwrap_or_default();
        let expires = libauth_core::adapter::date::from_json(&args["expires"]).unwrap_or_default();
        to_value(s.update_session(token, expires).map_err(host_error)?)
    });
    let s = store.clone();
    let hooks = hooks
        .on("adapter.deleteSession", move |args| to_value(s.delete_session(string_arg(&args)?).map_err(host_error)?));
    let s = store.clone();
    let hooks = hooks.on("adapter.createVerificationToken", move |args| {
        expect_iso_date(&args, "expires")?;
        s.create_verification_token(&parse(args.clone())?).map_err(host_error)?;
        Ok(args)
    });
    let s = store;
    hooks.on("adapter.useVerificationToken", move |args| {
        let identifier = args["identifier"].as_str().unwrap_or_default();
        let token = args["token"].as_str().unwrap_or_default();
        // Answer with milliseconds rather than an ISO string: hosts may.
        Ok(match s.use_verification_token(identifier, token).map_err(host_error)? {
            Some(t) => json!({ "identifier": t.identifier, "token": t.token, "expires": t.expires }),
            None => Value::Null,
        })
    })
}

/// The checks every adapter passes.
mod suite {
    use super::*;

    pub fn new_user(email: Option<&str>) -> NewUser {
        NewUser {
            id: None,
            name: Some("Ada Lovelace".to_owned()),
            email: email.map(str::to_owned),
            email_verified: None,
            image: Some("https://example.com/ada.png".to_owned()),
        }
    }

    fn unique_email() -> String {
        format!("{}@example.com", libauth_core::random::hex(6))
    }

    pub fn oauth_account(user_id: &str, provider_account_id: &str) -> AdapterAccount {
        let mut account = AdapterAccount::new(AccountType::Oidc, "github", provider_account_id);
        account.user_id = user_id.to_owned();
        account.access_token = Some("gho_access".to_owned());
        account.refresh_token = Some("ghr_refresh".to_owned());
        account.expires_at = Some(NOW / 1000 + 3600);
        account.token_type = Some("bearer".to_owned());
        account.scope = Some("read:user user:email".to_owned());
        account.id_token = Some("eyJhbGciOi.id.token".to_owned());
        account.session_state = Some("state-1".to_owned());
        account.extra.insert("expires_in".to_owned(), json!(3600));
        account.extra.insert("refresh_token_expires_in".to_owned(), json!(15_897_600));
        account
    }

    fn session(token: &str, user_id: &str, expires: i64) -> AdapterSession {
        AdapterSession { session_token: token.to_owned(), user_id: user_id.to_owned(), expires }
    }

    /// The call failed with the constraint `name` (or, for adapters that
    /// can't name constraints, failed at all).
    fn assert_constraint<T: std::fmt::Debug>(f: &Fixture, result: Result<T, AdapterError>, name: &str) {
        match result {
            Err(AdapterError::Constraint { constraint, .. }) if f.typed_errors => assert_eq!(constraint, name),
            Err(e) if !f.typed_errors => assert!(!e.is_retryable(), "{e}"),
            other => panic!("expected a violation of {name}, got {other:?}"),
        }
    }

    /// Errors name constraints, never the values that broke them: those
    /// are tokens and email addresses, and errors end up in logs.
    fn assert_no_secret<T: std::fmt::Debug>(result: &Result<T, AdapterError>, secret: &str) {
        if let Err(e) = result {
            let shown = format!("{e} {e:?}");
            assert!(!shown.contains(secret), "the error shows a stored value: {shown}");
        }
    }

    pub fn users_round_trip(f: &Fixture) {
        let a = &f.adapter;
        let email = unique_email();
        let created = a.create_user(&NewUser { email_verified: Some(NOW), ..new_user(Some(&email)) }).unwrap();
        assert!(!created.id.is_empty(), "an id is generated");
        assert_eq!(created.email.as_deref(), Some(email.as_str()));
        assert_eq!(created.email_verified, Some(NOW), "milliseconds survive storage");
        assert_eq!(a.get_user(&created.id).unwrap(), Some(created.clone()));
        assert_eq!(a.get_user_by_email(&email).unwrap(), Some(created.clone()));
        assert_eq!(a.get_user("no-such-id").unwrap(), None);
        assert_eq!(a.get_user_by_email("nobody@example.com").unwrap(), None);

        let other = a.create_user(&new_user(Some(&unique_email()))).unwrap();
        assert_ne!(other.id, created.id, "ids are unique");
    }

    pub fn user_with_given_id(f: &Fixture) {
        let a = &f.adapter;
        let id = format!("user-{}", libauth_core::random::hex(4));
        let created = a.create_user(&NewUser { id: Some(id.clone()), ..new_user(None) }).unwrap();
        assert_eq!(created.id, id);
        assert_eq!(created.email, None, "users without email (TikTok) are allowed");
        assert_constraint(f, a.create_user(&NewUser { id: Some(id), ..new_user(None) }), constraint::USER_ID);
    }

    pub fn update_user(f: &Fixture) {
        let a = &f.adapter;
        let email = unique_email();
        let user = a.create_user(&new_user(Some(&email))).unwrap();
        let updated = a
            .update_user(&UserUpdate {
                id: user.id.clone(),
                name: Some(Some("Countess of Lovelace".to_owned())),
                email_verified: Some(Some(NOW + 5)),
                image: Some(None),
                ..Default::default()
            })
            .unwrap();
        let expected = AdapterUser {
            name: Some("Countess of Lovelace".to_owned()),
            email_verified: Some(NOW + 5),
            image: None,
            ..user.clone()
        };
        assert_eq!(updated, expected, "changed fields change, cleared ones clear, absent ones stay");
        assert_eq!(a.get_user(&user.id).unwrap(), Some(expected));

        let new_email = unique_email();
        let moved = a
            .update_user(&UserUpdate {
                id: user.id.clone(),
                email: Some(Some(new_email.clone())),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(moved.email.as_deref(), Some(new_email.as_str()));
        assert_eq!(a.get_user_by_email(&email).unwrap(), None, "the old address no longer finds the user");
        assert_eq!(a.get_user_by_email(&new_email).unwrap().map(|u| u.id), Some(user.id.clone()));

        let missing = a.update_user(&UserUpdate { id: "no-such-id".to_owned(), ..Default::default() });
        match missing {
            Err(AdapterError::NotFound { .. }) => {}
            Err(AdapterError::Other { .. }) if !f.typed_errors => {}
            other => panic!("expected NotFound, got {other:?}"),
        }
    }

    pub fn unique_email_per_user(f: &Fixture) {
        let a = &f.adapter;
        let email = unique_email();
        let first = a.create_user(&new_user(Some(&email))).unwrap();
        let duplicate = a.create_user(&new_user(Some(&email)));
        assert_no_secret(&duplicate, &email);
        assert_constraint(f, duplicate, constraint::USER_EMAIL);
        a.create_user(&new_user(None)).unwrap();
        a.create_user(&new_user(None)).unwrap();

        let second = a.create_user(&new_user(Some(&unique_email()))).unwrap();
        let steal = UserUpdate { id: second.id.clone(), email: Some(Some(email.clone())), ..Default::default() };
        assert_constraint(f, a.update_user(&steal), constraint::USER_EMAIL);
        assert_eq!(a.get_user_by_email(&email).unwrap().map(|u| u.id), Some(first.id));
    }

    pub fn accounts(f: &Fixture) {
        let a = &f.adapter;
        let user = a.create_user(&new_user(Some(&unique_email()))).unwrap();
        let pid = libauth_core::random::hex(6);
        a.link_account(&oauth_account(&user.id, &pid)).unwrap();
        assert_eq!(a.get_user_by_account("github", &pid).unwrap(), Some(user.clone()));
        assert_eq!(a.get_user_by_account("gitlab", &pid).unwrap(), None, "the provider is part of the key");
        assert_eq!(a.get_user_by_account("github", "other").unwrap(), None);

        // A second provider account for the same user, with no tokens at all.
        let mut email_account = AdapterAccount::new(AccountType::Email, "email", "ada@example.com");
        email_account.user_id = user.id.clone();
        a.link_account(&email_account).unwrap();

        let someone_else = a.create_user(&new_user(None)).unwrap();
        assert_constraint(f, a.link_account(&oauth_account(&someone_else.id, &pid)), constraint::ACCOUNT_PROVIDER);
        assert_constraint(f, a.link_account(&oauth_account("no-such-user", "x1")), constraint::ACCOUNT_USER);

        a.unlink_account("github", &pid).unwrap();
        assert_eq!(a.get_user_by_account("github", &pid).unwrap(), None);
        a.unlink_account("github", &pid).unwrap();
        assert_eq!(a.get_user_by_account("email", "ada@example.com").unwrap(), Some(user.clone()));
        // Unlinked: the provider account can now go to someone else.
        a.link_account(&oauth_account(&someone_else.id, &pid)).unwrap();
        assert_eq!(a.get_user_by_account("github", &pid).unwrap(), Some(someone_else));
    }

    pub fn sessions(f: &Fixture) {
        let a = &f.adapter;
        let user = a.create_user(&new_user(Some(&unique_email()))).unwrap();
        let token = libauth_core::random::hex(16);
        let created = a.create_session(&session(&token, &user.id, NOW + 30 * DAY)).unwrap();
        assert_eq!(created, session(&token, &user.id, NOW + 30 * DAY));
        assert_eq!(a.get_session_and_user(&token).unwrap(), Some((created.clone(), user.clone())));
        assert_eq!(a.get_session_and_user("no-such-token").unwrap(), None);

        let extended = a.update_session(&token, NOW + 31 * DAY + 7).unwrap();
        assert_eq!(extended, Some(session(&token, &user.id, NOW + 31 * DAY + 7)));
        assert_eq!(a.get_session_and_user(&token).unwrap().map(|(s, _)| s.expires), Some(NOW + 31 * DAY + 7));
        assert_eq!(a.update_session("no-such-token", NOW).unwrap(), None);

        let duplicate = a.create_session(&session(&token, &user.id, NOW));
        assert_no_secret(&duplicate, &token);
        assert_constraint(f, duplicate, constraint::SESSION_TOKEN);
        assert_constraint(f, a.create_session(&session("t-orphan", "no-such-user", NOW)), constraint::SESSION_USER);

        assert_eq!(a.delete_session(&token).unwrap(), Some(session(&token, &user.id, NOW + 31 * DAY + 7)));
        assert_eq!(a.delete_session(&token).unwrap(), None);
        assert_eq!(a.get_session_and_user(&token).unwrap(), None);
        assert_eq!(a.get_user(&user.id).unwrap(), Some(user), "ending a session keeps the user");
    }

    /// The engine decides what an expired session means (Auth.js core
    /// deletes it); the adapter returns it as stored.
    pub fn expired_sessions_are_returned(f: &Fixture) {
        let a = &f.adapter;
        let user = a.create_user(&new_user(None)).unwrap();
        let token = libauth_core::random::hex(16);
        a.create_session(&session(&token, &user.id, NOW - DAY)).unwrap();
        assert_eq!(a.get_session_and_user(&token).unwrap().map(|(s, _)| s.expires), Some(NOW - DAY));
    }

    pub fn deleting_a_user_deletes_accounts_and_sessions(f: &Fixture) {
        let a = &f.adapter;
        let user = a.create_user(&new_user(Some(&unique_email()))).unwrap();
        let bystander = a.create_user(&new_user(None)).unwrap();
        let (p1, p2) = (libauth_core::random::hex(6), libauth_core::random::hex(6));
        a.link_account(&oauth_account(&user.id, &p1)).unwrap();
        a.link_account(&oauth_account(&user.id, &p2)).unwrap();
        let (t1, t2, t3) =
            (libauth_core::random::hex(16), libauth_core::random::hex(16), libauth_core::random::hex(16));
        a.create_session(&session(&t1, &user.id, NOW + DAY)).unwrap();
        a.create_session(&session(&t2, &user.id, NOW + DAY)).unwrap();
        a.create_session(&session(&t3, &bystander.id, NOW + DAY)).unwrap();

        a.delete_user(&user.id).unwrap();
        assert_eq!(a.get_user(&user.id).unwrap(), None);
        assert_eq!(a.get_user_by_account("github", &p1).unwrap(), None);
        assert_eq!(a.get_user_by_account("github", &p2).unwrap(), None);
        assert_eq!(a.get_session_and_user(&t1).unwrap(), None);
        assert_eq!(a.delete_session(&t2).unwrap(), None, "the session row itself is gone");
        assert!(a.get_session_and_user(&t3).unwrap().is_some(), "other users keep their sessions");
        // The accounts are really gone, not just unreachable.
        a.link_account(&oauth_account(&bystander.id, &p1)).unwrap();
        a.delete_user(&user.id).unwrap();
    }

    pub fn verification_tokens(f: &Fixture) {
        let a = &f.adapter;
        let identifier = unique_email();
        let token = VerificationToken {
            identifier: identifier.clone(),
            token: libauth_core::random::hex(32),
            expires: NOW + DAY,
        };
        a.create_verification_token(&token).unwrap();
        assert_eq!(a.use_verification_token("someone@else.com", &token.token).unwrap(), None);
        assert_eq!(a.use_verification_token(&identifier, "wrong-token").unwrap(), None);
        assert_eq!(a.use_verification_token(&identifier, &token.token).unwrap(), Some(token.clone()));
        assert_eq!(a.use_verification_token(&identifier, &token.token).unwrap(), None, "single use");

        // Two outstanding links for one address both work, once each.
        let t1 = VerificationToken { token: libauth_core::random::hex(32), ..token.clone() };
        let t2 = VerificationToken { token: libauth_core::random::hex(32), ..token.clone() };
        a.create_verification_token(&t1).unwrap();
        a.create_verification_token(&t2).unwrap();
        let duplicate = a.create_verification_token(&t1);
        assert_no_secret(&duplicate, &t1.token);
        assert_constraint(f, duplicate, constraint::VERIFICATION_TOKEN);
        assert_eq!(a.use_verification_token(&identifier, &t2.token).unwrap(), Some(t2));
        assert_eq!(a.use_verification_token(&identifier, &t1.token).unwrap(), Some(t1));
    }

    /// Returned so the engine can say "this link expired" (Verification),
    /// and consumed so it cannot be tried again.
    pub fn expired_verification_tokens_are_returned_and_consumed(f: &Fixture) {
        let a = &f.adapter;
        let token =
            VerificationToken { identifier: unique_email(), token: libauth_core::random::hex(32), expires: NOW - DAY };
        a.create_verification_token(&token).unwrap();
        assert_eq!(a.use_verification_token(&token.identifier, &token.token).unwrap(), Some(token.clone()));
        assert_eq!(a.use_verification_token(&token.identifier, &token.token).unwrap(), None);
    }

    /// `delete_expired` removes expired sessions and verification tokens
    /// only (built-in adapters; a host adapter purges its own store).
    pub fn delete_expired_removes_only_expired_rows(f: &Fixture) {
        let a = &f.adapter;
        let user = a.create_user(&new_user(None)).unwrap();
        let (old, live) = (libauth_core::random::hex(16), libauth_core::random::hex(16));
        a.create_session(&session(&old, &user.id, NOW - DAY)).unwrap();
        a.create_session(&session(&live, &user.id, NOW + DAY)).unwrap();
        let stale =
            VerificationToken { identifier: unique_email(), token: libauth_core::random::hex(32), expires: NOW - DAY };
        let fresh = VerificationToken { expires: NOW + DAY, token: libauth_core::random::hex(32), ..stale.clone() };
        a.create_verification_token(&stale).unwrap();
        a.create_verification_token(&fresh).unwrap();

        let purged = a.delete_expired(NOW).unwrap();
        assert!(purged.sessions >= 1 && purged.verification_tokens >= 1, "{purged:?}");
        assert_eq!(a.get_session_and_user(&old).unwrap(), None);
        assert!(a.get_session_and_user(&live).unwrap().is_some());
        assert_eq!(a.use_verification_token(&stale.identifier, &stale.token).unwrap(), None);
        assert_eq!(a.use_verification_token(&fresh.identifier, &fresh.token).unwrap(), Some(fresh));
        assert_eq!(a.delete_expired(NOW).unwrap(), libauth_core::adapter::Purged::default(), "nothing left to purge");
    }

    /// A link clicked twice at once (double click, mail scanner plus user)
    /// signs in once.
    pub fn verification_token_race_has_one_winner(f: &Fixture) {
        const THREADS: usize = 8;
        for _round in 0..10 {
            let token = VerificationToken {
                identifier: unique_email(),
                token: libauth_core::random::hex(32),
                expires: NOW + DAY,
            };
            f.adapter.create_verification_token(&token).unwrap();
            let barrier = Arc::new(Barrier::new(THREADS));
            let handles: Vec<_> = (0..THREADS)
                .map(|_| {
                    let (adapter, barrier, token) = (f.adapter.clone(), barrier.clone(), token.clone());
                    thread::spawn(move || {
                        barrier.wait();
                        adapter.use_verification_token(&token.identifier, &token.token)
                    })
                })
                .collect();
            let results: Vec<_> = handles.into_iter().map(|h| h.join().expect("no panic")).collect();
            let winners = results.iter().filter(|r| matches!(r, Ok(Some(_)))).count();
            let losers = results.iter().filter(|r| matches!(r, Ok(None))).count();
            assert_eq!((winners, losers), (1, THREADS - 1), "{results:?}");
        }
    }

    pub fn create_user_and_link_account(f: &Fixture) {
        let a = &f.adapter;
        let email = unique_email();
        let pid = libauth_core::random::hex(6);
        // `user_id` is ignored: the new user's id is used.
        let created = a.create_user_and_link_account(&new_user(Some(&email)), &oauth_account("ignored", &pid)).unwrap();
        assert_eq!(a.get_user_by_account("github", &pid).unwrap(), Some(created.clone()));
        assert_eq!(a.get_user(&created.id).unwrap(), Some(created));
    }

    /// A link that breaks the unique (provider, providerAccountId) leaves no
    /// user behind; a user that breaks the unique email links nothing.
    pub fn create_user_and_link_account_is_atomic(f: &Fixture) {
        let a = &f.adapter;
        let owner = a.create_user(&new_user(Some(&unique_email()))).unwrap();
        let pid = libauth_core::random::hex(6);
        a.link_account(&oauth_account(&owner.id, &pid)).unwrap();

        let email = unique_email();
        let result = a.create_user_and_link_account(&new_user(Some(&email)), &oauth_account("", &pid));
        assert_constraint(f, result, constraint::ACCOUNT_PROVIDER);
        assert_eq!(a.get_user_by_email(&email).unwrap(), None, "no user left behind");
        assert_eq!(a.get_user_by_account("github", &pid).unwrap(), Some(owner.clone()), "the link is unchanged");

        let taken = owner.email.clone();
        let other_pid = libauth_core::random::hex(6);
        let result = a.create_user_and_link_account(&new_user(taken.as_deref()), &oauth_account("", &other_pid));
        assert_constraint(f, result, constraint::USER_EMAIL);
        assert_eq!(a.get_user_by_account("github", &other_pid).unwrap(), None, "no account linked");
    }
}

/// The idempotent writes of a first sign-in (`ensure_*`): the same call
/// twice gives the first one's row, other conflicts stay errors, and
/// concurrent calls (threads here; processes in `first_sign_in.rs`) all
/// get one row, created once.
mod first_sign_in {
    use super::suite::{new_user, oauth_account};
    use super::*;

    fn unique_email() -> String {
        format!("{}@example.com", libauth_core::random::hex(6))
    }

    fn assert_conflict<T: std::fmt::Debug>(f: &Fixture, result: Result<T, AdapterError>, name: &str) {
        match result {
            Err(AdapterError::Constraint { constraint, .. }) if f.typed_errors => assert_eq!(constraint, name),
            Err(e) if !f.typed_errors => assert!(!e.is_retryable(), "{e}"),
            other => panic!("expected a violation of {name}, got {other:?}"),
        }
    }

    /// Every key a user can be found by: an id with and without an email,
    /// an email alone; and a user with neither is simply created.
    pub fn ensure_user(f: &Fixture) {
        let a = &f.adapter;
        let id = format!("user-{}", libauth_core::random::hex(4));
        for email in [Some(unique_email()), None] {
            let id = format!("{id}-{}", email.is_some());
            let first = a.ensure_user(&NewUser { id: Some(id.clone()), ..new_user(email.as_deref()) }).unwrap();
            assert!(first.created);
            assert_eq!((first.user.id.as_str(), first.user.email.as_deref()), (id.as_str(), email.as_deref()));
            // Again, with other fields: the stored row, unchanged.
            let again =
                a.ensure_user(&NewUser { id: Some(id.clone()), name: Some("Other".into()), ..new_user(None) }).unwrap();
            assert_eq!(again, libauth_core::adapter::Ensured { user: first.user.clone(), created: false });
            assert_eq!(a.get_user(&id).unwrap(), Some(first.user));
        }
        let email = unique_email();
        let by_email = a.ensure_user(&new_user(Some(&email))).unwrap();
        assert!(by_email.created);
        let again = a.ensure_user(&new_user(Some(&email))).unwrap();
        assert_eq!((again.user, again.created), (by_email.user.clone(), false));
        // A new id whose email another user has is not that user.
        let taken = NewUser { id: Some(format!("{id}-new")), ..new_user(Some(&email)) };
        assert_conflict(f, a.ensure_user(&taken), constraint::USER_EMAIL);
        assert_eq!(a.get_user(&format!("{id}-new")).unwrap(), None);
        // Neither key: always a new user.
        let (x, y) = (a.ensure_user(&new_user(None)).unwrap(), a.ensure_user(&new_user(None)).unwrap());
        assert!(x.created && y.created && x.user.id != y.user.id);
    }

    pub fn ensure_account_linked(f: &Fixture) {
        let a = &f.adapter;
        let owner = a.create_user(&new_user(None)).unwrap();
        let other = a.create_user(&new_user(None)).unwrap();
        let pid = libauth_core::random::hex(6);
        assert!(a.ensure_account_linked(&oauth_account(&owner.id, &pid)).unwrap(), "linked now");
        assert!(!a.ensure_account_linked(&oauth_account(&owner.id, &pid)).unwrap(), "linked already");
        assert_conflict(f, a.ensure_account_linked(&oauth_account(&other.id, &pid)), constraint::ACCOUNT_PROVIDER);
        assert_eq!(a.get_user_by_account("github", &pid).unwrap(), Some(owner));
        let result = a.ensure_account_linked(&oauth_account("no-such-user", &libauth_core::random::hex(6)));
        assert_conflict(f, result, constraint::ACCOUNT_USER);
    }

    pub fn ensure_user_with_account(f: &Fixture) {
        let a = &f.adapter;
        for email in [Some(unique_email()), None] {
            let pid = libauth_core::random::hex(6);
            let first = a.ensure_user_with_account(&new_user(email.as_deref()), &oauth_account("", &pid)).unwrap();
            assert!(first.created);
            assert_eq!(a.get_user_by_account("github", &pid).unwrap(), Some(first.user.clone()));
            // The same account again, even with another email: its owner,
            // and no second user.
            let later = unique_email();
            let again = a.ensure_user_with_account(&new_user(Some(&later)), &oauth_account("", &pid)).unwrap();
            assert_eq!((again.user, again.created), (first.user, false));
            assert_eq!(a.get_user_by_email(&later).unwrap(), None, "no user left behind");
        }
        // The email belongs to a user without this account: an error, and
        // nothing linked.
        let owner = a.create_user(&new_user(Some(&unique_email()))).unwrap();
        let pid = libauth_core::random::hex(6);
        let result = a.ensure_user_with_account(&new_user(owner.email.as_deref()), &oauth_account("", &pid));
        assert_conflict(f, result, constraint::USER_EMAIL);
        assert_eq!(a.get_user_by_account("github", &pid).unwrap(), None);
    }

    /// `THREADS` concurrent calls of each kind, released at once: every
    /// one succeeds, all get the same user, exactly one created it.
    pub fn concurrent_first_sign_ins_have_one_winner(f: &Fixture) {
        const THREADS: usize = 12;
        type Call = Arc<dyn Fn(&dyn Adapter) -> Result<(String, bool), AdapterError> + Send + Sync>;
        let linked_to = f.adapter.create_user(&new_user(None)).unwrap().id;
        for round in 0..3 {
            let (id, email, pid) = (
                format!("racer-{round}-{}", libauth_core::random::hex(4)),
                unique_email(),
                libauth_core::random::hex(6),
            );
            let kinds: Vec<(&str, Call)> = vec![
                ("credentials, with email", {
                    let user = NewUser { id: Some(id.clone()), ..new_user(Some(&email)) };
                    Arc::new(move |a| a.ensure_user(&user).map(|e| (e.user.id, e.created)))
                }),
                ("credentials, no email", {
                    let user = NewUser { id: Some(format!("{id}-x")), ..new_user(None) };
                    Arc::new(move |a| a.ensure_user(&user).map(|e| (e.user.id, e.created)))
                }),
                ("email sign-in", {
                    let user = new_user(Some(&format!("e.{email}")));
                    Arc::new(move |a| a.ensure_user(&user).map(|e| (e.user.id, e.created)))
                }),
                ("oauth, with email", {
                    let (user, account) = (new_user(Some(&format!("o.{email}"))), oauth_account("", &pid));
                    Arc::new(move |a| a.ensure_user_with_account(&user, &account).map(|e| (e.user.id, e.created)))
                }),
                ("oauth, no email", {
                    let account = oauth_account("", &format!("{pid}-x"));
                    Arc::new(move |a| {
                        a.ensure_user_with_account(&new_user(None), &account).map(|e| (e.user.id, e.created))
                    })
                }),
                ("link to a signed-in user", {
                    let account = oauth_account(&linked_to, &format!("{pid}-l"));
                    let owner = linked_to.clone();
                    Arc::new(move |a| a.ensure_account_linked(&account).map(|linked| (owner.clone(), linked)))
                }),
            ];
            for (kind, call) in kinds {
                let barrier = Arc::new(Barrier::new(THREADS));
                let handles: Vec<_> = (0..THREADS)
                    .map(|_| {
                        let (adapter, barrier, call) = (f.adapter.clone(), barrier.clone(), call.clone());
                        thread::spawn(move || {
                            barrier.wait();
                            call(&*adapter)
                        })
                    })
                    .collect();
                let results: Vec<_> = handles.into_iter().map(|h| h.join().expect("no panic")).collect();
                let ok: Vec<&(String, bool)> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
                assert_eq!(ok.len(), THREADS, "{kind}: every call succeeds: {results:?}");
                assert!(ok.iter().all(|(user, _)| *user == ok[0].0), "{kind}: one user for all: {results:?}");
                assert_eq!(ok.iter().filter(|(_, created)| *created).count(), 1, "{kind}: one creator: {results:?}");
            }
        }
    }

    macro_rules! for_every_adapter {
        ($($check:ident),+) => {
            $(
                mod $check {
                    #[test]
                    fn memory_adapter() {
                        super::$check(&super::super::memory());
                    }

                    #[test]
                    fn sqlite_adapter() {
                        super::$check(&super::super::sqlite());
                    }

                    #[test]
                    #[cfg(feature = "integration")]
                    fn postgres_adapter() {
                        super::$check(&super::super::postgres());
                    }

                    #[test]
                    fn host_adapter() {
                        super::$check(&super::super::host());
                    }
                }
            )+
        };
    }

    for_every_adapter!(
        ensure_user,
        ensure_account_linked,
        ensure_user_with_account,
        concurrent_first_sign_ins_have_one_winner
    );
}

/// Reading and updating a linked account's tokens (the built-in adapters;
/// not part of Auth.js's interface).
mod account_tokens {
    use super::suite::oauth_account;
    use super::*;

    fn check(f: &Fixture) {
        let a = &f.adapter;
        let user = a.create_user(&super::suite::new_user(None)).unwrap();
        let pid = libauth_core::random::hex(6);
        let linked = oauth_account(&user.id, &pid);
        a.link_account(&linked).unwrap();
        assert_eq!(a.get_account(&user.id, "github").unwrap(), Some(linked.clone()));
        assert_eq!(a.get_account(&user.id, "tiktok").unwrap(), None);
        assert_eq!(a.get_account("no-such-user", "github").unwrap(), None);

        let mut fresh = linked.clone();
        fresh.access_token = Some("gho_new".to_owned());
        fresh.refresh_token = Some("ghr_new".to_owned());
        fresh.expires_at = Some(NOW / 1000 + 7200);
        fresh.extra.insert("expires_in".to_owned(), json!(7200));
        // An update names the account's owner: another user's name finds
        // nothing and changes nothing.
        let foreign = AdapterAccount { user_id: "someone-else".to_owned(), ..fresh.clone() };
        assert!(matches!(a.update_account(&foreign), Err(AdapterError::NotFound { .. })));
        assert_eq!(a.get_account(&user.id, "github").unwrap(), Some(linked.clone()));
        a.update_account(&fresh).unwrap();
        assert_eq!(a.get_account(&user.id, "github").unwrap(), Some(fresh));

        let unknown = oauth_account(&user.id, "not-linked");
        assert!(matches!(a.update_account(&unknown), Err(AdapterError::NotFound { .. })));
    }

    #[test]
    fn memory_adapter() {
        check(&super::memory());
    }

    #[test]
    fn sqlite_adapter() {
        check(&super::sqlite());
    }

    #[test]
    #[cfg(feature = "integration")]
    fn postgres_adapter() {
        check(&super::postgres());
    }
}

/// One `#[test]` per check, per adapter, so a failure names both.
macro_rules! conformance {
    ($adapter:ident) => {
        mod $adapter {
            conformance!(@tests $adapter,
                users_round_trip, user_with_given_id, update_user, unique_email_per_user, accounts, sessions,
                expired_sessions_are_returned, deleting_a_user_deletes_accounts_and_sessions, verification_tokens,
                expired_verification_tokens_are_returned_and_consumed, verification_token_race_has_one_winner,
                create_user_and_link_account, create_user_and_link_account_is_atomic);
        }
    };
    (@tests $adapter:ident, $($check:ident),+) => {
        $(
            #[test]
            fn $check() {
                let fixture = super::$adapter();
                super::suite::$check(&fixture);
            }
        )+
    };
}

conformance!(memory);
conformance!(sqlite);
#[cfg(feature = "integration")]
conformance!(postgres);
conformance!(host);

/// Purging is the built-in adapters' own (the host adapter has no hook).
mod purge {
    use super::suite::delete_expired_removes_only_expired_rows as check;

    #[test]
    fn memory_adapter() {
        check(&super::memory());
    }

    #[test]
    fn sqlite_adapter() {
        check(&super::sqlite());
    }

    #[test]
    #[cfg(feature = "integration")]
    fn postgres_adapter() {
        check(&super::postgres());
    }
}

// ---------------------------------------------------------------------------
// Adapter-specific behaviour

/// The default `create_user_and_link_account` (used by the host adapter)
/// deletes the user again when linking fails, even when the host reports
/// the failure as a plain exception.
#[test]
fn host_adapter_undoes_the_user_when_linking_fails() {
    let store = Arc::new(MemoryAdapter::new());
    let adapter = from_config(&json!({ "type": "host" }), Arc::new(memory_hooks(store.clone()))).unwrap();
    let owner = store.create_user(&suite::new_user(None)).unwrap();
    store.link_account(&suite::oauth_account(&owner.id, "42")).unwrap();
    let err = adapter
        .create_user_and_link_account(&suite::new_user(Some("new@example.com")), &suite::oauth_account("", "42"))
        .unwrap_err();
    assert_eq!(err.operation(), "linkAccount");
    assert_eq!(store.get_user_by_email("new@example.com").unwrap(), None);
}

#[test]
fn host_adapter_keeps_tokens_out_of_errors() {
    let hooks = memory_hooks(Arc::new(MemoryAdapter::new()))
        .on("adapter.getSessionAndUser", |args| Err(HostError::new(format!("no session {args} in table"))))
        .on("adapter.linkAccount", |args| Err(HostError::new(format!("cannot store {args}"))));
    let adapter = from_config(&json!({ "type": "host" }), Arc::new(hooks)).unwrap();
    let err = adapter.get_session_and_user("secret-session-token").unwrap_err();
    assert!(!err.to_string().contains("secret-session-token"), "{err}");
    assert!(err.to_string().contains("[redacted]"), "{err}");
    let err = adapter.link_account(&suite::oauth_account("u1", "1")).unwrap_err();
    for secret in ["gho_access", "ghr_refresh", "eyJhbGciOi.id.token"] {
        assert!(!err.to_string().contains(secret), "{err}");
    }
}

#[test]
fn host_adapter_missing_hooks_are_named() {
    let hooks = HookMap::new().on("adapter.getUser", |_| Ok(Value::Null));
    let err = from_config(&json!({ "type": "host" }), Arc::new(hooks)).err().unwrap();
    assert_eq!(err.option, "adapter");
    for missing in ["adapter.createUser", "adapter.getSessionAndUser", "adapter.deleteUser", "adapter.linkAccount"] {
        assert!(err.message.contains(missing), "{}", err.message);
    }
    assert!(!err.message.contains("adapter.getUser,"), "{}", err.message);
    assert!(!err.message.contains("useVerificationToken"), "optional: {}", err.message);
}

/// Optional hooks may be absent; `supports` says so, and calling one is an
/// error, not a panic.
#[test]
fn host_adapter_optional_hooks() {
    let names = libauth_core::adapter::host::REQUIRED_METHODS;
    let hooks = names.iter().fold(HookMap::new(), |m, name| m.on(&format!("adapter.{name}"), |_| Ok(Value::Null)));
    let adapter = from_config(&json!({ "type": "host" }), Arc::new(hooks)).unwrap();
    assert!(adapter.supports("createSession"));
    assert!(!adapter.supports("useVerificationToken"));
    assert!(matches!(adapter.use_verification_token("a", "b"), Err(AdapterError::Other { .. })));
    assert!(MemoryAdapter::new().supports("useVerificationToken"));
}

#[test]
fn sqlite_data_survives_reopening_the_file() {
    let file = temp_db_path();
    let user = {
        let adapter = libauth_core::adapter::SqliteAdapter::open(&file.0).unwrap();
        assert_eq!(adapter.schema_version().unwrap(), 1);
        adapter.create_user(&suite::new_user(Some("keep@example.com"))).unwrap()
    };
    let reopened = libauth_core::adapter::SqliteAdapter::open(&file.0).unwrap();
    assert_eq!(reopened.schema_version().unwrap(), 1, "migrations are not re-applied");
    assert_eq!(reopened.get_user_by_email("keep@example.com").unwrap(), Some(user));
}

#[test]
fn sqlite_in_memory() {
    let adapter = from_config(&json!({ "type": "sqlite", "path": ":memory:" }), Arc::new(NoHooks)).unwrap();
    let user = adapter.create_user(&suite::new_user(None)).unwrap();
    assert_eq!(adapter.get_user(&user.id).unwrap(), Some(user));
}

/// Several processes starting on an empty schema at once: the advisory lock
/// makes them take turns; all succeed and the migration is recorded once.
#[test]
#[cfg(feature = "integration")]
fn postgres_concurrent_migrations_do_not_race() {
    use libauth_core::adapter::{PostgresAdapter, PostgresOptions};
    let schema = temp_schema();
    let options = PostgresOptions { schema: schema.0.clone(), ..PostgresOptions::new(postgres_url()) };
    let barrier = Arc::new(Barrier::new(4));
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let (options, barrier) = (options.clone(), barrier.clone());
            thread::spawn(move || {
                barrier.wait();
                if i % 2 == 0 {
                    libauth_core::adapter::postgres::migrate(&options)
                } else {
                    PostgresAdapter::new(&options).unwrap().migrate()
                }
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().expect("no panic"), Ok(1));
    }
    let mut client = ::postgres::Client::connect(&postgres_url(), ::postgres::NoTls).unwrap();
    let rows = client.query(&format!("SELECT version FROM \"{}\".schema_version", schema.0), &[]).unwrap();
    assert_eq!(rows.len(), 1);
    // And the tables work.
    let adapter = PostgresAdapter::new(&options).unwrap();
    adapter.create_user(&suite::new_user(None)).unwrap();
}

/// A database that is down when the application starts is not a config
/// error: the first call reports `Unavailable`.
#[test]
fn postgres_down_at_start_is_unavailable_not_a_config_error() {
    // Port 1 on loopback: nothing listens there.
    let config = json!({ "type": "postgres", "url": "postgres://postgres@127.0.0.1:1/test", "connectTimeout": 1 });
    let adapter = from_config(&config, Arc::new(NoHooks)).unwrap();
    let started = std::time::Instant::now();
    let err = adapter.get_user("x").unwrap_err();
    assert!(err.is_retryable(), "{err}");
    assert_eq!(err.operation(), "getUser");
    assert!(started.elapsed() < std::time::Duration::from_secs(10), "{:?}", started.elapsed());
}

#[test]
#[cfg(feature = "integration")]
fn postgres_errors_never_show_values() {
    let f = postgres();
    let token = "tok-very-secret-value";
    let user = f.adapter.create_user(&suite::new_user(None)).unwrap();
    let session = AdapterSession { session_token: token.to_owned(), user_id: user.id.clone(), expires: NOW };
    f.adapter.create_session(&session).unwrap();
    let err = f.adapter.create_session(&session).unwrap_err();
    assert!(!format!("{err} {err:?}").contains(token), "{err:?}");
}

// ---------------------------------------------------------------------------
// The `adapter` config option

fn config_error(value: Value) -> libauth_core::ConfigError {
    match from_config(&value, Arc::new(NoHooks)) {
        Ok(_) => panic!("{value} should be refused"),
        Err(e) => e,
    }
}

#[test]
fn config_errors_name_the_option() {
    assert_eq!(config_error(json!("sqlite")).option, "adapter");
    assert_eq!(config_error(json!({})).option, "adapter.type");
    assert_eq!(config_error(json!({ "type": "mongodb" })).option, "adapter.type");
    assert_eq!(config_error(json!({ "type": "sqlite" })).option, "adapter.path");
    assert_eq!(config_error(json!({ "type": "sqlite", "path": 3 })).option, "adapter.path");
    assert_eq!(config_error(json!({ "type": "sqlite", "path": "/no/such/dir/auth.db" })).option, "adapter.path");
    assert_eq!(config_error(json!({ "type": "sqlite", "path": "a.db", "pth": 1 })).option, "adapter.pth");
    assert_eq!(config_error(json!({ "type": "memory", "path": "a.db" })).option, "adapter.path");
    assert_eq!(config_error(json!({ "type": "postgres" })).option, "adapter.url");
    assert_eq!(config_error(json!({ "type": "postgres", "url": "postgres://h/db?bogus=1" })).option, "adapter.url");
    assert_eq!(
        config_error(json!({ "type": "postgres", "url": "postgres://h/db?sslmode=verify-everything" })).option,
        "adapter.url"
    );
    assert_eq!(
        config_error(json!({ "type": "postgres", "url": "postgres://h/db", "poolSize": 0 })).option,
        "adapter.poolSize"
    );
    assert_eq!(
        config_error(json!({ "type": "postgres", "url": "postgres://h/db", "schema": "Robert'); DROP" })).option,
        "adapter.schema"
    );
    assert_eq!(
        config_error(json!({ "type": "postgres", "url": "postgres://h/db", "connectTimeout": -1 })).option,
        "adapter.connectTimeout"
    );
}

#[test]
fn config_errors_do_not_show_the_database_password() {
    let err = config_error(json!({ "type": "postgres", "url": "postgres://u:hunter2@h/db?bogus=1" }));
    assert!(!err.to_string().contains("hunter2"), "{err}");
}

// ---------------------------------------------------------------------------
// JSON shapes (what a host adapter and the bindings see)

#[test]
fn json_names_and_dates_follow_authjs() {
    let user = AdapterUser {
        id: "u1".into(),
        name: None,
        email: Some("a@b.c".into()),
        email_verified: Some(1_445_412_480_123),
        image: None,
    };
    assert_eq!(
        serde_json::to_value(&user).unwrap(),
        json!({ "id": "u1", "name": null, "email": "a@b.c", "emailVerified": "2015-10-21T07:28:00.123Z", "image": null })
    );
    let session = AdapterSession { session_token: "t".into(), user_id: "u1".into(), expires: 0 };
    assert_eq!(
        serde_json::to_value(&session).unwrap(),
        json!({ "sessionToken": "t", "userId": "u1", "expires": "1970-01-01T00:00:00.000Z" })
    );
    let account = suite::oauth_account("u1", "42");
    let v = serde_json::to_value(&account).unwrap();
    assert_eq!(v["userId"], "u1");
    assert_eq!(v["type"], "oidc");
    assert_eq!(v["providerAccountId"], "42");
    assert_eq!(v["access_token"], "gho_access");
    assert_eq!(v["expires_at"], NOW / 1000 + 3600);
    assert_eq!(v["expires_in"], 3600, "extra fields are flattened");
    assert_eq!(serde_json::from_value::<AdapterAccount>(v).unwrap(), account);
}

#[test]
fn dates_are_accepted_as_iso_strings_or_milliseconds() {
    let from_iso: VerificationToken =
        serde_json::from_value(json!({ "identifier": "a", "token": "t", "expires": "2015-10-21T07:28:00.123Z" }))
            .unwrap();
    let from_ms: VerificationToken =
        serde_json::from_value(json!({ "identifier": "a", "token": "t", "expires": 1_445_412_480_123_i64 })).unwrap();
    assert_eq!(from_iso.expires, 1_445_412_480_123);
    assert_eq!(from_iso, from_ms);
    assert!(serde_json::from_value::<VerificationToken>(json!({ "identifier": "a", "token": "t", "expires": "soon" }))
        .is_err());
    let user: AdapterUser = serde_json::from_value(json!({ "id": "u", "emailVerified": null })).unwrap();
    assert_eq!(user.email_verified, None);
}

#[test]
fn user_update_tells_absent_from_null() {
    let update: UserUpdate =
        serde_json::from_value(json!({ "id": "u", "name": null, "emailVerified": "1970-01-01T00:00:01.000Z" }))
            .unwrap();
    assert_eq!(update.name, Some(None), "null clears");
    assert_eq!(update.image, None, "absent keeps");
    assert_eq!(update.email_verified, Some(Some(1000)));
    assert_eq!(
        serde_json::to_value(&update).unwrap(),
        json!({ "id": "u", "name": null, "emailVerified": "1970-01-01T00:00:01.000Z" })
    );
}

#[test]
fn debug_output_hides_tokens() {
    let account = suite::oauth_account("u1", "42");
    let session = AdapterSession { session_token: "sess-secret".into(), user_id: "u1".into(), expires: 0 };
    let token = VerificationToken { identifier: "a@b.c".into(), token: "vt-secret".into(), expires: 0 };
    let printed = format!("{account:?} {session:?} {token:?}");
    for secret in ["gho_access", "ghr_refresh", "eyJhbGciOi.id.token", "sess-secret", "vt-secret"] {
        assert!(!printed.contains(secret), "{printed}");
    }
}

#[test]
fn adapter_errors_become_authjs_adapter_errors() {
    let err: libauth_core::AuthError = AdapterError::unavailable("getUser", "connection refused").into();
    assert_eq!(err.error_type, libauth_core::ErrorType::AdapterError);
    assert!(err.message.contains("getUser"));
}

#[test]
fn adapters_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync + ?Sized>() {}
    assert_send_sync::<dyn Adapter>();
    assert_send_sync::<libauth_core::adapter::SqliteAdapter>();
    assert_send_sync::<libauth_core::adapter::PostgresAdapter>();
    assert_send_sync::<libauth_core::adapter::HostAdapter>();
    let _: &dyn Host = &NoHooks;
}
