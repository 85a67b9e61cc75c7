//! The password provider's built-in pages, in the current theme and
//! language, with the pages' Content-Security-Policy (no script).

use super::{step_url, Step};
use crate::config::SessionStrategy;
use crate::pages::{render, FormField, Layout, PageForm, PasskeyForm, PasswordPage};
use crate::providers::{PasswordProvider, Provider, ProviderKind};
use crate::routes::{Ctx, Reply};
use crate::store::AdapterUser;

fn email_field<'a>(ctx: &Ctx, name: &'a str, label_id: &str, value: String) -> FormField<'a> {
    FormField {
        name,
        label: ctx.messages().text(label_id),
        input_type: "email",
        value,
        autocomplete: "email",
        required: true,
        minlength: None,
    }
}

fn password_field<'a>(ctx: &Ctx, name: &'a str, label_id: &str, new: Option<usize>) -> FormField<'a> {
    FormField {
        name,
        label: ctx.messages().text(label_id),
        input_type: "password",
        value: String::new(),
        autocomplete: if new.is_some() { "new-password" } else { "current-password" },
        required: true,
        minlength: new,
    }
}

/// A field's value as the form posted it (a page shown again keeps what
/// was typed, never a password), else as the query gives it.
fn kept(ctx: &mut Ctx, name: &str) -> String {
    ctx.body_str(name).or_else(|| ctx.query(name)).unwrap_or_default()
}

fn page(
    ctx: &mut Ctx,
    heading_id: &str,
    forms: Vec<PageForm<'_>>,
    links: Vec<(String, String)>,
    notice: Option<String>,
    error: Option<String>,
) -> Reply {
    let csrf_token = ctx.csrf_token();
    let t = ctx.messages();
    // A passkey form runs the browser module, allowed by its hash.
    let with_script = forms.iter().any(|f| f.passkey.is_some());
    let page = PasswordPage {
        layout: Layout::new(heading_id, &ctx.auth.settings.theme, &t),
        heading: t.text(heading_id),
        notice,
        error,
        csrf_token: &csrf_token,
        script: with_script.then(crate::pages::passkey_page_script),
        qr_code: None,
        codes: Vec::new(),
        forms,
        links,
    };
    if with_script {
        return Reply::Page { status: 200, html: render(&page), csp: crate::pages::passkey_page_csp().to_owned() };
    }
    Reply::Html { status: 200, html: render(&page) }
}

fn sign_in_link(ctx: &Ctx) -> (String, String) {
    (ctx.with_locale(format!("{}/signin", ctx.base_url())), ctx.messages().text("password-signin-link"))
}

pub(super) fn sign_up(ctx: &mut Ctx, _provider: &Provider, p: &PasswordProvider, error: Option<String>) -> Reply {
    let callback_url = ctx.callback_url();
    let (email, name) = (kept(ctx, "email"), kept(ctx, "name"));
    let mut name_field = email_field(ctx, "name", "password-name-label", name);
    name_field.input_type = "text";
    name_field.autocomplete = "name";
    name_field.required = false;
    let form = PageForm {
        id: "signup",
        heading: None,
        text: None,
        action: step_url(ctx, Step::SignUp),
        hidden: vec![("callbackUrl", callback_url)],
        fields: vec![
            name_field,
            email_field(ctx, "email", "signin-email-label", email),
            password_field(ctx, "password", "password-label", Some(p.policy.min_length())),
        ],
        button: ctx.messages().text("password-signup-button"),
        passkey: None,
    };
    let links = vec![sign_in_link(ctx)];
    page(ctx, "password-signup-heading", vec![form], links, None, error)
}

pub(super) fn forgot(ctx: &mut Ctx, error: Option<String>) -> Reply {
    let email = kept(ctx, "email");
    let form = PageForm {
        id: "forgot",
        heading: None,
        text: Some(ctx.messages().text("password-forgot-text")),
        action: step_url(ctx, Step::Forgot),
        hidden: Vec::new(),
        fields: vec![email_field(ctx, "email", "signin-email-label", email)],
        button: ctx.messages().text("password-forgot-button"),
        passkey: None,
    };
    let links = vec![sign_in_link(ctx)];
    page(ctx, "password-forgot-heading", vec![form], links, None, error)
}

