//! The sign-in email through a real SMTP server: `tests/support/smtp_sink.py`
//! (Python's aiosmtpd, installed by `scripts/test.sh`), started per test on
//! a free loopback port. The sink decodes each message with Python's
//! `email` package, so the test sees what a mail client would.
//!
//! `LIBAUTH_PYTHON` overrides the interpreter (default `python3`).

mod common;

use std::io::{BufRead, BufReader, Lines};
use std::sync::{Arc, Mutex};

use common::{location, recording, Browser, CallLog, ORIGIN, SECRET};
use libauth_core::{Auth, HookMap};
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

// ---- Email sign-in end to end: engine -> SMTP -> link -> session ----

fn email_engine(sink: &Sink, db: &common::TempFile, max_age: u64, log: &CallLog) -> Auth {
    let config = libauth_core::Config::from_value(json!({
        "secret": SECRET, "trustHost": true,
        "adapter": { "type": "sqlite", "path": db.0 },
        "providers": [{
            "type": "email", "maxAge": max_age, "from": "Example <no-reply@example.com>",
            "server": { "host": "127.0.0.1", "port": sink.port }
        }]
    }))
    .unwrap();
    let hooks = recording(HookMap::new(), log, &["callbacks.signIn", "events.createUser"], json!(true));
    Auth::with_env(config, Arc::new(hooks), &std::collections::HashMap::new()).unwrap()
}

/// Ask for a link and return it as a path on our origin, read from the mail.
fn request_link(b: &mut Browser, sink: &mut Sink, email: &str) -> String {
    let csrf = b.csrf();
    let res = b.post("/auth/signin/email", &[("csrfToken", &csrf), ("email", email), ("callbackUrl", "/inbox")]);
    assert_eq!(location(&res), "http://localhost:3000/auth/verify-request?provider=email&type=email");
    let message = sink.next_message();
    assert_eq!(message["rcpt_tos"], json!([email.trim().to_lowercase()]));
    // As Auth.js (`new URL(url).host`): the port is part of the site's name.
    assert_eq!(message["subject"], "Sign in to localhost:3000");
    let link = href(message["html"].as_str().unwrap());
    let text = message["text"].as_str().unwrap();
    assert!(text.contains(&link), "the same link in the text part");
    link.strip_prefix(ORIGIN).unwrap_or_else(|| panic!("a link to our origin: {link}")).to_owned()
}

#[test]
fn email_sign_in_end_to_end_once_only() {
    let mut sink = Sink::start(&[]);
    let db = common::temp_db_path();
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth = email_engine(&sink, &db, 86_400, &log);
    let mut b = Browser::new(&auth);
    let link = request_link(&mut b, &mut sink, " Grace@Example.com ");
    assert!(link.starts_with("/auth/callback/email?"));

    // Only a hash of the token is stored.
    let token = url::Url::parse(&format!("{ORIGIN}{link}"))
        .unwrap()
        .query_pairs()
        .find(|(k, _)| k == "token")
        .unwrap()
        .1
        .into_owned();
    let raw_db = std::fs::read(&db.0).unwrap_or_default();
    let wal = std::fs::read(format!("{}-wal", db.0.display())).unwrap_or_default();
    let needle = token.as_bytes();
    assert!(!raw_db.windows(needle.len()).any(|w| w == needle) && !wal.windows(needle.len()).any(|w| w == needle));

    let res = b.get(&link);
    assert_eq!(location(&res), "http://localhost:3000/inbox");
    let session = b.session();
    assert_eq!(session["user"]["email"], "grace@example.com");

    // The signIn callback saw verificationRequest on the first call only.
    let calls = log.lock().unwrap();
    let sign_ins: Vec<&Value> = calls.iter().filter(|(n, _)| n == "callbacks.signIn").map(|(_, a)| a).collect();
    assert_eq!(sign_ins.len(), 2);
    assert_eq!(sign_ins[0]["email"]["verificationRequest"], true);
    assert!(sign_ins[1].get("email").is_none());
    assert_eq!(
        sign_ins[1]["account"],
        json!({ "providerAccountId": "grace@example.com", "type": "email", "provider": "email" })
    );
    assert_eq!(calls.iter().filter(|(n, _)| n == "events.createUser").count(), 1);
    drop(calls);

    // The same link again: Verification error page, no new session.
    let mut other = Browser::new(&auth);
    let res = other.get(&link);
    assert_eq!(location(&res), "http://localhost:3000/auth/error?error=Verification");
    assert!(!other.has_session_cookie());
    assert_eq!(other.get("/auth/error?error=Verification").status, 403);
    // A wrong token, or the right token for another address.
    let wrong = link.replace("token=", "token=0");
    assert_eq!(location(&other.get(&wrong)), "http://localhost:3000/auth/error?error=Verification");
}

