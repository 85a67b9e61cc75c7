//! The configuration object, as JSON with Auth.js's
//! option names, its defaults and environment fallbacks, and its validation.
//! Functions (callbacks, events, authorize, a host adapter, a logger) are not
//! part of this JSON: bindings register them as [`crate::Host`] hooks.

use serde::Deserialize;
use serde_json::{Map, Value};
use url::Url;

use crate::error::ConfigError;

pub const DEFAULT_BASE_PATH: &str = "/auth";
pub const DEFAULT_SESSION_MAX_AGE: u64 = 30 * 24 * 60 * 60;
pub const DEFAULT_SESSION_UPDATE_AGE: u64 = 24 * 60 * 60;
pub const MIN_SECRET_LENGTH: usize = 32;

/// Top-level option names. Used to name an unknown option in the error.
const KNOWN_OPTIONS: &[&str] = &[
    "providers",
    "adapter",
    "basePath",
    "callbacks",
    "events",
    "cookies",
    "debug",
    "encryptTokens",
    "experimental",
    "forwardedHeader",
    "hooks",
    "i18n",
    "jwt",
    "logger",
    "pages",
    "rateLimit",
    "raw",
    "redirectProxyOrigins",
    "redirectProxyUrl",
    "secondaryStorage",
    "secret",
    "session",
    "skipCSRFCheck",
    "theme",
    "tokenRefresh",
    "trustedProxies",
    "trustHost",
    "twoFactor",
    "useSecureCookies",
    "url",
];

/// The configuration as the host gives it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    /// Provider configurations; each is parsed by its type's module.
    #[serde(default)]
    pub providers: Vec<Value>,
    /// A built-in adapter (`{ "type": "sqlite", "path": … }`) or
    /// `{ "type": "host" }` for one implemented through `adapter.*` hooks.
    #[serde(default)]
    pub adapter: Option<Value>,
    #[serde(default)]
    pub base_path: Option<String>,
    #[serde(default)]
    pub cookies: CookiesConfig,
    #[serde(default)]
    pub debug: bool,
    /// Store provider access, refresh and id tokens encrypted (with a key
    /// derived from the secret) instead of in plain text.
    #[serde(default)]
    pub encrypt_tokens: bool,
    #[serde(default)]
    pub experimental: Experimental,
    #[serde(default)]
    pub hooks: HooksConfig,
    /// The built-in pages' and emails' language (see [`crate::i18n`]).
    #[serde(default)]
    pub i18n: crate::i18n::I18nConfig,
    #[serde(default)]
    pub jwt: JwtConfig,
    #[serde(default)]
    pub pages: Pages,
    #[serde(default)]
    pub redirect_proxy_url: Option<String>,
    /// Origins the redirect proxy may forward a callback to (each
    /// `https://preview.example.com`, or `https://*.example.com` for any
    /// one subdomain). Without a list, nothing is forwarded.
    #[serde(default)]
    pub redirect_proxy_origins: Option<Vec<String>>,
    /// Sessions and verification tokens kept apart from the adapter:
    /// `{ "type": "redis", "url": "redis://…" }` (see
    /// [`crate::store::redis`]).
    #[serde(default)]
    pub secondary_storage: Option<Value>,
    #[serde(default)]
    pub secret: Option<Secret>,
    #[serde(default)]
    pub session: SessionConfig,
    #[serde(default)]
    pub theme: Theme,
    #[serde(default)]
    pub trust_host: Option<bool>,
    #[serde(default)]
    pub use_secure_cookies: Option<bool>,
    /// Rate limits (see [`crate::ratelimit`]): absent for the defaults,
    /// `false` for none, or `{ window, max, credentials, email, callback, passkey }`.
    #[serde(default)]
    pub rate_limit: Option<Value>,
    #[serde(default)]
    pub token_refresh: TokenRefreshConfig,
    /// Second factors: `{ issuer?, totp?: { algorithm?, digits?, period? } }`
    /// (see [`crate::user_two_factor`]).
    #[serde(default)]
    pub two_factor: Option<Value>,
    /// Proxies whose `X-Forwarded-For` / `Forwarded` is believed (CIDR
    /// ranges or addresses); none by default.
    #[serde(default)]
    pub trusted_proxies: Vec<String>,
    /// The one header the trusted proxies write the client's address in:
    /// `"x-forwarded-for"` (the default) or `"forwarded"` (RFC 7239). The
    /// other is ignored. Checked when the engine is built.
    #[serde(default)]
    pub forwarded_header: Option<Value>,
    /// The deployment's canonical URL; `AUTH_URL` when absent.
    #[serde(default)]
    pub url: Option<String>,
}

