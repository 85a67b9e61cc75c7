//! Request dispatch: parse the action from the path, run the route, and turn
//! any error into the response Auth.js v5 gives for it.

mod account;
mod callback;
mod email;
mod info;
mod limits;
mod oauth;
mod pages;
mod password;
mod register;
mod session;
mod sign_in;
mod signin;
mod signout;
mod trusted_device;
mod two_factor;
mod two_factor_setup;
mod user_sessions;
mod webauthn;

pub use password::PasswordAction;
pub(crate) use sign_in::FirstFactor;
pub(crate) use webauthn::passkey_json;

use serde_json::{json, Map, Value};
use url::Url;

use crate::cookies::{CookieSet, SetCookie};
use crate::error::{AuthError, ErrorPage, ErrorType};
use crate::http::{ActionOutcome, AuthRequest, AuthResponse};
use crate::Auth;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Providers,
    Session,
    Csrf,
    SignIn,
    SignOut,
    Callback,
    VerifyRequest,
    Error,
    /// `webauthn-options/<provider>`: passkey options (Auth.js).
    WebAuthnOptions,
    /// `passkeys`: the signed-in user's passkeys (libauth).
    Passkeys,
    /// `sessions`: the signed-in user's database sessions, listed and ended (libauth).
    Sessions,
    /// `webauthn.js`: the passkey browser module (libauth).
    WebAuthnScript,
    /// `password/<step>`: the password provider's pages and forms (libauth).
    Password,
    /// `account`: the signed-in user's account page (libauth).
    Account,
    /// `two-factor`: the second step of a sign-in; `two-factor/<step>`:
    /// turning a second factor on and off (libauth).
    TwoFactor,
}

impl Action {
    fn parse(s: &str) -> Option<Action> {
        Some(match s {
            "providers" => Action::Providers,
            "session" => Action::Session,
            "csrf" => Action::Csrf,
            "signin" => Action::SignIn,
            "signout" => Action::SignOut,
            "callback" => Action::Callback,
            "verify-request" => Action::VerifyRequest,
            "error" => Action::Error,
            "webauthn-options" => Action::WebAuthnOptions,
            "passkeys" => Action::Passkeys,
            "sessions" => Action::Sessions,
            "webauthn.js" => Action::WebAuthnScript,
            "password" => Action::Password,
            "two-factor" => Action::TwoFactor,
            "account" => Action::Account,
            _ => return None,
        })
    }

    fn is_html_page(self) -> bool {
        matches!(self, Action::SignIn | Action::SignOut | Action::Error | Action::VerifyRequest)
    }
}

/// What a route answers, before serialisation.
pub(crate) enum Reply {
    Json {
        status: u16,
        body: Value,
        no_store: bool,
    },
    Html {
        status: u16,
        html: String,
    },
    /// A page with its own Content-Security-Policy (one that allows the
    /// page's script by its hash).
    Page {
        status: u16,
        html: String,
        csp: String,
    },
    Redirect(String),
    /// A static script (`webauthn.js`).
    Script(&'static str),
    /// 429: JSON for API clients, the error page for browsers.
    Limited(crate::ratelimit::Limited),
}

impl Reply {
    pub fn json(body: Value) -> Reply {
        Reply::Json { status: 200, body, no_store: false }
    }
}

/// One request being handled.
pub(crate) struct Ctx<'a> {
    pub auth: &'a Auth,
    pub req: &'a AuthRequest,
    pub url: Url,
    /// The deployment's origin, e.g. `http://localhost:3000`.
    pub origin: String,
    pub action: Action,
    pub provider_id: Option<String>,
    pub cookies: &'a CookieSet,
    pub set_cookies: Vec<SetCookie>,
    body: Option<Map<String, Value>>,
    /// Set when a rate limit refused the request: the 429's details.
    pub limited: Option<crate::ratelimit::Limited>,
    /// Host code called the step ([`crate::Auth::sign_in`], a password
    /// action): a refused form is an error, not a page.
    pub server_action: bool,
}

impl<'a> Ctx<'a> {
    /// `{origin}{basePath}`: where our routes live.
    pub fn base_url(&self) -> String {
        format!("{}{}", self.origin, self.auth.settings.base_path)
    }

