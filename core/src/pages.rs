//! The built-in pages: sign-in, sign-out, error and verify-request. Askama
//! templates (`core/templates/`) escape every interpolated value, texts
//! from the catalogues (see [`crate::i18n`]) included.

use askama::Template;

use crate::config::{ColorScheme, Theme};
use crate::i18n::Messages;
use crate::providers::CredentialField;

const CSS: &str = include_str!("../templates/pages.css");

pub struct Layout<'a> {
    pub title: String,
    /// The locale's tag, for `<html lang>`.
    pub lang: &'a str,
    /// Right to left: `<html dir="rtl">`.
    pub rtl: bool,
    pub css: &'static str,
    pub color_scheme: &'static str,
    pub color_scheme_meta: &'static str,
    /// Validated as CSS colours at config time (see config.rs).
    pub brand_color: Option<&'a str>,
    pub button_text: Option<&'a str>,
    pub logo: Option<&'a str>,
}

impl<'a> Layout<'a> {
    /// The layout of a page titled with message `title_id`.
    pub fn new(title_id: &str, theme: &'a Theme, messages: &Messages<'a>) -> Layout<'a> {
        Layout {
            title: messages.text(title_id),
            lang: messages.tag(),
            rtl: messages.rtl(),
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
    /// The password provider: email and password, with links to its
    /// forgotten-password and sign-up pages.
    Password {
        password_label: String,
        forgot_url: String,
        forgot_label: String,
        signup_url: String,
        signup_label: String,
    },
}

pub struct PageProvider<'a> {
    pub id: &'a str,
    /// The provider's name, in the page's language when it is a built-in
    /// provider's default name.
    pub name: String,
    pub kind: PageProviderKind<'a>,
    /// Where the form posts: `signin/<id>` (oauth, email) or
    /// `callback/<id>` (credentials).
    pub action_url: String,
    /// "Sign in with `<name>`", in the page's language.
    pub button_label: String,
    pub button_style: Option<String>,
    pub logo: Option<&'a str>,
}

#[derive(Template)]
#[template(path = "signin.html")]
pub struct SigninPage<'a> {
    pub layout: Layout<'a>,
    pub csrf_token: &'a str,
    pub callback_url: &'a str,
    pub heading: String,
    pub email_label: String,
    pub email_placeholder: String,
    pub passkey_hint: String,
    pub error: Option<String>,
    pub providers: Vec<PageProvider<'a>>,
    /// `{basePath}`, where the passkey script fetches from.
    pub base_path: &'a str,
    /// The browser module, inlined when a passkey provider is shown.
    pub passkey_script: Option<&'static str>,
    /// The module's messages in the page's language, as JSON (the passkey
    /// form's `data-webauthn-messages`; see [`passkey_messages`]).
    pub passkey_messages: String,
}

/// One input of a password page's form.
pub struct FormField<'a> {
    pub name: &'a str,
    pub label: String,
    pub input_type: &'a str,
    pub value: String,
    pub autocomplete: &'a str,
    pub required: bool,
    /// For new passwords: the policy's shortest.
    pub minlength: Option<usize>,
}

/// One form of a password page.
pub struct PageForm<'a> {
    /// Unique on the page (input ids).
    pub id: &'a str,
    pub heading: Option<String>,
    pub text: Option<String>,
    pub action: String,
    pub hidden: Vec<(&'a str, String)>,
    pub fields: Vec<FormField<'a>>,
    pub button: String,
    /// A passkey ceremony instead of a post: the browser module drives it
    /// (the page then carries the module, allowed by hash).
    pub passkey: Option<PasskeyForm>,
}

/// What the browser module needs for a passkey form (see
/// `initSignInPage`): adding a passkey to the signed-in user.
pub struct PasskeyForm {
    pub provider_id: String,
    pub base_path: String,
    /// Where the browser goes once the passkey is added.
    pub callback_url: String,
    /// The module's messages in the page's language ([`passkey_messages`]).
    pub messages: String,
}

/// A QR code on a page (a second factor's enrolment): an image (the SVG
/// as a `data:` URI, which the pages' policy allows) and, for whoever
/// cannot scan it, what it encodes as text.
pub struct QrCode {
    pub data_uri: String,
    pub alt: String,
    /// The `otpauth://` URI itself, as a link (a phone opens its
    /// authenticator app with it), and the link's text.
    pub uri: String,
    pub uri_label: String,
    pub secret_label: String,
    pub secret: String,
}

