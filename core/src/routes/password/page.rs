//! The password provider's built-in pages, in the current theme and
//! language, with the pages' Content-Security-Policy (no script).

use super::{step_url, Step};
use crate::pages::{render, FormField, Layout, PageForm, PasswordPage};
use crate::providers::{PasswordProvider, Provider};
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

pub(crate) fn form_page(
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
    form_page(ctx, "password-signup-heading", vec![form], links, None, error)
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
    form_page(ctx, "password-forgot-heading", vec![form], links, None, error)
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
    form_page(ctx, "password-reset-heading", vec![form], Vec::new(), None, error)
}

/// The account page's password sections: forms to change the password or
/// the address and to delete the account (each asks for the password), or,
/// for a user without a password, a link to set one.
pub(crate) fn account_forms(
    ctx: &mut Ctx,
    user: &AdapterUser,
    has_password: bool,
) -> (Vec<PageForm<'static>>, Vec<(String, String)>) {
    let t = ctx.messages();
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
    let links =
        if has_password { Vec::new() } else { vec![(step_url(ctx, Step::Forgot), t.text("password-set-link"))] };
    (forms, links)
}