#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum Secret {
    One(String),
    Many(Vec<String>),
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Experimental {
    #[serde(default)]
    pub enable_web_authn: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JwtConfig {
    /// Lifetime of the session JWT; defaults to `session.maxAge`.
    #[serde(default)]
    pub max_age: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SessionStrategy {
    Jwt,
    Database,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionConfig {
    #[serde(default)]
    pub strategy: Option<SessionStrategy>,
    #[serde(default)]
    pub max_age: Option<u64>,
    #[serde(default)]
    pub update_age: Option<u64>,
    /// The cache of decrypted JWT session cookies: absent or `true` for the
    /// defaults, `false` for none, `{ maxEntries, maxBytes }` (see
    /// [`crate::session_cache`]).
    #[serde(default)]
    pub cache: Option<Value>,
    /// Ending JWT sessions before they expire: absent for on wherever the
    /// store can keep sign-out times, `false` for never, `true` or
    /// `{ interval, maxUsers }` (see [`crate::sign_outs`]).
    #[serde(default)]
    pub revocation_check: Option<Value>,
}

/// How the engine waits for host code (`hooks` option): every hook call has
/// a deadline, and the number of requests in flight that may call host code
/// is bounded (past it, new ones are answered 503 at once).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HooksConfig {
    /// Seconds a hook call may take (default 30).
    pub timeout: Option<f64>,
    /// Per-hook deadlines in seconds, by hook name (`"callbacks.jwt": 2`).
    #[serde(default)]
    pub timeouts: std::collections::BTreeMap<String, f64>,
    /// Requests that need host code, in flight at once (default 1024).
    pub max_in_flight: Option<usize>,
}

/// `tokenRefresh`: when `get_access_token` refreshes a stored access token.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TokenRefreshConfig {
    /// Refresh a token that expires within this many seconds (default 60).
    pub skew: Option<u64>,
    /// How long a call waits for a refresh another call (or process) is
    /// doing, in seconds (default 10).
    pub wait: Option<u64>,
}

/// Custom page URLs replacing the built-in pages.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Pages {
    pub sign_in: Option<String>,
    pub sign_out: Option<String>,
    pub error: Option<String>,
    pub verify_request: Option<String>,
    pub new_user: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ColorScheme {
    #[default]
    Auto,
    Dark,
    Light,
}

impl ColorScheme {
    pub fn as_str(self) -> &'static str {
        match self {
            ColorScheme::Auto => "auto",
            ColorScheme::Dark => "dark",
            ColorScheme::Light => "light",
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Theme {
    #[serde(default)]
    pub color_scheme: ColorScheme,
    pub logo: Option<String>,
    pub brand_color: Option<String>,
    pub button_text: Option<String>,
}

/// Overrides of the default cookies (the `cookies` option).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CookiesConfig {
    pub session_token: Option<CookieOverride>,
    pub callback_url: Option<CookieOverride>,
    pub csrf_token: Option<CookieOverride>,
    pub pkce_code_verifier: Option<CookieOverride>,
    pub state: Option<CookieOverride>,
    pub nonce: Option<CookieOverride>,
    pub webauthn_challenge: Option<CookieOverride>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CookieOverride {
    pub name: Option<String>,
    #[serde(default)]
    pub options: CookieOptionsOverride,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CookieOptionsOverride {
    pub http_only: Option<bool>,
    pub same_site: Option<String>,
    pub path: Option<String>,
    pub secure: Option<bool>,
    pub domain: Option<String>,
    pub max_age: Option<u64>,
}

impl Config {
    /// Parse the JSON form of the configuration. An unknown top-level option
    /// or a value of the wrong type is refused with the option's name.
    pub fn from_json(json: &str) -> Result<Config, ConfigError> {
        let value: Value =
            serde_json::from_str(json).map_err(|e| ConfigError::new("config", format!("not valid JSON: {e}")))?;
        Config::from_value(value)
    }

    pub fn from_value(value: Value) -> Result<Config, ConfigError> {
        let Value::Object(map) = value else {
            return Err(ConfigError::new("config", "must be an object"));
        };
        for key in map.keys() {
            if !KNOWN_OPTIONS.contains(&key.as_str()) {
                return Err(ConfigError::new(
                    key.clone(),
                    format!("unknown option; known options are: {}", KNOWN_OPTIONS.join(", ")),
                ));
            }
        }
        // Deserialize option by option so a type error names its option.
        let mut config = Config::default();
        for (key, value) in map {
            config.set_option(&key, value)?;
        }
        Ok(config)
    }

    fn set_option(&mut self, key: &str, value: Value) -> Result<(), ConfigError> {
        match key {
            "providers" => self.providers = parse(key, value)?,
            "adapter" => self.adapter = if value.is_null() { None } else { Some(value) },
            "basePath" => self.base_path = parse(key, value)?,
            "cookies" => self.cookies = parse(key, value)?,
            "debug" => self.debug = parse(key, value)?,
            "encryptTokens" => self.encrypt_tokens = parse(key, value)?,
            "experimental" => self.experimental = parse(key, value)?,
            "hooks" => self.hooks = parse(key, value)?,
            "i18n" => self.i18n = if value.is_null() { Default::default() } else { parse(key, value)? },
            "jwt" => self.jwt = parse_object_ignoring_functions(key, value)?,
            "pages" => self.pages = parse(key, value)?,
            "rateLimit" => self.rate_limit = Some(value),
            "trustedProxies" => self.trusted_proxies = parse(key, value)?,
            "forwardedHeader" => self.forwarded_header = if value.is_null() { None } else { Some(value) },
            "tokenRefresh" => self.token_refresh = parse(key, value)?,
            "twoFactor" => self.two_factor = if value.is_null() { None } else { Some(value) },
            "redirectProxyUrl" => self.redirect_proxy_url = parse(key, value)?,
            "redirectProxyOrigins" => self.redirect_proxy_origins = parse(key, value)?,
            "secondaryStorage" => self.secondary_storage = if value.is_null() { None } else { Some(value) },
            "secret" => self.secret = parse(key, value)?,
            "session" => self.session = parse_object_ignoring_functions(key, value)?,
            "theme" => self.theme = parse(key, value)?,
            "trustHost" => self.trust_host = parse(key, value)?,
            "useSecureCookies" => self.use_secure_cookies = parse(key, value)?,
            "url" => self.url = parse(key, value)?,
            // Functions: the binding registers them as hooks, by name.
            "callbacks" | "events" | "logger" => check_hook_group(key, &value)?,
            // Auth.js internals, never read.
            "raw" | "skipCSRFCheck" => {}
            _ => unreachable!("checked against KNOWN_OPTIONS"),
        }
        Ok(())
    }
}

/// One option's value as `T`. A type error names the innermost option it
/// is in (`session.strategy`, `cookies.sessionToken.options.secure`,
/// `redirectProxyOrigins[1]`), not just the top-level key: a binding
/// passes the whole object, so "`session`" alone leaves the user to guess.
fn parse<T: serde::de::DeserializeOwned>(key: &str, value: Value) -> Result<T, ConfigError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let mut option = key.to_owned();
        for segment in e.path().iter() {
            match segment {
                serde_path_to_error::Segment::Map { key } => {
                    option.push('.');
                    option.push_str(key);
                }
                serde_path_to_error::Segment::Seq { index } => option.push_str(&format!("[{index}]")),
                // A variant or a place serde cannot name: the path so far
                // is the best name there is.
                serde_path_to_error::Segment::Enum { .. } | serde_path_to_error::Segment::Unknown => break,
            }
        }
        ConfigError::new(option, e.into_inner().to_string())
    })
}

/// `callbacks`, `events` and `logger` hold functions, which a binding
/// registers as hooks by name (`Auth::new` then refuses a name the engine
/// never calls). Whatever is left under them in the JSON must be such a
/// name too: the C API passes its configuration as JSON, with no function
/// to register, and `"callbacks": {"sesion": …}` must be refused there as
/// a misspelt function is in Node or Python, not silently ignored.
fn check_hook_group(group: &str, value: &Value) -> Result<(), ConfigError> {
    let map = match value {
        Value::Null => return Ok(()),
        Value::Object(map) => map,
        _ => return Err(ConfigError::new(group, "must be an object of functions")),
    };
    for name in map.keys() {
        let hook = format!("{group}.{name}");
        if crate::host::HookKind::parse(&hook).is_none() {
            let hint = crate::host::known_hooks_hint(&hook);
            return Err(ConfigError::new(hook, format!("unknown hook: {hint}")));
        }
    }
    Ok(())
}

/// `jwt` and `session` mix data and functions (`jwt.encode`,
/// `session.generateSessionToken`); keep only the data.
fn parse_object_ignoring_functions<T: serde::de::DeserializeOwned>(key: &str, value: Value) -> Result<T, ConfigError> {
    let value = match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| !matches!(k.as_str(), "encode" | "decode" | "generateSessionToken"))
                .collect::<Map<String, Value>>(),
        ),
        Value::Null => Value::Object(Map::new()),
        other => other,
    };
    parse(key, value)
}

