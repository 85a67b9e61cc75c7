//! The password provider: accounts with an email address and a password,
//! kept by the engine itself (sign-up, sign-in, email verification,
//! forgotten password, change of password or address, deletion). The
//! routes are in `routes/password/`; hashing is `crate::password`.
//!
//! On the wire it is a `credentials` provider (`/providers` says so), so
//! Auth.js's own client signs in with `signIn("password", { email,
//! password })`, which posts to `callback/password`.

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

use super::{Provider, ProviderKind};
#[cfg(feature = "smtp")]
use crate::email::SmtpConfig;
use crate::error::ConfigError;
use crate::host::{Hook, Host};
use crate::password::{Argon2Params, HashPool, PasswordHasher, PasswordPolicy, PoolLimits};

/// Lifetime of an email-verification link (24 h).
pub const DEFAULT_VERIFY_MAX_AGE: u64 = 24 * 60 * 60;
/// Lifetime of a password-reset link (1 h).
pub const DEFAULT_RESET_MAX_AGE: u64 = 60 * 60;

#[derive(Debug)]
pub struct PasswordProvider {
    /// An unverified account cannot sign in; signing in with the right
    /// password mails a new link instead (`requireEmailVerification`,
    /// default on).
    pub require_email_verification: bool,
    /// Lifetime of an email-verification link (`verificationMaxAge`).
    pub verify_max_age: Duration,
    /// Lifetime of a password-reset link (`resetMaxAge`).
    pub reset_max_age: Duration,
    pub policy: PasswordPolicy,
    /// Shared with the hashing pool's threads.
    pub hasher: std::sync::Arc<PasswordHasher>,
    /// Bounds the hashing jobs running and waiting at once.
    pub pool: HashPool,
    /// SMTP delivery when the host has no `sendEmail` hook.
    #[cfg(feature = "smtp")]
    pub smtp: Option<SmtpConfig>,
    pub from: Option<String>,
    /// The host mails the links itself (`providers.<id>.sendEmail`).
    pub has_send_hook: bool,
    /// The host may refuse a new password (`providers.<id>.checkPassword`).
    pub has_check_hook: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PasswordConfig {
    #[serde(rename = "type")]
    _type: String,
    id: Option<String>,
    name: Option<String>,
    require_email_verification: Option<bool>,
    verification_max_age: Option<u64>,
    reset_max_age: Option<u64>,
    min_length: Option<usize>,
    max_length: Option<usize>,
    argon2: Option<Argon2Config>,
    max_concurrent: Option<usize>,
    max_queued: Option<usize>,
    from: Option<String>,
    server: Option<Value>,
    /// The binding's markers for host functions (hooks).
    send_email: Option<Value>,
    check_password: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Argon2Config {
    memory_kib: Option<u32>,
    iterations: Option<u32>,
    parallelism: Option<u32>,
}

/// A `crate::password` error names its option as `password.<name>`; here
/// the option is the provider's own.
fn renamed(option: &str, e: ConfigError) -> ConfigError {
    let name = e.option.strip_prefix("password.").unwrap_or(&e.option).to_owned();
    ConfigError::new(format!("{option}.{name}"), e.message)
}

pub fn parse(option: &str, value: &Value, host: &dyn Host) -> Result<Provider, ConfigError> {
    let c: PasswordConfig =
        serde_json::from_value(value.clone()).map_err(|e| ConfigError::new(option, e.to_string()))?;
    let _ = (c.send_email, c.check_password);
    let id = c.id.unwrap_or_else(|| "password".to_owned());
    let defaults = PasswordPolicy::default();
    let policy = PasswordPolicy::new(
        c.min_length.unwrap_or(defaults.min_length()),
        c.max_length.unwrap_or(defaults.max_length()),
    )
    .map_err(|e| renamed(option, e))?;
    let argon2 = c.argon2.unwrap_or(Argon2Config { memory_kib: None, iterations: None, parallelism: None });
    let params = Argon2Params {
        memory_kib: argon2.memory_kib.unwrap_or(Argon2Params::OWASP.memory_kib),
        iterations: argon2.iterations.unwrap_or(Argon2Params::OWASP.iterations),
        parallelism: argon2.parallelism.unwrap_or(Argon2Params::OWASP.parallelism),
    };
    let hasher = PasswordHasher::new(params).map_err(|e| renamed(option, e))?;
    let limits = PoolLimits::default();
    let pool = HashPool::new(PoolLimits {
        max_concurrent: c.max_concurrent.unwrap_or(limits.max_concurrent),
        max_queued: c.max_queued.unwrap_or(limits.max_queued),
    })
    .map_err(|e| renamed(option, e))?;
    let max_age = |name: &str, given: Option<u64>, default: u64| match given {
        Some(0) => Err(ConfigError::new(format!("{option}.{name}"), "must be a positive number of seconds")),
        given => Ok(Duration::from_secs(given.unwrap_or(default))),
    };
    let verify_max_age = max_age("verificationMaxAge", c.verification_max_age, DEFAULT_VERIFY_MAX_AGE)?;
    let reset_max_age = max_age("resetMaxAge", c.reset_max_age, DEFAULT_RESET_MAX_AGE)?;

    let has_send_hook = host.has(&Hook::provider(&id, "sendEmail"));
    let has_check_hook = host.has(&Hook::provider(&id, "checkPassword"));
    #[cfg_attr(not(feature = "smtp"), allow(unused_variables))]
    let smtp = super::email::smtp_delivery(
        option,
        c.server,
        c.from.as_ref(),
        has_send_hook,
        &format!("the password provider {id:?} mails verification and reset links: it needs an SMTP `server` or a `sendEmail` function (hook providers.{id}.sendEmail)"),
    )?;
    Ok(Provider {
        name: c.name.unwrap_or_else(|| "Password".to_owned()),
        id,
        kind: ProviderKind::Password(Box::new(PasswordProvider {
            require_email_verification: c.require_email_verification.unwrap_or(true),
            verify_max_age,
            reset_max_age,
            policy,
            hasher: std::sync::Arc::new(hasher),
            pool,
            #[cfg(feature = "smtp")]
            smtp,
            from: c.from,
            has_send_hook,
            has_check_hook,
        })),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn host() -> crate::HookMap {
        crate::HookMap::new().on("providers.password.sendEmail", |_| Ok(Value::Null))
    }

    #[test]
    fn defaults_and_named_option_errors() {
        let p = parse("providers[0]", &json!({ "type": "password" }), &host()).unwrap();
        assert_eq!((p.id.as_str(), p.name.as_str()), ("password", "Password"));
        let ProviderKind::Password(p) = p.kind else { panic!("a password provider") };
        assert!(p.require_email_verification);
        assert_eq!(p.hasher.params(), Argon2Params::OWASP);
        assert_eq!((p.policy.min_length(), p.policy.max_length()), (8, 256));
        assert_eq!(p.reset_max_age, Duration::from_secs(3600));

        let bad = |config: Value| parse("providers[0]", &config, &host()).unwrap_err().option;
        assert_eq!(bad(json!({ "type": "password", "minLength": 0 })), "providers[0].minLength");
        assert_eq!(bad(json!({ "type": "password", "argon2": { "iterations": 0 } })), "providers[0].argon2.iterations");
        assert_eq!(bad(json!({ "type": "password", "maxConcurrent": 0 })), "providers[0].maxConcurrent");
        assert_eq!(bad(json!({ "type": "password", "resetMaxAge": 0 })), "providers[0].resetMaxAge");
        assert_eq!(bad(json!({ "type": "password", "hashes": 1 })), "providers[0]");
        let no_mail = parse("providers[0]", &json!({ "type": "password" }), &crate::HookMap::new()).unwrap_err();
        assert_eq!(no_mail.option, "providers[0].server");
    }
}
