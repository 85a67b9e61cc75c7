//! The second step of a sign-in: a user with a second factor on (see
//! `user_two_factor`) who proved the first factor gets no session yet, but
//! a pending sign-in in an encrypted, short-lived cookie and the built-in
//! page asking for a code (`GET two-factor`). `POST two-factor` with the
//! CSRF token and a code from the authenticator, or a recovery code,
//! finishes the sign-in: the session, the signIn event, the redirect, as
//! the first factor alone would have. Codes are rate-limited per user
//! (`rateLimit.twoFactor`). A page of the app's own gets JSON: the first
//! factor answers `{ url }` (this route) and a wrong code `400 { error:
//! "TwoFactorError", message }`.
//!
//! A user who ticks "trust this browser" with a right code skips the step
//! in this browser from then on (see `trusted_device`).
//!
//! The pending cookie holds what the first factor established (the user,
//! the account, the profile, where to go, and a passkey registration's new
//! passkey, stored only once the code is right): sealed with the auth secret
//! under its own key (the cookie's name is the key derivation salt), valid
//! for five minutes, and cleared once used. Nothing in it can be changed
//! or read by the browser.

use serde_json::{Map, Value};

use super::sign_in::{issue_session, store_pending_passkey, Finish, FirstFactor};
use super::{limits, register::SignInKind, trusted_device, Ctx, Reply};
use crate::cookies::ChunkedCookie;
use crate::error::{AuthError, ErrorType};
use crate::identity::Identity;
use crate::pages::{render, FormField, Layout, PageForm, PasswordPage};
use crate::ratelimit::Route;
use crate::time::now_seconds;

/// How long the second step may wait after the first (seconds).
pub const PENDING_SECONDS: u64 = 300;

/// After the first factor: keep the sign-in in the pending cookie and send
/// the browser to the second step's page.
pub(crate) fn start(ctx: &mut Ctx, finish: Finish) -> Result<Reply, AuthError> {
    let spec = &ctx.cookies.two_factor;
    let sealed = ctx
        .auth
        .codec
        .encode(&pending_claims(&finish), &spec.name, PENDING_SECONDS)
        .map_err(|e| AuthError::new(ErrorType::TwoFactorError, e.to_string()))?;
    let jar = ChunkedCookie::read(spec, ctx.req);
    ctx.set_cookies.extend(jar.write(&sealed, now_seconds().saturating_add(PENDING_SECONDS)));
    Ok(Reply::Redirect(page_url(ctx)))
}

/// `GET two-factor`: the page asking for a code; without a pending
/// sign-in, the sign-in page.
pub(crate) fn page(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    if read_pending(ctx).is_none() {
        return Ok(Reply::Redirect(format!("{}/signin", ctx.base_url())));
    }
    Ok(code_page(ctx, 200, None))
}

/// `POST two-factor` (`csrfToken`, `code`): finish the pending sign-in.
pub(crate) fn verify(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    ctx.require_csrf()?;
    let Some(finish) = read_pending(ctx) else {
        return Ok(Reply::Redirect(format!("{}/signin", ctx.base_url())));
    };
    let user_id = finish.user.get("id").and_then(Value::as_str).unwrap_or_default().to_owned();
    let counted = limits::check(ctx, Route::TwoFactor, &[user_id.as_str()], 1)?;
    let code = ctx.body_str("code").unwrap_or_default();
    match ctx.auth.verify_second_factor(&user_id, &code) {
        Ok(_) => {
            limits::refund(ctx, &counted);
            let jar = ChunkedCookie::read(&ctx.cookies.two_factor, ctx.req);
            ctx.set_cookies.extend(jar.clear());
            if ctx.body_str("trust").is_some_and(|v| v == "on" || v == "1" || v == "true") {
                trusted_device::trust(ctx, &user_id)?;
            }
            // A recovery code is a one-time password too.
            let amr = [finish.first.amr(), "otp"];
            let mut finish = finish;
            store_pending_passkey(ctx, &mut finish)?;
            issue_session(ctx, finish, &amr)
        }
        Err(e) if e.error_type == ErrorType::TwoFactorError => {
            let message = ctx.messages().text("two-factor-error");
            if ctx.wants_json() {
                let body = serde_json::json!({ "error": e.error_type.as_str(), "message": message });
                return Ok(Reply::Json { status: 400, body, no_store: true });
            }
            Ok(code_page(ctx, 400, Some(message)))
        }
        Err(e) => Err(e),
    }
}

fn page_url(ctx: &Ctx) -> String {
    ctx.with_locale(format!("{}/two-factor", ctx.base_url()))
}

