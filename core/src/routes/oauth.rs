//! OAuth/OIDC sign-in through the routes: `POST signin/<id>` sends the user
//! to the provider with state, PKCE and nonce kept in short-lived encrypted
//! cookies; `GET|POST callback/<id>` checks them, exchanges the code and
//! signs the user in. Every failure is an `OAuthCallbackError` (the user is
//! sent back to sign-in) with the precise cause in the server log.

use base64::Engine as _;
use serde_json::{json, Map, Value};
use sha2::Digest as _;
use subtle::ConstantTimeEq;
use url::Url;

use super::{Ctx, Reply};
use crate::cookies::{CookieSpec, SetCookie};
use crate::error::{AuthError, ErrorType};
use crate::host::Hook;
use crate::oauth::{self, AuthorizationChecks, OAuthError};
use crate::providers::oauth::OAuthProvider;
use crate::providers::Provider;

/// Lifetime of the check cookies (as Auth.js): 15 minutes.
const CHECK_MAX_AGE: u64 = 15 * 60;
/// The key salt of the sealed `state`, fixed so that a redirect proxy
/// served over https can open a state made by a deployment on http.
const STATE_SALT: &str = "authjs.state";

fn callback_error(message: impl Into<String>, cause: Option<AuthError>) -> AuthError {
    let mut e = AuthError::new(ErrorType::OAuthCallbackError, message);
    if let Some(cause) = cause {
        e = e.with_source(cause);
    }
    e
}

fn invalid_check(message: &str) -> AuthError {
    callback_error(format!("InvalidCheck: {message}"), Some(AuthError::new(ErrorType::InvalidCheck, message)))
}

fn from_oauth(e: OAuthError) -> AuthError {
    let kind = match &e {
        OAuthError::Discovery(_) | OAuthError::MissingEndpoint(_) => ErrorType::InvalidEndpoints,
        OAuthError::IdToken(_) => ErrorType::InvalidCheck,
        _ => ErrorType::OAuthCallbackError,
    };
    let message = e.to_string();
    callback_error(message.clone(), Some(AuthError::new(kind, message).with_source(e)))
}

/// `{redirectProxyUrl | origin+basePath}/callback/<id>`.
fn redirect_uri(ctx: &Ctx, provider: &Provider, p: &OAuthProvider) -> String {
    let base = match p.redirect_proxy_url.as_ref().or(ctx.auth.settings.redirect_proxy_url.as_ref()) {
        Some(proxy) => proxy.as_str().trim_end_matches('/').to_owned(),
        None => ctx.base_url(),
    };
    format!("{base}/callback/{}", provider.id)
}

fn uses_proxy(ctx: &Ctx, p: &OAuthProvider) -> bool {
    p.redirect_proxy_url.is_some() || ctx.auth.settings.redirect_proxy_url.is_some()
}

/// With `response_mode=form_post` the provider POSTs back cross-site, and a
/// browser sends no `SameSite=Lax` cookie on such a request. The cookies
/// stay Lax: the callback answers that POST with a page of our own origin
/// that posts the same fields again (see [`repost_page`]), and that
/// same-site POST carries them.
fn uses_form_post(p: &OAuthProvider) -> bool {
    p.authorization.params.iter().any(|(k, v)| k == "response_mode" && v == "form_post")
}

/// The field marking a callback as our own re-post (so a browser that
/// refuses cookies altogether gets the usual error, not a loop).
const REPOST_FIELD: &str = "libauth_repost";

/// The one script of the re-post page, allowed by its hash alone.
const REPOST_SCRIPT: &str = "document.forms[0].submit()";

