//! Encode or decode a session cookie value, for the Auth.js interop tests
//! (`tests/compat/`):
//!
//!   session_cookie encode --secret S [--secret S2] --salt NAME --max-age N --payload JSON
//!   session_cookie decode --secret S [--secret S2] --salt NAME --token TOKEN
//!
//! Prints the token, or the decoded payload as JSON; exits 1 when decoding fails.

use libauth_core::jwt::JwtCodec;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut secrets = Vec::new();
    let (mut salt, mut max_age, mut payload, mut token) = (None, 2_592_000u64, None, None);
    let mut i = 1;
    while i < args.len() {
        let value = |i: usize| args.get(i + 1).cloned().unwrap_or_else(|| fail(&format!("{} needs a value", args[i])));
        match args[i].as_str() {
            "--secret" => secrets.push(value(i)),
            "--salt" => salt = Some(value(i)),
            "--max-age" => max_age = value(i).parse().unwrap_or_else(|_| fail("--max-age must be a number")),
            "--payload" => payload = Some(value(i)),
            "--token" => token = Some(value(i)),
            other => fail(&format!("unknown argument {other}")),
        }
        i += 2;
    }
    let salt = salt.unwrap_or_else(|| fail("--salt is required"));
    if secrets.is_empty() {
        fail("--secret is required");
    }
    let codec = JwtCodec::new(secrets, &[&salt]);
    match args.first().map(String::as_str) {
        Some("encode") => {
            let payload = payload.unwrap_or_else(|| fail("--payload is required"));
            let claims = match serde_json::from_str(&payload) {
                Ok(serde_json::Value::Object(m)) => m,
                _ => fail("--payload must be a JSON object"),
            };
            match codec.encode(&claims, &salt, max_age) {
                Ok(t) => println!("{t}"),
                Err(e) => fail(&e.to_string()),
            }
        }
        Some("decode") => {
            let token = token.unwrap_or_else(|| fail("--token is required"));
            match codec.decode(&token, &salt) {
                Ok(claims) => println!("{}", serde_json::Value::Object(claims)),
                Err(e) => fail(&e.to_string()),
            }
        }
        _ => fail("usage: session_cookie encode|decode …"),
    }
}

fn fail(message: &str) -> ! {
    eprintln!("session_cookie: {message}");
    std::process::exit(1)
}
