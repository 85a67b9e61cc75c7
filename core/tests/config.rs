//! Construction-time validation: a bad config fails with the option's name.

mod common;

use std::collections::HashMap;
use std::sync::Arc;

use libauth_core::{Auth, Config, HookMap, NoHooks};
use serde_json::json;

fn build(config: serde_json::Value, hooks: HookMap) -> Result<Auth, libauth_core::ConfigError> {
    Auth::with_env(Config::from_value(config)?, Arc::new(hooks), &HashMap::new())
}

#[test]
fn provider_errors_name_the_provider_option() {
    let secret = common::SECRET;
    let cases = [
        (json!({"secret": secret, "providers": [{"type": "saml"}]}), "providers[0].type"),
        (json!({"secret": secret, "providers": [{"name": "x"}]}), "providers[0].type"),
        (json!({"secret": secret, "providers": ["credentials"]}), "providers[0]"),
        (json!({"secret": secret, "providers": [{"type": "credentials", "id": "a b"}]}), "providers[0].id"),
        (
            json!({"secret": secret, "providers": [{"type": "credentials", "credentials": {"u": {"label": 5}}}]}),
            "providers[0].credentials.u",
        ),
        (json!({"secret": secret, "providers": [{"type": "credentials", "bogus": 1}]}), "providers[0]"),
    ];
    for (config, option) in cases {
        let err = build(config.clone(), common::hooks()).err().unwrap_or_else(|| panic!("{config} should fail"));
        assert_eq!(err.option, option, "{config}: {err}");
    }
    // No `authorize` hook registered for the credentials provider.
    let no_authorize = json!({"secret": secret, "providers": [{"type": "credentials"}]});
    assert_eq!(build(no_authorize, HookMap::new()).err().unwrap().option, "providers[0].authorize");
    let dup = json!({"secret": secret, "providers": [{"type": "credentials"}, {"type": "credentials"}]});
    assert_eq!(build(dup, common::hooks()).err().unwrap().option, "providers[1].id");
}

#[test]
fn missing_secret_and_database_without_adapter() {
    let err = Auth::with_env(Config::default(), Arc::new(NoHooks), &HashMap::new()).err().unwrap();
    assert_eq!(err.option, "secret");
    assert!(err.to_string().contains("AUTH_SECRET"));
    let err =
        build(json!({"secret": common::SECRET, "session": {"strategy": "database"}}), HookMap::new()).err().unwrap();
    assert_eq!(err.option, "session.strategy");
}

#[test]
fn secret_from_the_environment() {
    let env: HashMap<String, String> = [("AUTH_SECRET".to_string(), common::SECRET.to_string())].into_iter().collect();
    assert!(Auth::with_env(Config::default(), Arc::new(NoHooks), &env).is_ok());
}

/// Every registered hook must be one the engine calls: a misspelt callback
/// is refused at construction, naming it, as a misspelt option is.
#[test]
fn unknown_and_misplaced_hooks_are_refused_by_name() {
    let secret = "0123456789abcdef0123456789abcdef";
    let base = json!({ "secret": secret, "providers": [
        { "type": "credentials" },
        { "type": "email", "sendVerificationRequest": true },
    ], "adapter": { "type": "memory" } });
    let noop = |_: serde_json::Value| Ok(serde_json::Value::Null);
    let good = HookMap::new()
        .on("providers.credentials.authorize", noop)
        .on("providers.email.sendVerificationRequest", noop)
        .on("callbacks.session", noop)
        .on("events.signOut", noop)
        .on("logger.warn", noop);
    assert!(build(base.clone(), good).is_ok());

    for (name, config) in [
        ("callbacks.sesion", base.clone()),
        ("events.signin", base.clone()),
        ("logger.info", base.clone()),
        ("jwt.encrypt", base.clone()),
        ("providers.github.profile", base.clone()),      // no such provider
        ("providers.credentials.profile", base.clone()), // not a credentials function
        ("providers.email.authorize", base.clone()),     // not an email function
        ("adapter.getUser", base.clone()),               // a built-in adapter, not a host one
        ("adapter.getUserByName", json!({ "secret": secret, "adapter": { "type": "host" } })),
        ("nonsense", base.clone()),
    ] {
        let hooks = HookMap::new()
            .on("providers.credentials.authorize", noop)
            .on("providers.email.sendVerificationRequest", noop)
            .on(name, noop);
        let err = build(config, hooks).err().unwrap_or_else(|| panic!("{name} accepted"));
        assert_eq!(err.option, name, "{err}");
        assert_eq!(err.type_name(), "Configuration");
    }
}

#[test]
fn config_errors_carry_their_kind_as_a_field() {
    let secret = "0123456789abcdef0123456789abcdef";
    let cases = [
        (json!({}), "secret", "MissingSecret"),
        (json!({ "secret": "short" }), "secret", "Configuration"),
        (
            json!({ "secret": secret, "providers": [{ "type": "credentials" }] }),
            "providers[0].authorize",
            "MissingAuthorize",
        ),
        (json!({ "secret": secret, "session": { "strategy": "database" } }), "session.strategy", "MissingAdapter"),
        (json!({ "secret": secret, "providers": [{ "type": "saml" }] }), "providers[0].type", "InvalidProviderType"),
        (
            json!({ "secret": secret, "providers": [{ "type": "email", "sendVerificationRequest": true }] }),
            "adapter",
            "MissingAdapter",
        ),
    ];
    for (config, option, kind) in cases {
        let mut hooks = HookMap::new();
        if config["providers"][0]["type"] == "email" {
            hooks = hooks.on("providers.email.sendVerificationRequest", |_| Ok(serde_json::Value::Null));
        }
        let err = build(config.clone(), hooks).err().unwrap_or_else(|| panic!("{config} accepted"));
        assert_eq!((err.option.as_str(), err.type_name()), (option, kind), "{config}: {err}");
        assert!(!err.message.contains(kind) || kind == "Configuration", "the kind is a field, not text: {err}");
    }
}
