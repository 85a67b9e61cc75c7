//! Sending the email provider's sign-in link.
//!
//! The message itself (subject, plain text, HTML) is built here; [`smtp`]
//! delivers it. A host that sends mail itself implements the
//! `providers.<id>.sendVerificationRequest` hook instead.
//!
//! Nothing here logs: the link is a credential until it is used.

#[cfg(feature = "smtp")]
pub mod smtp;

#[cfg(feature = "smtp")]
pub use smtp::{send_verification_email, SmtpConfig, SmtpSecurity};

/// Why a sign-in email could not be sent. Messages never contain the link.
#[derive(Debug, thiserror::Error)]
pub enum EmailError {
    /// The `server` options are not usable (bad address, missing field).
    #[error("invalid email server configuration `{option}`: {message}")]
    Config { option: String, message: String },
    /// The recipient address is not an email address.
    #[error("invalid recipient address")]
    InvalidRecipient,
    /// The server could not be reached, or refused temporarily (4xx):
    /// trying again later may work.
    #[error("the SMTP server is unavailable: {0}")]
    Unavailable(String),
    /// The server refused the message for good (5xx), or TLS failed.
    #[error("the SMTP server refused the message: {0}")]
    Rejected(String),
}

impl EmailError {
    pub fn is_retryable(&self) -> bool {
        matches!(self, EmailError::Unavailable(_))
    }
}

/// A sign-in email: what Auth.js's default `sendVerificationRequest` sends.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerificationEmail {
    pub subject: String,
    pub text: String,
    pub html: String,
}

/// The message for a sign-in link `url` to the site `site_host`.
pub fn verification_email(url: &str, site_host: &str) -> VerificationEmail {
    let host = escape_html(site_host);
    let link = escape_html(url);
    VerificationEmail {
        subject: format!("Sign in to {site_host}"),
        text: format!("Sign in to {site_host}\n{url}\n\n"),
        html: format!(
            "<!DOCTYPE html>\n<html>\n<body style=\"background: #f9f9f9; font-family: Helvetica, Arial, sans-serif;\">\n\
             <table width=\"100%\" border=\"0\" cellspacing=\"20\" cellpadding=\"0\" \
             style=\"background: #ffffff; max-width: 600px; margin: auto; border-radius: 10px;\">\n\
             <tr><td align=\"center\" style=\"padding: 10px 0px; font-size: 22px; color: #444444;\">\
             Sign in to <strong>{host}</strong></td></tr>\n\
             <tr><td align=\"center\" style=\"padding: 20px 0;\">\
             <a href=\"{link}\" target=\"_blank\" style=\"font-size: 18px; color: #ffffff; text-decoration: none; \
             border-radius: 5px; padding: 10px 20px; border: 1px solid #346df1; background: #346df1; \
             display: inline-block; font-weight: bold;\">Sign in</a></td></tr>\n\
             <tr><td align=\"center\" style=\"padding: 0px 0px 10px 0px; font-size: 16px; line-height: 22px; color: #444444;\">\
             If you did not request this email you can safely ignore it.</td></tr>\n\
             </table>\n</body>\n</html>\n"
        ),
    }
}

/// Escape text for HTML content and double-quoted attributes. A sign-in URL
/// carries `&` between its parameters: unescaped, some clients would read
/// `&token` or `&email` as entities and break the link.
pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 16);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_link_is_escaped_in_html_and_verbatim_in_text() {
        let url = "https://example.com/auth/callback/email?token=a\"b<c&email=x%40y.z";
        let mail = verification_email(url, "example.com");
        assert!(mail.text.contains(url));
        assert!(mail
            .html
            .contains("href=\"https://example.com/auth/callback/email?token=a&quot;b&lt;c&amp;email=x%40y.z\""));
        assert!(!mail.html.contains(url));
        assert_eq!(mail.subject, "Sign in to example.com");
    }
}
