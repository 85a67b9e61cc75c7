//! The passkey provider (`type: "webauthn"`): sign-in with a WebAuthn
//! credential, on Auth.js's wire protocol (`webauthn-options/<id>`, then
//! `POST callback/<id>`). The ceremony itself is in `crate::webauthn`.

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;
use url::Url;

use super::{Provider, ProviderKind};
use crate::error::ConfigError;
use crate::host::{Hook, Host};

/// The id of a `webauthn` provider that names none (Auth.js's `Passkey`).
pub const DEFAULT_ID: &str = "passkey";

/// Auth.js's default: five minutes to finish a ceremony.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5 * 60);

/// Whether the authenticator must verify the user (PIN, biometrics) or
/// only should. Presence is always required.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UserVerification {
    Required,
    Preferred,
}

/// The relying party: who the credential is for. Each field unset is
/// taken per request from the deployment's origin (`AUTH_URL`, or the
/// trusted request origin): `id` its host, `origin` itself, `name` its
/// host.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RelyingParty {
    pub id: Option<String>,
    pub name: Option<String>,
    pub origin: Option<Url>,
}

#[derive(Debug, Clone)]
pub struct WebAuthnProvider {
    pub relying_party: RelyingParty,
    pub timeout: Duration,
    /// The built-in page offers passkeys in the username field's autofill.
    pub enable_conditional_ui: bool,
    pub user_verification: UserVerification,
    /// `getUserInfo` is the host's (else the default: the `email`
    /// parameter, looked up with `getUserByEmail`).
    pub custom_user_info: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct WebAuthnConfig {
    #[serde(rename = "type")]
    _type: String,
    id: Option<String>,
    name: Option<String>,
    #[serde(default)]
    relaying_party: RelyingPartyConfig,
    /// Milliseconds, as Auth.js.
    timeout: Option<u64>,
    #[serde(rename = "enableConditionalUI", default = "yes")]
    enable_conditional_ui: bool,
    user_verification: Option<UserVerification>,
    /// The binding's marker for the `getUserInfo` function (a hook).
    #[serde(default)]
    get_user_info: Option<Value>,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RelyingPartyConfig {
    id: Option<String>,
    name: Option<String>,
    origin: Option<String>,
}

fn yes() -> bool {
    true
}

pub fn parse(option: &str, value: &Value, host: &dyn Host) -> Result<Provider, ConfigError> {
    let config: WebAuthnConfig = serde_path_to_error::deserialize(value.clone()).map_err(|e| {
        let path = e.path().to_string();
        let at = if path == "." { option.to_owned() } else { format!("{option}.{path}") };
        ConfigError::new(at, e.into_inner().to_string())
    })?;
    let _ = config.get_user_info;
    let id = config.id.unwrap_or_else(|| DEFAULT_ID.to_owned());
    let origin = match config.relaying_party.origin {
        None => None,
        Some(origin) => {
            let url = Url::parse(&origin).ok().filter(|u| matches!(u.scheme(), "http" | "https") && u.has_host());
            let Some(url) = url else {
                return Err(ConfigError::new(
                    format!("{option}.relayingParty.origin"),
                    "must be an http(s) origin such as https://example.com",
                ));
            };
            Some(url)
        }
    };
    let rp_id = config.relaying_party.id;
    if let Some(rp_id) = &rp_id {
        let valid =
            !rp_id.is_empty() && Url::parse(&format!("https://{rp_id}/")).is_ok_and(|u| u.host_str() == Some(rp_id));
        if !valid {
            return Err(ConfigError::new(
                format!("{option}.relayingParty.id"),
                "must be a domain name (the origin's host or a parent of it), without scheme or port",
            ));
        }
        if let Some(host) = origin.as_ref().and_then(Url::host_str) {
            if !(host == rp_id || host.ends_with(&format!(".{rp_id}"))) {
                return Err(ConfigError::new(
                    format!("{option}.relayingParty.id"),
                    format!("{rp_id:?} is not the origin's host {host:?} or a parent domain of it"),
                ));
            }
        }
    }
    let timeout = match config.timeout {
        None => DEFAULT_TIMEOUT,
        Some(ms) if (1_000..=86_400_000).contains(&ms) => Duration::from_millis(ms),
        Some(_) => {
            return Err(ConfigError::new(format!("{option}.timeout"), "milliseconds, between 1000 and 86400000"))
        }
    };
    Ok(Provider {
        name: config.name.unwrap_or_else(|| "Passkey".to_owned()),
        kind: ProviderKind::WebAuthn(WebAuthnProvider {
            relying_party: RelyingParty { id: rp_id, name: config.relaying_party.name, origin },
            timeout,
            enable_conditional_ui: config.enable_conditional_ui,
            user_verification: config.user_verification.unwrap_or(UserVerification::Required),
            custom_user_info: host.has(&Hook::provider(&id, "getUserInfo")),
        }),
        id,
    })
}
