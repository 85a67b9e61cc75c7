//! The signed-in user's account page (`GET account`; also `GET
//! password/account`): in the page's language, with no script but the
//! passkey module (allowed by its hash) where passkeys can be added. Its
//! sections, each present where it applies:
//!
//! - the password (the password provider): change it, change the address,
//!   delete the account (`routes::password`), or a link to set one;
//! - the second factor: set up, new recovery codes, turn off
//!   (`routes::two_factor_setup`);
//! - passkeys (a passkey provider): add one, remove each (`passkeys`);
//! - the other sessions: end each, or all (`sessions`).
//!
//! Every form posts to the route that makes the change, which sends the
//! browser back here with `?notice=<what happened>`; the notice is looked
//! up here, never shown as given. A browser that is not signed in is sent
//! to sign in, and back here afterwards.

use super::{Ctx, Reply};
use crate::config::SessionStrategy;
use crate::error::{AuthError, ErrorType};
use crate::pages::{PageForm, PasskeyForm};
use crate::providers::ProviderKind;
use crate::store::{AdapterUser, DataStores};

/// `{basePath}/account`, with this request's explicit locale.
pub(crate) fn url(ctx: &Ctx) -> String {
    ctx.with_locale(format!("{}/account", ctx.base_url()))
}

/// The account page after `notice` (one of the names the routes send).
pub(crate) fn url_with_notice(ctx: &Ctx, notice: &str) -> String {
    let url = url(ctx);
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}notice={notice}")
}

/// `GET account`: the page for the signed-in user, with `error` (a form
/// refused) shown above it.
pub(crate) fn get(ctx: &mut Ctx, error: Option<String>) -> Result<Reply, AuthError> {
    let Some(user) = signed_in_user(ctx)? else { return Ok(to_sign_in(ctx)) };
    let db = stores(ctx)?;
    let t = ctx.messages();
    let shown = ctx.query("notice");
    let (notice, refused) = match shown.as_deref() {
        Some("password-changed") => (Some("password-changed"), None),
        Some("email-sent") => (Some("password-email-sent"), None),
        Some("email-changed") => (Some("password-email-changed"), None),
        Some("sessions-ended") => (Some("account-sessions-ended"), None),
        Some("two-factor-off") => (Some("account-two-factor-off-notice"), None),
        Some("two-factor-on") => (Some("two-factor-on-notice"), None),
        Some("passkey-added") => (Some("account-passkey-added"), None),
        Some("passkey-removed") => (Some("account-passkey-removed"), None),
        Some("two-factor-wrong") => (None, Some("account-two-factor-wrong")),
        Some("passkey-last") => (None, Some("account-passkey-last")),
        _ => (None, None),
    };
    let notice = notice.map(|id| t.text(id));
    let error = error.or_else(|| refused.map(|id| t.text(id)));
    let (mut forms, links) = match ctx.auth.providers.password() {
        Some((provider, _)) => {
            let has_password = super::password::has_password(db, provider, &user.id)?;
            super::password::account_forms(ctx, &user, has_password)
        }
        None => (Vec::new(), Vec::new()),
    };
    forms.extend(super::two_factor_setup::account_forms(ctx, &user.id));
    forms.extend(passkey_forms(ctx, &user.id));
    forms.extend(session_forms(ctx, &user.id));
    Ok(super::password::form_page(ctx, "password-account-heading", forms, links, notice, error))
}

fn stores<'a>(ctx: &Ctx<'a>) -> Result<&'a DataStores, AuthError> {
    ctx.auth.stores.data().ok_or_else(|| {
        AuthError::new(ErrorType::MissingAdapter, "the account page shows a stored user: it needs an adapter")
    })
}

/// The stored user this browser is signed in as (a JWT must pass the
/// sign-out check), if any: whom the account page and its forms act for.
pub(crate) fn signed_in_user(ctx: &Ctx) -> Result<Option<AdapterUser>, AuthError> {
    let db = stores(ctx)?;
    match super::register::current_user_id(ctx, db)? {
        Some(id) => Ok(db.users.get_user(&id)?),
        None => Ok(None),
    }
}

/// Whether a form posted to a JSON route (`sessions`, `passkeys`) came
/// from the account page (`return=account`): its answer is then
/// [`back_from`].
pub(crate) fn posted_from_page(ctx: &mut Ctx) -> bool {
    ctx.body_str("return").as_deref() == Some("account")
}

/// A JSON route's `reply` as the account page's form gets it: a redirect
/// back to the page, with the notice `notice_of` names for the answer's
/// status (none: the page as it was).
pub(crate) fn back_from(ctx: &Ctx, reply: &Reply, notice_of: impl Fn(u16) -> Option<&'static str>) -> Reply {
    let notice = match reply {
        Reply::Json { status, .. } => notice_of(*status),
        _ => None,
    };
    Reply::Redirect(match notice {
        Some(notice) => url_with_notice(ctx, notice),
        None => url(ctx),
    })
}

/// The sign-in page, back to the account page afterwards: the answer to a
/// browser that is not signed in.
pub(crate) fn to_sign_in(ctx: &Ctx) -> Reply {
    let back = url(ctx);
    let query = url::form_urlencoded::Serializer::new(String::new()).append_pair("callbackUrl", &back).finish();
    Reply::Redirect(ctx.with_locale(format!("{}/signin?{query}", ctx.base_url())))
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
    let account = url(ctx);
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
