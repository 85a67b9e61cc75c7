//! The sign-in email through a real SMTP server: `tests/support/smtp_sink.py`
//! (Python's aiosmtpd, installed by `scripts/test.sh`), started per test on
//! a free loopback port. The sink decodes each message with Python's
//! `email` package, so the test sees what a mail client would.
//!
//! `LIBAUTH_PYTHON` overrides the interpreter (default `python3`).

use std::io::{BufRead, BufReader, Lines};
use std::process::{Child, ChildStdout, Command, Stdio};

use libauth_core::email::{send_verification_email, EmailError, SmtpConfig};
use serde_json::{json, Value};

/// A long link with the characters that break naive mail code: `&`
/// (HTML entities), `%40`, `=` (quoted-printable) and over 76 characters
/// (line wrapping).
const LINK: &str = "http://localhost:3000/auth/callback/email?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fdashboard%3Ftab%3D1&token=5f2b8c0e9d4a7b3c1e6f8a2d4c6b8e0f1a3c5e7b9d1f3a5c7e9b1d3f5a7c9e1b&email=ada%40example.com";

/// The running sink; killed when dropped, test passed or not.
struct Sink {
    child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    port: u16,
}

impl Sink {
    fn start(extra_args: &[&str]) -> Sink {
        let python = std::env::var("LIBAUTH_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/smtp_sink.py");
        let mut child = Command::new(&python)
            .arg(script)
            .args(extra_args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {python}: {e}"));
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let ready = match lines.next() {
            Some(Ok(line)) => line,
            _ => {
                let _ = child.kill();
                panic!(
                    "the SMTP sink did not start; is aiosmtpd installed? (pip install aiosmtpd; scripts/test.sh does)"
                )
            }
        };
        let port = ready.strip_prefix("READY ").and_then(|p| p.parse().ok()).expect("READY <port>");
        Sink { child, lines, port }
    }

    /// The next message the server received.
    fn next_message(&mut self) -> Value {
        let line = self.lines.next().expect("a message").expect("readable");
        serde_json::from_str(&line).expect("JSON from the sink")
    }

    fn config(&self, extra: Value) -> SmtpConfig {
        let mut options = json!({ "host": "127.0.0.1", "port": self.port, "from": "Example <no-reply@example.com>" });
        for (k, v) in extra.as_object().cloned().unwrap_or_default() {
            options[k] = v;
        }
        SmtpConfig::from_json(&options).expect("valid config")
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `href` of the first link, with HTML escapes undone.
fn href(html: &str) -> String {
    let start = html.find("href=\"").expect("a link") + "href=\"".len();
    let end = start + html[start..].find('"').expect("closing quote");
    html[start..end]
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

#[test]
fn the_link_arrives_intact_in_text_and_html() {
    let mut sink = Sink::start(&[]);
    send_verification_email(&sink.config(json!({})), "ada@example.com", LINK, "localhost:3000").unwrap();
    let m = sink.next_message();
    assert_eq!(m["mail_from"], "no-reply@example.com");
    assert_eq!(m["rcpt_tos"], json!(["ada@example.com"]));
    assert_eq!(m["from"], "Example <no-reply@example.com>");
    assert_eq!(m["subject"], "Sign in to localhost:3000");
    assert_eq!(m["content_type"], "multipart/alternative");

    let text = m["text"].as_str().expect("a text part");
    assert!(text.lines().any(|line| line == LINK), "the text part has the link on a line of its own:\n{text}");

    let html = m["html"].as_str().expect("an HTML part");
    assert_eq!(href(html), LINK);
    assert!(!html.contains("&token="), "`&` is escaped in HTML");
    assert!(html.contains("localhost:3000"));
}

#[test]
fn the_site_name_is_escaped_in_html() {
    let mut sink = Sink::start(&[]);
    send_verification_email(&sink.config(json!({})), "ada@example.com", LINK, "<b>evil</b>").unwrap();
    let html = sink.next_message()["html"].as_str().unwrap().to_owned();
    assert!(html.contains("&lt;b&gt;evil&lt;/b&gt;") && !html.contains("<b>evil"), "{html}");
}

#[test]
fn logs_in_with_username_and_password() {
    let mut sink = Sink::start(&["--auth", "mailer:s3cret-pass"]);
    let config = sink.config(json!({ "username": "mailer", "password": "s3cret-pass" }));
    send_verification_email(&config, "ada@example.com", LINK, "localhost:3000").unwrap();
    let m = sink.next_message();
    assert_eq!(m["login"], "mailer");
    assert_eq!(href(m["html"].as_str().unwrap()), LINK);
}

#[test]
fn a_wrong_password_is_rejected_without_echoing_it() {
    let sink = Sink::start(&["--auth", "mailer:s3cret-pass"]);
    let config = sink.config(json!({ "username": "mailer", "password": "wrong-pass" }));
    let err = send_verification_email(&config, "ada@example.com", LINK, "localhost:3000").unwrap_err();
    assert!(matches!(err, EmailError::Rejected(_)), "{err:?}");
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains("wrong-pass") && !shown.contains("5f2b8c0e"), "{shown}");
}

#[test]
fn no_server_is_unavailable_and_the_error_has_no_link() {
    // Start and stop a sink to get a port where nothing listens now.
    let port = Sink::start(&[]).port;
    let config =
        SmtpConfig::from_json(&json!({ "host": "127.0.0.1", "port": port, "from": "a@example.com", "timeout": 3 }))
            .unwrap();
    let err = send_verification_email(&config, "ada@example.com", LINK, "localhost:3000").unwrap_err();
    assert!(err.is_retryable(), "{err:?}");
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains("5f2b8c0e") && !shown.contains("callback/email"), "{shown}");
}

#[test]
fn an_invalid_recipient_is_refused_before_connecting() {
    let config = SmtpConfig::from_json(&json!({ "host": "127.0.0.1", "port": 9, "from": "a@example.com" })).unwrap();
    let err = send_verification_email(&config, "not an address", LINK, "localhost:3000").unwrap_err();
    assert!(matches!(err, EmailError::InvalidRecipient), "{err:?}");
}