/// The process environment, or a map in tests.
pub trait Env {
    fn var(&self, name: &str) -> Option<String>;
}

/// The real process environment.
pub struct ProcessEnv;

impl Env for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok().filter(|v| !v.is_empty())
    }
}

impl Env for std::collections::HashMap<String, String> {
    fn var(&self, name: &str) -> Option<String> {
        self.get(name).cloned().filter(|v| !v.is_empty())
    }
}

/// Default deadline of a hook call, in seconds.
pub const DEFAULT_HOOK_TIMEOUT: f64 = 30.0;
/// Default bound of requests in flight that may call host code.
pub const DEFAULT_MAX_IN_FLIGHT: usize = 1024;

/// The longest `maxAge` / `updateAge` accepted: 100 years.
pub const MAX_AGE_SECONDS: u64 = 100 * 365 * 86_400;

/// A yes/no environment variable: `true`/`1`/`yes`/`on` or
/// `false`/`0`/`no`/`off` (any case; empty is no). `None` for anything
/// else, which the caller refuses: a typo must never switch a security
/// setting on, or silently off.
fn env_flag(raw: &str) -> Option<bool> {
    match raw.trim().to_ascii_lowercase().as_str() {
        "true" | "1" | "yes" | "on" => Some(true),
        "false" | "0" | "no" | "off" | "" => Some(false),
        _ => None,
    }
}