/// The reset link's page: the token and address ride along hidden; the
/// token is spent only when the form is posted.
pub(super) fn reset(ctx: &mut Ctx, error: Option<String>) -> Reply {
    let (token, email) = (kept(ctx, "token"), kept(ctx, "email"));
    let min = ctx.auth.providers.password().map(|(_, p)| p.policy.min_length());
    let form = PageForm {
        id: "reset",
        heading: None,
        text: None,
        action: step_url(ctx, Step::Reset),
        hidden: vec![("token", token), ("email", email)],
        fields: vec![password_field(ctx, "password", "password-new-label", min)],
        button: ctx.messages().text("password-reset-button"),
        passkey: None,
    };
    page(ctx, "password-reset-heading", vec![form], Vec::new(), None, error)
}

/// The account page: the address, and forms to change the password or the
/// address and to delete the account (each asks for the password), the
/// second factor, the other sessions.
pub(super) fn account(ctx: &mut Ctx, user: &AdapterUser, has_password: bool, error: Option<String>) -> Reply {
    let t = ctx.messages();
    let notice = match ctx.query("notice").as_deref() {
        Some("password-changed") => Some(t.text("password-changed")),
        Some("email-sent") => Some(t.text("password-email-sent")),
        Some("email-changed") => Some(t.text("password-email-changed")),
        Some("sessions-ended") => Some(t.text("account-sessions-ended")),
        Some("two-factor-off") => Some(t.text("account-two-factor-off-notice")),
        Some("two-factor-on") => Some(t.text("two-factor-on-notice")),
        Some("passkey-added") => Some(t.text("account-passkey-added")),
        Some("passkey-removed") => Some(t.text("account-passkey-removed")),
        _ => None,
    };
    let error = error.or_else(|| match ctx.query("notice").as_deref() {
        Some("two-factor-wrong") => Some(t.text("account-two-factor-wrong")),
        Some("passkey-last") => Some(t.text("account-passkey-last")),
        _ => None,
    });
    let min = ctx.auth.providers.password().map(|(_, p)| p.policy.min_length());
    let email = user.email.clone().unwrap_or_default();
    let mut forms = Vec::new();
    if has_password {
        forms.push(PageForm {
            id: "change",
            heading: Some(t.text("password-change-heading")),
            text: None,
            action: step_url(ctx, Step::Change),
            hidden: Vec::new(),
            fields: vec![
                password_field(ctx, "currentPassword", "password-current-label", None),
                password_field(ctx, "newPassword", "password-new-label", min),
            ],
            button: t.text("password-change-button"),
            passkey: None,
        });
        forms.push(PageForm {
            id: "email",
            heading: Some(t.text("password-email-heading")),
            text: Some(t.text_with("password-email-current", &[("email", &email)])),
            action: step_url(ctx, Step::ChangeEmail),
            hidden: Vec::new(),
            fields: vec![
                email_field(ctx, "newEmail", "password-email-new-label", String::new()),
                password_field(ctx, "currentPassword", "password-current-label", None),
            ],
            button: t.text("password-email-button"),
            passkey: None,
        });
        forms.push(PageForm {
            id: "delete",
            heading: Some(t.text("password-delete-heading")),
            text: Some(t.text("password-delete-text")),
            action: step_url(ctx, Step::Delete),
            hidden: Vec::new(),
            fields: vec![password_field(ctx, "currentPassword", "password-current-label", None)],
            button: t.text("password-delete-button"),
            passkey: None,
        });
    }
    forms.extend(crate::routes::two_factor_setup::account_forms(ctx, &user.id));
    forms.extend(passkey_forms(ctx, &user.id));
    forms.extend(session_forms(ctx, &user.id));
    let links =
        if has_password { Vec::new() } else { vec![(step_url(ctx, Step::Forgot), t.text("password-set-link"))] };
    page(ctx, "password-account-heading", forms, links, notice, error)
}