    /// Whether the client asked for JSON rather than a page (the Auth.js
    /// client's `X-Auth-Return-Redirect`, or JSON accepted or sent).
    pub fn wants_json(&self) -> bool {
        self.req.header("x-auth-return-redirect").is_some()
            || self.req.header("accept").is_some_and(|a| a.contains("application/json"))
            || self.req.header("content-type").is_some_and(|t| t.contains("application/json"))
    }

    pub fn query(&self, name: &str) -> Option<String> {
        self.url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned())
    }

    /// The messages in this request's language: the steps of
    /// `i18n.resolve`, then `i18n.defaultLocale` (see [`crate::i18n`]). The
    /// engine never sets the `locale` cookie; the host's own pages may.
    pub fn messages(&self) -> crate::i18n::Messages<'a> {
        self.requested_locale().unwrap_or_else(|| self.auth.settings.i18n.default_messages())
    }

    /// The locale this request asks for, if it names one that is offered
    /// (the steps of `i18n.resolve`, the signed-in user's stored locale
    /// among them).
    pub fn requested_locale(&self) -> Option<crate::i18n::Messages<'a>> {
        let auth: &'a Auth = self.auth;
        let query = self.query("locale");
        let ui_locales = self.query("ui_locales");
        let cookie = self.req.cookie(crate::i18n::LOCALE_COOKIE);
        let inputs = crate::i18n::LocaleInputs {
            query: query.as_deref(),
            cookie: cookie.as_deref(),
            ui_locales: ui_locales.as_deref(),
            accept_language: self.req.header("accept-language"),
        };
        auth.settings.i18n.resolve(&inputs, || self.user_locale())
    }

    /// The signed-in user's stored locale: the user record's `locale` (a
    /// database session; the adapter's), or the session token's `locale`
    /// claim (a JWT session; set by the `jwt` callback). No callback runs:
    /// the page reads the session as the `passkeys` route does. A session
    /// that cannot be read (none, expired, a database error) gives none.
    fn user_locale(&self) -> Option<String> {
        let jar = crate::cookies::ChunkedCookie::read(&self.cookies.session_token, self.req);
        let raw = jar.value()?;
        match self.auth.settings.strategy {
            crate::config::SessionStrategy::Database => {
                let db = self.auth.stores.data()?;
                let (session, user) = db.session_and_user(&crate::session::stored_session_token(raw)).ok().flatten()?;
                (session.expires > crate::time::now_millis() as i64).then_some(user.locale).flatten()
            }
            crate::config::SessionStrategy::Jwt => {
                let token = self.auth.decode_session_token(raw, &self.cookies.session_token.name).ok().flatten()?;
                token.get("locale").and_then(Value::as_str).map(str::to_owned)
            }
        }
    }

    /// The offered locale this request's `locale` query parameter names
    /// (its tag as the engine writes it), if any: the language a visitor
    /// picked explicitly, kept on the way through the engine's own pages.
    pub fn explicit_locale(&self) -> Option<&'a str> {
        let query = self.query("locale")?;
        self.auth.settings.i18n.requested(Some(&query), None, None).map(|m| m.tag())
    }

    /// `url` (one of the engine's own pages or routes) with this request's
    /// explicit locale added as `locale=<tag>`; unchanged when the request
    /// named none. The tag is from the allow-list, never the request's text.
    pub fn with_locale(&self, url: String) -> String {
        match self.explicit_locale() {
            Some(tag) => {
                let sep = if url.contains('?') { '&' } else { '?' };
                format!("{url}{sep}locale={tag}")
            }
            None => url,
        }
    }

    pub fn body(&mut self) -> &Map<String, Value> {
        if self.body.is_none() {
            self.body = Some(self.req.body_params());
        }
        self.body.as_ref().unwrap()
    }

    pub fn body_str(&mut self, name: &str) -> Option<String> {
        self.body().get(name).and_then(Value::as_str).map(str::to_owned)
    }

    /// The callback URL for this request: the `callbackUrl` parameter (body,
    /// then query), else the callback-url cookie, else the origin; always
    /// through the redirect callback. Remembered in its cookie.
    pub fn callback_url(&mut self) -> String {
        let param = self.body_str("callbackUrl").or_else(|| self.query("callbackUrl"));
        let cookie = self.req.cookie(&self.cookies.callback_url.name);
        let callbacks = &self.auth.callbacks;
        let url = match (&param, &cookie) {
            (Some(p), _) if !p.is_empty() => callbacks.redirect(p, &self.origin),
            (_, Some(c)) if !c.is_empty() => callbacks.redirect(c, &self.origin),
            _ => self.origin.clone(),
        };
        if cookie.as_deref() != Some(url.as_str()) {
            self.set_cookies.push(SetCookie::new(&self.cookies.callback_url, url.clone()));
        }
        url
    }

    /// The CSRF token for a page or the `csrf` route: the one in a valid
    /// cookie, or a new one (and its cookie).
    pub fn csrf_token(&mut self) -> String {
        if let Some(cookie) = self.req.cookie(&self.cookies.csrf_token.name) {
            if let Some(token) = self.auth.csrf.token_from_cookie(&cookie) {
                return token.to_owned();
            }
        }
        let (token, cookie) = self.auth.csrf.mint();
        self.set_cookies.push(SetCookie::new(&self.cookies.csrf_token, cookie));
        token
    }

    /// Double-submit check of a state-changing POST.
    pub fn require_csrf(&mut self) -> Result<(), AuthError> {
        let cookie = self.req.cookie(&self.cookies.csrf_token.name);
        let given = self.body_str("csrfToken");
        if self.auth.csrf.verify(cookie.as_deref(), given.as_deref()) {
            Ok(())
        } else {
            Err(AuthError::new(ErrorType::MissingCSRF, "CSRF token was missing or invalid"))
        }
    }

    pub fn provider(&self) -> Result<&'a crate::providers::Provider, AuthError> {
        let id = self.provider_id.as_deref().unwrap_or_default();
        self.auth.providers.get(id).ok_or_else(|| {
            AuthError::new(ErrorType::InvalidProviderType, format!("no provider with id {id:?} is configured"))
        })
    }
}