/// The configuration after defaults, environment fallbacks and validation.
#[derive(Debug, Clone)]
pub struct Settings {
    pub secrets: Vec<String>,
    /// Normalised: starts with `/`, no trailing `/`.
    pub base_path: String,
    /// The canonical origin (from `url` / `AUTH_URL`), if configured.
    pub canonical_url: Option<Url>,
    pub strategy: SessionStrategy,
    pub session_max_age: u64,
    pub session_update_age: u64,
    pub jwt_max_age: u64,
    /// `session.cache`; `None` when turned off.
    pub session_cache: Option<crate::session_cache::SessionCacheSettings>,
    /// `session.revocationCheck`.
    pub revocation_check: crate::sign_outs::RevocationOption,
    /// `twoFactor`.
    pub two_factor: crate::user_two_factor::TwoFactorSettings,
    pub trust_host: bool,
    pub use_secure_cookies: Option<bool>,
    pub redirect_proxy_url: Option<Url>,
    /// Where the redirect proxy may forward callbacks.
    pub redirect_proxy_origins: Vec<OriginPattern>,
    pub pages: Pages,
    pub theme: Theme,
    /// The catalogues of the locales offered, with the configured overrides.
    pub i18n: std::sync::Arc<crate::i18n::Catalogues>,
    pub cookies: CookiesConfig,
    pub debug: bool,
    pub web_authn: bool,
    /// Deadline of a hook call without its own entry in `hook_timeouts`.
    pub hook_timeout: std::time::Duration,
    pub hook_timeouts: std::collections::HashMap<String, std::time::Duration>,
    pub max_in_flight: usize,
}

