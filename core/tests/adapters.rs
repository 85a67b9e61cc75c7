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

use libauth_core::store::prelude::*;
use libauth_core::store::{
    constraint, from_config, AccountType, Adapter, AdapterAccount, AdapterError, AdapterSession, AdapterUser,
    Authenticator, HostAdapter, MemoryAdapter, NewUser, UserUpdate, VerificationToken,
};
use libauth_core::{HookMap, Host, HostError, NoHooks};
use serde_json::{json, Value};

const NOW: i64 = 1_763_800_000_123; // 2025-11-22, with milliseconds
const DAY: i64 = 86_400_000;
/// The schema version of the built-in SQL adapters (how many migrations).
const SCHEMA_VERSION: usize = 6;

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
        Value::String(s) if libauth_core::store::date::parse_iso(s).is_some() => Ok(()),
        Value::Null if key == "emailVerified" => Ok(()),
        other => Err(HostError::new(format!("{key} should be an ISO date string, got {other}"))),
    }
}

fn memory_hooks(store: Arc<MemoryAdapter>) -> HookMap {
    account_hooks(memory_hooks_without_accounts(store.clone()), store)
}

/// Auth.js's adapter methods and the passkey methods, without libauth's
/// account methods.
fn memory_hooks_without_accounts(store: Arc<MemoryAdapter>) -> HookMap {
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
        let expires = libauth_core::store::date::from_json(&args["expires"]).unwrap_or_default();
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
    let s = store.clone();
    let hooks = hooks.on("adapter.useVerificationToken", move |args| {
        let identifier = args["identifier"].as_str().unwrap_or_default();
        let token = args["token"].as_str().unwrap_or_default();
        // Answer with milliseconds rather than an ISO string: hosts may.
        Ok(match s.use_verification_token(identifier, token).map_err(host_error)? {
            Some(t) => json!({ "identifier": t.identifier, "token": t.token, "expires": t.expires }),
            None => Value::Null,
        })
    });
    authenticator_hooks(hooks, store)
}

/// libauth's account methods (the password provider needs them).
fn account_hooks(hooks: HookMap, store: Arc<MemoryAdapter>) -> HookMap {
    let s = store.clone();
    let hooks = hooks.on("adapter.getUserAccount", move |args| {
        let user_id = args["userId"].as_str().unwrap_or_default();
        let provider = args["provider"].as_str().unwrap_or_default();
        to_value(s.get_account(user_id, provider).map_err(host_error)?)
    });
    hooks.on("adapter.updateAccount", move |args| {
        store.update_account(&parse(args)?).map_err(host_error)?;
        Ok(Value::Null)
    })
}

/// The passkey hooks, as an Auth.js adapter has them (plus libauth's two).
/// Each takes what `HookCall::describe` would hand a host, as JSON: the
/// engine's arguments, before a binding spreads them into positional ones.
fn authenticator_hooks(hooks: HookMap, store: Arc<MemoryAdapter>) -> HookMap {
    let s = store.clone();
    let hooks = hooks.on("adapter.createAuthenticator", move |args| {
        expect_optional_iso_date(&args, "createdAt")?;
        expect_optional_iso_date(&args, "lastUsedAt")?;
        to_value(s.create_authenticator(&parse(args)?).map_err(host_error)?)
    });
    let s = store.clone();
    let hooks = hooks.on("adapter.getAuthenticator", move |args| {
        to_value(s.get_authenticator(string_arg(&args)?).map_err(host_error)?)
    });
    let s = store.clone();
    let hooks = hooks.on("adapter.listAuthenticatorsByUserId", move |args| {
        // Newest first on purpose: the adapter must not rely on a host's order.
        let mut list = s.list_authenticators_by_user_id(string_arg(&args)?).map_err(host_error)?;
        list.reverse();
        to_value(list)
    });
    let s = store.clone();
    let hooks = hooks.on("adapter.updateAuthenticatorCounter", move |args| {
        expect_iso_date(&args, "lastUsedAt")?;
        let id = args["credentialID"].as_str().unwrap_or_default();
        let counter = args["newCounter"].as_u64().and_then(|c| u32::try_from(c).ok());
        let counter = counter.ok_or_else(|| HostError::new("newCounter should be a u32"))?;
        let used_at = libauth_core::store::date::from_json(&args["lastUsedAt"]).unwrap_or_default();
        to_value(s.update_authenticator_counter(id, counter, used_at).map_err(host_error)?)
    });
    let s = store.clone();
    let hooks = hooks.on("adapter.renameAuthenticator", move |args| {
        let id = args["credentialID"].as_str().unwrap_or_default();
        if !(args["name"].is_string() || args["name"].is_null()) {
            return Err(HostError::new("name should be a string or null"));
        }
        to_value(s.rename_authenticator(id, args["name"].as_str()).map_err(host_error)?)
    });
    let s = store;
    hooks.on("adapter.deleteAuthenticator", move |args| {
        to_value(s.delete_authenticator(string_arg(&args)?).map_err(host_error)?)
    })
}

