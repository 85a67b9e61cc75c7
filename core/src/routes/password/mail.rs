//! The password provider's emails: through the host's `sendEmail` hook
//! when it has one (`{ kind, to, url?, expires?, locale, provider, request
//! }`), else the configured SMTP server, in the language of the request
//! that caused them.

use serde_json::json;

use super::super::Ctx;
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::providers::{PasswordProvider, Provider};
use crate::time::iso_millis;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mail {
    /// A new account's verification link.
    VerifyEmail,
    /// A password-reset link.
    ResetPassword,
    /// Someone tried to sign up with an address that has an account: its
    /// owner is told, with a reset link.
    AccountExists,
    /// A signed-in user's new address: its confirmation link.
    ConfirmNewEmail,
    /// To the old address: the account's address is about to change.
    EmailChanging,
}

impl Mail {
    /// The `kind` the `sendEmail` hook receives.
    pub fn kind(self) -> &'static str {
        match self {
            Mail::VerifyEmail => "verify-email",
            Mail::ResetPassword => "reset-password",
            Mail::AccountExists => "account-exists",
            Mail::ConfirmNewEmail => "confirm-new-email",
            Mail::EmailChanging => "email-changing",
        }
    }

    /// Message ids: subject, paragraph, button, note.
    #[cfg(feature = "smtp")]
    fn texts(self) -> (&'static str, Option<&'static str>, Option<&'static str>, &'static str) {
        match self {
            Mail::VerifyEmail => {
                ("password-mail-verify-subject", None, Some("password-mail-verify-button"), "password-mail-verify-note")
            }
            Mail::ResetPassword => {
                ("password-mail-reset-subject", None, Some("password-mail-reset-button"), "password-mail-reset-note")
            }
            Mail::AccountExists => (
                "password-mail-exists-subject",
                Some("password-mail-exists-text"),
                Some("password-mail-reset-button"),
                "password-mail-exists-note",
            ),
            Mail::ConfirmNewEmail => (
                "password-mail-confirm-subject",
                None,
                Some("password-mail-confirm-button"),
                "password-mail-confirm-note",
            ),
            Mail::EmailChanging => (
                "password-mail-changing-subject",
                Some("password-mail-changing-text"),
                None,
                "password-mail-changing-note",
            ),
        }
    }
}

/// Send `mail` to `to`; `link` is the URL and its expiry (unix ms), for the
/// kinds that carry one; `new_email` is the address an `EmailChanging`
/// notice names.
pub(super) fn send(
    ctx: &Ctx,
    provider: &Provider,
    p: &PasswordProvider,
    mail: Mail,
    to: &str,
    link: Option<(&str, i64)>,
    new_email: Option<&str>,
) -> Result<(), AuthError> {
    let messages = ctx.messages();
    let host = ctx.origin.split_once("://").map_or(ctx.origin.as_str(), |(_, h)| h).to_owned();
    if p.has_send_hook {
        let args = json!({
            "kind": mail.kind(),
            "to": to,
            "url": link.map(|(url, _)| url),
            "expires": link.map(|(_, expires)| iso_millis(expires.max(0) as u64)),
            "newEmail": new_email,
            "locale": messages.tag(),
            "provider": { "id": provider.id, "name": provider.name, "type": "password", "from": p.from },
            "request": ctx.req.to_record(),
        });
        ctx.auth
            .callbacks
            .host
            .call(&Hook::provider(&provider.id, "sendEmail"), args)
            .map_err(|e| AuthError::from_host(e, ErrorType::EmailSignInError))?;
        return Ok(());
    }
    #[cfg(feature = "smtp")]
    if let Some(smtp) = &p.smtp {
        let (subject, paragraph, button, note) = mail.texts();
        let args = [("host", host.as_str()), ("email", new_email.unwrap_or_default())];
        let message = crate::email::notice_email(
            &messages,
            messages.text_with(subject, &args),
            paragraph.map(|id| messages.text_with(id, &args)),
            link.zip(button).map(|((url, _), id)| (url, messages.text(id))),
            messages.text_with(note, &args),
        );
        return crate::email::send_email(smtp, to, message)
            .map_err(|e| AuthError::new(ErrorType::EmailSignInError, e.to_string()).with_source(e));
    }
    // The provider was refused at construction without one of the two.
    let _ = (host, messages, to, new_email);
    Err(AuthError::new(ErrorType::EmailSignInError, "the password provider has no way to send email"))
}