/// The re-post page: a form of the callback's fields, submitted at once.
/// Without JavaScript the user presses Continue.
fn repost_page(action: &str, params: &Map<String, Value>) -> Reply {
    let esc = crate::email::escape_html;
    let mut inputs = String::new();
    for (k, v) in params.iter().filter(|(k, _)| k.as_str() != REPOST_FIELD) {
        if let Some(v) = v.as_str() {
            inputs.push_str(&format!(r#"<input type="hidden" name="{}" value="{}">"#, esc(k), esc(v)));
        }
    }
    let html = format!(
        concat!(
            r#"<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Signing in</title></head><body>"#,
            r#"<form method="post" action="{action}">{inputs}<input type="hidden" name="{marker}" value="1">"#,
            r#"<noscript><button type="submit">Continue</button></noscript></form><script>{script}</script></body></html>"#
        ),
        action = esc(action),
        inputs = inputs,
        marker = REPOST_FIELD,
        script = REPOST_SCRIPT,
    );
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(REPOST_SCRIPT.as_bytes()));
    let csp = format!(
        "default-src 'none'; script-src 'sha256-{hash}'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    );
    Reply::Page { status: 200, html, csp }
}

fn set_check(ctx: &mut Ctx, spec: &CookieSpec, value: &str) {
    ctx.set_cookies.push(SetCookie::new(spec, value));
}

fn seal(ctx: &Ctx, salt: &str, claims: Map<String, Value>) -> Result<String, AuthError> {
    ctx.auth
        .codec
        .encode(&claims, salt, CHECK_MAX_AGE)
        .map_err(|e| AuthError::new(ErrorType::OAuthSignInError, e.to_string()))
}

fn open(ctx: &Ctx, salt: &str, sealed: &str) -> Option<Map<String, Value>> {
    ctx.auth.codec.decode(sealed, salt).ok()
}

pub fn start(ctx: &mut Ctx, provider: &Provider, p: &OAuthProvider) -> Result<Reply, AuthError> {
    let endpoints =
        oauth::endpoints(p).map_err(|e| AuthError::new(ErrorType::OAuthSignInError, e.to_string()).with_source(e))?;
    ctx.callback_url(); // remembered in its cookie for after the callback
    let redirect_uri = redirect_uri(ctx, provider, p);
    let cookies = ctx.cookies;

    // The redirect proxy needs the state check (it carries our origin).
    let state = if p.checks.state || uses_proxy(ctx, p) {
        let mut payload = Map::new();
        payload.insert("random".into(), crate::random::hex(32).into());
        if uses_proxy(ctx, p) {
            payload.insert("origin".into(), format!("{}/callback/{}", ctx.base_url(), provider.id).into());
        }
        let sealed = seal(ctx, STATE_SALT, payload)?;
        set_check(ctx, &cookies.state, &sealed);
        Some(sealed)
    } else {
        None
    };
    let challenge = if p.checks.pkce {
        let (verifier, challenge) = oauth::pkce_pair(p.pkce_encoding);
        let sealed = seal(ctx, &cookies.pkce_code_verifier.name, Map::from_iter([("value".into(), verifier.into())]))?;
        set_check(ctx, &cookies.pkce_code_verifier, &sealed);
        Some(challenge)
    } else {
        None
    };
    let nonce = if p.checks.nonce && p.oidc {
        let nonce = crate::random::hex(32);
        let sealed = seal(ctx, &cookies.nonce.name, Map::from_iter([("value".into(), nonce.clone().into())]))?;
        set_check(ctx, &cookies.nonce, &sealed);
        Some(nonce)
    } else {
        None
    };
    // The provider's own pages in the user's language, when the request
    // named one (never the bare default: that would override the
    // provider's own negotiation with the browser).
    let ui_locales = ctx.requested_locale().map(|m| m.tag()).filter(|tag| *tag != crate::i18n::PSEUDO_LOCALE);
    let checks = AuthorizationChecks {
        state: state.as_deref(),
        code_challenge: challenge.as_deref(),
        nonce: nonce.as_deref(),
        ui_locales,
    };
    let url = oauth::authorization_url(p, &endpoints.authorization, &redirect_uri, &checks)
        .map_err(|e| AuthError::new(ErrorType::OAuthSignInError, e.to_string()).with_source(e))?;
    Ok(Reply::Redirect(url))
}

pub fn callback(ctx: &mut Ctx, provider: &Provider, p: &OAuthProvider) -> Result<Reply, AuthError> {
    // Parameters come in the query (GET) or the body (form_post).
    let mut params: Map<String, Value> =
        ctx.url.query_pairs().map(|(k, v)| (k.into_owned(), Value::String(v.into_owned()))).collect();
    if ctx.req.method.eq_ignore_ascii_case("POST") {
        params.extend(ctx.body().clone());
    }
    let param = |name: &str| params.get(name).and_then(Value::as_str).map(str::to_owned);

    if let Some(forward) = proxy_forward(ctx, p, &params) {
        return Ok(Reply::Redirect(forward));
    }
    // A form_post callback that came without our cookies (cross-site):
    // posted again from our own origin, where they are sent.
    let uses_checks = p.checks.state || p.checks.pkce || p.checks.nonce || uses_proxy(ctx, p);
    if uses_form_post(p)
        && uses_checks
        && ctx.req.method.eq_ignore_ascii_case("POST")
        && !params.contains_key(REPOST_FIELD)
    {
        let cookies = ctx.cookies;
        let sent = [&cookies.state, &cookies.pkce_code_verifier, &cookies.nonce]
            .iter()
            .any(|spec| ctx.req.cookie(&spec.name).is_some());
        if !sent {
            let action = ctx.url.to_string();
            return Ok(repost_page(&action, &params));
        }
    }
    let checks = spend_checks(ctx);
    if let Some(error) = param("error") {
        let description = param("error_description").unwrap_or_default();
        return Err(callback_error(format!("the provider answered error={error} {description}"), None));
    }
    let (verifier, nonce) = verify_checks(ctx, p, &checks, param("state"))?;

    let code =
        param("code").filter(|c| !c.is_empty()).ok_or_else(|| callback_error("no code in the callback", None))?;
    let endpoints = oauth::endpoints(p).map_err(from_oauth)?;
    let redirect_uri = redirect_uri(ctx, provider, p);
    let tokens =
        oauth::exchange_code(p, &endpoints.token, &code, &redirect_uri, verifier.as_deref()).map_err(from_oauth)?;
    let granted =
        param("scopes").or_else(|| tokens.get("scope").and_then(Value::as_str).map(str::to_owned)).unwrap_or_default();
    let profile = load_profile(p, &endpoints, &tokens, nonce.as_deref(), &granted)?;
    let profile = p.behaviour.callback_profile(&params, profile);

    let user = super::register::SignInUser::from_provider(map_user(ctx, provider, p, &profile, &tokens)?).ok_or_else(
        || {
            AuthError::new(
                ErrorType::OAuthProfileParseError,
                format!("the {} profile has no user id (check profileMap.id)", provider.id),
            )
        },
    )?;
    // Proven only when the user's email (as mapped, or as the profile
    // function returned it) is the address the provider vouches for.
    let access_token = tokens.get("access_token").and_then(Value::as_str).unwrap_or_default();
    let proven = user.email.as_deref().is_some_and(|email| {
        p.behaviour
            .verified_email(p, &endpoints, access_token, &profile)
            .is_some_and(|vouched| crate::identity::same_address(&vouched, email))
    });
    let user = user.proven(proven);
    let account = oauth::account_from_tokens(&provider.id, provider.provider_type().as_str(), &user.id, &tokens);
    // Typed once here: a token response whose standard fields have the
    // wrong JSON types is a provider error, not something to store.
    let account: crate::store::AdapterAccount = serde_json::from_value(Value::Object(account)).map_err(|e| {
        AuthError::new(ErrorType::OAuthCallbackError, format!("the token response has unexpected field types: {e}"))
    })?;
    let kind = super::register::SignInKind::OAuth {
        allow_dangerous_email_account_linking: p.allow_dangerous_email_account_linking,
    };
    let profile = match profile {
        Value::Object(map) => Some(map),
        _ => None,
    };
    super::sign_in::complete_sign_in(ctx, kind, user, account, profile, Map::new(), None)
}

/// Redirect proxy: a callback for another deployment (its origin sealed in
/// the state with our shared secret) is forwarded there, but only to an
/// origin the deployer listed in `redirectProxyOrigins`: the sealed origin
/// came from that deployment's Host header, which a client chooses.
fn proxy_forward(ctx: &Ctx, p: &OAuthProvider, params: &Map<String, Value>) -> Option<String> {
    if !uses_proxy(ctx, p) {
        return None;
    }
    let state = params.get("state").and_then(Value::as_str)?;
    let origin = open(ctx, STATE_SALT, state)?.get("origin").and_then(Value::as_str).map(str::to_owned)?;
    let target = Url::parse(&origin).ok().filter(|t| t.origin().ascii_serialization() != ctx.origin)?;
    if !ctx.auth.settings.redirect_proxy_origins.iter().any(|allowed| allowed.matches(&target)) {
        ctx.auth.callbacks.logger.warn(
            ctx.auth.callbacks.host.as_ref(),
            "redirect-proxy",
            "a callback for an origin not listed in redirectProxyOrigins was not forwarded",
        );
        return None;
    }
    let query = url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(params.iter().filter_map(|(k, v)| Some((k.as_str(), v.as_str()?))))
        .finish();
    Some(format!("{}?{query}", target.as_str().split('?').next().unwrap_or_default()))
}

/// The check cookies this browser sent.
struct CheckCookies {
    state: Option<String>,
    pkce: Option<String>,
    nonce: Option<String>,
}

/// Read the check cookies and expire them: they are single-use, whatever
/// happens next.
fn spend_checks(ctx: &mut Ctx) -> CheckCookies {
    let cookies = ctx.cookies;
    let checks = CheckCookies {
        state: ctx.req.cookie(&cookies.state.name),
        pkce: ctx.req.cookie(&cookies.pkce_code_verifier.name),
        nonce: ctx.req.cookie(&cookies.nonce.name),
    };
    for (spec, present) in [
        (&cookies.state, checks.state.is_some()),
        (&cookies.pkce_code_verifier, checks.pkce.is_some()),
        (&cookies.nonce, checks.nonce.is_some()),
    ] {
        if present {
            ctx.set_cookies.push(SetCookie::expired(&spec.name, &spec.options));
        }
    }
    checks
}

/// State, PKCE and nonce: returns the PKCE verifier and the expected nonce.
fn verify_checks(
    ctx: &Ctx,
    p: &OAuthProvider,
    checks: &CheckCookies,
    state_param: Option<String>,
) -> Result<(Option<String>, Option<String>), AuthError> {
    let cookies = ctx.cookies;
    if p.checks.state || uses_proxy(ctx, p) {
        let given = state_param.ok_or_else(|| invalid_check("state missing from the callback"))?;
        let expected = checks.state.as_deref().ok_or_else(|| invalid_check("state cookie was missing"))?;
        if !bool::from(given.as_bytes().ct_eq(expected.as_bytes())) {
            return Err(invalid_check("state mismatch"));
        }
        if open(ctx, STATE_SALT, expected).is_none() {
            return Err(invalid_check("state value could not be parsed (expired or tampered)"));
        }
    }
    let sealed_value = |sealed: &Option<String>, salt: &str, what: &str| -> Result<String, AuthError> {
        let sealed = sealed.as_deref().ok_or_else(|| invalid_check(&format!("{what} cookie was missing")))?;
        let claims = open(ctx, salt, sealed).ok_or_else(|| invalid_check(&format!("{what} could not be parsed")))?;
        Ok(claims.get("value").and_then(Value::as_str).unwrap_or_default().to_owned())
    };
    let verifier = if p.checks.pkce {
        Some(sealed_value(&checks.pkce, &cookies.pkce_code_verifier.name, "PKCE code_verifier")?)
    } else {
        None
    };
    let nonce =
        if p.checks.nonce && p.oidc { Some(sealed_value(&checks.nonce, &cookies.nonce.name, "nonce")?) } else { None };
    Ok((verifier, nonce))
}

/// The profile: verified id_token claims (OIDC), and/or user info, then
/// whatever the provider's behaviour adds and checks.
fn load_profile(
    p: &OAuthProvider,
    endpoints: &oauth::Endpoints,
    tokens: &Map<String, Value>,
    nonce: Option<&str>,
    granted_scopes: &str,
) -> Result<Value, AuthError> {
    let mut profile = Value::Null;
    let access_token = tokens.get("access_token").and_then(Value::as_str).unwrap_or_default();
    if p.oidc && p.id_token {
        let id_token = tokens
            .get("id_token")
            .and_then(Value::as_str)
            .ok_or_else(|| from_oauth(OAuthError::IdToken("the token response has no id_token".into())))?;
        profile = Value::Object(oauth::verify_id_token(p, endpoints, id_token, nonce).map_err(from_oauth)?);
    }
    if profile.is_null() || p.userinfo_configured {
        if let Some(userinfo_url) = &endpoints.userinfo {
            let info = oauth::fetch_userinfo(p, userinfo_url, access_token, granted_scopes).map_err(from_oauth)?;
            profile = merge_userinfo(profile, info)?;
        }
    }
    let profile = p.behaviour.complete_profile(p, endpoints, access_token, profile).map_err(from_oauth)?;
    p.behaviour.check_profile(&profile).map_err(|m| AuthError::new(ErrorType::OAuthProfileParseError, m))?;
    Ok(profile)
}

/// The user a profile stands for: the host's `profile` function, or the
/// provider's profile map.
fn map_user(
    ctx: &Ctx,
    provider: &Provider,
    p: &OAuthProvider,
    profile: &Value,
    tokens: &Map<String, Value>,
) -> Result<Map<String, Value>, AuthError> {
    if !p.has_profile_hook {
        return Ok(p.map_profile(profile));
    }
    match ctx
        .auth
        .callbacks
        .host
        .call(&Hook::provider(&provider.id, "profile"), json!({ "profile": profile, "tokens": tokens }))
    {
        Ok(Value::Object(u)) => Ok(u),
        Ok(_) => Err(AuthError::new(ErrorType::OAuthProfileParseError, "the profile function must return an object")),
        Err(e) => Err(AuthError::from_host(e, ErrorType::OAuthProfileParseError)),
    }
}

/// OIDC: user info adds to the id_token claims, for the same `sub` only. A
/// response whose `sub` is missing or differs is not used at all (OpenID
/// Connect Core 5.3.2): the id_token's claims stand alone.
fn merge_userinfo(id_claims: Value, info: Value) -> Result<Value, AuthError> {
    match (id_claims, info) {
        (Value::Object(mut claims), Value::Object(info)) => {
            let same_subject = matches!((claims.get("sub"), info.get("sub")), (Some(a), Some(b)) if a == b);
            if same_subject {
                claims.extend(info);
            }
            Ok(Value::Object(claims))
        }
        (Value::Object(claims), _) => Ok(Value::Object(claims)),
        (_, info) => Ok(info),
    }
}