impl Settings {
    pub fn resolve(config: &Config, env: &dyn Env) -> Result<Settings, ConfigError> {
        let secrets = resolve_secrets(config, env)?;

        let canonical_url = match config.url.clone().or_else(|| env.var("AUTH_URL")) {
            Some(raw) => Some(parse_http_url(&raw, "url (AUTH_URL)")?),
            None => None,
        };

        // AUTH_URL may carry the base path (as in Auth.js) when none is given.
        let base_path = match (&config.base_path, &canonical_url) {
            (Some(path), _) => normalise_base_path(path)?,
            (None, Some(url)) if url.path() != "/" => normalise_base_path(url.path())?,
            (None, _) => DEFAULT_BASE_PATH.to_owned(),
        };

        let strategy = match (config.session.strategy, config.adapter.is_some()) {
            (Some(SessionStrategy::Database), false) => {
                return Err(ConfigError::new(
                    "session.strategy",
                    "\"database\" needs an `adapter`; configure one (e.g. { \"type\": \"sqlite\", \"path\": \"auth.db\" }) or use \"jwt\"",
                )
                .with_kind(crate::ErrorType::MissingAdapter))
            }
            (Some(strategy), _) => strategy,
            (None, true) => SessionStrategy::Database,
            (None, false) => SessionStrategy::Jwt,
        };

        let session_max_age = config.session.max_age.unwrap_or(DEFAULT_SESSION_MAX_AGE);
        if session_max_age == 0 {
            return Err(ConfigError::new("session.maxAge", "must be a positive number of seconds"));
        }
        let session_update_age = config.session.update_age.unwrap_or(DEFAULT_SESSION_UPDATE_AGE);
        // Bounded so that no expiry arithmetic (seconds to ms, now + age)
        // can overflow.
        for (option, value) in [
            ("session.maxAge", Some(session_max_age)),
            ("session.updateAge", Some(session_update_age)),
            ("jwt.maxAge", config.jwt.max_age),
        ] {
            if value.is_some_and(|v| v > MAX_AGE_SECONDS) {
                return Err(ConfigError::new(option, format!("must be at most {MAX_AGE_SECONDS} seconds (100 years)")));
            }
        }

        let env_trust_host = match env.var("AUTH_TRUST_HOST") {
            Some(raw) => Some(env_flag(&raw).ok_or_else(|| {
                ConfigError::new(
                    "AUTH_TRUST_HOST",
                    format!("{:?} is not a yes or no: use true or false (also 1/0, yes/no, on/off)", raw.trim()),
                )
            })?),
            None => None,
        };
        let trust_host = config
            .trust_host
            .or(env_trust_host)
            // Only the deployer decides: a canonical URL, or trustHost /
            // AUTH_TRUST_HOST. No environment name (NODE_ENV) turns it on,
            // since a Rust, Python or C deployment never sets one and an
            // emailed link built from an attacker's Host signs them in.
            .unwrap_or(canonical_url.is_some());

        let redirect_proxy_url = match config.redirect_proxy_url.clone().or_else(|| env.var("AUTH_REDIRECT_PROXY_URL"))
        {
            Some(raw) => Some(parse_http_url(&raw, "redirectProxyUrl")?),
            None => None,
        };

        let redirect_proxy_origins = match config.redirect_proxy_origins.clone() {
            Some(list) => list,
            None => env
                .var("AUTH_REDIRECT_PROXY_ORIGINS")
                .map(|v| v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect())
                .unwrap_or_default(),
        }
        .iter()
        .enumerate()
        .map(|(i, raw)| OriginPattern::parse(raw, &format!("redirectProxyOrigins[{i}]")))
        .collect::<Result<Vec<_>, _>>()?;

        for (name, page) in [
            ("pages.signIn", &config.pages.sign_in),
            ("pages.signOut", &config.pages.sign_out),
            ("pages.error", &config.pages.error),
            ("pages.verifyRequest", &config.pages.verify_request),
            ("pages.newUser", &config.pages.new_user),
        ] {
            if let Some(page) = page {
                if !(page.starts_with('/') || page.starts_with("http://") || page.starts_with("https://")) {
                    return Err(ConfigError::new(name, "must be a path starting with `/` or an http(s) URL"));
                }
            }
        }

        // Theme values are written into the pages' <style> block and an
        // <img src>: only values of the expected shape are accepted.
        for (option, color) in
            [("theme.brandColor", &config.theme.brand_color), ("theme.buttonText", &config.theme.button_text)]
        {
            if color.as_deref().is_some_and(|c| !is_css_color(c)) {
                return Err(ConfigError::new(
                    option,
                    "must be a CSS colour: #rgb, #rrggbb, a colour name, or rgb()/hsl()",
                ));
            }
        }
        if let Some(logo) = &config.theme.logo {
            let path = logo.starts_with('/') && !logo.starts_with("//");
            if !path && parse_http_url(logo, "theme.logo").is_err() || logo.chars().any(char::is_control) {
                return Err(ConfigError::new("theme.logo", "must be a path starting with `/` or an http(s) URL"));
            }
        }

        let seconds = |option: &str, value: f64| -> Result<std::time::Duration, ConfigError> {
            if !(value.is_finite() && value > 0.0 && value <= 3600.0) {
                return Err(ConfigError::new(option, "must be a number of seconds above 0 and at most 3600"));
            }
            Ok(std::time::Duration::from_secs_f64(value))
        };
        let hook_timeout = seconds("hooks.timeout", config.hooks.timeout.unwrap_or(DEFAULT_HOOK_TIMEOUT))?;
        let hook_timeouts = config
            .hooks
            .timeouts
            .iter()
            .map(|(hook, value)| {
                let option = format!("hooks.timeouts.{hook}");
                if crate::host::HookKind::parse(hook).is_none() {
                    return Err(ConfigError::new(option, "not a hook libauth calls"));
                }
                Ok((hook.clone(), seconds(&option, *value)?))
            })
            .collect::<Result<_, ConfigError>>()?;
        let max_in_flight = config.hooks.max_in_flight.unwrap_or(DEFAULT_MAX_IN_FLIGHT);
        if !(1..=1_000_000).contains(&max_in_flight) {
            return Err(ConfigError::new("hooks.maxInFlight", "must be a whole number from 1 to 1000000"));
        }

        Ok(Settings {
            hook_timeout,
            hook_timeouts,
            max_in_flight,
            secrets,
            base_path,
            canonical_url,
            strategy,
            session_max_age,
            session_update_age,
            jwt_max_age: config.jwt.max_age.unwrap_or(session_max_age),
            session_cache: crate::session_cache::SessionCacheSettings::parse(config.session.cache.as_ref())?,
            revocation_check: crate::sign_outs::RevocationOption::parse(config.session.revocation_check.as_ref())?,
            two_factor: crate::user_two_factor::TwoFactorSettings::parse(config.two_factor.as_ref())?,
            trust_host,
            use_secure_cookies: config.use_secure_cookies,
            redirect_proxy_url,
            redirect_proxy_origins,
            pages: config.pages.clone(),
            theme: config.theme.clone(),
            i18n: std::sync::Arc::new(crate::i18n::Catalogues::new(&config.i18n)?),
            cookies: config.cookies.clone(),
            debug: config.debug,
            web_authn: config.experimental.enable_web_authn,
        })
    }
}

