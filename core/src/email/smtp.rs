//! Delivering the sign-in email over SMTP with `lettre`'s synchronous
//! transport (the engine is synchronous; no async runtime needed).
//!
//! The `server` options, as JSON (camelCase, like nodemailer's):
//!
//! ```json
//! { "host": "smtp.example.com", "port": 587, "username": "u", "password": "p",
//!   "from": "Example <no-reply@example.com>", "secure": false, "timeout": 10,
//!   "caFile": "/etc/ssl/private-ca.pem" }
//! ```
//!
//! `secure`: `true` (or `"tls"`) connects with TLS from the start (SMTPS,
//! usually port 465); `"starttls"` requires upgrading with STARTTLS;
//! `"none"` never uses TLS; `false` or absent uses STARTTLS when the server
//! offers it, and requires it when there are credentials to protect and the
//! server is not on this machine.
//!
//! The server's certificate is checked against the Mozilla roots built in
//! (`webpki-roots`). `caFile`: a PEM file of CA certificates to trust as
//! well, for a server whose certificate a private CA issued. It is read
//! when the configuration is parsed; a certificate that neither the
//! built-in roots nor `caFile` vouch for fails the send (no fallback to
//! plain text).

use std::net::IpAddr;
use std::time::Duration;

use lettre::message::{Mailbox, MultiPart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{Message, SmtpTransport, Transport};
use serde_json::{Map, Value};

use super::{verification_email, EmailError, VerificationEmail};

pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// How the connection to the SMTP server is protected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmtpSecurity {
    /// TLS from the first byte (SMTPS).
    Tls,
    /// Plain connection upgraded with STARTTLS; fail if the server can't.
    StartTls,
    /// STARTTLS if the server offers it, plain otherwise.
    Opportunistic,
    /// Never TLS (a relay on localhost).
    None,
}

/// Where and how to send mail.
#[derive(Clone)]
pub struct SmtpConfig {
    pub host: String,
    pub port: u16,
    pub username: Option<String>,
    pub password: Option<String>,
    pub from: Mailbox,
    pub security: SmtpSecurity,
    /// For connecting and for each SMTP command.
    pub timeout: Duration,
    /// PEM CA certificates trusted besides the built-in roots (`caFile`).
    pub extra_roots_pem: Option<Vec<u8>>,
}

/// The password is a secret: never print it.
impl std::fmt::Debug for SmtpConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpConfig")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "[redacted]"))
            .field("from", &self.from.to_string())
            .field("security", &self.security)
            .field("timeout", &self.timeout)
            .field("extra_roots_pem", &self.extra_roots_pem.is_some())
            .finish()
    }
}

fn config_error(option: &str, message: impl Into<String>) -> EmailError {
    EmailError::Config { option: option.to_owned(), message: message.into() }
}