#[test]
fn an_expired_link_is_refused() {
    let mut sink = Sink::start(&[]);
    let db = common::temp_db_path();
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth = email_engine(&sink, &db, 1, &log);
    let mut b = Browser::new(&auth);
    let link = request_link(&mut b, &mut sink, "late@example.com");
    std::thread::sleep(std::time::Duration::from_millis(1100));
    assert_eq!(location(&b.get(&link)), "http://localhost:3000/auth/error?error=Verification");
    assert!(!b.has_session_cookie());
}

#[test]
fn a_host_sender_and_bad_addresses() {
    let sent: Arc<Mutex<Vec<Value>>> = Arc::new(Mutex::new(Vec::new()));
    let sent_hook = sent.clone();
    let config = libauth_core::Config::from_value(json!({
        "secret": SECRET, "trustHost": true, "adapter": { "type": "memory" },
        "providers": [{ "type": "email", "id": "magic", "name": "Magic link", "sendVerificationRequest": true }]
    }))
    .unwrap();
    let hooks = HookMap::new().on("providers.magic.sendVerificationRequest", move |args| {
        sent_hook.lock().unwrap().push(args);
        Ok(Value::Null)
    });
    let auth = Auth::with_env(config, Arc::new(hooks), &std::collections::HashMap::new()).unwrap();
    let mut b = Browser::new(&auth);
    let page = b.get("/auth/signin").body_str().to_owned();
    assert!(page.contains(r#"action="http://localhost:3000/auth/signin/magic""#) && page.contains(r#"type="email""#));
    let csrf = b.csrf();
    let res = b.post("/auth/signin/magic", &[("csrfToken", &csrf), ("email", "ada@example.com")]);
    assert_eq!(location(&res), "http://localhost:3000/auth/verify-request?provider=magic&type=email");
    let args = sent.lock().unwrap()[0].clone();
    assert_eq!(args["identifier"], "ada@example.com");
    let url = args["url"].as_str().unwrap().to_owned();
    assert!(url.starts_with("http://localhost:3000/auth/callback/magic?"));
    assert_eq!(location(&b.get(url.strip_prefix(ORIGIN).unwrap())), ORIGIN);
    assert_eq!(b.session()["user"]["email"], "ada@example.com");

    for bad in ["", "not-an-email", "a@b.com, c@d.com"] {
        let res = b.post("/auth/signin/magic", &[("csrfToken", &csrf), ("email", bad)]);
        assert!(location(&res).starts_with("http://localhost:3000/auth/signin?error="), "{bad}");
    }
    assert_eq!(sent.lock().unwrap().len(), 1, "nothing sent for bad addresses");
    // No CSRF token: nothing is sent.
    let res = b.post("/auth/signin/magic", &[("email", "ada@example.com")]);
    assert_eq!(location(&res), "http://localhost:3000/auth/signin?error=MissingCSRF");
    assert_eq!(sent.lock().unwrap().len(), 1);
}

#[test]
fn a_link_mailed_before_a_secret_rotation_still_works() {
    let db = common::temp_db_path();
    let sent: Arc<Mutex<Vec<String>>> = Arc::new(Mutex::new(Vec::new()));
    let build = |secret: Value| {
        let sent = sent.clone();
        let config = libauth_core::Config::from_value(json!({
            "secret": secret, "trustHost": true, "adapter": { "type": "sqlite", "path": db.0 },
            "providers": [{ "type": "email", "sendVerificationRequest": true }]
        }))
        .unwrap();
        let hooks = HookMap::new().on("providers.email.sendVerificationRequest", move |args| {
            sent.lock().unwrap().push(args["url"].as_str().unwrap().to_owned());
            Ok(Value::Null)
        });
        Auth::with_env(config, Arc::new(hooks), &std::collections::HashMap::new()).unwrap()
    };
    let old_secret = "old-secret-old-secret-old-secret-0";
    let before = build(json!(old_secret));
    let mut b = Browser::new(&before);
    let csrf = b.csrf();
    b.post("/auth/signin/email", &[("csrfToken", &csrf), ("email", "rotate@example.com")]);
    let link = sent.lock().unwrap()[0].strip_prefix(ORIGIN).unwrap().to_owned();

    // The deployment rotates: a new secret first, the old one kept.
    let after = build(json!([SECRET, old_secret]));
    let mut b = Browser::new(&after);
    assert_eq!(location(&b.get(&link)), ORIGIN);
    assert_eq!(b.session()["user"]["email"], "rotate@example.com");
}

// ---- TLS: implicit (SMTPS) and STARTTLS, with a CA the test creates ----

/// A throw-away CA, a certificate it issued for 127.0.0.1, and a second,
/// unrelated CA; made with the `openssl` CLI in a directory removed on drop.
struct TestPki {
    dir: std::path::PathBuf,
}

impl TestPki {
    fn new() -> TestPki {
        let dir = std::env::temp_dir().join(format!("libauth-smtp-tls-{}", libauth_core::random::hex(8)));
        std::fs::create_dir_all(&dir).unwrap();
        let pki = TestPki { dir };
        pki.make_ca("ca", "libauth test CA");
        pki.make_ca("other-ca", "libauth unrelated CA");
        pki.openssl(&[
            "req",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=127.0.0.1",
        ]);
        std::fs::write(
            pki.path("server.ext"),
            "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n",
        )
        .unwrap();
        pki.openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-set_serial",
            "2",
            "-days",
            "2",
            "-extfile",
            "server.ext",
            "-out",
            "server.pem",
        ]);
        pki
    }

    fn make_ca(&self, name: &str, common_name: &str) {
        self.openssl(&[
            "req",
            "-x509",
            "-newkey",
            "ec",
            "-pkeyopt",
            "ec_paramgen_curve:prime256v1",
            "-nodes",
            "-keyout",
            &format!("{name}.key"),
            "-out",
            &format!("{name}.pem"),
            "-days",
            "2",
            "-subj",
            &format!("/CN={common_name}"),
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign,cRLSign",
        ]);
    }

    fn openssl(&self, args: &[&str]) {
        let out = Command::new("openssl")
            .args(args)
            .current_dir(&self.dir)
            .output()
            .unwrap_or_else(|e| panic!("cannot run openssl: {e}"));
        assert!(out.status.success(), "openssl {args:?} failed:\n{}", String::from_utf8_lossy(&out.stderr));
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).to_str().unwrap().to_owned()
    }

    /// A sink speaking TLS as `mode` (smtps, starttls, starttls-optional).
    fn sink(&self, mode: &str) -> Sink {
        Sink::start(&["--tls", mode, "--cert", &self.path("server.pem"), "--key", &self.path("server.key")])
    }
}