fn resolve_secrets(config: &Config, env: &dyn Env) -> Result<Vec<String>, ConfigError> {
    let secrets = match &config.secret {
        Some(Secret::One(s)) => vec![s.clone()],
        Some(Secret::Many(list)) => list.clone(),
        None => Vec::new(),
    };
    let secrets = if secrets.is_empty() {
        // Auth.js order: AUTH_SECRET_3, _2, _1 go before AUTH_SECRET.
        let mut from_env = Vec::new();
        if let Some(s) = env.var("AUTH_SECRET") {
            from_env.push(s);
        }
        for i in 1..=3 {
            if let Some(s) = env.var(&format!("AUTH_SECRET_{i}")) {
                from_env.insert(0, s);
            }
        }
        from_env
    } else {
        secrets
    };
    if secrets.is_empty() {
        return Err(ConfigError::new(
            "secret",
            "missing: set the `secret` option or the AUTH_SECRET environment variable to a random string of at least 32 characters (e.g. `openssl rand -base64 33`)",
        )
        .with_kind(crate::ErrorType::MissingSecret));
    }
    for (i, s) in secrets.iter().enumerate() {
        if s.chars().count() < MIN_SECRET_LENGTH {
            let option = if secrets.len() == 1 { "secret".to_owned() } else { format!("secret[{i}]") };
            return Err(ConfigError::new(
                option,
                format!("must be at least {MIN_SECRET_LENGTH} characters long (got {})", s.chars().count()),
            ));
        }
    }
    Ok(secrets)
}

fn normalise_base_path(path: &str) -> Result<String, ConfigError> {
    let trimmed = path.trim_end_matches('/');
    if !path.starts_with('/') || trimmed.is_empty() {
        return Err(ConfigError::new("basePath", format!("must be a path like \"/auth\", got {path:?}")));
    }
    if trimmed.contains(['?', '#']) {
        return Err(ConfigError::new("basePath", "must not contain a query or fragment"));
    }
    Ok(trimmed.to_owned())
}

/// An origin the deployer allows, exact (`https://a.example.com:8443`) or
/// with one wildcard label in front (`https://*.example.com`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginPattern {
    scheme: String,
    /// The exact host, or the suffix (`.example.com`) after `*`.
    host: String,
    wildcard: bool,
    port: Option<u16>,
}

impl OriginPattern {
    fn parse(raw: &str, option: &str) -> Result<OriginPattern, ConfigError> {
        let (wildcard, probe) = match raw.split_once("://*.") {
            Some((scheme, rest)) => (true, format!("{scheme}://wildcard.{rest}")),
            None => (false, raw.to_owned()),
        };
        let url = parse_http_url(&probe, option)?;
        if url.path() != "/" || url.query().is_some() || url.fragment().is_some() || !url.username().is_empty() {
            return Err(ConfigError::new(option, format!("must be an origin (scheme://host[:port]), got {raw:?}")));
        }
        let host = url.host_str().unwrap_or_default();
        let host = if wildcard { host.strip_prefix("wildcard").unwrap_or(host).to_owned() } else { host.to_owned() };
        Ok(OriginPattern { scheme: url.scheme().to_owned(), host, wildcard, port: url.port_or_known_default() })
    }

    /// Whether `url`'s origin is one this pattern allows.
    pub fn matches(&self, url: &Url) -> bool {
        let Some(host) = url.host_str() else { return false };
        let host_ok = if self.wildcard {
            host.strip_suffix(self.host.as_str()).is_some_and(|label| !label.is_empty() && !label.contains('.'))
        } else {
            host == self.host
        };
        url.scheme() == self.scheme && host_ok && url.port_or_known_default() == self.port
    }
}

fn parse_http_url(raw: &str, option: &str) -> Result<Url, ConfigError> {
    let url = Url::parse(raw).map_err(|e| ConfigError::new(option, format!("not a valid URL ({e}): {raw:?}")))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(ConfigError::new(option, format!("must be an http or https URL, got {raw:?}")));
    }
    Ok(url)
}