/// The messages for a request answered before it reached a route (an
/// overloaded engine, a refused host): its locale from what the request
/// itself carries (the signed-in user's is not read: no I/O), else the
/// default.
pub(crate) fn request_messages<'a>(auth: &'a Auth, req: &AuthRequest) -> crate::i18n::Messages<'a> {
    let url = crate::http::checked_request_url(req);
    let param = |name: &str| url.as_ref()?.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    let (query, ui_locales) = (param("locale"), param("ui_locales"));
    let cookie = req.cookie(crate::i18n::LOCALE_COOKIE);
    let inputs = crate::i18n::LocaleInputs {
        query: query.as_deref(),
        cookie: cookie.as_deref(),
        ui_locales: ui_locales.as_deref(),
        accept_language: req.header("accept-language"),
    };
    auth.settings.i18n.resolve(&inputs, || None).unwrap_or_else(|| auth.settings.i18n.default_messages())
}

impl<'a> Ctx<'a> {
    fn new(
        auth: &'a Auth,
        req: &'a AuthRequest,
        url: Url,
        action: Action,
        provider_id: Option<String>,
        body: Option<Map<String, Value>>,
    ) -> Ctx<'a> {
        let origin = match &auth.settings.canonical_url {
            Some(canonical) => canonical.origin().ascii_serialization(),
            None => url.origin().ascii_serialization(),
        };
        let cookies = auth.cookies_for_url(&req.url);
        Ctx {
            auth,
            req,
            url,
            origin,
            action,
            provider_id,
            cookies,
            set_cookies: Vec::new(),
            body,
            limited: None,
            server_action: false,
        }
    }
}

/// With neither `trustHost` nor a canonical URL, the request's own host
/// can't be the deployment's origin.
fn untrusted_host(ctx: &Ctx) -> Option<AuthError> {
    if ctx.auth.settings.canonical_url.is_some() || ctx.auth.settings.trust_host {
        return None;
    }
    let host = ctx.url.host_str().unwrap_or_default();
    Some(AuthError::new(
        ErrorType::UntrustedHost,
        format!(
            "Host must be trusted. URL was: {}://{host}. Set `trustHost: true`, AUTH_TRUST_HOST=true or AUTH_URL",
            ctx.url.scheme()
        ),
    ))
}

