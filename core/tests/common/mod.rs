//! Shared test helpers: an engine with a credentials provider and a tiny
//! browser that keeps cookies between requests.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use libauth_core::{Auth, AuthRequest, AuthResponse, Config, HookMap, HostError};
use serde_json::{json, Value};

pub const SECRET: &str = "libauth-test-secret-0123456789abcdef";
pub const ORIGIN: &str = "http://localhost:3000";

/// Every hook call, in order: (hook name, args).
pub type CallLog = Arc<Mutex<Vec<(String, Value)>>>;

/// A config with one credentials provider (`username`, `password`).
pub fn config(extra: Value) -> Config {
    // The tests' requests come from a browser on a fixed origin: trusting
    // its Host is the deployer's explicit choice, made here once.
    let mut base = json!({
        "secret": SECRET,
        "trustHost": true,
        "providers": [{
            "type": "credentials",
            "credentials": {
                "username": { "label": "Username", "type": "text", "placeholder": "jsmith" },
                "password": { "label": "Password", "type": "password" }
            }
        }]
    });
    for (k, v) in extra.as_object().cloned().unwrap_or_default() {
        base[k] = v;
    }
    Config::from_value(base).expect("valid test config")
}

/// The `authorize` used by most tests: `ada`/`secret` signs in; `throw`
/// throws CredentialsSignin with a custom code; `boom` throws a plain error.
pub fn authorize(args: Value) -> Result<Value, HostError> {
    let c = &args["credentials"];
    match (c["username"].as_str(), c["password"].as_str()) {
        (Some("ada"), Some("secret")) => Ok(
            json!({ "id": 42, "name": "Ada Lovelace", "email": "ada@example.com", "image": "https://img.example/ada.png" }),
        ),
        (Some("throw"), _) => Err(HostError {
            message: "bad password".into(),
            error_type: Some("CredentialsSignin".into()),
            code: Some("wrong_password".into()),
        }),
        (Some("boom"), _) => Err(HostError::new("database exploded")),
        _ => Ok(Value::Null),
    }
}

pub fn hooks() -> HookMap {
    HookMap::new().on("providers.credentials.authorize", authorize)
}

/// Record every call to `names` into the log (returning `result`).
pub fn recording(map: HookMap, log: &CallLog, names: &[&str], result: Value) -> HookMap {
    let mut map = map;
    for name in names {
        let (log, name_s, result) = (log.clone(), name.to_string(), result.clone());
        map = map.on(name, move |args| {
            log.lock().unwrap().push((name_s.clone(), args));
            Ok(result.clone())
        });
    }
    map
}

pub fn auth(extra: Value, hooks: HookMap) -> Auth {
    Auth::with_env(config(extra), Arc::new(hooks), &std::collections::HashMap::new()).expect("engine builds")
}

/// A browser: keeps cookies the engine sets, sends them back.
pub struct Browser<'a> {
    pub auth: &'a Auth,
    pub origin: String,
    pub jar: BTreeMap<String, String>,
    pub extra_headers: Vec<(String, String)>,
}

impl<'a> Browser<'a> {
    pub fn new(auth: &'a Auth) -> Self {
        Browser { auth, origin: ORIGIN.into(), jar: BTreeMap::new(), extra_headers: Vec::new() }
    }

    pub fn at(auth: &'a Auth, origin: &str) -> Self {
        Browser { origin: origin.into(), ..Browser::new(auth) }
    }

    pub fn cookie_header(&self) -> String {
        self.jar.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("; ")
    }

    pub fn send(&mut self, mut req: AuthRequest) -> AuthResponse {
        if !self.jar.is_empty() {
            req.headers.push(("cookie".into(), self.cookie_header()));
        }
        req.headers.extend(self.extra_headers.iter().cloned());
        // A browser always has a peer address (what rate limits count).
        req.remote_address.get_or_insert_with(|| "127.0.0.1".to_owned());
        let res = self.auth.handle(&req);
        self.absorb(&res);
        res
    }

    pub fn absorb(&mut self, res: &AuthResponse) {
        for header in res.set_cookies() {
            let first = header.split(';').next().unwrap();
            let (name, value) = first.split_once('=').unwrap();
            if header.contains("Max-Age=0") {
                self.jar.remove(name);
            } else {
                self.jar.insert(name.to_owned(), value.to_owned());
            }
        }
    }

    pub fn get(&mut self, path: &str) -> AuthResponse {
        let url = format!("{}{path}", self.origin);
        self.send(AuthRequest::get(url))
    }

    pub fn post(&mut self, path: &str, pairs: &[(&str, &str)]) -> AuthResponse {
        let url = format!("{}{path}", self.origin);
        self.send(AuthRequest::post_form(url, pairs))
    }

    pub fn post_json(&mut self, path: &str, body: Value) -> AuthResponse {
        let url = format!("{}{path}", self.origin);
        self.send(AuthRequest::post_json(url, &body))
    }