/// The password provider's pages (sign-up, forgotten password, reset,
/// account) and the second factor's: forms, a notice or an error, a QR
/// code, codes to write down, links.
#[derive(Template)]
#[template(path = "password.html")]
pub struct PasswordPage<'a> {
    pub layout: Layout<'a>,
    pub heading: String,
    pub notice: Option<String>,
    pub error: Option<String>,
    pub csrf_token: &'a str,
    /// The passkey module and its page hook, when a form is a passkey form
    /// (the reply then carries [`passkey_page_csp`]).
    pub script: Option<&'static str>,
    pub qr_code: Option<QrCode>,
    /// Shown once, to write down (recovery codes).
    pub codes: Vec<String>,
    pub forms: Vec<PageForm<'a>>,
    pub links: Vec<(String, String)>,
}

/// The browser module's message keys (its `MESSAGES`), with their message
/// ids. `{url}` and `{error}` stand for the placeables the module fills in.
const PASSKEY_MESSAGES: &[(&str, &str)] = &[
    ("NotAllowedError", "passkey-error-cancelled"),
    ("InvalidStateError", "passkey-error-already-registered"),
    ("NotSupportedError", "passkey-error-unsupported"),
    ("SecurityError", "passkey-error-insecure"),
    ("WebAuthnVerificationError", "passkey-error-unverified"),
    ("AccountNotLinked", "passkey-error-account-exists"),
    ("ipAddress", "passkey-error-ip-address"),
    ("useLocalhost", "passkey-error-use-localhost"),
    ("failed", "passkey-error-failed"),
];

/// The passkey module's messages in `messages`' language, as the JSON
/// object the sign-in page hands it: `{ "NotAllowedError": "…", … }`, with
/// the literal `{url}` and `{error}` where the module puts the address and
/// the error's code. A data attribute, not script: the page's script (and
/// the hash its CSP allows) stays the same in every language.
pub fn passkey_messages(messages: &Messages<'_>) -> String {
    let args = [("url", "{url}"), ("error", "{error}")];
    let map: serde_json::Map<String, serde_json::Value> = PASSKEY_MESSAGES
        .iter()
        .map(|(key, id)| ((*key).to_owned(), serde_json::Value::String(messages.text_with(id, &args))))
        .collect();
    serde_json::Value::Object(map).to_string()
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
    pub heading: String,
    pub question: String,
    pub button: String,
    pub csrf_token: &'a str,
    pub action_url: String,
}

#[derive(Template)]
#[template(path = "error.html")]
pub struct ErrorPage<'a> {
    pub layout: Layout<'a>,
    pub heading: String,
    pub message: Vec<String>,
    pub signin_button: String,
    pub signin_url: Option<String>,
    pub site_url: Option<String>,
    pub site_host: String,
}

#[derive(Template)]
#[template(path = "verify_request.html")]
pub struct VerifyRequestPage<'a> {
    pub layout: Layout<'a>,
    pub heading: String,
    pub text: String,
    pub site_url: String,
    pub site_host: String,
}

/// The message id of the sign-in page's text for an `error` query parameter.
pub fn signin_error_message(error: &str) -> &'static str {
    match error {
        "Signin" | "OAuthSignin" | "OAuthSignInError" | "OAuthCallbackError" | "OAuthCallback"
        | "OAuthCreateAccount" | "EmailCreateAccount" | "Callback" => "signin-error-different-account",
        "OAuthAccountNotLinked" | "AccountNotLinked" => "signin-error-account-not-linked",
        "EmailSignin" | "EmailSignInError" => "signin-error-email-send",
        "CredentialsSignin" => "signin-error-credentials",
        "SessionRequired" => "signin-error-session-required",
        "MissingCSRF" => "signin-error-missing-csrf",
        _ => "signin-error-default",
    }
}

/// The category of the error page a user sees, with its HTTP status. The
/// heading and paragraphs are message ids.
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
            heading: "error-heading-configuration",
            message: &["error-configuration-problem", "error-configuration-logs"],
            offers_signin: false,
        },
        "AccessDenied" => ErrorCategory {
            status: 403,
            heading: "error-heading-access-denied",
            message: &["error-access-denied"],
            offers_signin: true,
        },
        "Verification" => ErrorCategory {
            status: 403,
            heading: "error-heading-verification",
            message: &["error-verification-invalid", "error-verification-used"],
            offers_signin: true,
        },
        "RateLimited" => ErrorCategory {
            status: 429,
            heading: "error-heading-rate-limited",
            message: &["error-rate-limited-attempts", "error-rate-limited-wait"],
            offers_signin: true,
        },
        _ => ErrorCategory { status: 200, heading: "error-heading-default", message: &[], offers_signin: false },
    }
}

pub fn render(template: &impl Template) -> String {
    template.render().unwrap_or_else(|e| {
        // Only a bug in a template can get here; answer a plain page.
        eprintln!("[auth][error] page rendering failed: {e}");
        "<!DOCTYPE html><html lang=\"en\"><title>Error</title><p>Error</p></html>".to_owned()
    })
}