/// A sign-in called from host code (a form action): the route's work after
/// its CSRF check (the host's own form protection stands in for it), with
/// `fields` as the submitted body. A refusal is the typed error the route
/// would have put in its redirect URL.
pub(crate) fn sign_in_action(
    auth: &Auth,
    provider_id: &str,
    mut fields: Map<String, Value>,
    req: &AuthRequest,
) -> Result<ActionOutcome, AuthError> {
    // Auth.js's server-side signIn names the target `redirectTo`.
    if !fields.contains_key("callbackUrl") {
        if let Some(target) = fields.get("redirectTo").cloned() {
            fields.insert("callbackUrl".into(), target);
        }
    }
    let provider_id = (!provider_id.is_empty()).then(|| provider_id.to_owned());
    let mut ctx = action_ctx(auth, req, Action::SignIn, provider_id, fields)?;
    let result = match ctx.provider_id {
        None => Ok(Reply::Redirect(ctx.with_locale(format!("{}/signin", ctx.base_url())))),
        Some(_) => ctx.provider().and_then(|provider| signin::begin(&mut ctx, provider)),
    };
    action_outcome(&ctx, result)
}

/// A password-account step called from host code (sign-up, a reset link
/// asked for or used, a change, a deletion): the route's work after its
/// CSRF check. A refused form is its typed error (`PasswordRefused`,
/// `InvalidEmail`, `CredentialsSignin`).
pub(crate) fn password_action(
    auth: &Auth,
    action: password::PasswordAction,
    fields: Map<String, Value>,
    req: &AuthRequest,
) -> Result<ActionOutcome, AuthError> {
    let mut ctx = action_ctx(auth, req, Action::Password, Some(action.step().path().to_owned()), fields)?;
    let result = password::run_action(&mut ctx);
    action_outcome(&ctx, result)
}

/// A sign-out called from host code: the route's work after its CSRF check.
pub(crate) fn sign_out_action(auth: &Auth, req: &AuthRequest) -> Result<ActionOutcome, AuthError> {
    let mut ctx = action_ctx(auth, req, Action::SignOut, None, Map::new())?;
    let result = signout::end_session(&mut ctx);
    action_outcome(&ctx, result)
}

fn action_ctx<'a>(
    auth: &'a Auth,
    req: &'a AuthRequest,
    action: Action,
    provider_id: Option<String>,
    fields: Map<String, Value>,
) -> Result<Ctx<'a>, AuthError> {
    let url = crate::http::checked_request_url(req).ok_or_else(|| {
        let error = AuthError::new(
            ErrorType::InvalidCallbackUrl,
            "the request URL is not an absolute http(s) URL with a valid host[:port]",
        );
        auth.callbacks.log(&error);
        error
    })?;
    let mut ctx = Ctx::new(auth, req, url, action, provider_id, Some(fields));
    ctx.server_action = true;
    let refusal = untrusted_host(&ctx).or_else(|| cross_site_action(&ctx));
    if let Some(error) = refusal {
        auth.callbacks.log(&error);
        return Err(error);
    }
    Ok(ctx)
}

/// A server-side sign-in or sign-out runs inside the host's own route, with
/// no CSRF token of ours: a browser on another site could submit a form to
/// that route and sign the victim in as the attacker (login CSRF) or out.
/// Browsers say where a request comes from: `Origin` on every POST (and on
/// cross-origin requests of any method), `Sec-Fetch-Site` on all of them.
/// A request naming another origin, or `Sec-Fetch-Site: cross-site`, is
/// refused; one with neither header (server-to-server, old clients) is left
/// to the host's own form protection.
fn cross_site_action(ctx: &Ctx) -> Option<AuthError> {
    let refuse = |why: String| {
        Some(AuthError::new(ErrorType::MissingCSRF, format!("a server-side sign-in or sign-out was refused: {why}")))
    };
    if let Some(site) = ctx.req.header("sec-fetch-site") {
        if site.trim().eq_ignore_ascii_case("cross-site") {
            return refuse("the browser says the request comes from another site (Sec-Fetch-Site: cross-site)".into());
        }
    }
    let origin = ctx.req.header("origin")?.trim();
    if origin.eq_ignore_ascii_case(&ctx.origin) {
        return None;
    }
    // `null` (a sandboxed frame, a redirect across origins) is no origin of ours.
    let shown: String = origin.chars().take(100).filter(|c| !c.is_control()).collect();
    refuse(format!("its Origin {shown:?} is not {}", ctx.origin))
}