/// A conservative check, since the value is written into a `<style>` block.
pub(crate) fn is_css_color(value: &str) -> bool {
    let v = value.trim();
    if let Some(hex) = v.strip_prefix('#') {
        return matches!(hex.len(), 3 | 4 | 6 | 8) && hex.chars().all(|c| c.is_ascii_hexdigit());
    }
    if v.chars().all(|c| c.is_ascii_alphabetic()) && !v.is_empty() {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    ["rgb(", "rgba(", "hsl(", "hsla("].iter().any(|p| lower.starts_with(p))
        && lower.ends_with(')')
        && lower.chars().all(|c| c.is_ascii_alphanumeric() || " ,.%()/-".contains(c))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    const SECRET: &str = "0123456789abcdef0123456789abcdef";

    #[test]
    fn defaults_follow_the_spec() {
        let c = Config::from_json(&format!(r#"{{"secret":"{SECRET}"}}"#)).unwrap();
        let s = Settings::resolve(&c, &env(&[])).unwrap();
        assert_eq!(s.base_path, "/auth");
        assert_eq!(s.session_max_age, 2_592_000);
        assert_eq!(s.session_update_age, 86_400);
        assert_eq!(s.jwt_max_age, 2_592_000);
        assert_eq!(s.strategy, SessionStrategy::Jwt);
        assert!(!s.trust_host, "the Host header is trusted only when the deployer says so");
        let s = Settings::resolve(&c, &env(&[("NODE_ENV", "development")])).unwrap();
        assert!(!s.trust_host, "no environment name implies trust");
        let s = Settings::resolve(&c, &env(&[("AUTH_URL", "https://app.example/auth")])).unwrap();
        assert!(s.trust_host, "a canonical URL fixes the origin");
    }

    #[test]
    fn redirect_proxy_origins_are_origins() {
        let c = Config::from_value(serde_json::json!({
            "secret": SECRET,
            "redirectProxyOrigins": ["https://app.example.com", "https://*.preview.example.com"]
        }))
        .unwrap();
        let s = Settings::resolve(&c, &env(&[])).unwrap();
        let allowed = |u: &str| s.redirect_proxy_origins.iter().any(|p| p.matches(&Url::parse(u).unwrap()));
        assert!(allowed("https://app.example.com/auth/callback/gh"));
        assert!(allowed("https://pr-1.preview.example.com/auth/callback/gh"));
        for denied in [
            "http://app.example.com/",
            "https://app.example.com:444/",
            "https://evil.example/",
            "https://a.b.preview.example.com/",
            "https://preview.example.com/",
            "https://evilpreview.example.com/",
            "https://app.example.com.evil.example/",
        ] {
            assert!(!allowed(denied), "{denied}");
        }
        for bad in ["https://app.example.com/path", "ftp://x.example", "not a url"] {
            let c = Config::from_value(serde_json::json!({ "secret": SECRET, "redirectProxyOrigins": [bad] })).unwrap();
            let e = Settings::resolve(&c, &env(&[])).unwrap_err();
            assert_eq!(e.option, "redirectProxyOrigins[0]", "{bad}");
        }
        let s = Settings::resolve(
            &Config::from_value(serde_json::json!({ "secret": SECRET })).unwrap(),
            &env(&[("AUTH_REDIRECT_PROXY_ORIGINS", "https://a.example, https://*.b.example")]),
        )
        .unwrap();
        assert_eq!(s.redirect_proxy_origins.len(), 2);
    }

    #[test]
    fn env_fallbacks() {
        let c = Config::default();
        let s = Settings::resolve(
            &c,
            &env(&[
                ("AUTH_SECRET", SECRET),
                ("AUTH_SECRET_1", "11111111111111111111111111111111"),
                ("AUTH_URL", "https://app.example.com/api/auth"),
                ("AUTH_TRUST_HOST", "false"),
                ("AUTH_REDIRECT_PROXY_URL", "https://proxy.example.com/api/auth"),
            ]),
        )
        .unwrap();
        assert_eq!(s.secrets, vec!["11111111111111111111111111111111".to_string(), SECRET.to_string()]);
        assert_eq!(s.base_path, "/api/auth");
        assert!(!s.trust_host);
        assert_eq!(s.redirect_proxy_url.unwrap().as_str(), "https://proxy.example.com/api/auth");
    }

    #[test]
    fn errors_name_the_option() {
        let cases: &[(&str, &str)] = &[
            ("{}", "secret"),
            (r#"{"secret":"short"}"#, "secret"),
            (r#"{"secret":["0123456789abcdef0123456789abcdef","x"]}"#, "secret[1]"),
            (r#"{"secret":"0123456789abcdef0123456789abcdef","session":{"strategy":"database"}}"#, "session.strategy"),
            (r#"{"secret":"0123456789abcdef0123456789abcdef","basePath":"auth"}"#, "basePath"),
            (
                r#"{"secret":"0123456789abcdef0123456789abcdef","theme":{"brandColor":"red;}</style>"}}"#,
                "theme.brandColor",
            ),
            (r#"{"secret":"0123456789abcdef0123456789abcdef","pages":{"signIn":"javascript:x"}}"#, "pages.signIn"),
            (
                r#"{"secret":"0123456789abcdef0123456789abcdef","theme":{"buttonText":"red;}</style><script>x</script>"}}"#,
                "theme.buttonText",
            ),
            (r#"{"secret":"0123456789abcdef0123456789abcdef","theme":{"logo":"javascript:alert(1)"}}"#, "theme.logo"),
            (r#"{"secret":"0123456789abcdef0123456789abcdef","theme":{"logo":"//evil.example/x.png"}}"#, "theme.logo"),
        ];
        for (json, option) in cases {
            let err = Config::from_json(json).and_then(|c| Settings::resolve(&c, &env(&[]))).unwrap_err();
            assert_eq!(&err.option, option, "{json}: {err}");
        }
        let err = Config::from_json(r#"{"secert":"x"}"#).unwrap_err();
        assert_eq!(err.option, "secert");
    }

    /// A value of the wrong type anywhere inside an option is named by its
    /// full path, at every depth and in every option that holds objects or
    /// lists; an unknown key inside one is named by its own path, as an
    /// unknown top-level option is.
    #[test]
    fn type_errors_name_the_nested_option() {
        let cases: &[(&str, &str)] = &[
            (r#"{"session":{"maxAge":"long"}}"#, "session.maxAge"),
            (r#"{"session":{"strategy":"cookie"}}"#, "session.strategy"),
            (r#"{"session":{"strategy":1}}"#, "session.strategy"),
            (r#"{"session":{"updateAge":-1}}"#, "session.updateAge"),
            (r#"{"session":3}"#, "session"),
            (r#"{"jwt":{"maxAge":"x"}}"#, "jwt.maxAge"),
            (r#"{"hooks":{"timeout":"soon"}}"#, "hooks.timeout"),
            (r#"{"hooks":{"maxInFlight":-2}}"#, "hooks.maxInFlight"),
            (r#"{"hooks":{"timeouts":{"callbacks.jwt":"x"}}}"#, "hooks.timeouts.callbacks.jwt"),
            (r#"{"pages":{"signIn":7}}"#, "pages.signIn"),
            (r#"{"theme":{"colorScheme":"blue"}}"#, "theme.colorScheme"),
            (r#"{"cookies":{"sessionToken":{"name":1}}}"#, "cookies.sessionToken.name"),
            (r#"{"cookies":{"sessionToken":{"options":{"secure":"yes"}}}}"#, "cookies.sessionToken.options.secure"),
            (r#"{"experimental":{"enableWebAuthn":"on"}}"#, "experimental.enableWebAuthn"),
            (r#"{"redirectProxyOrigins":["https://a.example",2]}"#, "redirectProxyOrigins[1]"),
            (r#"{"trustHost":"yes"}"#, "trustHost"),
            (r#"{"pages":{"signin":"/login"}}"#, "pages.signin"),
            (r#"{"cookies":{"sessionToken":{"options":{"sameSit":"lax"}}}}"#, "cookies.sessionToken.options.sameSit"),
        ];
        for (json, option) in cases {
            let err = Config::from_json(json).unwrap_err();
            assert_eq!(&err.option, option, "{json}: {err}");
            assert!(!err.message.is_empty(), "{json}");
        }
    }

    /// What the JSON holds under `callbacks`, `events` and `logger` must be
    /// hook names: a misspelt one is refused by its name (as a misspelt
    /// function is when a binding registers it), whatever its value.
    #[test]
    fn misspelt_names_under_function_options_are_refused() {
        for (json, option) in [
            (r#"{"callbacks":{"sesion":true}}"#, "callbacks.sesion"),
            (r#"{"callbacks":{"JWT":"x"}}"#, "callbacks.JWT"),
            (r#"{"callbacks":{"signIn":1,"signin":1}}"#, "callbacks.signin"),
            (r#"{"events":{"signin":{}}}"#, "events.signin"),
            (r#"{"logger":{"info":null}}"#, "logger.info"),
            (r#"{"callbacks":"session"}"#, "callbacks"),
            (r#"{"events":[1]}"#, "events"),
        ] {
            let err = Config::from_json(json).unwrap_err();
            assert_eq!(err.option, option, "{json}: {err}");
        }
        let spelt_right = r#"{"callbacks":{"signIn":1,"redirect":1,"jwt":1,"session":1},"events":{"signIn":1,"signOut":1,"createUser":1,"updateUser":1,"linkAccount":1,"session":1},"logger":{"error":1,"warn":1,"debug":1}}"#;
        assert!(Config::from_json(spelt_right).is_ok());
        assert!(Config::from_json(r#"{"callbacks":null,"events":{}}"#).is_ok());
    }

    #[test]
    fn adapter_defaults_to_database_strategy_and_jwt_can_be_forced() {
        let c = Config::from_json(&format!(r#"{{"secret":"{SECRET}","adapter":{{"type":"memory"}}}}"#)).unwrap();
        assert_eq!(Settings::resolve(&c, &env(&[])).unwrap().strategy, SessionStrategy::Database);
        let c = Config::from_json(&format!(
            r#"{{"secret":"{SECRET}","adapter":{{"type":"memory"}},"session":{{"strategy":"jwt"}}}}"#
        ))
        .unwrap();
        assert_eq!(Settings::resolve(&c, &env(&[])).unwrap().strategy, SessionStrategy::Jwt);
    }
}
