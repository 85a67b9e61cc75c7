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
    /// - No field declared but secrets (a custom form): the body's
    ///   `username` and `email`, each its own identifier (both are counted,
    ///   so adding either as a decoy does not escape the other's count).
    ///   Apps whose `authorize` reads another field should declare it.
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
        match declared.as_slice() {
            [] => ["username", "email"]
                .iter()
                .map(|name| text(body.get(*name)))
                .filter(|value| !value.is_empty())
                .collect(),
            [one] => vec![text(body.get(&one.name))],
            several => {
                let values: Vec<String> = several.iter().map(|f| text(body.get(&f.name))).collect();
                vec![serde_json::to_string(&values).unwrap_or_default()]
            }
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