impl SmtpConfig {
    /// Parse the JSON options (see the module docs). Errors name the option.
    pub fn from_json(value: &Value) -> Result<SmtpConfig, EmailError> {
        let Value::Object(options) = value else {
            return Err(config_error("server", "must be an object with host, port and from"));
        };
        const KNOWN: [&str; 8] = ["host", "port", "username", "password", "from", "secure", "timeout", "caFile"];
        if let Some(key) = options.keys().find(|k| !KNOWN.contains(&k.as_str())) {
            return Err(config_error(key, format!("unknown option; known options are: {}", KNOWN.join(", "))));
        }
        let host = string(options, "host")?.ok_or_else(|| config_error("host", "is required"))?;
        let port = match options.get("port") {
            Some(p) => p
                .as_u64()
                .and_then(|p| u16::try_from(p).ok())
                .filter(|p| *p != 0)
                .ok_or_else(|| config_error("port", "must be a port number (1-65535)"))?,
            None => return Err(config_error("port", "is required (465 for TLS, 587 for STARTTLS, 25 for a relay)")),
        };
        let username = string(options, "username")?;
        let password = string(options, "password")?;
        if password.is_some() && username.is_none() {
            return Err(config_error("username", "is required with a password"));
        }
        let from = string(options, "from")?
            .ok_or_else(|| config_error("from", "is required, e.g. \"Example <no-reply@example.com>\""))?;
        let from: Mailbox = from.parse().map_err(|e| config_error("from", format!("is not an email address: {e}")))?;
        let security = match options.get("secure") {
            None | Some(Value::Null) | Some(Value::Bool(false)) => {
                if username.is_some() && !is_loopback(&host) {
                    SmtpSecurity::StartTls
                } else {
                    SmtpSecurity::Opportunistic
                }
            }
            Some(Value::Bool(true)) => SmtpSecurity::Tls,
            Some(Value::String(s)) if s == "tls" => SmtpSecurity::Tls,
            Some(Value::String(s)) if s == "starttls" => SmtpSecurity::StartTls,
            Some(Value::String(s)) if s == "none" => SmtpSecurity::None,
            Some(_) => return Err(config_error("secure", "must be true, false, \"tls\", \"starttls\" or \"none\"")),
        };
        let timeout = match options.get("timeout") {
            Some(t) => t
                .as_f64()
                .filter(|s| *s > 0.0 && *s <= 600.0)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| config_error("timeout", "must be a number of seconds from 0 to 600"))?,
            None => DEFAULT_TIMEOUT,
        };
        let extra_roots_pem = match string(options, "caFile")? {
            Some(path) => Some(read_ca_file(&path)?),
            None => None,
        };
        Ok(SmtpConfig { host, port, username, password, from, security, timeout, extra_roots_pem })
    }

    /// Connect, greet and (when configured) upgrade to TLS, sending no
    /// mail: whether the server can be reached as configured, for a health
    /// check such as `libauth doctor`.
    pub fn test_connection(&self) -> Result<(), EmailError> {
        match self.transport()?.test_connection() {
            Ok(true) => Ok(()),
            Ok(false) => Err(EmailError::Unavailable("the server did not answer NOOP".to_owned())),
            Err(e) => Err(EmailError::Unavailable(e.to_string())),
        }
    }

    fn transport(&self) -> Result<SmtpTransport, EmailError> {
        let tls_parameters = || {
            let mut builder = TlsParameters::builder(self.host.clone());
            if let Some(pem) = &self.extra_roots_pem {
                let roots = Certificate::from_pem(pem)
                    .map_err(|e| config_error("caFile", format!("unreadable certificates: {e}")))?;
                builder = builder.add_root_certificate(roots);
            }
            builder.build().map_err(|e| config_error("host", format!("TLS set-up failed: {e}")))
        };
        let tls = match self.security {
            SmtpSecurity::Tls => Tls::Wrapper(tls_parameters()?),
            SmtpSecurity::StartTls => Tls::Required(tls_parameters()?),
            SmtpSecurity::Opportunistic => Tls::Opportunistic(tls_parameters()?),
            SmtpSecurity::None => Tls::None,
        };
        // `builder_dangerous` only means "no TLS chosen yet": we set it
        // explicitly above.
        let mut builder =
            SmtpTransport::builder_dangerous(self.host.as_str()).port(self.port).tls(tls).timeout(Some(self.timeout));
        if let Some(username) = &self.username {
            builder =
                builder.credentials(Credentials::new(username.clone(), self.password.clone().unwrap_or_default()));
        }
        Ok(builder.build())
    }
}

fn string(options: &Map<String, Value>, key: &str) -> Result<Option<String>, EmailError> {
    match options.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
        Some(_) => Err(config_error(key, "must be a non-empty string")),
    }
}

/// The `caFile` PEM: readable, and with at least one certificate that parses.
fn read_ca_file(path: &str) -> Result<Vec<u8>, EmailError> {
    let pem = std::fs::read(path).map_err(|e| config_error("caFile", format!("cannot read {path}: {e}")))?;
    if !String::from_utf8_lossy(&pem).contains("-----BEGIN CERTIFICATE-----") {
        return Err(config_error("caFile", format!("{path} has no PEM certificate (-----BEGIN CERTIFICATE-----)")));
    }
    Certificate::from_pem(&pem).map_err(|e| config_error("caFile", format!("{path}: invalid certificates: {e}")))?;
    Ok(pem)
}

