//! Sending the email provider's sign-in link.
//!
//! The message itself (subject, plain text, HTML) is built here; [`smtp`]
//! delivers it. A host that sends mail itself implements the
//! `providers.<id>.sendVerificationRequest` hook instead.
//!
//! Nothing here logs: the link is a credential until it is used.

#[cfg(feature = "smtp")]
pub mod smtp;

use crate::i18n::Messages;

#[cfg(feature = "smtp")]
pub use smtp::{send_email, send_verification_email, SmtpConfig, SmtpSecurity};

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

/// The message for a sign-in link `url` to the site `site_host`, in English.
pub fn verification_email(url: &str, site_host: &str) -> VerificationEmail {
    let catalogues = english();
    localised_verification_email(url, site_host, &catalogues.default_messages())
}

/// The built-in English catalogue, for callers without an engine.
pub(crate) fn english() -> &'static crate::i18n::Catalogues {
    static ENGLISH: std::sync::OnceLock<crate::i18n::Catalogues> = std::sync::OnceLock::new();
    ENGLISH.get_or_init(|| {
        crate::i18n::Catalogues::new(&crate::i18n::I18nConfig {
            locales: Some(vec!["en".to_owned()]),
            ..Default::default()
        })
        .expect("the built-in English catalogue loads")
    })
}

/// The message for a sign-in link `url` to the site `site_host`, in the
/// language of `messages` (the locale of the request that asked for it).
pub fn localised_verification_email(url: &str, site_host: &str, messages: &Messages<'_>) -> VerificationEmail {
    let link = escape_html(url);
    let subject = messages.text_with("email-subject", &[("host", site_host)]);
    // The heading is the subject with the host in <strong>: format it with
    // a marker for the host, escape the translation, then put the escaped
    // host in place of the marker.
    let marker = crate::i18n::EMAIL_PLACEHOLDER.to_string();
    let heading = escape_html(&messages.text_with("email-subject", &[("host", &marker)]))
        .replace(&marker, &format!("<strong>{}</strong>", escape_html(site_host)));
    let button = escape_html(&messages.text("email-button"));
    let ignore = escape_html(&messages.text("email-ignore"));
    let lang = messages.tag();
    // English keeps Auth.js's bare <html>; other languages say which they are.
    let html_open = match (lang, messages.rtl()) {
        ("en", _) => "<html>".to_owned(),
        (lang, false) => format!("<html lang=\"{lang}\">"),
        (lang, true) => format!("<html lang=\"{lang}\" dir=\"rtl\">"),
    };
    VerificationEmail {
        text: format!("{subject}\n{url}\n\n"),
        subject,
        html: format!(
            "<!DOCTYPE html>\n{html_open}\n<body style=\"background: #f9f9f9; font-family: Helvetica, Arial, sans-serif;\">\n\
             <table width=\"100%\" border=\"0\" cellspacing=\"20\" cellpadding=\"0\" \
             style=\"background: #ffffff; max-width: 600px; margin: auto; border-radius: 10px;\">\n\
             <tr><td align=\"center\" style=\"padding: 10px 0px; font-size: 22px; color: #444444;\">\
             {heading}</td></tr>\n\
             <tr><td align=\"center\" style=\"padding: 20px 0;\">\
             <a href=\"{link}\" target=\"_blank\" style=\"font-size: 18px; color: #ffffff; text-decoration: none; \
             border-radius: 5px; padding: 10px 20px; border: 1px solid #346df1; background: #346df1; \
             display: inline-block; font-weight: bold;\">{button}</a></td></tr>\n\
             <tr><td align=\"center\" style=\"padding: 0px 0px 10px 0px; font-size: 16px; line-height: 22px; color: #444444;\">\
             {ignore}</td></tr>\n\
             </table>\n</body>\n</html>\n"
        ),
    }
}

