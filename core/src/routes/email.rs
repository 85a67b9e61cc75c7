//! Email sign-in: `POST signin/<id>` mails a one-time link (only its hash is
//! stored), `GET callback/<id>?token&email` signs the user in once.

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::register::{SignInKind, SignInUser};
use super::{Ctx, Reply};
use crate::callbacks::SignInDecision;
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::providers::{EmailProvider, Provider};
use crate::store::{AccountType, AdapterAccount, VerificationToken};
use crate::time::{iso_millis, now_millis};

/// What the adapter stores for a mailed token: sha256(token + secret), so a
/// database leak yields no usable link.
fn hash_token(token: &str, secret: &str) -> String {
    let mut h = Sha256::new();
    h.update(token.as_bytes());
    h.update(secret.as_bytes());
    crate::random::to_hex(&h.finalize())
}

/// A plausible single address, lowercased; no lists, no display names.
pub(super) fn normalise_email(raw: &str) -> Option<String> {
    let email = raw.trim().to_lowercase();
    let (local, domain) = email.split_once('@')?;
    let valid = !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && email.len() <= 320
        && !email.chars().any(|c| {
            c.is_whitespace()
                || c.is_control()
                || matches!(c, ',' | ';' | '<' | '>' | '"' | '(' | ')' | '[' | ']' | '\\')
        })
        && !domain.contains('@');
    valid.then_some(email)
}

fn email_account(provider: &Provider, email: &str) -> AdapterAccount {
    AdapterAccount::new(AccountType::Email, &provider.id, email)
}

pub fn send_link(ctx: &mut Ctx, provider: &Provider, p: &EmailProvider) -> Result<Reply, AuthError> {
    let auth = ctx.auth;
    let db = auth
        .stores
        .data()
        .ok_or_else(|| AuthError::new(ErrorType::MissingAdapter, "email sign-in needs an adapter"))?;
    let raw = ctx.body_str("email").unwrap_or_default();
    let email = normalise_email(&raw)
        .ok_or_else(|| AuthError::new(ErrorType::EmailSignInError, "not a valid email address"))?;
    // Every link sent counts, per address and per client IP: a flood of
    // links to someone's inbox stops at the limit.
    super::limits::check(ctx, crate::ratelimit::Route::Email, &[email.as_str()], 1)?;
    let callback_url = ctx.callback_url();

    let user = match db.users.get_user_by_email(&email)? {
        Some(u) => serde_json::to_value(u).unwrap_or(Value::Null),
        None => json!({ "id": uuid::Uuid::new_v4().to_string(), "email": email, "emailVerified": null }),
    };
    let args = json!({ "user": user, "account": super::sign_in::account_json(&email_account(provider, &email)), "email": { "verificationRequest": true } });
    if let SignInDecision::Redirect(url) = ctx.auth.callbacks.sign_in(args, &ctx.origin)? {
        return Ok(Reply::Redirect(url));
    }

    let token = crate::random::hex(32);
    let expires_ms = (now_millis() as i64).saturating_add((p.max_age as i64).saturating_mul(1000));
    db.tokens.create_verification_token(&VerificationToken {
        identifier: email.clone(),
        token: hash_token(&token, &ctx.auth.settings.secrets[0]),
        expires: expires_ms,
    })?;
    ctx.auth.purge_expired_now_and_then();
    let params = url::form_urlencoded::Serializer::new(String::new())
        .append_pair("callbackUrl", &callback_url)
        .append_pair("token", &token)
        .append_pair("email", &email)
        .finish();
    let url = format!("{}/callback/{}?{params}", ctx.base_url(), provider.id);
    // As Auth.js's `new URL(url).host`: the link's host, with its port.
    let host = url::Url::parse(&url)
        .ok()
        .and_then(|u| {
            u.host_str().map(|h| match u.port() {
                Some(port) => format!("{h}:{port}"),
                None => h.to_owned(),
            })
        })
        .unwrap_or_default();

    // The email is in the language of the request that asked for it.
    let messages = ctx.messages();
    if p.has_send_hook {
        let args = json!({
            "locale": messages.tag(),
            "identifier": email,
            "url": url,
            "expires": iso_millis(expires_ms as u64),
            "token": token,
            "provider": { "id": provider.id, "name": provider.name, "type": "email", "from": p.from, "maxAge": p.max_age },
            "theme": { "brandColor": ctx.auth.settings.theme.brand_color, "buttonText": ctx.auth.settings.theme.button_text },
            "request": ctx.req.to_record(),
        });
        ctx.auth
            .callbacks
            .host
            .call(&Hook::provider(&provider.id, "sendVerificationRequest"), args)
            .map_err(|e| AuthError::from_host(e, ErrorType::EmailSignInError))?;
    } else {
        #[cfg(feature = "smtp")]
        if let Some(smtp) = &p.smtp {
            let mail = crate::email::localised_verification_email(&url, &host, &messages);
            crate::email::send_email(smtp, &email, mail)
                .map_err(|e| AuthError::new(ErrorType::EmailSignInError, e.to_string()).with_source(e))?;
        }
        // Without SMTP the provider was refused at construction unless it
        // has the hook: nothing else to send with.
        #[cfg(not(feature = "smtp"))]
        let _ = (host, messages);
    }
    Ok(Reply::Redirect(ctx.with_locale(format!(
        "{}/verify-request?provider={}&type=email",
        ctx.base_url(),
        provider.id
    ))))
}

pub fn callback(ctx: &mut Ctx, provider: &Provider, _p: &EmailProvider) -> Result<Reply, AuthError> {
    let auth = ctx.auth;
    let db = auth
        .stores
        .data()
        .ok_or_else(|| AuthError::new(ErrorType::MissingAdapter, "email sign-in needs an adapter"))?;
    let verification = |msg: &str| AuthError::new(ErrorType::Verification, msg.to_owned());
    let token = ctx.query("token").filter(|t| !t.is_empty()).ok_or_else(|| verification("no token in the link"))?;
    let email =
        ctx.query("email").and_then(|e| normalise_email(&e)).ok_or_else(|| verification("no email in the link"))?;

    // Single use: the adapter deletes the token as it returns it. Try each
    // secret, so links mailed before a rotation still work.
    let mut used = None;
    for secret in &ctx.auth.settings.secrets {
        if let Some(found) = db.tokens.use_verification_token(&email, &hash_token(&token, secret))? {
            used = Some(found);
            break;
        }
    }
    let used = used.ok_or_else(|| verification("the link was already used, or never issued"))?;
    if used.expires <= now_millis() as i64 {
        return Err(verification("the link expired"));
    }
    // The stored user, if any, is looked up once by complete_sign_in.
    let user =
        json!({ "id": uuid::Uuid::new_v4().to_string(), "email": email }).as_object().cloned().unwrap_or_default();
    // The link reached the address's inbox: the address is proven.
    let user = SignInUser::from_provider(user).expect("the id is set").proven(true);
    super::sign_in::complete_sign_in(
        ctx,
        SignInKind::Email,
        user,
        email_account(provider, &email),
        None,
        Map::new(),
        None,
    )
}

#[cfg(test)]
mod tests {
    use super::normalise_email;

    #[test]
    fn emails_are_normalised_and_lists_refused() {
        assert_eq!(normalise_email("  Ada@Example.COM ").as_deref(), Some("ada@example.com"));
        for bad in ["", "ada", "ada@", "@example.com", "a@b", "a@b.com,c@d.com", "A <a@b.com>", "a b@c.com", "a@@b.com"]
        {
            assert_eq!(normalise_email(bad), None, "{bad}");
        }
    }
}
