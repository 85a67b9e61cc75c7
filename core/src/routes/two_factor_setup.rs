//! Turning a second factor on and off from the built-in account page, for
//! the signed-in user (see `user_two_factor` for the rules):
//!
//! | route | does |
//! |---|---|
//! | `POST two-factor/setup` | no `code`: a new secret, shown as a QR code and as text; with `code`: turns TOTP on and shows the ten recovery codes once |
//! | `POST two-factor/recovery-codes` | after a code: ten new recovery codes, shown once |
//! | `POST two-factor/disable` | after a code, a recovery code or the password: TOTP off |
//!
//! Each needs the CSRF token and a signed-in browser (else the sign-in
//! page, back to the account page afterwards); a `GET` is the account page. Codes count against `rateLimit.twoFactor` per user, a password
//! against `rateLimit.credentials`, as at sign-in.

use base64::Engine as _;
use serde_json::Value;

use super::account::{signed_in_user, to_sign_in, url as account_url, url_with_notice};
use super::password::password_matches;
use super::{limits, Ctx, Reply};
use crate::error::{AuthError, ErrorType};
use crate::pages::{render, FormField, Layout, PageForm, PasswordPage, QrCode};
use crate::ratelimit::Route;
use crate::store::AdapterUser;

/// A step of `two-factor/<step>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SetupStep {
    Setup,
    RecoveryCodes,
    Disable,
}

impl SetupStep {
    pub(crate) fn parse(name: &str) -> Option<SetupStep> {
        Some(match name {
            "setup" => SetupStep::Setup,
            "recovery-codes" => SetupStep::RecoveryCodes,
            "disable" => SetupStep::Disable,
            _ => return None,
        })
    }

    fn path(self) -> &'static str {
        match self {
            SetupStep::Setup => "setup",
            SetupStep::RecoveryCodes => "recovery-codes",
            SetupStep::Disable => "disable",
        }
    }
}

/// `{basePath}/two-factor/<step>`, with this request's explicit locale.
pub(crate) fn step_url(ctx: &Ctx, step: SetupStep) -> String {
    ctx.with_locale(format!("{}/two-factor/{}", ctx.base_url(), step.path()))
}

/// `POST two-factor/<step>`.
pub(crate) fn post(ctx: &mut Ctx, step: SetupStep) -> Result<Reply, AuthError> {
    ctx.require_csrf()?;
    let Some(user) = signed_in_user(ctx)? else {
        return Ok(to_sign_in(ctx));
    };
    match step {
        SetupStep::Setup => setup(ctx, &user),
        SetupStep::RecoveryCodes => recovery_codes(ctx, &user),
        SetupStep::Disable => disable(ctx, &user),
    }
}

/// No code: begin (or show again the enrolment under way). A code: turn it
/// on and show the recovery codes.
fn setup(ctx: &mut Ctx, user: &AdapterUser) -> Result<Reply, AuthError> {
    let label = user.email.clone().unwrap_or_default();
    let code = ctx.body_str("code").unwrap_or_default();
    if code.trim().is_empty() {
        if ctx.auth.two_factor_status(&user.id)?["enabled"] == true {
            return Ok(back(ctx, "two-factor-on"));
        }
        let enrolment = ctx.auth.begin_totp(&user.id, &label)?;
        return Ok(enrolment_page(ctx, &enrolment, 200, None));
    }
    let counted = limits::check(ctx, Route::TwoFactor, &[user.id.as_str()], 1)?;
    match ctx.auth.confirm_totp(&user.id, &code) {
        Ok(codes) => {
            limits::refund(ctx, &counted);
            Ok(codes_page(ctx, "two-factor-on-notice", codes))
        }
        Err(e) if e.error_type == ErrorType::TwoFactorError => {
            let error = ctx.messages().text("two-factor-error");
            match ctx.auth.pending_totp(&user.id, &label)? {
                Some(enrolment) => Ok(enrolment_page(ctx, &enrolment, 400, Some(error))),
                // Turned on meanwhile (another tab), or nothing under way.
                None => Ok(back(ctx, "two-factor-on")),
            }
        }
        Err(e) => Err(e),
    }
}

fn recovery_codes(ctx: &mut Ctx, user: &AdapterUser) -> Result<Reply, AuthError> {
    let counted = limits::check(ctx, Route::TwoFactor, &[user.id.as_str()], 1)?;
    let code = ctx.body_str("code").unwrap_or_default();
    match ctx.auth.regenerate_recovery_codes(&user.id, &code) {
        Ok(codes) => {
            limits::refund(ctx, &counted);
            Ok(codes_page(ctx, "two-factor-codes-notice", codes))
        }
        Err(e) if e.error_type == ErrorType::TwoFactorError => Ok(back(ctx, "two-factor-wrong")),
        Err(e) => Err(e),
    }
}

