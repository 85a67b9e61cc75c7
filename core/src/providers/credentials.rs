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