/// A message of the password provider, in the language of `messages`:
/// `subject` as its heading, an optional paragraph, an optional button to
/// `link.0` labelled `link.1` (its URL also in the text part), and a
/// closing note. Every text is escaped.
pub fn notice_email(
    messages: &Messages<'_>,
    subject: String,
    paragraph: Option<String>,
    link: Option<(&str, String)>,
    note: String,
) -> VerificationEmail {
    let lang = messages.tag();
    let html_open = match messages.rtl() {
        false => format!("<html lang=\"{lang}\">"),
        true => format!("<html lang=\"{lang}\" dir=\"rtl\">"),
    };
    let cell = "align=\"center\" style=\"padding: 10px 0px; font-size: 16px; line-height: 22px; color: #444444;\"";
    let mut html = format!(
        "<!DOCTYPE html>\n{html_open}\n<body style=\"background: #f9f9f9; font-family: Helvetica, Arial, sans-serif;\">\n\
         <table width=\"100%\" border=\"0\" cellspacing=\"20\" cellpadding=\"0\" \
         style=\"background: #ffffff; max-width: 600px; margin: auto; border-radius: 10px;\">\n\
         <tr><td align=\"center\" style=\"padding: 10px 0px; font-size: 22px; color: #444444;\">{}</td></tr>\n",
        escape_html(&subject)
    );
    let mut text = format!("{subject}\n\n");
    if let Some(paragraph) = &paragraph {
        html.push_str(&format!("<tr><td {cell}>{}</td></tr>\n", escape_html(paragraph)));
        text.push_str(&format!("{paragraph}\n\n"));
    }
    if let Some((url, label)) = &link {
        html.push_str(&format!(
            "<tr><td align=\"center\" style=\"padding: 20px 0;\"><a href=\"{}\" target=\"_blank\" \
             style=\"font-size: 18px; color: #ffffff; text-decoration: none; border-radius: 5px; padding: 10px 20px; \
             border: 1px solid #346df1; background: #346df1; display: inline-block; font-weight: bold;\">{}</a></td></tr>\n",
            escape_html(url),
            escape_html(label)
        ));
        text.push_str(&format!("{label}: {url}\n\n"));
    }
    html.push_str(&format!("<tr><td {cell}>{}</td></tr>\n</table>\n</body>\n</html>\n", escape_html(&note)));
    text.push_str(&format!("{note}\n"));
    VerificationEmail { subject, text, html }
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

    /// Auth.js's default message, byte for byte: English output is unchanged
    /// by the catalogues.
    #[test]
    fn english_is_auth_js_message_byte_for_byte() {
        let (url, host) = ("https://example.com:3000/auth/callback/email?token=t&email=a%40b.c", "example.com:3000");
        let mail = verification_email(url, host);
        assert_eq!(mail.subject, "Sign in to example.com:3000");
        assert_eq!(mail.text, format!("Sign in to example.com:3000\n{url}\n\n"));
        let link = escape_html(url);
        let expected = format!(
            "<!DOCTYPE html>\n<html>\n<body style=\"background: #f9f9f9; font-family: Helvetica, Arial, sans-serif;\">\n\
             <table width=\"100%\" border=\"0\" cellspacing=\"20\" cellpadding=\"0\" \
             style=\"background: #ffffff; max-width: 600px; margin: auto; border-radius: 10px;\">\n\
             <tr><td align=\"center\" style=\"padding: 10px 0px; font-size: 22px; color: #444444;\">\
             Sign in to <strong>example.com:3000</strong></td></tr>\n\
             <tr><td align=\"center\" style=\"padding: 20px 0;\">\
             <a href=\"{link}\" target=\"_blank\" style=\"font-size: 18px; color: #ffffff; text-decoration: none; \
             border-radius: 5px; padding: 10px 20px; border: 1px solid #346df1; background: #346df1; \
             display: inline-block; font-weight: bold;\">Sign in</a></td></tr>\n\
             <tr><td align=\"center\" style=\"padding: 0px 0px 10px 0px; font-size: 16px; line-height: 22px; color: #444444;\">\
             If you did not request this email you can safely ignore it.</td></tr>\n\
             </table>\n</body>\n</html>\n"
        );
        assert_eq!(mail.html, expected);
    }
}