fn is_loopback(host: &str) -> bool {
    host.eq_ignore_ascii_case("localhost")
        || host.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Send the sign-in link `url` for the site `site_host` to `to`, in
/// English, as a plain-text and an HTML part. Neither the link nor the
/// message is logged or put in an error.
pub fn send_verification_email(config: &SmtpConfig, to: &str, url: &str, site_host: &str) -> Result<(), EmailError> {
    send_email(config, to, verification_email(url, site_host))
}

/// Send a built sign-in email (e.g. [`super::localised_verification_email`])
/// to `to`. Neither the link nor the message is logged or put in an error.
pub fn send_email(config: &SmtpConfig, to: &str, mail: VerificationEmail) -> Result<(), EmailError> {
    let to: Mailbox = to.parse().map_err(|_| EmailError::InvalidRecipient)?;
    let message = Message::builder()
        .from(config.from.clone())
        .to(to)
        .subject(mail.subject)
        .multipart(MultiPart::alternative_plain_html(mail.text, mail.html))
        .map_err(|e| EmailError::Rejected(format!("cannot build the message: {e}")))?;
    config.transport()?.send(&message).map(|_| ()).map_err(|e| {
        // 5xx, TLS failures and protocol errors won't go away on their own;
        // refused connections, timeouts and 4xx may.
        if e.is_permanent() || e.is_tls() || e.is_client() || e.is_response() || is_tls_handshake_failure(&e) {
            EmailError::Rejected(e.to_string())
        } else {
            EmailError::Unavailable(e.to_string())
        }
    })
}

/// lettre reports a failed TLS handshake (e.g. an untrusted certificate) as
/// a network error; rustls puts its error in an `io::Error` of kind
/// `InvalidData`. Such a failure repeats on every retry.
fn is_tls_handshake_failure(e: &lettre::transport::smtp::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        if s.downcast_ref::<std::io::Error>().is_some_and(|io| io.kind() == std::io::ErrorKind::InvalidData) {
            return true;
        }
        source = s.source();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_and_picks_tls() {
        let c =
            SmtpConfig::from_json(&json!({"host": "localhost", "port": 2525, "from": "A <a@example.com>"})).unwrap();
        assert_eq!(c.security, SmtpSecurity::Opportunistic);
        let c = SmtpConfig::from_json(&json!({
            "host": "smtp.example.com", "port": 587, "from": "a@example.com", "username": "u", "password": "hunter2"
        }))
        .unwrap();
        assert_eq!(c.security, SmtpSecurity::StartTls);
        assert!(!format!("{c:?}").contains("hunter2"));
        let c =
            SmtpConfig::from_json(&json!({"host": "h", "port": 465, "from": "a@example.com", "secure": true})).unwrap();
        assert_eq!(c.security, SmtpSecurity::Tls);
    }

    #[test]
    fn errors_name_the_option() {
        let option = |v: Value| match SmtpConfig::from_json(&v) {
            Err(EmailError::Config { option, .. }) => option,
            other => panic!("expected a config error, got {other:?}"),
        };
        assert_eq!(option(json!({"port": 25, "from": "a@b.c"})), "host");
        assert_eq!(option(json!({"host": "h", "from": "a@b.c"})), "port");
        assert_eq!(option(json!({"host": "h", "port": 70000, "from": "a@b.c"})), "port");
        assert_eq!(option(json!({"host": "h", "port": 25, "from": "nope"})), "from");
        assert_eq!(option(json!({"host": "h", "port": 25, "from": "a@b.c", "secure": "yes"})), "secure");
        assert_eq!(option(json!({"host": "h", "port": 25, "from": "a@b.c", "user": "x"})), "user");
        assert_eq!(
            option(json!({"host": "h", "port": 25, "from": "a@b.c", "caFile": "/nonexistent/ca.pem"})),
            "caFile"
        );
        assert_eq!(
            option(
                json!({"host": "h", "port": 25, "from": "a@b.c", "caFile": concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml")})
            ),
            "caFile"
        );
    }
}