fn code_page(ctx: &mut Ctx, status: u16, error: Option<String>) -> Reply {
    let csrf_token = ctx.csrf_token();
    let t = ctx.messages();
    let mut fields = vec![FormField {
        name: "code",
        label: t.text("two-factor-code-label"),
        input_type: "text",
        value: String::new(),
        autocomplete: "one-time-code",
        required: true,
        minlength: None,
    }];
    if trusted_device::offered(ctx) {
        fields.push(FormField {
            name: "trust",
            label: t.text("two-factor-trust-label"),
            input_type: "checkbox",
            value: "on".to_owned(),
            autocomplete: "off",
            required: false,
            minlength: None,
        });
    }
    let form = PageForm {
        id: "two-factor",
        heading: None,
        text: Some(t.text("two-factor-text")),
        action: page_url(ctx),
        hidden: Vec::new(),
        fields,
        button: t.text("two-factor-button"),
        passkey: None,
    };
    let page = PasswordPage {
        layout: Layout::new("two-factor-heading", &ctx.auth.settings.theme, &t),
        heading: t.text("two-factor-heading"),
        notice: None,
        error,
        csrf_token: &csrf_token,
        script: None,
        qr_code: None,
        codes: Vec::new(),
        forms: vec![form],
        links: vec![(format!("{}/signin", ctx.base_url()), t.text("two-factor-cancel"))],
    };
    Reply::Html { status, html: render(&page) }
}

/// The pending sign-in as the cookie keeps it.
fn pending_claims(finish: &Finish) -> Map<String, Value> {
    let mut claims = Map::new();
    claims.insert("kind".into(), Value::from(kind_name(finish.kind)));
    claims.insert("first".into(), Value::from(first_name(finish.first)));
    claims.insert("user".into(), Value::Object(finish.user.clone()));
    claims.insert("account".into(), finish.account.clone());
    if let Some(profile) = &finish.profile {
        claims.insert("profile".into(), profile.clone());
    }
    claims.insert("isNewUser".into(), Value::Bool(finish.is_new_user));
    if let Some(identity) = &finish.identity {
        claims.insert("identity".into(), identity.to_claim());
    }
    if let Some(passkey) = &finish.new_passkey {
        claims.insert("passkey".into(), serde_json::to_value(passkey).unwrap_or(Value::Null));
    }
    claims.insert("callbackUrl".into(), Value::String(finish.callback_url.clone()));
    claims
}

/// The pending sign-in of this browser, if its cookie opens, is unexpired
/// and names a user.
fn read_pending(ctx: &Ctx) -> Option<Finish> {
    let spec = &ctx.cookies.two_factor;
    let jar = ChunkedCookie::read(spec, ctx.req);
    let claims = ctx.auth.codec.decode(jar.value()?, &spec.name).ok()?;
    let text = |key: &str| claims.get(key).and_then(Value::as_str);
    let user = claims.get("user").and_then(Value::as_object).cloned()?;
    user.get("id").and_then(Value::as_str).filter(|id| !id.is_empty())?;
    Some(Finish {
        kind: kind_of(text("kind")?)?,
        first: first_of(text("first")?)?,
        user,
        account: claims.get("account").cloned().unwrap_or(Value::Null),
        profile: claims.get("profile").cloned(),
        is_new_user: claims.get("isNewUser").and_then(Value::as_bool).unwrap_or(false),
        identity: claims.get("identity").and_then(Identity::from_claim),
        callback_url: text("callbackUrl")?.to_owned(),
        new_passkey: match claims.get("passkey") {
            // Sealed by the engine: one that does not parse is no sign-in.
            Some(passkey) => Some(serde_json::from_value(passkey.clone()).ok()?),
            None => None,
        },
    })
}

fn kind_name(kind: SignInKind) -> &'static str {
    match kind {
        SignInKind::OAuth { .. } => "oauth",
        SignInKind::Email => "email",
        SignInKind::Credentials => "credentials",
        SignInKind::WebAuthn => "webauthn",
        SignInKind::Password => "password",
    }
}

fn kind_of(name: &str) -> Option<SignInKind> {
    Some(match name {
        // Linking was settled by the first step; issuing the session does
        // not look at it.
        "oauth" => SignInKind::OAuth { allow_dangerous_email_account_linking: false },
        "email" => SignInKind::Email,
        "credentials" => SignInKind::Credentials,
        "webauthn" => SignInKind::WebAuthn,
        "password" => SignInKind::Password,
        _ => return None,
    })
}

fn first_name(first: FirstFactor) -> &'static str {
    match first {
        FirstFactor::VerifiedPasskey => "verified-passkey",
        other => other.name(),
    }
}

fn first_of(name: &str) -> Option<FirstFactor> {
    Some(match name {
        "password" => FirstFactor::Password,
        "credentials" => FirstFactor::Credentials,
        "oauth" => FirstFactor::OAuth,
        "email" => FirstFactor::Email,
        "passkey" => FirstFactor::Passkey,
        "verified-passkey" => FirstFactor::VerifiedPasskey,
        _ => return None,
    })
}
