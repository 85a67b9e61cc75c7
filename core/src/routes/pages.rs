//! The GET routes that show a page: `signin`, `signout`, `error`,
//! `verify-request`; each redirects to its `pages.*` URL when configured.

use super::{page_url, Ctx, Reply};
use crate::error::{AuthError, ErrorType};
use crate::pages::{
    error_category, render, signin_error_message, ErrorPage, Layout, PageProvider, PageProviderKind, SigninPage,
    SignoutPage, VerifyRequestPage,
};
use crate::providers::ProviderKind;

pub fn signin(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    if ctx.provider_id.is_some() {
        return Err(AuthError::new(ErrorType::UnknownAction, "GET signin/<provider> is not an action; POST it"));
    }
    let callback_url = ctx.callback_url();
    let error = ctx.query("error");
    if let Some(page) = &ctx.auth.settings.pages.sign_in {
        let mut params = url::form_urlencoded::Serializer::new(String::new());
        params.append_pair("callbackUrl", &callback_url);
        if let Some(error) = &error {
            params.append_pair("error", error);
        }
        let sep = if page.contains('?') { '&' } else { '?' };
        return Ok(Reply::Redirect(format!("{}{sep}{}", page_url(&ctx.origin, page), params.finish())));
    }
    let csrf_token = ctx.csrf_token();
    let base = ctx.base_url();
    let settings = &ctx.auth.settings;
    let t = ctx.messages();
    // A built-in provider's default name is a word, translated with its
    // button; a configured name (a brand, the deployer's own words) is kept.
    let name = |p: &crate::providers::Provider| match p.default_name_messages() {
        Some((name_id, _)) => t.text(name_id),
        None => p.name.clone(),
    };
    let label = |p: &crate::providers::Provider| match p.default_name_messages() {
        Some((_, label_id)) => t.text(label_id),
        None => t.text_with("signin-with", &[("provider", &p.name)]),
    };
    // A language picked with `?locale` goes on with every form: the
    // email, the provider's pages (`ui_locales`), and the page a failed
    // sign-in comes back to (an allow-listed tag).
    let locale_param = match ctx.explicit_locale() {
        Some(tag) => format!("?locale={tag}"),
        None => String::new(),
    };
    let providers = ctx
        .auth
        .providers
        .iter()
        .map(|p| match &p.kind {
            ProviderKind::Credentials(c) => PageProvider {
                id: &p.id,
                name: name(p),
                kind: PageProviderKind::Credentials(&c.fields),
                action_url: format!("{base}/callback/{}{locale_param}", p.id),
                button_label: label(p),
                button_style: None,
                logo: None,
            },
            ProviderKind::Email(_) => PageProvider {
                id: &p.id,
                name: name(p),
                kind: PageProviderKind::Email,
                action_url: format!("{base}/signin/{}{locale_param}", p.id),
                button_label: label(p),
                button_style: None,
                logo: None,
            },
            ProviderKind::OAuth(o) => PageProvider {
                id: &p.id,
                name: name(p),
                kind: PageProviderKind::OAuth,
                action_url: format!("{base}/signin/{}{locale_param}", p.id),
                button_label: label(p),
                button_style: button_style(&o.style),
                logo: o.style.logo.as_deref(),
            },
            ProviderKind::WebAuthn(w) => PageProvider {
                id: &p.id,
                name: name(p),
                kind: PageProviderKind::Passkey { conditional_ui: w.enable_conditional_ui },
                action_url: format!("{base}/callback/{}{locale_param}", p.id),
                button_label: label(p),
                button_style: None,
                logo: None,
            },
            ProviderKind::Password(_) => PageProvider {
                id: &p.id,
                name: name(p),
                kind: PageProviderKind::Password {
                    password_label: t.text("password-label"),
                    forgot_url: format!("{base}/password/forgot{locale_param}"),
                    forgot_label: t.text("password-forgot-link"),
                    signup_url: format!("{base}/password/signup{locale_param}"),
                    signup_label: t.text("password-signup-link"),
                },
                action_url: format!("{base}/callback/{}{locale_param}", p.id),
                button_label: label(p),
                button_style: None,
                logo: None,
            },
        })
        .collect::<Vec<_>>();
    let has_passkey = providers.iter().any(|p| matches!(p.kind, PageProviderKind::Passkey { .. }));
    let page = SigninPage {
        layout: Layout::new("title-signin", &settings.theme, &t),
        csrf_token: &csrf_token,
        callback_url: &callback_url,
        heading: t.text("signin-heading"),
        email_label: t.text("signin-email-label"),
        email_placeholder: t.text("signin-email-placeholder"),
        passkey_hint: t.text("signin-passkey-hint"),
        error: error.as_deref().map(|e| match (e, ctx.query("code").as_deref()) {
            // A password account whose address is not proven yet.
            ("CredentialsSignin", Some("email_not_verified")) => t.text("password-error-unverified"),
            (e, _) => t.text(signin_error_message(e)),
        }),
        providers,
        base_path: &settings.base_path,
        passkey_script: has_passkey.then(crate::pages::passkey_page_script),
        passkey_messages: if has_passkey { crate::pages::passkey_messages(&t) } else { String::new() },
    };
    let html = render(&page);
    if has_passkey {
        return Ok(Reply::Page { status: 200, html, csp: crate::pages::passkey_page_csp().to_owned() });
    }
    Ok(Reply::Html { status: 200, html })
}