/// A code or a recovery code turns it off; so does the password (one
/// field takes any of them: the code is tried first, then the password).
fn disable(ctx: &mut Ctx, user: &AdapterUser) -> Result<Reply, AuthError> {
    let secret = ctx.body_str("code").unwrap_or_default();
    let status = ctx.auth.two_factor_status(&user.id)?;
    if status["enabled"] != true {
        // An enrolment left unconfirmed needs no proof to drop.
        if status["pending"] == true {
            ctx.auth.disable_totp(&user.id, "")?;
        }
        return Ok(back(ctx, "two-factor-off"));
    }
    let counted = limits::check(ctx, Route::TwoFactor, &[user.id.as_str()], 1)?;
    match ctx.auth.disable_totp(&user.id, &secret) {
        Ok(()) => {
            limits::refund(ctx, &counted);
            return Ok(back(ctx, "two-factor-off"));
        }
        Err(e) if e.error_type == ErrorType::TwoFactorError => {}
        Err(e) => return Err(e),
    }
    let key = user.email.clone().unwrap_or_else(|| user.id.clone());
    let counted_password = limits::check(ctx, Route::Credentials, &[key.as_str()], 1)?;
    if password_matches(ctx, &user.id, &secret)? == Some(true) {
        limits::refund(ctx, &counted);
        limits::refund(ctx, &counted_password);
        ctx.auth.disable_totp_after_password(&user.id)?;
        return Ok(back(ctx, "two-factor-off"));
    }
    Ok(back(ctx, "two-factor-wrong"))
}

/// The account page with a notice (or an error) named by `notice`.
fn back(ctx: &Ctx, notice: &str) -> Reply {
    Reply::Redirect(url_with_notice(ctx, notice))
}

fn code_field(label: String) -> FormField<'static> {
    FormField {
        name: "code",
        label,
        input_type: "text",
        value: String::new(),
        autocomplete: "one-time-code",
        required: true,
        minlength: None,
    }
}

/// The QR code (an image, from its SVG), the key as text, and the form
/// asking for the first code.
fn enrolment_page(ctx: &mut Ctx, enrolment: &Value, status: u16, error: Option<String>) -> Reply {
    let text = |key: &str| enrolment.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    let csrf_token = ctx.csrf_token();
    let t = ctx.messages();
    let svg = text("qrSvg");
    let qr_code = QrCode {
        data_uri: format!("data:image/svg+xml;base64,{}", base64::engine::general_purpose::STANDARD.encode(svg)),
        alt: t.text("two-factor-setup-qr-alt"),
        secret_label: t.text("two-factor-setup-secret"),
        secret: text("secret"),
        uri: text("uri"),
        uri_label: t.text("two-factor-setup-open-app"),
    };
    let form = PageForm {
        id: "two-factor-setup",
        heading: None,
        text: None,
        action: step_url(ctx, SetupStep::Setup),
        hidden: Vec::new(),
        fields: vec![code_field(t.text("two-factor-code-label"))],
        button: t.text("two-factor-setup-button"),
        passkey: None,
    };
    let page = PasswordPage {
        layout: Layout::new("two-factor-setup-heading", &ctx.auth.settings.theme, &t),
        heading: t.text("two-factor-setup-heading"),
        notice: Some(t.text("two-factor-setup-text")),
        error,
        csrf_token: &csrf_token,
        script: None,
        qr_code: Some(qr_code),
        codes: Vec::new(),
        forms: vec![form],
        links: vec![(account_url(ctx), t.text("two-factor-back-link"))],
    };
    Reply::Html { status, html: render(&page) }
}

/// The recovery codes, shown this once.
fn codes_page(ctx: &mut Ctx, notice_id: &str, codes: Vec<String>) -> Reply {
    let csrf_token = ctx.csrf_token();
    let t = ctx.messages();
    let page = PasswordPage {
        layout: Layout::new("two-factor-codes-heading", &ctx.auth.settings.theme, &t),
        heading: t.text("two-factor-codes-heading"),
        notice: Some(format!("{} {}", t.text(notice_id), t.text("two-factor-codes-text"))),
        error: None,
        csrf_token: &csrf_token,
        script: None,
        qr_code: None,
        codes,
        forms: Vec::new(),
        links: vec![(account_url(ctx), t.text("two-factor-back-link"))],
    };
    Reply::Html { status: 200, html: render(&page) }
}

/// The account page's second-factor section: set it up, or (when on) new
/// recovery codes and turning it off. Nothing where no store keeps it.
pub(crate) fn account_forms(ctx: &mut Ctx, user_id: &str) -> Vec<PageForm<'static>> {
    let status = match ctx.auth.two_factor_status(user_id) {
        Ok(status) => status,
        Err(e) => {
            // The page still shows the rest (an adapter without accounts).
            ctx.auth.callbacks.log(&e);
            return Vec::new();
        }
    };
    let t = ctx.messages();
    let heading = Some(t.text("account-two-factor-heading"));
    if status["enabled"] != true {
        return vec![PageForm {
            id: "two-factor",
            heading,
            text: Some(t.text("account-two-factor-off-text")),
            action: step_url(ctx, SetupStep::Setup),
            hidden: Vec::new(),
            fields: Vec::new(),
            button: t.text("account-two-factor-setup-button"),
            passkey: None,
        }];
    }
    let left = status["recoveryCodesLeft"].as_u64().unwrap_or(0).to_string();
    vec![
        PageForm {
            id: "two-factor-codes",
            heading,
            text: Some(t.text_with("account-two-factor-on-text", &[("count", &left)])),
            action: step_url(ctx, SetupStep::RecoveryCodes),
            hidden: Vec::new(),
            fields: vec![code_field(t.text("two-factor-code-label"))],
            button: t.text("account-two-factor-codes-button"),
            passkey: None,
        },
        PageForm {
            id: "two-factor-disable",
            heading: None,
            text: None,
            action: step_url(ctx, SetupStep::Disable),
            hidden: Vec::new(),
            fields: vec![FormField {
                autocomplete: "current-password",
                input_type: "password",
                ..code_field(t.text("account-two-factor-disable-label"))
            }],
            button: t.text("account-two-factor-disable-button"),
            passkey: None,
        },
    ]
}
