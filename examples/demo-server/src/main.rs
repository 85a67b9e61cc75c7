//! The libauth demo: a tiny web app with a home page, a protected page and
//! every auth route mounted at `/auth`, on the embedded SQLite adapter
//! (database sessions in `demo.db`). Sign in as `demo` / `demo`, or with
//! TikTok: real TikTok when AUTH_TIKTOK_ID / AUTH_TIKTOK_SECRET are set,
//! else the local TikTok simulator, started in-process on port 8787.
//!
//!   AUTH_SECRET=… cargo run -p libauth-demo        (PORT, default 3000; DEMO_DB)

use std::io::Read;
use std::sync::Arc;

use libauth_core::{Auth, AuthRequest, AuthResponse, Config, HookMap, Session};
use serde_json::json;

fn main() {
    let port: u16 = std::env::var("PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(3000);
    let auth = Arc::new(build_auth(port).unwrap_or_else(|e| {
        eprintln!("libauth demo: {e}");
        std::process::exit(2);
    }));
    let server = Arc::new(tiny_http::Server::http(("127.0.0.1", port)).unwrap_or_else(|e| {
        eprintln!("libauth demo: cannot listen on 127.0.0.1:{port}: {e}");
        std::process::exit(1);
    }));
    println!("libauth demo on http://127.0.0.1:{port}/  (sign in as demo / demo)");
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let (server, auth) = (server.clone(), auth.clone());
            std::thread::spawn(move || {
                for request in server.incoming_requests() {
                    serve(&auth, request);
                }
            })
        })
        .collect();
    for w in workers {
        let _ = w.join();
    }
}

fn build_auth(port: u16) -> Result<Auth, libauth_core::ConfigError> {
    let tiktok = if std::env::var("AUTH_TIKTOK_ID").is_ok() {
        json!({ "builtin": "tiktok" })
    } else {
        // TikTok refuses localhost callbacks: use the simulator (kept
        // running for the life of the process).
        let sim = Box::leak(Box::new(
            tiktok_sim::Simulator::bind(
                ("127.0.0.1", 8787),
                tiktok_sim::SimConfig {
                    redirect_uris: ["127.0.0.1", "localhost"]
                        .iter()
                        .map(|host| format!("http://{host}:{port}/auth/callback/tiktok"))
                        .collect(),
                    ..tiktok_sim::SimConfig::default()
                },
            )
            .unwrap_or_else(|e| {
                eprintln!("libauth demo: cannot start the TikTok simulator on 127.0.0.1:8787: {e}");
                std::process::exit(1);
            }),
        ));
        let urls = sim.urls();
        println!("TikTok simulator on {} (set AUTH_TIKTOK_ID/AUTH_TIKTOK_SECRET for real TikTok)", sim.base_url());
        json!({
            "builtin": "tiktok", "name": "TikTok (simulator)",
            "clientId": "sim-client-key", "clientSecret": "sim-client-secret",
            "authorization": { "url": urls.authorization }, "token": urls.token, "userinfo": urls.userinfo
        })
    };
    let db = std::env::var("DEMO_DB").unwrap_or_else(|_| "demo.db".into());
    let config = Config::from_value(json!({
        // A local demo: the browser's Host is trusted (set AUTH_URL instead
        // when deploying, so emailed links never take the request's Host).
        "trustHost": true,
        "adapter": { "type": "sqlite", "path": db },
        "providers": [tiktok, {
            "type": "credentials",
            "name": "Demo account",
            "credentials": {
                "username": { "label": "Username", "placeholder": "demo", "autocomplete": "username", "required": true },
                "password": { "label": "Password", "type": "password", "autocomplete": "current-password", "required": true }
            }
        }],
        "theme": { "brandColor": "#0f766e" }
    }))?;
    let hooks = HookMap::new().on("providers.credentials.authorize", |args| {
        let c = &args["credentials"];
        if c["username"] == "demo" && c["password"] == "demo" {
            Ok(json!({ "id": "1", "name": "Demo User", "email": "demo@example.com" }))
        } else {
            Ok(serde_json::Value::Null)
        }
    });
    Auth::new(config, Arc::new(hooks))
}

fn serve(auth: &Auth, mut request: tiny_http::Request) {
    let host = request.headers().iter().find(|h| h.field.equiv("host")).map(|h| h.value.to_string());
    let url = format!("http://{}{}", host.unwrap_or_else(|| "127.0.0.1".into()), request.url());
    let headers = request.headers().iter().map(|h| (h.field.to_string(), h.value.to_string())).collect();
    let mut body = Vec::new();
    let _ = request.as_reader().take(1 << 20).read_to_end(&mut body);
    let remote_address = request.remote_addr().map(|a| a.ip().to_string());
    let req = AuthRequest { method: request.method().to_string(), url, headers, body: Some(body), remote_address };

    let path = request.url().split('?').next().unwrap_or("/").to_owned();
    let res = if path.starts_with("/auth/") {
        auth.handle(&req)
    } else {
        let session = auth.get_session(&req).ok().flatten();
        match path.as_str() {
            "/" => html(200, &home(session.as_ref())),
            "/protected" => match session {
                Some(s) if s.user().is_some() => html(200, &protected(&s)),
                _ => redirect("/auth/signin?callbackUrl=%2Fprotected"),
            },
            _ => html(404, "<h1>Not found</h1>"),
        }
    };
    let mut response = tiny_http::Response::from_data(res.body).with_status_code(res.status);
    for (name, value) in res.headers {
        if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response.add_header(h);
        }
    }
    let _ = request.respond(response);
}

fn html(status: u16, body: &str) -> AuthResponse {
    let page = format!("<!DOCTYPE html><html lang=\"en\"><meta charset=\"utf-8\"><title>libauth demo</title><body style=\"font-family:system-ui;max-width:40rem;margin:3rem auto\">{body}</body></html>");
    AuthResponse {
        status,
        headers: vec![("content-type".into(), "text/html; charset=utf-8".into())],
        body: page.into_bytes(),
    }
}

fn redirect(location: &str) -> AuthResponse {
    AuthResponse { status: 302, headers: vec![("location".into(), location.into())], body: Vec::new() }
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

fn home(session: Option<&Session>) -> String {
    match session.and_then(Session::user) {
        Some(user) => format!(
            "<h1>libauth demo</h1><p>Signed in as <strong>{}</strong>.</p><p><a href=\"/protected\">Protected page</a> · <a href=\"/auth/signout\">Sign out</a></p>",
            escape(user.get("name").and_then(|v| v.as_str()).unwrap_or("?"))
        ),
        None => "<h1>libauth demo</h1><p>You are not signed in.</p><p><a href=\"/auth/signin\">Sign in</a> (demo / demo) · <a href=\"/protected\">Protected page</a></p>".into(),
    }
}

fn protected(session: &Session) -> String {
    format!(
        "<h1>Protected</h1><p>Only signed-in users see this. Your session:</p><pre>{}</pre><p><a href=\"/\">Home</a></p>",
        escape(&serde_json::to_string_pretty(&session.0).unwrap_or_default())
    )
}
