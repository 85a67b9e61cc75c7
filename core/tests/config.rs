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