    /// A CSRF token and the Cookie header that goes with it, for requests
    /// sent without this browser (from several threads at once).
    pub fn csrf_pair(&mut self) -> (String, String) {
        let token = self.csrf();
        (token, self.cookie_header())
    }

    pub fn csrf(&mut self) -> String {
        let res = self.get("/auth/csrf");
        res.json().unwrap()["csrfToken"].as_str().unwrap().to_owned()
    }

    pub fn sign_in(&mut self, username: &str, password: &str) -> AuthResponse {
        let csrf = self.csrf();
        self.post("/auth/callback/credentials", &[("csrfToken", &csrf), ("username", username), ("password", password)])
    }

    pub fn session(&mut self) -> Value {
        let res = self.get("/auth/session");
        assert_eq!(res.status, 200);
        res.json().expect("session JSON")
    }

    pub fn has_session_cookie(&self) -> bool {
        self.jar.keys().any(|k| k.contains("authjs.session-token"))
    }
}

pub fn location(res: &AuthResponse) -> &str {
    res.header("location").unwrap_or_else(|| panic!("no location in {res:?}"))
}

// Databases for adapter and database-session tests.

pub fn postgres_url() -> String {
    std::env::var("LIBAUTH_TEST_POSTGRES_URL").unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_owned())
}

/// Removes the SQLite file (and its WAL files) when dropped.
pub struct TempFile(pub std::path::PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let mut path = self.0.clone().into_os_string();
            path.push(suffix);
            let _ = std::fs::remove_file(path);
        }
    }
}

pub fn temp_db_path() -> TempFile {
    TempFile(std::env::temp_dir().join(format!("libauth-test-{}.db", libauth_core::random::hex(8))))
}

/// Drops the schema when dropped, test passed or not.
pub struct TempSchema(pub String);

impl Drop for TempSchema {
    fn drop(&mut self) {
        match ::postgres::Client::connect(&postgres_url(), ::postgres::NoTls) {
            Ok(mut client) => {
                if let Err(e) = client.batch_execute(&format!("DROP SCHEMA IF EXISTS \"{}\" CASCADE", self.0)) {
                    eprintln!("could not drop test schema {}: {e}", self.0);
                }
            }
            Err(e) => eprintln!("could not drop test schema {}: {e}", self.0),
        }
    }
}

pub fn temp_schema() -> TempSchema {
    TempSchema(format!("libauth_test_{}", libauth_core::random::hex(6)))
}

/// An A256GCM session token over `payload` (any bytes), as Auth.js versions
/// before v5 wrote them, for cookie `salt` under [`SECRET`], with the tag
/// cut to `tag_len` bytes. Made with RustCrypto directly, not with the
/// engine's own code; the engine still reads such tokens (full tag only).
pub fn gcm_token(salt: &str, payload: &[u8], tag_len: usize) -> String {
    use aes_gcm::aead::{Aead, KeyInit, Payload};
    use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
    use base64::Engine as _;
    let mut key = [0u8; 32];
    hkdf::Hkdf::<sha2::Sha256>::new(Some(salt.as_bytes()), SECRET.as_bytes())
        .expand(format!("Auth.js Generated Encryption Key ({salt})").as_bytes(), &mut key)
        .unwrap();
    let protected = B64.encode(r#"{"alg":"dir","enc":"A256GCM"}"#);
    let nonce = [3u8; 12];
    let sealed = aes_gcm::Aes256Gcm::new_from_slice(&key)
        .unwrap()
        .encrypt(aes_gcm::Nonce::from_slice(&nonce), Payload { msg: payload, aad: protected.as_bytes() })
        .unwrap();
    let (ciphertext, tag) = sealed.split_at(sealed.len() - 16);
    format!("{protected}..{}.{}.{}", B64.encode(nonce), B64.encode(ciphertext), B64.encode(&tag[..tag_len]))
}

/// The identity a browser's session carries, read as a server would
/// (`Auth::get_session` with the browser's cookies).
pub fn identity_of(b: &Browser) -> Option<libauth_core::Identity> {
    let mut req = AuthRequest::get(format!("{ORIGIN}/dashboard"));
    req.headers.push(("cookie".into(), b.cookie_header()));
    b.auth.get_session(&req).unwrap().and_then(|s| s.identity().cloned())
}

/// One of `hooks.maxInFlight` places, as host code takes one; `None` past
/// the bound.
pub fn place(auth: &Auth) -> Option<libauth_core::Permit> {
    auth.admit(libauth_core::Work::HostCall).permit().ok().flatten()
}

/// The answer to `req` when admission answers it on the calling thread
/// (no host code, no I/O, no permit), `None` when it would need a permit
/// (admitted, or refused with a 503 past the bound).
pub fn answered_inline(auth: &Auth, req: &AuthRequest) -> Option<AuthResponse> {
    match auth.admit(libauth_core::Work::Request(req)) {
        libauth_core::Admission::Answered(res) if res.status != 503 => Some(res),
        _ => None,
    }
}
