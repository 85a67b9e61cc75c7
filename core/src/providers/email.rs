//! The email provider ("magic link"): a one-time sign-in link, sent by the
//! host's `sendVerificationRequest` hook or through an SMTP server.

use serde::Deserialize;
use serde_json::Value;

use super::{Provider, ProviderKind};
#[cfg(feature = "smtp")]
use crate::email::SmtpConfig;
use crate::error::ConfigError;
use crate::host::{Hook, Host};

pub const DEFAULT_MAX_AGE: u64 = 24 * 60 * 60;

#[derive(Debug)]
pub struct EmailProvider {
    /// Lifetime of a sign-in link, seconds.
    pub max_age: u64,
    pub from: Option<String>,
    /// SMTP delivery when the host has no `sendVerificationRequest` hook.
    #[cfg(feature = "smtp")]
    pub smtp: Option<SmtpConfig>,
    pub has_send_hook: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct EmailConfig {
    #[serde(rename = "type")]
    _type: String,
    id: Option<String>,
    name: Option<String>,
    max_age: Option<u64>,
    from: Option<String>,
    server: Option<Value>,
    /// The binding's marker for a `sendVerificationRequest` function (a hook).
    send_verification_request: Option<Value>,
}

pub fn parse(option: &str, value: &Value, host: &dyn Host) -> Result<Provider, ConfigError> {
    let c: EmailConfig = serde_json::from_value(value.clone()).map_err(|e| ConfigError::new(option, e.to_string()))?;
    let _ = c.send_verification_request;
    let id = c.id.unwrap_or_else(|| "email".to_owned());
    let has_send_hook = host.has(&Hook::provider(&id, "sendVerificationRequest"));
    #[cfg(not(feature = "smtp"))]
    if c.server.is_some() {
        return Err(ConfigError::new(
            format!("{option}.server"),
            "this build of libauth sends no email itself (the cargo feature `smtp` is off): give the provider a sendVerificationRequest function",
        ));
    }
    #[cfg(not(feature = "smtp"))]
    let smtp: Option<()> = None;
    #[cfg(feature = "smtp")]
    let smtp = match c.server {
        None => None,
        Some(mut server) => {
            // `from` may sit on the provider, as in Auth.js's Nodemailer.
            if let (Some(from), Some(obj)) = (&c.from, server.as_object_mut()) {
                obj.entry("from").or_insert_with(|| Value::String(from.clone()));
            }
            Some(
                SmtpConfig::from_json(&server)
                    .map_err(|e| ConfigError::new(format!("{option}.server"), e.to_string()))?,
            )
        }
    };
    if smtp.is_none() && !has_send_hook {
        return Err(ConfigError::new(
            format!("{option}.server"),
            format!("the email provider {id:?} needs an SMTP `server` or a `sendVerificationRequest` function (hook providers.{id}.sendVerificationRequest)"),
        ));
    }
    let max_age = c.max_age.unwrap_or(DEFAULT_MAX_AGE);
    if max_age == 0 {
        return Err(ConfigError::new(format!("{option}.maxAge"), "must be a positive number of seconds"));
    }
    Ok(Provider {
        name: c.name.unwrap_or_else(|| "Email".to_owned()),
        id,
        kind: ProviderKind::Email(EmailProvider {
            max_age,
            from: c.from,
            #[cfg(feature = "smtp")]
            smtp,
            has_send_hook,
        }),
    })
}