impl Drop for TestPki {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Send, then check the message came through TLS with the link intact.
fn assert_delivered_over_tls(sink: &mut Sink, config: &SmtpConfig, to: &str) {
    send_verification_email(config, to, LINK, "localhost:3000").unwrap_or_else(|e| panic!("{config:?}: {e}"));
    let m = sink.next_message();
    assert_eq!(m["rcpt_tos"], json!([to]));
    assert_eq!(m["tls"], true, "the message went over TLS");
    assert_eq!(href(m["html"].as_str().unwrap()), LINK);
}

/// The send fails on the certificate, nothing reaches the server, and a
/// send that trusts the right CA then gets through (so the sink is alive
/// and the failed message is not queued behind it).
fn assert_refused_then_recovers(sink: &mut Sink, bad: &SmtpConfig, good: &SmtpConfig) {
    let err = send_verification_email(bad, "mallory@example.com", LINK, "localhost:3000").unwrap_err();
    assert!(matches!(err, EmailError::Rejected(_)), "a certificate failure is not retryable: {err:?}");
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains("5f2b8c0e"), "{shown}");
    send_verification_email(good, "ada@example.com", LINK, "localhost:3000").unwrap();
    let m = sink.next_message();
    assert_eq!(m["rcpt_tos"], json!(["ada@example.com"]), "the refused message never reached the server");
    assert_eq!(m["tls"], true);
}

