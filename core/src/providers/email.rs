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

/// How a provider that mails sends: through SMTP (a build with the `smtp`
/// feature), or nothing here (the host's hook sends).
#[cfg(feature = "smtp")]
pub(super) type SmtpDelivery = Option<SmtpConfig>;
#[cfg(not(feature = "smtp"))]
pub(super) type SmtpDelivery = Option<()>;

/// A mailing provider's `server` (its `from` taken from the provider when
/// the server names none, as Auth.js's Nodemailer does), refused with
/// `neither` when there is no server and no send hook, or when this build
/// sends no mail itself.
pub(super) fn smtp_delivery(
    option: &str,
    server: Option<Value>,
    from: Option<&String>,
    has_send_hook: bool,
    neither: &str,
) -> Result<SmtpDelivery, ConfigError> {
    #[cfg(not(feature = "smtp"))]
    let smtp: SmtpDelivery = match server {
        Some(_) => {
            let _ = from;
            return Err(ConfigError::new(
                format!("{option}.server"),
                "this build of libauth sends no email itself (the cargo feature `smtp` is off): give the provider a function that sends it",
            ));
        }
        None => None,
    };
    #[cfg(feature = "smtp")]
    let smtp: SmtpDelivery = match server {
        None => None,
        Some(mut server) => {
            if let (Some(from), Some(obj)) = (from, server.as_object_mut()) {
                obj.entry("from").or_insert_with(|| Value::String(from.clone()));
            }
            Some(
                SmtpConfig::from_json(&server)
                    .map_err(|e| ConfigError::new(format!("{option}.server"), e.to_string()))?,
            )
        }
    };
    if smtp.is_none() && !has_send_hook {
        return Err(ConfigError::new(format!("{option}.server"), neither));
    }
    Ok(smtp)
}

pub fn parse(option: &str, value: &Value, host: &dyn Host) -> Result<Provider, ConfigError> {
    let c: EmailConfig = serde_json::from_value(value.clone()).map_err(|e| ConfigError::new(option, e.to_string()))?;
    let _ = c.send_verification_request;
    let id = c.id.unwrap_or_else(|| "email".to_owned());
    let has_send_hook = host.has(&Hook::provider(&id, "sendVerificationRequest"));
    #[cfg_attr(not(feature = "smtp"), allow(unused_variables))]
    let smtp = smtp_delivery(
        option,
        c.server,
        c.from.as_ref(),
        has_send_hook,
        &format!("the email provider {id:?} needs an SMTP `server` or a `sendVerificationRequest` function (hook providers.{id}.sendVerificationRequest)"),
    )?;
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
