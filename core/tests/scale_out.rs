//! Many processes, one state: two HTTP server processes (this test binary
//! run again, serving the engine over `tiny_http`) behind no load balancer
//! but one client that alternates between them, sharing one PostgreSQL
//! (users, accounts) and one Redis (rate-limit counts, sessions).
//!
//! - Together they admit exactly `max` failed password attempts for one
//!   account, then both answer 429.
//! - A sign-in on one is a session on the other; a sign-out on the other
//!   ends it on the first.
//!
//! Never skipped: PostgreSQL and Redis are started by `scripts/test.sh`.

// Without `integration` the helpers of the PostgreSQL and Redis tests go unused.
#![cfg_attr(not(feature = "integration"), allow(dead_code, unused_imports))]

mod common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{postgres_url, temp_schema, SECRET};
use libauth_core::{Auth, AuthRequest, Config, HookMap};
use serde_json::{json, Value};

/// Every server answers as the one public origin a load balancer would
/// front (the engine builds its URLs on it, as with `AUTH_URL`).
const PUBLIC_ORIGIN: &str = "http://localhost:3000";

fn redis_url() -> String {
    std::env::var("LIBAUTH_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned())
}

/// The body of a server process: run only as a child of the tests below
/// (it does nothing without `LIBAUTH_SCALE_OUT_CONFIG`).
#[test]
#[ignore = "the body of a child process: this file's multi-process tests run it with --ignored"]
fn child_server() {
    let Ok(config) = std::env::var("LIBAUTH_SCALE_OUT_CONFIG") else { return };
    let config = Config::from_value(serde_json::from_str(&config).expect("JSON config")).expect("valid config");
    // Any username signs in with the password "secret", as itself.
    let hooks = HookMap::new().on("providers.credentials.authorize", |args| {
        let c = &args["credentials"];
        match (c["username"].as_str(), c["password"].as_str()) {
            (Some(user), Some("secret")) => {
                Ok(json!({ "id": user, "name": user, "email": format!("{user}@example.com") }))
            }
            _ => Ok(Value::Null),
        }
    });
    let auth = Arc::new(Auth::with_env(config, Arc::new(hooks), &std::collections::HashMap::new()).expect("builds"));
    let server = tiny_http::Server::http("127.0.0.1:0").expect("listens");
    let port = server.server_addr().to_ip().expect("an IP address").port();
    println!("LISTENING {port}");
    for mut request in server.incoming_requests() {
        let headers = request.headers().iter().map(|h| (h.field.to_string(), h.value.to_string())).collect();
        let mut body = Vec::new();
        let _ = request.as_reader().take(1 << 20).read_to_end(&mut body);
        let req = AuthRequest {
            method: request.method().to_string(),
            url: format!("{PUBLIC_ORIGIN}{}", request.url()),
            headers,
            body: Some(body),
            remote_address: request.remote_addr().map(|a| a.ip().to_string()),
        };
        let res = auth.handle(&req);
        let mut response = tiny_http::Response::from_data(res.body).with_status_code(res.status);
        for (name, value) in res.headers {
            if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
                response.add_header(h);
            }
        }
        let _ = request.respond(response);
    }
}

/// A running server process; killed when dropped.
struct Server {
    child: Child,
    base: String,
    /// What it logged (its stderr), so far.
    log: Arc<Mutex<String>>,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server(config: &Value) -> Server {
    let mut child = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["child_server", "--exact", "--ignored", "--nocapture", "--test-threads", "1"])
        .env("LIBAUTH_SCALE_OUT_CONFIG", config.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the server process starts");
    let log = Arc::new(Mutex::new(String::new()));
    let stderr = child.stderr.take().expect("piped");
    let sink = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            let mut log = sink.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    let stdout = child.stdout.take().expect("piped");
    let mut lines = BufReader::new(stdout).lines();
    let port = loop {
        let line = lines.next().expect("the server printed its port").expect("readable");
        if let Some((_, port)) = line.split_once("LISTENING ") {
            break port.trim().to_owned();
        }
    };
    // Keep draining its stdout, so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in lines {});
    Server { child, base: format!("http://127.0.0.1:{port}"), log }
}

/// A browser that talks to either server, keeping cookies across both (as
/// it would behind one load balancer).
struct Client {
    agent: ureq::Agent,
    jar: BTreeMap<String, String>,
}

impl Client {
    fn new() -> Client {
        let agent = ureq::AgentBuilder::new().redirects(0).timeout(Duration::from_secs(10)).build();
        Client { agent, jar: BTreeMap::new() }
    }

    fn send(&mut self, server: &Server, method: &str, path: &str, form: Option<&[(&str, &str)]>) -> (u16, String) {
        let mut request = self.agent.request(method, &format!("{}{path}", server.base));
        if !self.jar.is_empty() {
            let cookies = self.jar.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ");
            request = request.set("cookie", &cookies);
        }
        let result = match form {
            Some(pairs) => request.send_form(pairs),
            None => request.call(),
        };
        let response = match result {
            Ok(response) | Err(ureq::Error::Status(_, response)) => response,
            Err(e) => panic!("{method} {path}: {e}"),
        };
        for cookie in response.all("set-cookie") {
            let pair = cookie.split(';').next().unwrap_or_default();
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            let expired = cookie.to_ascii_lowercase().contains("max-age=0") || value.is_empty();
            if expired {
                self.jar.remove(name);
            } else {
                self.jar.insert(name.to_owned(), value.to_owned());
            }
        }
        let status = response.status();
        (status, response.into_string().unwrap_or_default())
    }

