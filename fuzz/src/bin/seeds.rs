//! Writes the seed corpora: `seeds [DIR]` (default `corpus`) creates
//! `DIR/{cookie,jwe,body,redirect}/`. The cookie and JWE seeds hold a real
//! session token, issued just now by an engine with `ISSUER_SECRET` through
//! an ordinary credentials sign-in, so they are never stale.

use std::fs;
use std::path::Path;

use libauth_core::HookMap;
use libauth_fuzz::{authorize_ada, engine, sign_in_ada, CSRF_COOKIE, CSRF_TOKEN, ISSUER_SECRET, SESSION_COOKIE};

fn issue_session_token() -> String {
    let auth = engine(ISSUER_SECRET, HookMap::new().on("providers.credentials.authorize", authorize_ada));
    sign_in_ada(&auth)
}

fn write(dir: &Path, target: &str, seeds: &[Vec<u8>]) {
    let dir = dir.join(target);
    fs::create_dir_all(&dir).expect("create corpus dir");
    for (i, seed) in seeds.iter().enumerate() {
        fs::write(dir.join(format!("seed-{i:02}")), seed).expect("write seed");
    }
    println!("{}: {} seeds", dir.display(), seeds.len());
}

fn main() {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "corpus".into());
    let dir = Path::new(&dir);
    let jwe = issue_session_token();
    let third = jwe.len() / 3;
    let (a, rest) = jwe.split_at(third);
    let (b, c) = rest.split_at(third);
    let s = SESSION_COOKIE;

    let cookie: Vec<String> = vec![
        format!("{s}={jwe}"),
        format!("{s}.0={a}; {s}.1={b}; {s}.2={c}"),
        format!("{CSRF_COOKIE}=x%7Cy; {s}={jwe}; authjs.callback-url=http%3A%2F%2Flocalhost%3A3000"),
        format!("{s}=\"{jwe}\""),
        format!("{s}.1={b}; {s}.0={a}; {s}={jwe}"),
        format!("__Secure-{s}={jwe}; {s}=a.b.c.d.e"),
        format!("{s}=%41%42; other=1;;=; {s}.7=x"),
    ];
    write(dir, "cookie", &cookie.into_iter().map(String::into_bytes).collect::<Vec<_>>());

    let jwe_seeds: Vec<&str> = vec![
        &jwe,
        "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIn0..AAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA",
        "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0..AAAAAAAAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "a.b.c.d.e",
    ];
    write(dir, "jwe", &jwe_seeds.iter().map(|t| t.as_bytes().to_vec()).collect::<Vec<_>>());

    // First byte: content type (0 form, 1 JSON, 4 text/plain; see fuzz_body).
    let t = CSRF_TOKEN;
    let body: Vec<(u8, String)> = vec![
        (0, format!("csrfToken={t}&username=ada&password=secret&callbackUrl=%2Fdashboard")),
        (
            1,
            format!(
                r#"{{"csrfToken":"{t}","username":"throw","password":"x","callbackUrl":"http://localhost:3000/a"}}"#
            ),
        ),
        (2, format!("csrfToken={t}&username=boom&password=x&redirect=false")),
        (3, format!(r#"{{"csrfToken":"{t}","data":{{"user":{{"name":"x"}}}},"redirect":false}}"#)),
        (0, format!("csrfToken={t}&callbackUrl=https%3A%2F%2Fevil.example%2F")),
        (4, format!("csrfToken={t}")),
        (1, "[1,2,{\"a\":null}]".into()),
    ];
    write(
        dir,
        "body",
        &body
            .into_iter()
            .map(|(ct, b)| {
                let mut v = vec![ct];
                v.extend_from_slice(b.as_bytes());
                v
            })
            .collect::<Vec<_>>(),
    );

    let redirect = [
        "/dashboard?x=1#y",
        "http://localhost:3000/a",
        "https://evil.example/",
        "//evil.example/x",
        "/\\evil.example",
        "javascript:alert(1)",
        "http://localhost:3000\\@evil.example/",
        "http://LOCALHOST:3000/a b",
        "/\u{2028}x",
        "http://[::1",
        "/a/../../b?c=%0d%0a",
    ];
    write(dir, "redirect", &redirect.iter().map(|r| r.as_bytes().to_vec()).collect::<Vec<_>>());
}