fn action_outcome(ctx: &Ctx, result: Result<Reply, AuthError>) -> Result<ActionOutcome, AuthError> {
    match result {
        Ok(Reply::Redirect(redirect)) => {
            Ok(ActionOutcome { redirect, set_cookies: ctx.set_cookies.iter().map(SetCookie::to_header).collect() })
        }
        Ok(_) => Err(AuthError::new(ErrorType::UnknownAction, "the action answered with a page, not a redirect")),
        // A refused form is the user's mistake, not a server error.
        Err(error)
            if matches!(
                error.error_type,
                ErrorType::PasswordRefused | ErrorType::InvalidEmail | ErrorType::CredentialsSignin
            ) =>
        {
            let logger = &ctx.auth.callbacks.logger;
            logger.warn(ctx.auth.callbacks.host.as_ref(), error.error_type.as_str(), "a server-side step was refused");
            Err(error)
        }
        Err(error) => {
            ctx.auth.callbacks.log(&error);
            Err(error)
        }
    }
}

/// A request read once: the answer to one that names no route (wrong
/// method, body too large, a bad URL or Host, no such route), or its route.
pub(crate) enum Target {
    Answer(AuthResponse),
    Route { url: Url, action: Action, provider_id: Option<String>, is_post: bool },
}

/// Read the request's target: the one parse of its URL every decision uses.
pub(crate) fn target(auth: &Auth, req: &AuthRequest) -> Target {
    let is_post = req.method.eq_ignore_ascii_case("POST");
    if !is_post && !req.method.eq_ignore_ascii_case("GET") {
        return Target::Answer(bad_request());
    }
    if req.body.as_ref().is_some_and(|b| b.len() > crate::http::MAX_BODY_BYTES) {
        return Target::Answer(payload_too_large());
    }
    let Some(url) = crate::http::checked_request_url(req) else { return Target::Answer(bad_request()) };
    let Some((action, provider_id)) = parse_action(url.path(), &auth.settings.base_path) else {
        return Target::Answer(bad_request());
    };
    Target::Route { url, action, provider_id, is_post }
}

pub(crate) fn handle(auth: &Auth, req: &AuthRequest) -> AuthResponse {
    handle_target(auth, req, target(auth, req))
}

pub(crate) fn handle_target(auth: &Auth, req: &AuthRequest, target: Target) -> AuthResponse {
    let (url, action, provider_id, is_post) = match target {
        Target::Answer(res) => return res,
        Target::Route { url, action, provider_id, is_post } => (url, action, provider_id, is_post),
    };
    let mut ctx = Ctx::new(auth, req, url, action, provider_id, None);
    if let Some(error) = untrusted_host(&ctx) {
        auth.callbacks.log(&error);
        return configuration_error(&mut ctx, is_post);
    }

    auth.callbacks.logger.debug(
        auth.callbacks.host.as_ref(),
        "handling request",
        || json!({ "method": req.method, "action": format!("{action:?}"), "providerId": ctx.provider_id }),
    );
    let result = if is_post { dispatch_post(&mut ctx) } else { dispatch_get(&mut ctx) };
    let reply = match result {
        Ok(reply) => reply,
        Err(error) if error.error_type == ErrorType::RateLimited && ctx.limited.is_some() => {
            ctx.auth.callbacks.logger.warn(ctx.auth.callbacks.host.as_ref(), "RateLimited", &error.message);
            Reply::Limited(ctx.limited.take().expect("checked"))
        }
        // The database's connections are all busy: a moment later the same
        // request may succeed, so say that (503, Retry-After) rather than
        // send the user to the error page or sign them out.
        Err(error) if error.error_type == ErrorType::Overloaded => {
            // A session read logged it already, where it failed.
            if ctx.action != Action::Session {
                auth.callbacks.log(&error);
            }
            return overloaded_response(&ctx.messages());
        }
        Err(error) => error_reply(&mut ctx, error, is_post),
    };
    finish(&ctx, reply)
}