    fn csrf(&mut self, server: &Server) -> String {
        let (_, body) = self.send(server, "GET", "/auth/csrf", None);
        serde_json::from_str::<Value>(&body).unwrap()["csrfToken"].as_str().unwrap().to_owned()
    }

    fn sign_in(&mut self, server: &Server, username: &str, password: &str) -> u16 {
        let csrf = self.csrf(server);
        let form = [("csrfToken", csrf.as_str()), ("username", username), ("password", password)];
        self.send(server, "POST", "/auth/callback/credentials", Some(&form)).0
    }

    fn session(&mut self, server: &Server) -> Value {
        let (_, body) = self.send(server, "GET", "/auth/session", None);
        serde_json::from_str(&body).unwrap_or(Value::Null)
    }

    fn sign_out(&mut self, server: &Server) -> u16 {
        let csrf = self.csrf(server);
        self.send(server, "POST", "/auth/signout", Some(&[("csrfToken", csrf.as_str())])).0
    }
}

/// Two servers on one PostgreSQL schema and one Redis key prefix.
fn two_servers(schema: &str) -> (Server, Server) {
    let prefix = format!("libauth-test:{}:", libauth_core::random::hex(6));
    let redis = json!({ "type": "redis", "url": redis_url(), "keyPrefix": prefix });
    let config = json!({
        "secret": SECRET,
        "trustHost": true,
        "adapter": { "type": "postgres", "url": postgres_url(), "schema": schema },
        "session": { "strategy": "database" },
        "secondaryStorage": redis,
        "rateLimit": { "credentials": { "window": 600, "max": 3 }, "store": redis },
        "providers": [{ "type": "credentials", "credentials": { "username": {}, "password": { "type": "password" } } }]
    });
    (start_server(&config), start_server(&config))
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn two_processes_admit_exactly_max_failed_attempts_together() {
    let schema = temp_schema();
    let (one, two) = two_servers(&schema.0);
    let mut attacker = Client::new();
    let statuses: Vec<u16> =
        (0..8).map(|i| attacker.sign_in(if i % 2 == 0 { &one } else { &two }, "mallory", "guess")).collect();
    // Three refused passwords (the usual redirect) in all, then 429 from
    // both servers, even for the right password.
    assert_eq!(statuses, [302, 302, 302, 429, 429, 429, 429, 429]);
    assert_eq!(attacker.sign_in(&one, "mallory", "secret"), 429);
    assert_eq!(attacker.sign_in(&two, "mallory", "secret"), 429);
    assert!(!attacker.jar.contains_key("authjs.session-token"));
}

#[test]
#[cfg(feature = "integration")] // PostgreSQL or Redis
fn a_sign_in_on_one_process_and_a_sign_out_on_the_other() {
    let schema = temp_schema();
    let (one, two) = two_servers(&schema.0);
    let mut browser = Client::new();
    assert_eq!(browser.sign_in(&one, "ada", "secret"), 302);
    assert!(browser.jar.contains_key("authjs.session-token"), "a database session cookie");
    assert_eq!(browser.session(&two)["user"]["email"], "ada@example.com", "the other process sees the session");
    let token = browser.jar["authjs.session-token"].clone();

    assert_eq!(browser.sign_out(&two), 302);
    assert!(!browser.jar.contains_key("authjs.session-token"));
    // The first process no longer finds it, even with the old cookie.
    assert_eq!(browser.session(&one), Value::Null);
    browser.jar.insert("authjs.session-token".into(), token);
    assert_eq!(browser.session(&one), Value::Null, "the session is gone for every process");
}

#[test]
fn with_redis_down_a_server_logs_it_and_fails_closed_for_passwords_in_bounded_time() {
    let schema = temp_schema();
    let down = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("redis://{}", down.local_addr().unwrap());
    drop(down);
    let server = start_server(&json!({
        "secret": SECRET,
        "trustHost": true,
        "adapter": { "type": "postgres", "url": postgres_url(), "schema": schema.0 },
        "rateLimit": { "store": { "type": "redis", "url": url, "timeout": 0.5 } },
        "providers": [{ "type": "credentials", "credentials": { "username": {}, "password": { "type": "password" } } }]
    }));
    let mut browser = Client::new();
    for _ in 0..3 {
        let started = Instant::now();
        assert_eq!(browser.sign_in(&server, "ada", "secret"), 429, "failClosed for credentials (the default)");
        assert!(started.elapsed() < Duration::from_secs(3), "no hang: {:?}", started.elapsed());
    }
    // The log says what failed, in one line per refusal.
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let log = server.log.lock().unwrap().clone();
        if log.lines().any(|l| {
            l.contains("RateLimited: rate-limit store: redis:")
                && l.contains("credentials requests are refused while the store fails")
        }) {
            break;
        }
        assert!(Instant::now() < deadline, "no log line about the store: {log}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