/// The account page's passkeys, with a passkey provider: "Add a passkey"
/// (the browser module's ceremony, for the signed-in user, back here
/// afterwards), then each passkey with a button that removes it (posted to
/// the `passkeys` route, which sends the browser back here).
fn passkey_forms(ctx: &mut Ctx, user_id: &str) -> Vec<PageForm<'static>> {
    let Some(provider) = ctx.auth.providers.iter().find(|p| matches!(p.kind, ProviderKind::WebAuthn(_))) else {
        return Vec::new();
    };
    let passkeys = match ctx.auth.stores.data().map(|db| db.passkeys.list_authenticators_by_user_id(user_id)) {
        Some(Ok(passkeys)) => passkeys,
        Some(Err(e)) => {
            ctx.auth.callbacks.log(&crate::error::AuthError::from(e));
            return Vec::new();
        }
        None => return Vec::new(),
    };
    let t = ctx.messages();
    let account = super::account_url(ctx);
    let sep = if account.contains('?') { '&' } else { '?' };
    let mut forms = vec![PageForm {
        id: "passkey-add",
        heading: Some(t.text("account-passkeys-heading")),
        text: Some(t.text("account-passkeys-text")),
        action: String::new(),
        hidden: Vec::new(),
        fields: Vec::new(),
        button: t.text("account-passkey-add"),
        passkey: Some(PasskeyForm {
            provider_id: provider.id.clone(),
            base_path: ctx.auth.settings.base_path.clone(),
            callback_url: format!("{account}{sep}notice=passkey-added"),
            messages: crate::pages::passkey_messages(&t),
        }),
    }];
    let action = format!("{}/passkeys", ctx.base_url());
    for passkey in &passkeys {
        let added = passkey.created_at.map(|ms| readable_time(&crate::store::date::to_iso(ms)));
        forms.push(PageForm {
            id: "passkey",
            heading: Some(passkey.name.clone().unwrap_or_else(|| t.text("account-passkey-unnamed"))),
            text: added.map(|when| t.text_with("account-passkey-details", &[("when", &when)])),
            action: action.clone(),
            hidden: vec![
                ("action", "delete".to_owned()),
                ("id", passkey.credential_id.clone()),
                ("return", "account".to_owned()),
            ],
            fields: Vec::new(),
            button: t.text("account-passkey-remove"),
            passkey: None,
        });
    }
    forms
}

/// The account page's sessions (see `user_sessions`). Database sessions:
/// the user's other sessions, each with a button that ends it, after one
/// that ends them all. JWT sessions, where sign-outs are kept: the button
/// that ends every other one. Each posts to the `sessions` route, which
/// sends the browser back here (`return=account`).
fn session_forms(ctx: &mut Ctx, user_id: &str) -> Vec<PageForm<'static>> {
    let t = ctx.messages();
    let action = format!("{}/sessions", ctx.base_url());
    let end_others = |text: String| PageForm {
        id: "sessions",
        heading: Some(t.text("account-sessions-heading")),
        text: Some(text),
        action: action.clone(),
        hidden: vec![("action", "endOthers".to_owned()), ("return", "account".to_owned())],
        fields: Vec::new(),
        button: t.text("account-sessions-end-others"),
        passkey: None,
    };
    if ctx.auth.settings.strategy == SessionStrategy::Jwt {
        return if ctx.auth.sign_out_reads().is_some() {
            vec![end_others(t.text("account-sessions-jwt-text"))]
        } else {
            Vec::new()
        };
    }
    let listed = match ctx.auth.list_sessions(user_id, Some(ctx.req)) {
        Ok(listed) => listed,
        Err(e) => {
            // The page still shows the rest (a host adapter cannot list).
            ctx.auth.callbacks.log(&e);
            return Vec::new();
        }
    };
    let others: Vec<&serde_json::Value> = listed.iter().filter(|s| s["current"] != true).collect();
    if others.is_empty() {
        return Vec::new();
    }
    let mut forms = vec![end_others(t.text("account-sessions-text"))];
    for session in others {
        let text = |key: &str| session[key].as_str().map(str::to_owned);
        let when = text("lastActiveAt").map(|iso| readable_time(&iso)).unwrap_or_default();
        let details = match text("ip") {
            Some(ip) => t.text_with("account-session-details", &[("ip", &ip), ("when", &when)]),
            None => t.text_with("account-session-active", &[("when", &when)]),
        };
        forms.push(PageForm {
            id: "session",
            heading: Some(text("device").unwrap_or_else(|| t.text("account-session-unknown-device"))),
            text: Some(details),
            action: action.clone(),
            hidden: vec![
                ("action", "end".to_owned()),
                ("id", text("id").unwrap_or_default()),
                ("return", "account".to_owned()),
            ],
            fields: Vec::new(),
            button: t.text("account-session-end"),
            passkey: None,
        });
    }
    forms
}

/// `2026-11-28 22:10 UTC` from an ISO 8601 time in UTC.
fn readable_time(iso: &str) -> String {
    match (iso.get(..10), iso.get(11..16)) {
        (Some(date), Some(time)) => format!("{date} {time} UTC"),
        _ => iso.to_owned(),
    }
}