fn dispatch_get(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    match ctx.action {
        Action::Providers => Ok(info::providers(ctx)),
        Action::Csrf => Ok(info::csrf(ctx)),
        Action::Session => session::get(ctx),
        Action::SignIn => pages::signin(ctx),
        Action::SignOut => Ok(pages::signout(ctx)),
        Action::Error => Ok(pages::error(ctx)),
        Action::VerifyRequest => Ok(pages::verify_request(ctx)),
        Action::Callback => callback::handle(ctx),
        Action::WebAuthnOptions => webauthn::options(ctx),
        Action::Passkeys => webauthn::list(ctx),
        Action::Sessions => user_sessions::list(ctx),
        Action::WebAuthnScript => Ok(Reply::Script(crate::pages::WEBAUTHN_MODULE)),
        Action::Password => password::get(ctx),
        Action::Account => account::get(ctx, None),
        Action::TwoFactor => match ctx.provider_id.as_deref().map(two_factor_setup::SetupStep::parse) {
            None => two_factor::page(ctx),
            Some(Some(_)) => Ok(Reply::Redirect(account::url(ctx))),
            Some(None) => Err(unknown_two_factor_step()),
        },
    }
}

fn dispatch_post(ctx: &mut Ctx) -> Result<Reply, AuthError> {
    match ctx.action {
        Action::Session => session::update(ctx),
        Action::SignIn => signin::start(ctx),
        Action::SignOut => signout::handle(ctx),
        Action::Callback => callback::handle(ctx),
        Action::Passkeys => {
            ctx.require_csrf()?;
            webauthn::manage(ctx)
        }
        Action::Sessions => {
            ctx.require_csrf()?;
            user_sessions::manage(ctx)
        }
        Action::Password => password::post(ctx),
        Action::TwoFactor => match ctx.provider_id.clone().map(|step| two_factor_setup::SetupStep::parse(&step)) {
            None => two_factor::verify(ctx),
            Some(Some(step)) => two_factor_setup::post(ctx, step),
            Some(None) => Err(unknown_two_factor_step()),
        },
        _ => Err(AuthError::new(ErrorType::UnknownAction, format!("Cannot handle POST {:?}", ctx.action))),
    }
}

fn unknown_two_factor_step() -> AuthError {
    AuthError::new(ErrorType::UnknownAction, "no such two-factor step; see two-factor/setup, recovery-codes, disable")
}

/// The one parser of auth routes: `{basePath}/<action>[/<providerId>]`,
/// as Auth.js routes them; `None` for anything else. Bindings use it through [`crate::Auth::route`].
pub(crate) fn parse_action(path: &str, base_path: &str) -> Option<(Action, Option<String>)> {
    let rest = path.strip_prefix(base_path)?;
    if !rest.is_empty() && !rest.starts_with('/') {
        return None;
    }
    let mut parts = rest.split('/').filter(|s| !s.is_empty());
    let action = Action::parse(parts.next()?)?;
    let provider = parts.next().map(|p| crate::http::percent_decode(p).into_owned());
    if parts.next().is_some() {
        return None;
    }
    if provider.is_some()
        && !matches!(
            action,
            Action::SignIn | Action::Callback | Action::WebAuthnOptions | Action::Password | Action::TwoFactor
        )
    {
        return None;
    }
    Some((action, provider))
}