#[test]
fn smtps_with_the_ca_trusted_through_ca_file() {
    let pki = TestPki::new();
    let mut sink = pki.sink("smtps");
    let config = sink.config(json!({ "secure": "tls", "caFile": pki.path("ca.pem") }));
    assert_delivered_over_tls(&mut sink, &config, "ada@example.com");
    // `secure: true` is the same as "tls".
    let config = sink.config(json!({ "secure": true, "caFile": pki.path("ca.pem") }));
    assert_delivered_over_tls(&mut sink, &config, "grace@example.com");
}

#[test]
fn starttls_with_the_ca_trusted_through_ca_file() {
    let pki = TestPki::new();
    let mut sink = pki.sink("starttls");
    let config = sink.config(json!({ "secure": "starttls", "caFile": pki.path("ca.pem") }));
    assert_delivered_over_tls(&mut sink, &config, "ada@example.com");
}

#[test]
fn starttls_with_login_sends_the_password_only_after_the_upgrade() {
    let pki = TestPki::new();
    let mut sink = Sink::start(&[
        "--tls",
        "starttls",
        "--cert",
        &pki.path("server.pem"),
        "--key",
        &pki.path("server.key"),
        "--auth",
        "mailer:s3cret-pass",
    ]);
    let config = sink.config(json!({
        "secure": "starttls", "caFile": pki.path("ca.pem"), "username": "mailer", "password": "s3cret-pass"
    }));
    send_verification_email(&config, "ada@example.com", LINK, "localhost:3000").unwrap();
    let m = sink.next_message();
    assert_eq!((m["login"].as_str(), m["tls"].as_bool()), (Some("mailer"), Some(true)));
}

#[test]
fn the_default_upgrades_when_the_server_offers_starttls() {
    let pki = TestPki::new();
    // The server would take plain text too; the client upgrades anyway.
    let mut sink = pki.sink("starttls-optional");
    let config = sink.config(json!({ "caFile": pki.path("ca.pem") }));
    assert_delivered_over_tls(&mut sink, &config, "ada@example.com");
}

#[test]
fn smtps_with_a_wrong_ca_or_none_fails_the_send() {
    let pki = TestPki::new();
    let mut sink = pki.sink("smtps");
    let good = sink.config(json!({ "secure": "tls", "caFile": pki.path("ca.pem") }));
    let wrong_ca = sink.config(json!({ "secure": "tls", "caFile": pki.path("other-ca.pem") }));
    assert_refused_then_recovers(&mut sink, &wrong_ca, &good);
    // Without caFile only the built-in roots count, and they don't know our CA.
    let builtin_roots = sink.config(json!({ "secure": "tls" }));
    assert_refused_then_recovers(&mut sink, &builtin_roots, &good);
}

