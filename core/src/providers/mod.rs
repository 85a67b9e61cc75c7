//! The provider registry: each configured provider parsed by its type's
//! module, looked up by id.

pub mod apple;
pub mod auth0;
pub mod builtin;
pub mod credentials;
pub mod discord;
pub mod email;
pub mod entra;
pub mod facebook;
pub mod github;
pub mod gitlab;
pub mod google;
pub mod keycloak;
pub mod linkedin;
pub mod oauth;
mod oauth_config;
pub mod okta;
pub mod password;
pub mod slack;
pub mod spotify;
pub mod tiktok;
pub mod twitch;
pub mod twitter;
pub mod webauthn;

use serde_json::Value;

use crate::config::Env;
use crate::error::ConfigError;
use crate::host::Host;

pub use credentials::{CredentialField, CredentialsProvider};
pub use email::EmailProvider;
pub use oauth::OAuthProvider;
pub use oauth::ProviderBehaviour;
pub use password::PasswordProvider;
pub use webauthn::WebAuthnProvider;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderType {
    OAuth,
    Oidc,
    Email,
    Credentials,
    WebAuthn,
}

impl ProviderType {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderType::OAuth => "oauth",
            ProviderType::Oidc => "oidc",
            ProviderType::Email => "email",
            ProviderType::Credentials => "credentials",
            ProviderType::WebAuthn => "webauthn",
        }
    }
}

#[derive(Debug)]
pub enum ProviderKind {
    Credentials(CredentialsProvider),
    OAuth(Box<OAuthProvider>),
    Email(EmailProvider),
    WebAuthn(WebAuthnProvider),
    /// Email + password accounts kept by the engine.
    Password(Box<PasswordProvider>),
}

#[derive(Debug)]
pub struct Provider {
    pub id: String,
    pub name: String,
    pub kind: ProviderKind,
}

impl Provider {
    /// For a built-in provider still under its default name (a word, not a
    /// brand: `Credentials`, `Email`, `Passkey`), the message ids of that
    /// name and of its sign-in button, so the page shows them in the
    /// user's language. `None` for a name the configuration chose.
    pub fn default_name_messages(&self) -> Option<(&'static str, &'static str)> {
        match (&self.kind, self.name.as_str()) {
            (ProviderKind::Credentials(_), "Credentials") => Some(("provider-credentials", "signin-with-credentials")),
            (ProviderKind::Email(_), "Email") => Some(("provider-email", "signin-with-email")),
            (ProviderKind::WebAuthn(_), "Passkey") => Some(("provider-passkey", "signin-with-passkey")),
            (ProviderKind::Password(_), "Password") => Some(("provider-password", "signin-with-password")),
            _ => None,
        }
    }

    /// The type on the wire (`/providers`). A password provider is
    /// `credentials` there: Auth.js's client then posts its sign-in to
    /// `callback/<id>`, which is where the engine takes it.
    pub fn provider_type(&self) -> ProviderType {
        match &self.kind {
            ProviderKind::Credentials(_) | ProviderKind::Password(_) => ProviderType::Credentials,
            ProviderKind::OAuth(p) if p.oidc => ProviderType::Oidc,
            ProviderKind::OAuth(_) => ProviderType::OAuth,
            ProviderKind::Email(_) => ProviderType::Email,
            ProviderKind::WebAuthn(_) => ProviderType::WebAuthn,
        }
    }
}

#[derive(Debug, Default)]
pub struct Providers {
    list: Vec<Provider>,
}

impl Providers {
    pub fn parse(values: &[Value], host: &dyn Host, env: &dyn Env) -> Result<Providers, ConfigError> {
        let mut list: Vec<Provider> = Vec::with_capacity(values.len());
        for (index, value) in values.iter().enumerate() {
            let option = format!("providers[{index}]");
            let Some(obj) = value.as_object() else {
                return Err(ConfigError::new(option, "must be an object"));
            };
            // A built-in provider (`{ "builtin": "tiktok", … }`) implies its type.
            let kind = match (obj.get("type").and_then(Value::as_str), obj.get("builtin")) {
                (Some(kind), _) => kind,
                (None, Some(_)) => "oauth",
                (None, None) => {
                    return Err(ConfigError::new(
                        format!("{option}.type"),
                        "missing; one of oauth, oidc, email, credentials, webauthn, password",
                    ))
                }
            };
            if let Some(id) = obj.get("id") {
                if !id.as_str().is_some_and(is_valid_id) {
                    return Err(ConfigError::new(
                        format!("{option}.id"),
                        "must be non-empty and use only letters, digits, `-` and `_` (it appears in URLs)",
                    ));
                }
            }
            let provider = match kind {
                "credentials" => credentials::parse(&option, value, host)?,
                "oauth" | "oidc" => oauth_config::parse(&option, value, host, env)?,
                "email" => email::parse(&option, value, host)?,
                "webauthn" => webauthn::parse(&option, value, host)?,
                "password" => password::parse(&option, value, host)?,
                other => {
                    return Err(ConfigError::new(
                        format!("{option}.type"),
                        format!(
                        "unknown provider type {other:?}; expected one of oauth, oidc, email, credentials, webauthn, password"
                    ),
                    )
                    .with_kind(crate::ErrorType::InvalidProviderType))
                }
            };
            // One password provider: its routes (`password/<step>`) name none.
            if matches!(provider.kind, ProviderKind::Password(_))
                && list.iter().any(|p| matches!(p.kind, ProviderKind::Password(_)))
            {
                return Err(ConfigError::new(format!("{option}.type"), "only one password provider may be configured"));
            }
            // The account row of a user's second factor has this provider id.
            if provider.id == crate::user_two_factor::TOTP_ACCOUNT {
                return Err(ConfigError::new(format!("{option}.id"), "this id is reserved for second factors"));
            }
            if list.iter().any(|p| p.id == provider.id) {
                return Err(ConfigError::new(
                    format!("{option}.id"),
                    format!("duplicate provider id {:?}", provider.id),
                ));
            }
            list.push(provider);
        }
        Ok(Providers { list })
    }

    pub fn get(&self, id: &str) -> Option<&Provider> {
        self.list.iter().find(|p| p.id == id)
    }

    /// The password provider, if one is configured.
    pub fn password(&self) -> Option<(&Provider, &PasswordProvider)> {
        self.list.iter().find_map(|p| match &p.kind {
            ProviderKind::Password(password) => Some((p, password.as_ref())),
            _ => None,
        })
    }

    pub fn iter(&self) -> impl Iterator<Item = &Provider> {
        self.list.iter()
    }
}

impl IntoIterator for Providers {
    type Item = Provider;
    type IntoIter = std::vec::IntoIter<Provider>;
    fn into_iter(self) -> Self::IntoIter {
        self.list.into_iter()
    }
}

fn is_valid_id(id: &str) -> bool {
    !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}