/// Where an error sends the user (Auth.js v5): sign-in errors back to the
/// sign-in page, the rest to the error page, with `error=<type>` (only
/// client-safe types; others read `Configuration`) and `code` for
/// `CredentialsSignin`. A failed session update answers 400 `null`.
fn error_reply(ctx: &mut Ctx, error: AuthError, is_post: bool) -> Reply {
    if error.error_type == ErrorType::CredentialsSignin {
        // A refused password is an everyday event, not a server error: one
        // warning a deployer can filter, never an empty error line.
        let detail = if error.message.is_empty() || error.message == "CredentialsSignin" {
            String::new()
        } else {
            format!(": {}", error.message)
        };
        let code = error.code.as_deref().unwrap_or("credentials");
        ctx.auth.callbacks.logger.warn(
            ctx.auth.callbacks.host.as_ref(),
            "CredentialsSignin",
            &format!("a credentials sign-in was refused (code {code}){detail}"),
        );
    } else {
        ctx.auth.callbacks.log(&error);
    }
    if is_post && ctx.action == Action::Session {
        return Reply::Json { status: 400, body: Value::Null, no_store: false };
    }
    let error_type = error.error_type;
    let shown = if error_type.is_client_safe() { error_type.as_str() } else { "Configuration" };
    let mut params = url::form_urlencoded::Serializer::new(String::new());
    params.append_pair("error", shown);
    if let Some(code) = error.code.as_deref().filter(|_| error_type == ErrorType::CredentialsSignin) {
        params.append_pair("code", code);
    }
    let params = params.finish();
    let pages = &ctx.auth.settings.pages;
    let (custom, builtin) = match error_type.page() {
        ErrorPage::SignIn => (&pages.sign_in, "signin"),
        ErrorPage::Error => (&pages.error, "error"),
    };
    let target = match custom {
        Some(page) => page_url(&ctx.origin, page),
        None => format!("{}/{builtin}", ctx.base_url()),
    };
    let sep = if target.contains('?') { '&' } else { '?' };
    let location = format!("{target}{sep}{params}");
    // Back on a built-in page, a language the visitor picked with
    // `?locale` stays (a host's own page is left to the host).
    match custom {
        Some(_) => Reply::Redirect(location),
        None => Reply::Redirect(ctx.with_locale(location)),
    }
}

/// A custom page URL: absolute as given, or a path on our origin.
pub(crate) fn page_url(origin: &str, page: &str) -> String {
    if page.starts_with('/') {
        format!("{origin}{page}")
    } else {
        page.to_owned()
    }
}

/// Configuration problems found per request (an untrusted host): HTML
/// routes show the error page, the API answers 500 JSON.
fn configuration_error(ctx: &mut Ctx, is_post: bool) -> AuthResponse {
    if is_post || !ctx.action.is_html_page() {
        return server_error_json(&ctx.messages());
    }
    let reply = match &ctx.auth.settings.pages.error {
        Some(page) => Reply::Redirect(format!("{}?error=Configuration", page_url(&ctx.origin, page))),
        None => pages::render_error(ctx, "Configuration"),
    };
    finish(ctx, reply)
}

/// 500 `{ message }`, the message in the request's language (`messages`;
/// English, Auth.js's text, by default).
pub(crate) fn server_error_json(messages: &crate::i18n::Messages<'_>) -> AuthResponse {
    let body = json!({ "message": messages.text("api-configuration") });
    AuthResponse {
        status: 500,
        headers: vec![("content-type".into(), "application/json".into())],
        body: body.to_string().into_bytes(),
    }
}

/// 503 with `Retry-After`, the message in the request's language.
pub(crate) fn overloaded_response(messages: &crate::i18n::Messages<'_>) -> AuthResponse {
    let body = json!({ "message": messages.text("api-overloaded") });
    AuthResponse {
        status: 503,
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("retry-after".into(), "1".into()),
            ("cache-control".into(), "no-store".into()),
        ],
        body: body.to_string().into_bytes(),
    }
}

fn payload_too_large() -> AuthResponse {
    let body = json!({ "message": format!("The request body is larger than {} bytes.", crate::http::MAX_BODY_BYTES) });
    AuthResponse {
        status: 413,
        headers: vec![("content-type".into(), "application/json".into())],
        body: body.to_string().into_bytes(),
    }
}

fn bad_request() -> AuthResponse {
    AuthResponse {
        status: 400,
        headers: vec![("content-type".into(), "application/json".into())],
        body: br#""Bad request.""#.to_vec(),
    }
}

/// Serialise a reply. With `X-Auth-Return-Redirect` (sent by the Auth.js
/// browser client) a redirect becomes `200 {"url": …}`.
/// Headers on every built-in page: no script runs (the pages have none),
/// styles are the page's own inline block, images may come from a provider
/// logo; the page cannot be framed (clickjacking), leaks no URL in
/// `Referer`, and is never cached (it may carry a CSRF token). No
/// `form-action`: browsers apply it to the redirect to the provider too.
const HTML_SECURITY_HEADERS: &[(&str, &str)] = &[
    (
        "content-security-policy",
        "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; base-uri 'none'; frame-ancestors 'none'",
    ),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
    ("cache-control", "no-store"),
    ("x-content-type-options", "nosniff"),
];

