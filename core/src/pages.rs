//! The built-in pages: sign-in, sign-out, error and verify-request. Askama
//! templates (`core/templates/`) escape every interpolated value.

use askama::Template;

use crate::config::{ColorScheme, Theme};
use crate::providers::CredentialField;

const CSS: &str = include_str!("../templates/pages.css");

pub struct Layout<'a> {
    pub title: &'a str,
    pub css: &'static str,
    pub color_scheme: &'static str,
    pub color_scheme_meta: &'static str,
    /// Validated as CSS colours at config time (see config.rs).
    pub brand_color: Option<&'a str>,
    pub button_text: Option<&'a str>,
    pub logo: Option<&'a str>,
}

impl<'a> Layout<'a> {
    pub fn new(title: &'a str, theme: &'a Theme) -> Layout<'a> {
        Layout {
            title,
            css: CSS,
            color_scheme: theme.color_scheme.as_str(),
            color_scheme_meta: match theme.color_scheme {
                ColorScheme::Auto => "light dark",
                ColorScheme::Dark => "dark",
                ColorScheme::Light => "light",
            },
            brand_color: theme.brand_color.as_deref(),
            button_text: theme.button_text.as_deref(),
            logo: theme.logo.as_deref(),
        }
    }
}

pub enum PageProviderKind<'a> {
    Credentials(&'a [CredentialField]),
    Email,
    OAuth,
    /// A passkey: the form `initSignInPage()` (the inline browser module)
    /// drives, posting to `callback/<id>` after the ceremony.
    Passkey {
        conditional_ui: bool,
    },
}

pub struct PageProvider<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub kind: PageProviderKind<'a>,
    /// Where the form posts: `signin/<id>` (oauth, email) or
    /// `callback/<id>` (credentials).
    pub action_url: String,
    pub button_style: Option<String>,
    pub logo: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "signin.html")]
pub struct SigninPage<'a> {
    pub layout: Layout<'a>,
    pub csrf_token: &'a str,
    pub callback_url: &'a str,
    pub error: Option<&'static str>,
    pub providers: Vec<PageProvider<'a>>,
    /// `{basePath}`, where the passkey script fetches from.
    pub base_path: &'a str,
    /// The browser module, inlined when a passkey provider is shown.
    pub passkey_script: Option<&'static str>,
}

/// libauth's browser module for passkeys (also served at
/// `{basePath}/webauthn.js` and shipped as `libauth/webauthn`).
pub const WEBAUTHN_MODULE: &str = include_str!("../assets/webauthn.js");

/// The sign-in page's inline script: the module, then its page hook. Its
/// hash is the page's only `script-src`.
pub fn passkey_page_script() -> &'static str {
    static SCRIPT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SCRIPT.get_or_init(|| format!("{WEBAUTHN_MODULE}\ninitSignInPage();\n"))
}

/// The CSP of a sign-in page that runs the passkey script: the built-in
/// pages' policy, plus exactly that script (by hash) and fetches to this
/// origin (options, CSRF token, callback).
pub fn passkey_page_csp() -> &'static str {
    static CSP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    CSP.get_or_init(|| {
        use base64::Engine as _;
        use sha2::Digest as _;
        let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(passkey_page_script()));
        format!(
            "default-src 'none'; script-src 'sha256-{hash}'; connect-src 'self'; style-src 'unsafe-inline'; \
             img-src 'self' https: data:; base-uri 'none'; frame-ancestors 'none'"
        )
    })
}

#[derive(Template)]
#[template(path = "signout.html")]
pub struct SignoutPage<'a> {
    pub layout: Layout<'a>,
    pub csrf_token: &'a str,
    pub action_url: String,
}

#[derive(Template)]
#[template(path = "error.html")]
pub struct ErrorPage<'a> {
    pub layout: Layout<'a>,
    pub heading: &'static str,
    pub message: &'static [&'static str],
    pub signin_url: Option<String>,
    pub site_url: Option<String>,
    pub site_host: String,
}

#[derive(Template)]
#[template(path = "verify_request.html")]
pub struct VerifyRequestPage<'a> {
    pub layout: Layout<'a>,
    pub site_url: String,
    pub site_host: String,
}

/// The message the sign-in page shows for an `error` query parameter.
pub fn signin_error_message(error: &str) -> &'static str {
    match error {
        "Signin" | "OAuthSignin" | "OAuthSignInError" | "OAuthCallbackError" | "OAuthCallback"
        | "OAuthCreateAccount" | "EmailCreateAccount" | "Callback" => "Try signing in with a different account.",
        "OAuthAccountNotLinked" | "AccountNotLinked" => {
            "To confirm your identity, sign in with the same account you used originally."
        }
        "EmailSignin" | "EmailSignInError" => "The e-mail could not be sent.",
        "CredentialsSignin" => "Sign in failed. Check the details you provided are correct.",
        "SessionRequired" => "Please sign in to access this page.",
        "MissingCSRF" => "Your sign-in form expired. Please try again.",
        _ => "Unable to sign in.",
    }
}

/// The category of the error page a user sees, with its HTTP status.
pub struct ErrorCategory {
    pub status: u16,
    pub heading: &'static str,
    pub message: &'static [&'static str],
    pub offers_signin: bool,
}

pub fn error_category(error: &str) -> ErrorCategory {
    match error {
        "Configuration" => ErrorCategory {
            status: 500,
            heading: "Server error",
            message: &[
                "There is a problem with the server configuration.",
                "Check the server logs for more information.",
            ],
            offers_signin: false,
        },
        "AccessDenied" => ErrorCategory {
            status: 403,
            heading: "Access Denied",
            message: &["You do not have permission to sign in."],
            offers_signin: true,
        },
        "Verification" => ErrorCategory {
            status: 403,
            heading: "Unable to sign in",
            message: &["The sign in link is no longer valid.", "It may have been used already or it may have expired."],
            offers_signin: true,
        },
        "RateLimited" => ErrorCategory {
            status: 429,
            heading: "Too many attempts",
            message: &["There were too many sign-in attempts.", "Wait a little, then try again."],
            offers_signin: true,
        },
        _ => ErrorCategory { status: 200, heading: "Error", message: &[], offers_signin: false },
    }
}

pub fn render(template: &impl Template) -> String {
    template.render().unwrap_or_else(|e| {
        // Only a bug in a template can get here; answer a plain page.
        eprintln!("[auth][error] page rendering failed: {e}");
        "<!DOCTYPE html><html lang=\"en\"><title>Error</title><p>Error</p></html>".to_owned()
    })
}
