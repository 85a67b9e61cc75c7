//! The credentials provider: the host's `authorize` hook checks what the
//! user typed and returns a user, `null`, or throws `CredentialsSignin`.

use serde::Deserialize;
use serde_json::{Map, Value};

use super::{Provider, ProviderKind};
use crate::error::ConfigError;
use crate::host::{Hook, Host};

#[derive(Debug, Clone)]
pub struct CredentialsProvider {
    /// The form fields of the built-in sign-in page, in config order.
    pub fields: Vec<CredentialField>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CredentialField {
    pub name: String,
    pub label: String,
    pub input_type: String,
    pub placeholder: Option<String>,
    pub required: bool,
    pub autocomplete: Option<String>,
}

impl CredentialField {
    /// A field that holds a secret (a password, a one-time code): never part
    /// of a rate-limit key, since it changes with every guess. `type:
    /// "password"`, or the name `password` (Auth.js's own examples declare
    /// `password: {}`), or an `autocomplete` that names a secret.
    pub fn is_secret(&self) -> bool {
        self.input_type.eq_ignore_ascii_case("password")
            || self.name.eq_ignore_ascii_case("password")
            || self.autocomplete.as_deref().is_some_and(|a| {
                a.split_ascii_whitespace().any(|t| ["current-password", "new-password", "one-time-code"].contains(&t))
            })
    }
}

impl CredentialsProvider {
    /// The identifiers a failed sign-in is counted under per account: what
    /// `authorize` reads to find the account, as the provider declares it.
    ///
    /// - Fields declared (`credentials: { email: {…}, password: {…} }`):
    ///   one identifier, the values of every declared field that is not a
    ///   secret, in declared order (a single field's value as is; several
    ///   joined unambiguously). A field the body has but the provider does
    ///   not declare is never part of it, so a decoy field (a random
    ///   `username` beside the declared `email`) does not make a new key;
    ///   a declared field the body lacks counts as empty.
    /// - No field declared but secrets, or none of the declared ones sent (a
    ///   custom form): the body's `username` and `email`, each its own
    ///   identifier (both are counted, so adding either as a decoy does not
    ///   escape the other's count). Not one shared empty key: that would let
    ///   a handful of empty posts lock every such form out. Apps whose
    ///   `authorize` reads another field should declare it.
    ///
    /// Each value is trimmed and lowercased (`Ada ` and `ada` are one
    /// account); a value that is not a string counts as its JSON text.
    pub fn limit_identifiers(&self, body: &Map<String, Value>) -> Vec<String> {
        let text = |v: Option<&Value>| match v {
            None | Some(Value::Null) => String::new(),
            Some(Value::String(s)) => s.trim().to_lowercase(),
            Some(other) => other.to_string().to_lowercase(),
        };
        let declared: Vec<&CredentialField> = self.fields.iter().filter(|f| !f.is_secret()).collect();
        let values: Vec<String> = declared.iter().map(|f| text(body.get(&f.name))).collect();
        match values.as_slice() {
            // None declared, or none of them sent: a custom form.
            _ if values.iter().all(String::is_empty) => ["username", "email"]
                .iter()
                .map(|name| text(body.get(*name)))
                .filter(|value| !value.is_empty())
                .collect(),
            [one] => vec![one.clone()],
            several => vec![serde_json::to_string(several).unwrap_or_default()],
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CredentialsConfig {
    #[serde(rename = "type")]
    _type: String,
    id: Option<String>,
    name: Option<String>,
    #[serde(default)]
    credentials: Map<String, Value>,
    /// The binding's marker for the `authorize` function (a hook).
    #[serde(default)]
    authorize: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct FieldConfig {
    label: Option<String>,
    #[serde(rename = "type")]
    input_type: Option<String>,
    placeholder: Option<String>,
    #[serde(default)]
    required: bool,
    autocomplete: Option<String>,
}

pub fn parse(option: &str, value: &Value, host: &dyn Host) -> Result<Provider, ConfigError> {
    let config: CredentialsConfig =
        serde_json::from_value(value.clone()).map_err(|e| ConfigError::new(option, e.to_string()))?;
    let _ = config.authorize;
    let id = config.id.unwrap_or_else(|| "credentials".to_owned());
    let mut fields = Vec::with_capacity(config.credentials.len());
    for (name, spec) in config.credentials {
        let field: FieldConfig = serde_json::from_value(spec)
            .map_err(|e| ConfigError::new(format!("{option}.credentials.{name}"), e.to_string()))?;
        fields.push(CredentialField {
            label: field.label.unwrap_or_else(|| name.clone()),
            input_type: field.input_type.unwrap_or_else(|| "text".to_owned()),
            placeholder: field.placeholder,
            required: field.required,
            autocomplete: field.autocomplete,
            name,
        });
    }
    if !host.has(&Hook::provider(&id, "authorize")) {
        return Err(ConfigError::new(
            format!("{option}.authorize"),
            format!("the credentials provider {id:?} needs an `authorize` function (hook providers.{id}.authorize)"),
        )
        .with_kind(crate::ErrorType::MissingAuthorize));
    }
    Ok(Provider {
        name: config.name.unwrap_or_else(|| "Credentials".to_owned()),
        id,
        kind: ProviderKind::Credentials(CredentialsProvider { fields }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn provider(credentials: Value) -> CredentialsProvider {
        let host = crate::HookMap::new().on("providers.credentials.authorize", |_| Ok(Value::Null));
        match parse("p", &json!({ "type": "credentials", "credentials": credentials }), &host).unwrap().kind {
            ProviderKind::Credentials(p) => p,
            _ => unreachable!(),
        }
    }

    fn ids(p: &CredentialsProvider, body: Value) -> Vec<String> {
        p.limit_identifiers(body.as_object().unwrap())
    }

    #[test]
    fn the_account_key_is_the_declared_fields_less_the_secrets() {
        let email = provider(json!({ "email": {}, "password": {} }));
        let body = json!({ "email": " Victim@Example.com", "password": "x", "username": "decoy" });
        assert_eq!(ids(&email, body), ["victim@example.com"]);
        let two = provider(json!({ "tenant": {}, "user": {}, "pin": { "type": "password" },
                                    "otp": { "autocomplete": "one-time-code" } }));
        let joined = ids(&two, json!({ "tenant": "Acme", "user": "ada", "pin": "1", "otp": "2", "x": "y" }));
        assert_eq!(joined, [r#"["acme","ada"]"#]);
        assert_ne!(ids(&two, json!({ "tenant": "acme,ada", "user": "" })), joined, "joined unambiguously");
        assert_eq!(ids(&two, json!({ "user": "ada" })), [r#"["","ada"]"#], "a missing declared field is empty");
        // Nothing declared, or nothing declared sent: username and email, each.
        let none = provider(json!({}));
        assert_eq!(ids(&none, json!({ "username": "Ada", "email": "a@x", "password": "p" })), ["ada", "a@x"]);
        assert_eq!(ids(&email, json!({ "username": "ada", "password": "p" })), ["ada"]);
        assert!(ids(&none, json!({ "password": "p" })).is_empty());
    }
}