fn expect_optional_iso_date(args: &Value, key: &str) -> Result<(), HostError> {
    match &args[key] {
        Value::Null => Ok(()),
        _ => expect_iso_date(args, key),
    }
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
            locale: None,
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

    /// The user's language (`locale`) is stored at creation, by each way of
    /// creating a user, and comes back from every read: by id, by email, by
    /// account, with a session. An update that names it changes or clears
    /// it; one that does not leaves it.
    pub fn user_locale_round_trips(f: &Fixture) {
        let a = &f.adapter;
        let email = unique_email();
        let created = a.create_user(&NewUser { locale: Some("fr".to_owned()), ..new_user(Some(&email)) }).unwrap();
        assert_eq!(created.locale.as_deref(), Some("fr"));
        assert_eq!(a.get_user(&created.id).unwrap(), Some(created.clone()));
        assert_eq!(a.get_user_by_email(&email).unwrap(), Some(created.clone()));
        let pid = libauth_core::random::hex(6);
        a.link_account(&oauth_account(&created.id, &pid)).unwrap();
        assert_eq!(a.get_user_by_account("github", &pid).unwrap(), Some(created.clone()));
        let token = libauth_core::random::hex(16);
        let stored = a.create_session(&session(&token, &created.id, NOW + DAY)).unwrap();
        assert_eq!(a.get_session_and_user(&token).unwrap(), Some((stored, created.clone())));

        // An update that does not name the locale keeps it.
        let renamed = a
            .update_user(&UserUpdate {
                id: created.id.clone(),
                name: Some(Some("Ada King".to_owned())),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(renamed.locale.as_deref(), Some("fr"), "absent keeps");
        assert_eq!(a.get_user(&created.id).unwrap(), Some(renamed.clone()));
        // One that names it changes it, everywhere it is read.
        let changed = a
            .update_user(&UserUpdate {
                id: created.id.clone(),
                locale: Some(Some("pt-BR".to_owned())),
                ..Default::default()
            })
            .unwrap();
        assert_eq!(
            changed,
            AdapterUser { locale: Some("pt-BR".to_owned()), ..renamed.clone() },
            "only the locale changes"
        );
        assert_eq!(a.get_user(&created.id).unwrap(), Some(changed.clone()));
        assert_eq!(a.get_user_by_email(&email).unwrap(), Some(changed.clone()));
        assert_eq!(a.get_user_by_account("github", &pid).unwrap(), Some(changed.clone()));
        assert_eq!(a.get_session_and_user(&token).unwrap().map(|(_, u)| u), Some(changed.clone()));
        // `null` clears it.
        let cleared =
            a.update_user(&UserUpdate { id: created.id.clone(), locale: Some(None), ..Default::default() }).unwrap();
        assert_eq!(cleared, AdapterUser { locale: None, ..changed });
        assert_eq!(a.get_session_and_user(&token).unwrap().map(|(_, u)| u), Some(cleared));

        // A user created with an account (a first OAuth sign-in) keeps it too.
        let pid = libauth_core::random::hex(6);
        let linked = a
            .create_user_and_link_account(
                &NewUser { locale: Some("ja".to_owned()), ..new_user(Some(&unique_email())) },
                &oauth_account("", &pid),
            )
            .unwrap();
        assert_eq!(linked.locale.as_deref(), Some("ja"));
        assert_eq!(a.get_user_by_account("github", &pid).unwrap(), Some(linked));
        let pid = libauth_core::random::hex(6);
        let ensured = a
            .ensure_user_with_account(
                &NewUser { locale: Some("ar".to_owned()), ..new_user(Some(&unique_email())) },
                &oauth_account("", &pid),
            )
            .unwrap();
        assert!(ensured.created);
        assert_eq!(a.get_user_by_account("github", &pid).unwrap().and_then(|u| u.locale).as_deref(), Some("ar"));
        // And a user created without one has none.
        let plain = a.create_user(&new_user(Some(&unique_email()))).unwrap();
        assert_eq!(a.get_user(&plain.id).unwrap().map(|u| u.locale), Some(None));
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
        assert_eq!(a.delete_expired(NOW).unwrap(), libauth_core::store::Purged::default(), "nothing left to purge");
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

    /// A passkey of `user_id`, as the WebAuthn routes store one.
    pub fn passkey(user_id: &str, credential_id: &str, created_at: Option<i64>) -> Authenticator {
        Authenticator {
            credential_id: credential_id.to_owned(),
            user_id: user_id.to_owned(),
            provider_account_id: credential_id.to_owned(),
            credential_public_key: "pQECAyYgASFYIMx4k0AzZ3p1YV9kZXZpY2Vfa2V5X3g=".to_owned(),
            counter: 0,
            credential_device_type: "multiDevice".to_owned(),
            credential_backed_up: true,
            transports: Some("internal,hybrid".to_owned()),
            name: Some("MacBook".to_owned()),
            created_at,
            last_used_at: None,
        }
    }

    fn credential_id() -> String {
        format!("cred-{}", libauth_core::random::hex(12))
    }

    fn assert_not_found<T: std::fmt::Debug>(f: &Fixture, result: Result<T, AdapterError>) {
        match result {
            Err(AdapterError::NotFound { .. }) => {}
            Err(AdapterError::Other { .. }) if !f.typed_errors => {}
            other => panic!("expected NotFound, got {other:?}"),
        }
    }

    pub fn authenticators_round_trip(f: &Fixture) {
        let a = &f.adapter;
        let user = a.create_user(&new_user(Some(&unique_email()))).unwrap();
        let other = a.create_user(&new_user(None)).unwrap();
        let id = credential_id();
        let first = passkey(&user.id, &id, Some(NOW));
        assert_eq!(a.create_authenticator(&first).unwrap(), first);
        assert_eq!(a.get_authenticator(&id).unwrap(), Some(first.clone()), "milliseconds survive storage");
        assert_eq!(a.get_authenticator("no-such-credential").unwrap(), None);

        // Every optional field empty, the other enum values, the largest
        // counter: as stored.
        let bare = Authenticator {
            credential_device_type: "singleDevice".to_owned(),
            credential_backed_up: false,
            transports: None,
            name: None,
            counter: u32::MAX,
            ..passkey(&user.id, &credential_id(), Some(NOW + DAY))
        };
        a.create_authenticator(&bare).unwrap();
        assert_eq!(a.get_authenticator(&bare.credential_id).unwrap(), Some(bare.clone()));

        // Oldest first: a row without `createdAt` (as Auth.js writes them)
        // before any, equal dates by credential id.
        let older = passkey(&user.id, &credential_id(), Some(NOW - DAY));
        let legacy = passkey(&user.id, &credential_id(), None);
        let tie = format!("{id}-tie"); // sorts right after `id`
        let same_time = passkey(&user.id, &tie, Some(NOW));
        for p in [&same_time, &legacy, &older] {
            a.create_authenticator(p).unwrap();
        }
        let elsewhere = passkey(&other.id, &credential_id(), Some(NOW - 2 * DAY));
        a.create_authenticator(&elsewhere).unwrap();
        let listed = a.list_authenticators_by_user_id(&user.id).unwrap();
        assert_eq!(listed, vec![legacy.clone(), older.clone(), first.clone(), same_time.clone(), bare.clone()]);
        assert_eq!(a.list_authenticators_by_user_id(&other.id).unwrap(), vec![elsewhere.clone()]);
        assert_eq!(a.list_authenticators_by_user_id("no-such-user").unwrap(), vec![]);

        // A use: the counter and when, nothing else.
        let used = a.update_authenticator_counter(&id, 5, NOW + 7).unwrap();
        let expected = Authenticator { counter: 5, last_used_at: Some(NOW + 7), ..first.clone() };
        assert_eq!(used, expected);
        assert_eq!(a.get_authenticator(&id).unwrap(), Some(expected.clone()));
        assert_not_found(f, a.update_authenticator_counter("no-such-credential", 1, NOW));

        let renamed = a.rename_authenticator(&id, Some("Work laptop")).unwrap();
        let expected = Authenticator { name: Some("Work laptop".to_owned()), ..expected };
        assert_eq!(renamed, Some(expected.clone()));
        let cleared = a.rename_authenticator(&id, None).unwrap();
        let expected = Authenticator { name: None, ..expected };
        assert_eq!(cleared, Some(expected.clone()));
        assert_eq!(a.get_authenticator(&id).unwrap(), Some(expected.clone()));
        assert_eq!(a.rename_authenticator("no-such-credential", Some("x")).unwrap(), None);

        assert_eq!(a.delete_authenticator(&id).unwrap(), Some(expected));
        assert_eq!(a.delete_authenticator(&id).unwrap(), None);
        assert_eq!(a.get_authenticator(&id).unwrap(), None);
        assert_eq!(a.list_authenticators_by_user_id(&user.id).unwrap(), vec![legacy, older, same_time, bare]);
        assert_eq!(a.get_user(&user.id).unwrap(), Some(user), "deleting a passkey keeps the user");
    }

    /// A credential belongs to one account, ever: its id is refused a
    /// second time, for another user or the same one.
    pub fn authenticator_credential_id_is_unique(f: &Fixture) {
        let a = &f.adapter;
        let owner = a.create_user(&new_user(None)).unwrap();
        let other = a.create_user(&new_user(None)).unwrap();
        let id = credential_id();
        let stored = passkey(&owner.id, &id, Some(NOW));
        a.create_authenticator(&stored).unwrap();

        let same_user = a.create_authenticator(&passkey(&owner.id, &id, Some(NOW + 1)));
        assert_no_secret(&same_user, &id);
        assert_constraint(f, same_user, constraint::AUTHENTICATOR_ID);
        let other_user = a.create_authenticator(&passkey(&other.id, &id, Some(NOW + 1)));
        assert_no_secret(&other_user, &id);
        assert_constraint(f, other_user, constraint::AUTHENTICATOR_ID);
        let orphan = a.create_authenticator(&passkey("no-such-user", &credential_id(), Some(NOW)));
        assert_constraint(f, orphan, constraint::AUTHENTICATOR_USER);
        // Both wrong: the taken id is what is reported.
        assert_constraint(f, a.create_authenticator(&passkey("no-such-user", &id, None)), constraint::AUTHENTICATOR_ID);

        assert_eq!(a.get_authenticator(&id).unwrap(), Some(stored.clone()), "the stored passkey is unchanged");
        assert_eq!(a.list_authenticators_by_user_id(&owner.id).unwrap(), vec![stored]);
        assert_eq!(a.list_authenticators_by_user_id(&other.id).unwrap(), vec![]);
    }

    pub fn deleting_a_user_deletes_their_passkeys(f: &Fixture) {
        let a = &f.adapter;
        let user = a.create_user(&new_user(Some(&unique_email()))).unwrap();
        let bystander = a.create_user(&new_user(None)).unwrap();
        let (p1, p2) = (passkey(&user.id, &credential_id(), Some(NOW)), passkey(&user.id, &credential_id(), None));
        let kept = passkey(&bystander.id, &credential_id(), Some(NOW));
        for p in [&p1, &p2, &kept] {
            a.create_authenticator(p).unwrap();
        }

        a.delete_user(&user.id).unwrap();
        assert_eq!(a.get_authenticator(&p1.credential_id).unwrap(), None);
        assert_eq!(a.get_authenticator(&p2.credential_id).unwrap(), None);
        assert_eq!(a.list_authenticators_by_user_id(&user.id).unwrap(), vec![]);
        assert_eq!(a.get_authenticator(&kept.credential_id).unwrap(), Some(kept.clone()), "other users keep theirs");
        // The rows are really gone: the credential id is free again.
        a.create_authenticator(&Authenticator { user_id: bystander.id.clone(), ..p1.clone() }).unwrap();
        assert_eq!(a.list_authenticators_by_user_id(&bystander.id).unwrap().len(), 2);
    }

    /// One credential registered for many accounts at once (a replayed
    /// registration): exactly one stores it, every other call is refused.
    pub fn authenticator_race_has_one_winner(f: &Fixture) {
        const THREADS: usize = 32;
        let users: Vec<String> = (0..THREADS).map(|_| f.adapter.create_user(&new_user(None)).unwrap().id).collect();
        let id = credential_id();
        let barrier = Arc::new(Barrier::new(THREADS));
        let handles: Vec<_> = users
            .iter()
            .map(|user_id| {
                let (adapter, barrier, p) = (f.adapter.clone(), barrier.clone(), passkey(user_id, &id, Some(NOW)));
                thread::spawn(move || {
                    barrier.wait();
                    adapter.create_authenticator(&p)
                })
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join().expect("no panic")).collect();
        let winners: Vec<&Authenticator> = results.iter().filter_map(|r| r.as_ref().ok()).collect();
        assert_eq!(winners.len(), 1, "{results:?}");
        for result in results.iter().filter(|r| r.is_err()) {
            match result {
                Err(AdapterError::Constraint { constraint, .. }) if f.typed_errors => {
                    assert_eq!(constraint, constraint::AUTHENTICATOR_ID)
                }
                Err(e) => assert!(!f.typed_errors && !e.is_retryable(), "{e}"),
                Ok(_) => unreachable!(),
            }
        }
        assert_eq!(a_owner(f, &id), Some(winners[0].user_id.clone()), "the winner's row is stored");
    }

    fn a_owner(f: &Fixture, credential_id: &str) -> Option<String> {
        f.adapter.get_authenticator(credential_id).unwrap().map(|p| p.user_id)
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
            assert_eq!(again, libauth_core::store::Ensured { user: first.user.clone(), created: false });
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
                users_round_trip, user_with_given_id, update_user, user_locale_round_trips, unique_email_per_user,
                accounts, sessions,
                expired_sessions_are_returned, deleting_a_user_deletes_accounts_and_sessions, verification_tokens,
                expired_verification_tokens_are_returned_and_consumed, verification_token_race_has_one_winner,
                create_user_and_link_account, create_user_and_link_account_is_atomic, authenticators_round_trip,
                authenticator_credential_id_is_unique, deleting_a_user_deletes_their_passkeys,
                authenticator_race_has_one_winner);
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

/// A built-in backend composed as the engine composes it: every method
/// is there.
fn memory_stores() -> libauth_core::store::DataStores {
    let memory = Arc::new(MemoryAdapter::new());
    libauth_core::store::DataStores::new(memory.clone(), (memory.clone(), memory.clone()), memory, None, None)
}

/// Optional hooks may be absent; `supports` says so, and calling one is an
/// error, not a panic.
#[test]
fn host_adapter_optional_hooks() {
    let names = libauth_core::store::host::REQUIRED_METHODS;
    let hooks = names.iter().fold(HookMap::new(), |m, name| m.on(&format!("adapter.{name}"), |_| Ok(Value::Null)));
    let adapter = HostAdapter::new(Arc::new(hooks)).unwrap();
    assert!(adapter.supports("createSession"));
    assert!(!adapter.supports("useVerificationToken"));
    assert!(matches!(adapter.use_verification_token("a", "b"), Err(AdapterError::Other { .. })));
    assert!(memory_stores().supports("useVerificationToken"));
}

/// The passkey hooks are optional (the engine requires the first four only
/// with a `webauthn` provider): `supports` tells, and a missing one is an
/// error naming it, not a panic.
#[test]
fn host_adapter_passkey_hooks_are_optional() {
    let names = libauth_core::store::host::REQUIRED_METHODS;
    let hooks = names.iter().fold(HookMap::new(), |m, name| m.on(&format!("adapter.{name}"), |_| Ok(Value::Null)));
    let adapter = HostAdapter::new(Arc::new(hooks)).unwrap();
    for method in libauth_core::store::AUTHENTICATOR_METHODS {
        assert!(!adapter.supports(method), "{method}");
    }
    let err = adapter.get_authenticator("c1").unwrap_err();
    assert!(err.to_string().contains("adapter.getAuthenticator"), "{err}");

    let with = authenticator_hooks(memory_hooks(Arc::new(MemoryAdapter::new())), Arc::new(MemoryAdapter::new()));
    let adapter = HostAdapter::new(Arc::new(with)).unwrap();
    for method in libauth_core::store::AUTHENTICATOR_METHODS {
        assert!(adapter.supports(method), "{method}");
    }
    for method in libauth_core::store::AUTHENTICATOR_METHODS {
        assert!(memory_stores().supports(method), "{method}");
    }
}

/// A credential id is a key: a host's error text quoting it is redacted.
#[test]
fn host_adapter_keeps_credential_ids_out_of_errors() {
    let hooks = memory_hooks(Arc::new(MemoryAdapter::new()))
        .on("adapter.getAuthenticator", |args| Err(HostError::new(format!("no row {args}"))))
        .on("adapter.updateAuthenticatorCounter", |args| Err(HostError::new(format!("cannot update {args}"))));
    let adapter = from_config(&json!({ "type": "host" }), Arc::new(hooks)).unwrap();
    let err = adapter.get_authenticator("cred-secret-id").unwrap_err();
    assert!(!err.to_string().contains("cred-secret-id") && err.to_string().contains("[redacted]"), "{err}");
    let err = adapter.update_authenticator_counter("cred-secret-id", 3, NOW).unwrap_err();
    assert!(!err.to_string().contains("cred-secret-id"), "{err}");
}

#[test]
fn sqlite_data_survives_reopening_the_file() {
    let file = temp_db_path();
    let user = {
        let adapter = libauth_core::store::SqliteAdapter::open(&file.0).unwrap();
        assert_eq!(adapter.schema_version().unwrap(), SCHEMA_VERSION);
        adapter.create_user(&suite::new_user(Some("keep@example.com"))).unwrap()
    };
    let reopened = libauth_core::store::SqliteAdapter::open(&file.0).unwrap();
    assert_eq!(reopened.schema_version().unwrap(), SCHEMA_VERSION, "migrations are not re-applied");
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
    use libauth_core::store::{PostgresAdapter, PostgresOptions};
    let schema = temp_schema();
    let options = PostgresOptions { schema: schema.0.clone(), ..PostgresOptions::new(postgres_url()) };
    let barrier = Arc::new(Barrier::new(4));
    let handles: Vec<_> = (0..4)
        .map(|i| {
            let (options, barrier) = (options.clone(), barrier.clone());
            thread::spawn(move || {
                barrier.wait();
                if i % 2 == 0 {
                    libauth_core::store::postgres::migrate(&options, None).map(|m| m.to as usize)
                } else {
                    PostgresAdapter::new(&options).unwrap().migrate()
                }
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().expect("no panic"), Ok(SCHEMA_VERSION));
    }
    let mut client = ::postgres::Client::connect(&postgres_url(), ::postgres::NoTls).unwrap();
    let rows =
        client.query(&format!("SELECT version FROM \"{}\".schema_version ORDER BY version", schema.0), &[]).unwrap();
    let versions: Vec<i32> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(versions, (1..=SCHEMA_VERSION as i32).collect::<Vec<_>>(), "each migration recorded once");
    // And the tables work.
    let adapter = PostgresAdapter::new(&options).unwrap();
    adapter.create_user(&suite::new_user(None)).unwrap();
}

/// The schema libauth's first release created (migration 1, as shipped),
/// frozen here: databases in the field look like this, whatever the code
/// says now. `{schema}` is the quoted schema on PostgreSQL, empty on SQLite.
const SCHEMA_V1_SQLITE: &str = "
    CREATE TABLE schema_version (version INTEGER NOT NULL);
    CREATE TABLE users (
        id TEXT NOT NULL CONSTRAINT users_pkey PRIMARY KEY,
        name TEXT,
        email TEXT CONSTRAINT users_email_key UNIQUE,
        email_verified INTEGER,
        image TEXT
    );
    CREATE TABLE accounts (
        user_id TEXT NOT NULL CONSTRAINT accounts_user_fkey REFERENCES users(id) ON DELETE CASCADE,
        type TEXT NOT NULL,
        provider TEXT NOT NULL,
        provider_account_id TEXT NOT NULL,
        access_token TEXT,
        refresh_token TEXT,
        expires_at INTEGER,
        token_type TEXT,
        scope TEXT,
        id_token TEXT,
        session_state TEXT,
        extra TEXT NOT NULL DEFAULT '{}',
        CONSTRAINT accounts_provider_account_key PRIMARY KEY (provider, provider_account_id)
    );
    CREATE INDEX accounts_user_id_idx ON accounts(user_id);
    CREATE TABLE sessions (
        session_token TEXT NOT NULL CONSTRAINT sessions_pkey PRIMARY KEY,
        user_id TEXT NOT NULL CONSTRAINT sessions_user_fkey REFERENCES users(id) ON DELETE CASCADE,
        expires INTEGER NOT NULL
    );
    CREATE INDEX sessions_user_id_idx ON sessions(user_id);
    CREATE TABLE verification_tokens (
        identifier TEXT NOT NULL,
        token TEXT NOT NULL,
        expires INTEGER NOT NULL,
        CONSTRAINT verification_tokens_pkey PRIMARY KEY (identifier, token)
    );
    INSERT INTO schema_version (version) VALUES (1);
    INSERT INTO users (id, name, email, email_verified, image)
        VALUES ('old-user', 'Ada', 'old@example.com', 1763800000123, NULL);
    INSERT INTO accounts (user_id, type, provider, provider_account_id, access_token)
        VALUES ('old-user', 'oauth', 'github', 'gh-1', 'gho_old');
    INSERT INTO sessions (session_token, user_id, expires) VALUES ('old-session', 'old-user', 1763886400123);
";

/// What an upgraded database must still hold (the rows of the v1 scripts),
/// and that passkeys now work in it, cascade included.
fn check_upgraded(adapter: &dyn Adapter) {
    let user = adapter.get_user_by_email("old@example.com").unwrap().expect("the old user is kept");
    assert_eq!((user.id.as_str(), user.email_verified), ("old-user", Some(NOW)));
    assert_eq!(user.locale, None, "users stored before version 4 have no locale");
    assert_eq!(adapter.get_user_by_account("github", "gh-1").unwrap().map(|u| u.id), Some(user.id.clone()));
    let (session, _) = adapter.get_session_and_user("old-session").unwrap().expect("the old session is kept");
    assert_eq!(session.expires, NOW + DAY);
    assert_eq!(
        adapter.get_account(&user.id, "github").unwrap().and_then(|a| a.access_token).as_deref(),
        Some("gho_old")
    );

    let passkey = suite::passkey(&user.id, "cred-after-upgrade", Some(NOW));
    adapter.create_authenticator(&passkey).unwrap();
    assert_eq!(adapter.list_authenticators_by_user_id(&user.id).unwrap(), vec![passkey.clone()]);
    match adapter.create_authenticator(&suite::passkey("no-such-user", "cred-2", None)) {
        Err(AdapterError::Constraint { constraint, .. }) => assert_eq!(constraint, constraint::AUTHENTICATOR_USER),
        other => panic!("expected the foreign key, got {other:?}"),
    }
    adapter.delete_user(&user.id).unwrap();
    assert_eq!(adapter.get_authenticator(&passkey.credential_id).unwrap(), None, "deleted with its user");
}

/// A database of the previous schema version upgrades in place on open:
/// its rows are kept and passkeys work.
#[test]
fn sqlite_upgrades_a_version_1_database_in_place() {
    let file = temp_db_path();
    {
        let conn = rusqlite::Connection::open(&file.0).unwrap();
        conn.execute_batch(SCHEMA_V1_SQLITE).unwrap();
    }
    let adapter = libauth_core::store::SqliteAdapter::open(&file.0).unwrap();
    assert_eq!(adapter.schema_version().unwrap(), SCHEMA_VERSION);
    check_upgraded(&adapter);
    drop(adapter);
    let reopened = libauth_core::store::SqliteAdapter::open(&file.0).unwrap();
    assert_eq!(reopened.schema_version().unwrap(), SCHEMA_VERSION, "upgraded once");
}

#[cfg(feature = "integration")]
const SCHEMA_V1_POSTGRES: &str = "
    CREATE SCHEMA {schema};
    CREATE TABLE {schema}.schema_version (
        version integer NOT NULL PRIMARY KEY,
        applied_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE {schema}.users (
        id text NOT NULL CONSTRAINT users_pkey PRIMARY KEY,
        name text,
        email text CONSTRAINT users_email_key UNIQUE,
        email_verified timestamptz,
        image text
    );
    CREATE TABLE {schema}.accounts (
        user_id text NOT NULL CONSTRAINT accounts_user_fkey REFERENCES {schema}.users(id) ON DELETE CASCADE,
        type text NOT NULL,
        provider text NOT NULL,
        provider_account_id text NOT NULL,
        access_token text,
        refresh_token text,
        expires_at bigint,
        token_type text,
        scope text,
        id_token text,
        session_state text,
        extra jsonb NOT NULL DEFAULT '{}'::jsonb,
        CONSTRAINT accounts_provider_account_key PRIMARY KEY (provider, provider_account_id)
    );
    CREATE INDEX accounts_user_id_idx ON {schema}.accounts (user_id);
    CREATE TABLE {schema}.sessions (
        session_token text NOT NULL CONSTRAINT sessions_pkey PRIMARY KEY,
        user_id text NOT NULL CONSTRAINT sessions_user_fkey REFERENCES {schema}.users(id) ON DELETE CASCADE,
        expires timestamptz NOT NULL
    );
    CREATE INDEX sessions_user_id_idx ON {schema}.sessions (user_id);
    CREATE TABLE {schema}.verification_tokens (
        identifier text NOT NULL,
        token text NOT NULL,
        expires timestamptz NOT NULL,
        CONSTRAINT verification_tokens_pkey PRIMARY KEY (identifier, token)
    );
    INSERT INTO {schema}.schema_version (version) VALUES (1);
    INSERT INTO {schema}.users (id, name, email, email_verified, image)
        VALUES ('old-user', 'Ada', 'old@example.com', timestamptz 'epoch' + 1763800000123 * interval '1 millisecond', NULL);
    INSERT INTO {schema}.accounts (user_id, type, provider, provider_account_id, access_token)
        VALUES ('old-user', 'oauth', 'github', 'gh-1', 'gho_old');
    INSERT INTO {schema}.sessions (session_token, user_id, expires)
        VALUES ('old-session', 'old-user', timestamptz 'epoch' + 1763886400123 * interval '1 millisecond');
";

/// The same on PostgreSQL, through the first call (which migrates) and
/// through `migrate`, from several processes' worth of adapters at once.
#[test]
#[cfg(feature = "integration")]
fn postgres_upgrades_a_version_1_schema_in_place() {
    use libauth_core::store::{PostgresAdapter, PostgresOptions};
    let schema = temp_schema();
    let mut client = ::postgres::Client::connect(&postgres_url(), ::postgres::NoTls).unwrap();
    client.batch_execute(&SCHEMA_V1_POSTGRES.replace("{schema}", &format!("\"{}\"", schema.0))).unwrap();
    let options = PostgresOptions { schema: schema.0.clone(), ..PostgresOptions::new(postgres_url()) };
    let barrier = Arc::new(Barrier::new(4));
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let (options, barrier) = (options.clone(), barrier.clone());
            thread::spawn(move || {
                barrier.wait();
                PostgresAdapter::new(&options).unwrap().migrate()
            })
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().expect("no panic"), Ok(SCHEMA_VERSION));
    }
    let rows =
        client.query(&format!("SELECT version FROM \"{}\".schema_version ORDER BY version", schema.0), &[]).unwrap();
    let versions: Vec<i32> = rows.iter().map(|r| r.get(0)).collect();
    assert_eq!(versions, (1..=SCHEMA_VERSION as i32).collect::<Vec<_>>(), "each migration recorded once");
    check_upgraded(&PostgresAdapter::new(&options).unwrap());
}

/// What a version 3 database (users without a `locale` column) must hold
/// once at version 4: its user and session, the user with no locale, which
/// can then be given one.
fn check_locale_added(adapter: &dyn Adapter) {
    let user = adapter.get_user_by_email("old@example.com").unwrap().expect("the old user is kept");
    assert_eq!((user.id.as_str(), user.name.as_deref(), user.locale.as_deref()), ("old-user", Some("Ada"), None));
    let (session, read) = adapter.get_session_and_user("old-session").unwrap().expect("the old session is kept");
    assert_eq!((session.expires, read), (NOW + DAY, user.clone()));
    let update = UserUpdate { id: user.id.clone(), locale: Some(Some("fr".to_owned())), ..Default::default() };
    assert_eq!(adapter.update_user(&update).unwrap().locale.as_deref(), Some("fr"));
    assert_eq!(adapter.get_session_and_user("old-session").unwrap().and_then(|(_, u)| u.locale).as_deref(), Some("fr"));
}

/// A database at version 3 (made by migrating a new one to 3) migrates to
/// 4 on open and keeps its users; taken back to 3 it keeps them too (the
/// column goes, with the locales in it).
#[test]
fn sqlite_adds_the_locale_column_to_a_version_3_database() {
    use libauth_core::store::{sqlite, SqliteAdapter};
    let file = temp_db_path();
    assert_eq!(sqlite::migrate_file(&file.0, Some(3)).unwrap().to, 3);
    let conn = rusqlite::Connection::open(&file.0).unwrap();
    conn.execute_batch(
        "INSERT INTO users (id, name, email, email_verified, image)
            VALUES ('old-user', 'Ada', 'old@example.com', 1763800000123, NULL);
         INSERT INTO sessions (session_token, user_id, expires) VALUES ('old-session', 'old-user', 1763886400123);",
    )
    .unwrap();
    let adapter = SqliteAdapter::open(&file.0).unwrap();
    assert_eq!(adapter.schema_version().unwrap(), SCHEMA_VERSION);
    check_locale_added(&adapter);
    drop(adapter);

    let down = sqlite::migrate_file(&file.0, Some(3)).unwrap();
    assert_eq!((down.from, down.to), (SCHEMA_VERSION as u32, 3));
    let columns: Vec<String> = conn
        .prepare("SELECT name FROM pragma_table_info('users')")
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(columns, ["id", "name", "email", "email_verified", "image"]);
    let kept: String = conn.query_row("SELECT email FROM users WHERE id = 'old-user'", [], |r| r.get(0)).unwrap();
    assert_eq!(kept, "old@example.com");
    let adapter = SqliteAdapter::open(&file.0).unwrap();
    assert_eq!(adapter.get_user("old-user").unwrap().map(|u| u.locale), Some(None), "up again: no locale");
}

/// The same on PostgreSQL: a schema at version 3 with a user and a
/// session, migrated by the adapter's first call.
#[test]
#[cfg(feature = "integration")]
fn postgres_adds_the_locale_column_to_a_version_3_schema() {
    use libauth_core::store::{postgres, PostgresAdapter, PostgresOptions};
    let schema = temp_schema();
    let options = PostgresOptions { schema: schema.0.clone(), ..PostgresOptions::new(postgres_url()) };
    assert_eq!(postgres::migrate(&options, Some(3)).unwrap().to, 3);
    let mut client = ::postgres::Client::connect(&postgres_url(), ::postgres::NoTls).unwrap();
    let s = format!("\"{}\"", schema.0);
    client
        .batch_execute(&format!(
            "INSERT INTO {s}.users (id, name, email, email_verified, image)
                VALUES ('old-user', 'Ada', 'old@example.com', timestamptz 'epoch' + 1763800000123 * interval '1 millisecond', NULL);
             INSERT INTO {s}.sessions (session_token, user_id, expires)
                VALUES ('old-session', 'old-user', timestamptz 'epoch' + 1763886400123 * interval '1 millisecond');"
        ))
        .unwrap();
    let adapter = PostgresAdapter::new(&options).unwrap();
    check_locale_added(&adapter);
    assert_eq!(adapter.schema_version().unwrap(), SCHEMA_VERSION);
    drop(adapter);

    let down = postgres::migrate(&options, Some(3)).unwrap();
    assert_eq!((down.from, down.to), (SCHEMA_VERSION as u32, 3));
    let columns: Vec<String> = client
        .query(
            "SELECT column_name::text FROM information_schema.columns
             WHERE table_schema = $1 AND table_name = 'users' ORDER BY ordinal_position",
            &[&schema.0],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert_eq!(columns, ["id", "name", "email", "email_verified", "image"]);
    let kept: String =
        client.query_one(&format!("SELECT email FROM {s}.users WHERE id = 'old-user'"), &[]).unwrap().get(0);
    assert_eq!(kept, "old@example.com");
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
        locale: None,
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
    assert_eq!(update.locale, None, "absent keeps");
    assert_eq!(update.email_verified, Some(Some(1000)));
    assert_eq!(
        serde_json::to_value(&update).unwrap(),
        json!({ "id": "u", "name": null, "emailVerified": "1970-01-01T00:00:01.000Z" })
    );
    let update: UserUpdate = serde_json::from_value(json!({ "id": "u", "locale": "fr" })).unwrap();
    assert_eq!(update.locale, Some(Some("fr".to_owned())));
    let update: UserUpdate = serde_json::from_value(json!({ "id": "u", "locale": null })).unwrap();
    assert_eq!(update.locale, Some(None));
    assert_eq!(serde_json::to_value(&update).unwrap(), json!({ "id": "u", "locale": null }));
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
    assert_send_sync::<libauth_core::store::SqliteAdapter>();
    assert_send_sync::<libauth_core::store::PostgresAdapter>();
    assert_send_sync::<libauth_core::store::HostAdapter>();
    let _: &dyn Host = &NoHooks;
}

/// A host adapter that keeps the user's language returns it as `locale`;
/// the built-in pages of a database session follow it (step `user` of
/// `i18n.resolve`, after the `locale` cookie, before `ui_locales`).
#[test]
fn host_adapter_user_locale_picks_the_pages_language() {
    let store = Arc::new(MemoryAdapter::new());
    let s = store.clone();
    let hooks = Arc::new(memory_hooks(store.clone()).on("adapter.getSessionAndUser", move |args| {
        Ok(match s.get_session_and_user(string_arg(&args)?).map_err(host_error)? {
            Some((session, user)) => {
                let mut user = serde_json::to_value(user).unwrap();
                user["locale"] = json!("he");
                json!({ "session": session, "user": user })
            }
            None => Value::Null,
        })
    }));
    let user = store.create_user(&NewUser { email: Some("ada@example.com".into()), ..Default::default() }).unwrap();
    let raw = "a-session-token-of-forty-or-more-characters-000000";
    store
        .create_session(&AdapterSession {
            session_token: libauth_core::session::stored_session_token(raw),
            user_id: user.id.clone(),
            expires: libauth_core::time::now_millis() as i64 + 3_600_000,
        })
        .unwrap();
    let build = |resolve: Value| {
        let config = libauth_core::Config::from_value(json!({
            "secret": common::SECRET, "trustHost": true, "adapter": { "type": "host" },
            "session": { "strategy": "database" }, "i18n": { "resolve": resolve },
        }))
        .unwrap();
        libauth_core::Auth::with_env(config, hooks.clone(), &std::collections::HashMap::new()).unwrap()
    };
    let lang = |auth: &libauth_core::Auth, path: &str, cookie: &str| {
        let mut req = libauth_core::AuthRequest::get(format!("http://localhost:3000{path}"));
        req.headers.push(("cookie".into(), cookie.into()));
        req.headers.push(("accept-language".into(), "de".into()));
        let html = String::from_utf8(auth.handle(&req).body).unwrap();
        html.split('"').nth(1).unwrap().to_owned()
    };
    let session = format!("authjs.session-token={raw}");
    let auth = build(Value::Null);
    assert_eq!(lang(&auth, "/auth/signin", &session), "he");
    assert_eq!(lang(&auth, "/auth/signin?ui_locales=ja", &session), "he", "user before ui_locales");
    assert_eq!(lang(&auth, "/auth/signin", &format!("{session}; locale=fr")), "fr", "the cookie before the user");
    assert_eq!(lang(&auth, "/auth/signin", "authjs.session-token=unknown"), "de", "no session: the header");
    // Without the step, the user's locale is not read.
    let auth = build(json!(["query", "cookie", "uiLocales", "acceptLanguage"]));
    assert_eq!(lang(&auth, "/auth/signin", &session), "de");
    assert_eq!(lang(&auth, "/auth/signin?ui_locales=ja", &session), "ja");
}

/// A host adapter with libauth's `getUserAccount` and `updateAccount` keeps
/// password accounts: sign-up, the verification link, sign-in, and the
/// imported-hash upgrade all go through the host's functions.
#[test]
fn host_adapter_keeps_password_accounts() {
    use libauth_core::{Auth, AuthRequest, Config, PasswordAction};
    let store = Arc::new(MemoryAdapter::new());
    let mail: Arc<std::sync::Mutex<Option<String>>> = Arc::default();
    let sent = mail.clone();
    let hooks = memory_hooks(store.clone()).on("providers.password.sendEmail", move |args| {
        *sent.lock().unwrap() = args["url"].as_str().map(str::to_owned);
        Ok(Value::Null)
    });
    let config = json!({
        "secret": "host-adapter-password-secret-0123456789",
        "url": "http://localhost:3000",
        "adapter": { "type": "host" },
        "providers": [{ "type": "password", "argon2": { "memoryKib": 64, "iterations": 1 } }],
    });
    let auth = Auth::new(Config::from_value(config).unwrap(), Arc::new(hooks)).unwrap();
    let req = || {
        let mut r = AuthRequest::post_form("http://localhost:3000/account", &[]);
        r.remote_address = Some("127.0.0.1".into());
        r
    };
    let fields = |pairs: &[(&str, &str)]| {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), Value::from(*v))).collect::<serde_json::Map<_, _>>()
    };
    auth.password_action(
        PasswordAction::SignUp,
        fields(&[("email", "ada@example.com"), ("password", "long enough")]),
        &req(),
    )
    .unwrap();
    let link = mail.lock().unwrap().take().expect("a verification link");
    let res = auth.handle(&AuthRequest::get(link));
    assert_eq!(res.status, 302);
    assert!(!res.header("location").unwrap().contains("error"), "{res:?}");
    let user = store.get_user_by_email("ada@example.com").unwrap().unwrap();
    assert!(user.email_verified.is_some());
    let hash = store.get_account(&user.id, "password").unwrap().unwrap().extra["password"].clone();
    assert!(hash.as_str().unwrap().starts_with("$argon2id$v=19$m=64,t=1,p=1$"));
    let signed_in =
        auth.sign_in("password", fields(&[("email", "ada@example.com"), ("password", "long enough")]), &req());
    assert!(signed_in.unwrap().set_cookies.iter().any(|c| c.starts_with("authjs.session-token=")));

    // Without the two methods, the engine says which one is missing.
    let config = json!({ "secret": "host-adapter-password-secret-0123456789", "url": "http://localhost:3000",
                         "adapter": { "type": "host" }, "providers": [{ "type": "password" }] });
    let bare = memory_hooks_without_accounts(Arc::new(MemoryAdapter::new()))
        .on("providers.password.sendEmail", |_| Ok(Value::Null));
    let Err(e) = Auth::new(Config::from_value(config).unwrap(), Arc::new(bare)) else { panic!("refused") };
    assert!(e.message.contains("getUserAccount"), "{}", e.message);
}