fn finish(ctx: &Ctx, reply: Reply) -> AuthResponse {
    let mut headers: Vec<(String, String)> = Vec::with_capacity(ctx.set_cookies.len() + 4);
    let (status, body) = match reply {
        Reply::Json { status, body, no_store } => {
            headers.push(("content-type".into(), "application/json".into()));
            if no_store {
                headers.push(("cache-control".into(), "private, no-cache, no-store".into()));
                headers.push(("expires".into(), "0".into()));
                headers.push(("pragma".into(), "no-cache".into()));
            }
            (status, serde_json::to_vec(&body).unwrap_or_else(|_| b"null".to_vec()))
        }
        Reply::Html { status, html } => {
            headers.push(("content-type".into(), "text/html; charset=utf-8".into()));
            headers.extend(HTML_SECURITY_HEADERS.iter().map(|(k, v)| ((*k).into(), (*v).into())));
            (status, html.into_bytes())
        }
        Reply::Page { status, html, csp } => {
            headers.push(("content-type".into(), "text/html; charset=utf-8".into()));
            headers.push(("content-security-policy".into(), csp));
            headers.extend(
                HTML_SECURITY_HEADERS
                    .iter()
                    .filter(|(k, _)| *k != "content-security-policy")
                    .map(|(k, v)| ((*k).into(), (*v).into())),
            );
            (status, html.into_bytes())
        }
        Reply::Script(source) => {
            headers.push(("content-type".into(), "text/javascript; charset=utf-8".into()));
            headers.push(("cache-control".into(), "public, max-age=3600".into()));
            headers.push(("x-content-type-options".into(), "nosniff".into()));
            (200, source.as_bytes().to_vec())
        }
        Reply::Limited(limited) => {
            headers.extend(limited.headers());
            if ctx.wants_json() {
                headers.push(("content-type".into(), "application/json".into()));
                let body = json!({ "error": "RateLimited", "message": ctx.messages().text("api-rate-limited"),
                                   "retryAfter": limited.retry_after.as_secs().max(1) });
                (429, body.to_string().into_bytes())
            } else {
                let Reply::Html { html, .. } = pages::render_error(ctx, "RateLimited") else {
                    unreachable!("the built-in error page is HTML")
                };
                headers.push(("content-type".into(), "text/html; charset=utf-8".into()));
                headers.extend(HTML_SECURITY_HEADERS.iter().map(|(k, v)| ((*k).into(), (*v).into())));
                (429, html.into_bytes())
            }
        }
        Reply::Redirect(location) => {
            if ctx.req.header("x-auth-return-redirect").is_some() {
                headers.push(("content-type".into(), "application/json".into()));
                (200, json!({ "url": location }).to_string().into_bytes())
            } else {
                headers.push(("location".into(), location));
                (302, Vec::new())
            }
        }
    };
    for cookie in &ctx.set_cookies {
        headers.push(("set-cookie".into(), cookie.to_header()));
    }
    AuthResponse { status, headers, body }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actions_parse_like_authjs() {
        assert_eq!(parse_action("/auth/session", "/auth"), Some((Action::Session, None)));
        assert_eq!(parse_action("/auth/signin/github", "/auth"), Some((Action::SignIn, Some("github".into()))));
        assert_eq!(
            parse_action("/auth/callback/credentials/", "/auth"),
            Some((Action::Callback, Some("credentials".into())))
        );
        assert_eq!(parse_action("/auth/session/x", "/auth"), None);
        assert_eq!(parse_action("/auth/nope", "/auth"), None);
        assert_eq!(parse_action("/auth", "/auth"), None);
        assert_eq!(parse_action("/authx/session", "/auth"), None);
        assert_eq!(parse_action("/auth/signin/a/b", "/auth"), None);
        assert_eq!(parse_action("/api/auth/csrf", "/api/auth"), Some((Action::Csrf, None)));
    }
}
