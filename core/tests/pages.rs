//! Built-in pages: content, escaping, theme, and `pages.*` overrides.

mod common;

use common::*;
use serde_json::json;

#[test]
fn signin_page_has_a_form_per_provider_with_its_fields() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    let res = b.get("/auth/signin");
    assert_eq!(res.status, 200);
    assert_eq!(res.header("content-type"), Some("text/html; charset=utf-8"));
    let html = res.body_str();
    assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\">"));
    assert!(html.contains(r#"<form action="http://localhost:3000/auth/callback/credentials" method="post">"#));
    assert!(html.contains(r#"<label for="input-username-for-credentials">Username</label>"#));
    assert!(html.contains(r#"name="password" type="password""#));
    assert!(html.contains(r#"placeholder="jsmith""#));
    assert!(html.contains("Sign in with Credentials"));
    // The form's CSRF token is the cookie's.
    let token = b.csrf();
    assert!(html.contains(&format!(r#"name="csrfToken" value="{token}""#)));
    // Field order follows the config.
    assert!(html.find("input-username").unwrap() < html.find("input-password").unwrap());
}

#[test]
fn every_interpolated_value_is_escaped() {
    let auth = auth(
        json!({
            "providers": [{
                "type": "credentials", "name": "<script>alert(1)</script>",
                "credentials": { "user": { "label": "\"><img src=x onerror=alert(1)>", "placeholder": "a\"b" } }
            }],
            "theme": { "logo": "https://x.example/logo.png\" onload=\"alert(1)" }
        }),
        hooks(),
    );
    let mut b = Browser::new(&auth);
    let html = b.get("/auth/signin?error=%3Cscript%3E").body_str().to_owned();
    assert!(!html.contains("<script>"), "{html}");
    assert!(!html.contains("<img src=x"));
    assert!(!html.contains("\" onload=\""));
    assert!(html.contains("Sign in with &#60;script&#62;alert(1)&#60;/script&#62;"), "the name is shown, escaped");
    // Unknown error types show the generic message, never the raw value.
    assert!(html.contains("Unable to sign in."));
    let err = b.get("/auth/error?error=%3Cb%3Ebold%3C%2Fb%3E").body_str().to_owned();
    assert!(!err.contains("<b>bold"));
}

#[test]
fn theme_is_applied() {
    let auth = auth(
        json!({"theme": {"colorScheme": "dark", "brandColor": "#ff0066", "buttonText": "#000", "logo": "https://x.example/logo.png"}}),
        hooks(),
    );
    let html = Browser::new(&auth).get("/auth/signin").body_str().to_owned();
    assert!(html.contains(r#"<body class="libauth-theme-dark">"#));
    assert!(html.contains("--brand-color: #ff0066"));
    assert!(html.contains("--button-text-color: #000"));
    assert!(html.contains(r#"<img class="logo" src="https://x.example/logo.png" alt="">"#));
    let default = common::auth(json!({}), hooks());
    assert!(Browser::new(&default).get("/auth/signout").body_str().contains("libauth-theme-auto"));
}

#[test]
fn signout_page_posts_with_csrf() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    let html = b.get("/auth/signout").body_str().to_owned();
    let token = b.csrf();
    assert!(html.contains(r#"<form action="http://localhost:3000/auth/signout" method="post">"#));
    assert!(html.contains(&format!(r#"value="{token}""#)));
    assert!(html.contains("Are you sure you want to sign out?"));
}

#[test]
fn error_page_maps_types_to_categories() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    for (error, status, text) in [
        ("Configuration", 500, "There is a problem with the server configuration."),
        ("AccessDenied", 403, "You do not have permission to sign in."),
        ("Verification", 403, "The sign in link is no longer valid."),
        ("Whatever", 200, "<h1>Error</h1>"),
        ("", 200, "<h1>Error</h1>"),
    ] {
        let res = b.get(&format!("/auth/error?error={error}"));
        assert_eq!(res.status, status, "{error}");
        assert!(res.body_str().contains(text), "{error}");
    }
    let res = b.get("/auth/verify-request?provider=email&type=email");
    assert_eq!(res.status, 200);
    assert!(res.body_str().contains("Check your email"));
}

#[test]
fn custom_pages_redirect() {
    let auth = auth(
        json!({"pages": {"signIn": "/login", "signOut": "/logout", "error": "/oops?from=auth", "verifyRequest": "https://mail.example/check"}}),
        hooks(),
    );
    let mut b = Browser::new(&auth);
    assert_eq!(
        location(&b.get("/auth/signin?callbackUrl=%2Fa")),
        "http://localhost:3000/login?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fa"
    );
    assert_eq!(
        location(&b.get("/auth/signin?error=OAuthCallbackError")),
        "http://localhost:3000/login?callbackUrl=http%3A%2F%2Flocalhost%3A3000%2Fa&error=OAuthCallbackError"
    );
    assert_eq!(location(&b.get("/auth/signout")), "http://localhost:3000/logout");
    assert_eq!(
        location(&b.get("/auth/error?error=AccessDenied")),
        "http://localhost:3000/oops?from=auth&error=AccessDenied"
    );
    assert_eq!(location(&b.get("/auth/verify-request?provider=email")), "https://mail.example/check?provider=email");
    // Errors from actions go to the custom pages too.
    let auth = common::auth(json!({"pages": {"error": "/oops"}}), hooks().on("callbacks.signIn", |_| Ok(json!(false))));
    assert_eq!(
        location(&Browser::new(&auth).sign_in("ada", "secret")),
        "http://localhost:3000/oops?error=AccessDenied"
    );
}

#[test]
fn get_signin_with_a_provider_is_not_an_action() {
    let auth = auth(json!({}), hooks());
    let res = Browser::new(&auth).get("/auth/signin/credentials");
    assert_eq!(location(&res), "http://localhost:3000/auth/error?error=Configuration");
    let res = Browser::new(&auth).get("/auth/callback/credentials");
    assert_eq!(location(&res), "http://localhost:3000/auth/error?error=Configuration");
}

/// The error and verify-request pages name the site by host and port, as
/// Auth.js's do (the canonical URL's when one is set).
#[test]
fn pages_show_the_host_with_its_port() {
    let auth = auth(json!({}), hooks());
    let mut b = Browser::new(&auth);
    let html = b.get("/auth/verify-request").body_str().to_owned();
    assert!(html.contains(">localhost:3000</a>"), "{html}");
    let html = b.get("/auth/error?error=Verification").body_str().to_owned();
    assert!(!html.contains(">localhost</a>"), "{html}");
}