pub fn signout(ctx: &mut Ctx) -> Reply {
    if let Some(page) = &ctx.auth.settings.pages.sign_out {
        return Reply::Redirect(page_url(&ctx.origin, page));
    }
    let csrf_token = ctx.csrf_token();
    let t = ctx.messages();
    let page = SignoutPage {
        layout: Layout::new("title-signout", &ctx.auth.settings.theme, &t),
        heading: t.text("signout-heading"),
        question: t.text("signout-question"),
        button: t.text("signout-button"),
        csrf_token: &csrf_token,
        action_url: ctx.with_locale(format!("{}/signout", ctx.base_url())),
    };
    Reply::Html { status: 200, html: render(&page) }
}

pub fn error(ctx: &mut Ctx) -> Reply {
    let error = ctx.query("error").unwrap_or_default();
    if let Some(page) = &ctx.auth.settings.pages.error {
        let sep = if page.contains('?') { '&' } else { '?' };
        let params = url::form_urlencoded::Serializer::new(String::new()).append_pair("error", &error).finish();
        return Reply::Redirect(format!("{}{sep}{params}", page_url(&ctx.origin, page)));
    }
    render_error(ctx, &error)
}

pub fn render_error(ctx: &Ctx, error: &str) -> Reply {
    let category = error_category(error);
    let t = ctx.messages();
    let page = ErrorPage {
        layout: Layout::new("title-error", &ctx.auth.settings.theme, &t),
        heading: t.text(category.heading),
        message: category.message.iter().map(|id| t.text(id)).collect(),
        signin_button: t.text("error-signin-button"),
        signin_url: category.offers_signin.then(|| ctx.with_locale(format!("{}/signin", ctx.base_url()))),
        site_url: (!category.offers_signin && category.status != 500).then(|| ctx.origin.clone()),
        site_host: site_host(&ctx.origin),
    };
    Reply::Html { status: category.status, html: render(&page) }
}

pub fn verify_request(ctx: &mut Ctx) -> Reply {
    if let Some(page) = &ctx.auth.settings.pages.verify_request {
        let search = ctx.url.query().map(|q| format!("?{q}")).unwrap_or_default();
        return Reply::Redirect(format!("{}{search}", page_url(&ctx.origin, page)));
    }
    let t = ctx.messages();
    let page = VerifyRequestPage {
        layout: Layout::new("title-verify-request", &ctx.auth.settings.theme, &t),
        heading: t.text("verify-heading"),
        text: t.text(if ctx.query("type").as_deref() == Some("password") {
            "password-check-email"
        } else {
            "verify-text"
        }),
        site_url: ctx.origin.clone(),
        site_host: site_host(&ctx.origin),
    };
    Reply::Html { status: 200, html: render(&page) }
}

/// The site as Auth.js's pages show it: host and port of the origin (the
/// canonical URL's when one is configured).
fn site_host(origin: &str) -> String {
    origin.split_once("://").map_or(origin, |(_, host)| host).to_owned()
}

/// The inline style of a provider's button, from its `style` colours
/// (checked to be CSS colours, as they land in an attribute).
fn button_style(style: &crate::providers::oauth::ButtonStyle) -> Option<String> {
    let mut css = String::new();
    if let Some(bg) = style.bg.as_deref().or(style.brand_color.as_deref()).filter(|c| crate::config::is_css_color(c)) {
        css.push_str(&format!("background:{bg};"));
    }
    if let Some(text) = style.text.as_deref().filter(|c| crate::config::is_css_color(c)) {
        css.push_str(&format!("color:{text};"));
    }
    (!css.is_empty()).then_some(css)
}