#[test]
fn starttls_with_a_wrong_ca_fails_without_falling_back_to_plain_text() {
    let pki = TestPki::new();
    // This server accepts plain-text mail: a client that gave up on TLS
    // after the failed handshake and carried on would be delivered.
    let mut sink = pki.sink("starttls-optional");
    let good = sink.config(json!({ "secure": "starttls", "caFile": pki.path("ca.pem") }));
    for secure in [json!("starttls"), json!(false), Value::Null] {
        let bad = sink.config(json!({ "secure": secure, "caFile": pki.path("other-ca.pem") }));
        assert_refused_then_recovers(&mut sink, &bad, &good);
    }
}

#[test]
fn a_bad_ca_file_is_a_config_error() {
    let pki = TestPki::new();
    for path in [pki.path("missing.pem"), pki.path("server.key")] {
        let err = SmtpConfig::from_json(
            &json!({ "host": "127.0.0.1", "port": 465, "from": "a@example.com", "caFile": path }),
        )
        .unwrap_err();
        assert!(matches!(&err, EmailError::Config { option, .. } if option == "caFile"), "{err:?}");
    }
}

// ---- The email in the language of the request that asked for it ----

/// Through the engine and a real SMTP server, the sign-in email for a
/// request in French (`?locale=fr`) and one in Japanese (`Accept-Language`)
/// arrives in that language: subject (RFC 2047-encoded, decoded by the
/// sink as a mail client would), text part and HTML part.
#[test]
fn the_email_arrives_in_the_language_of_the_request() {
    let mut sink = Sink::start(&[]);
    let db = common::temp_db_path();
    let log: CallLog = Arc::new(Mutex::new(Vec::new()));
    let auth = email_engine(&sink, &db, 86_400, &log);
    let catalogues = libauth_core::i18n::Catalogues::new(&Default::default()).unwrap();
    for (tag, path, headers) in [
        ("fr", "/auth/signin/email?locale=fr", vec![("accept-language", "ja")]),
        ("ja", "/auth/signin/email", vec![("accept-language", "ja-JP, en;q=0.5")]),
    ] {
        let t = catalogues.negotiate(Some(tag), None, None);
        let mut b = Browser::new(&auth);
        b.extra_headers = headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        let csrf = b.csrf();
        let res = b.post(path, &[("csrfToken", &csrf), ("email", "ada@example.com")]);
        assert_eq!(res.status, 302, "{tag}");
        let m = sink.next_message();
        let subject = t.text_with("email-subject", &[("host", "localhost:3000")]);
        assert_eq!(m["subject"], subject.as_str(), "{tag}");
        assert_ne!(m["subject"], "Sign in to localhost:3000", "{tag}");
        let text = m["text"].as_str().unwrap();
        assert_eq!(text.lines().next(), Some(subject.as_str()), "{tag}: {text}");
        let html = m["html"].as_str().unwrap();
        assert!(html.contains(&format!("<html lang=\"{tag}\">")), "{tag}: {html}");
        let heading =
            t.text_with("email-subject", &[("host", "\u{1}")]).replace('\u{1}', "<strong>localhost:3000</strong>");
        assert!(html.contains(&heading), "{tag}: {heading} in {html}");
        assert!(html.contains(&format!(">{}</a>", t.text("email-button"))), "{tag}: {html}");
        assert!(html.contains(&t.text("email-ignore")), "{tag}: {html}");
        assert!(!html.contains("Sign in") && !html.contains("safely ignore"), "{tag}: English left in {html}");
        // The link still works as it is.
        assert!(text.contains(&href(html)), "{tag}");
    }
    // A request naming no language gets Auth.js's English.
    let mut b = Browser::new(&auth);
    let csrf = b.csrf();
    b.post("/auth/signin/email", &[("csrfToken", &csrf), ("email", "ada@example.com")]);
    assert_eq!(sink.next_message()["subject"], "Sign in to localhost:3000");
}
