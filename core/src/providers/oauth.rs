//! OAuth 2 and OpenID Connect provider configuration: endpoints (any of
//! them overridable), client authentication, checks, profile mapping.

use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};
use url::Url;

use super::behaviour::{ProviderBehaviour, Standard, BUILTINS};
use super::{Provider, ProviderKind};
use crate::config::Env;
use crate::error::ConfigError;
use crate::host::{Hook, Host};
use crate::outbound::HttpClient;

/// A provider endpoint: a URL plus extra query/body parameters.
#[derive(Debug, Clone, Default)]
pub struct Endpoint {
    pub url: Option<String>,
    pub params: Vec<(String, String)>,
}

impl Endpoint {
    /// A URL with parameters (`&[("scope", "email")]`).
    pub fn new(url: impl Into<String>, params: &[(&str, &str)]) -> Endpoint {
        Endpoint { url: Some(url.into()), params: params.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect() }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Checks {
    pub pkce: bool,
    pub state: bool,
    pub nonce: bool,
}

/// How the PKCE challenge is encoded: RFC 7636 base64url, or a hex form
/// some providers document (TikTok, for desktop apps).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PkceEncoding {
    Base64Url,
    Hex,
}

/// How the client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    /// HTTP Basic (the OAuth default).
    Basic,
    /// The client id (under the provider's name for it) and
    /// `client_secret` in the form body.
    Post,
    /// Public client: `client_id` only.
    None,
}

/// Where the user's id, name, email and image are in the profile (dotted
/// paths; the first present one wins).
#[derive(Debug, Clone)]
pub struct ProfileMap {
    pub id: Vec<String>,
    pub name: Vec<String>,
    pub email: Vec<String>,
    pub image: Vec<String>,
}

impl ProfileMap {
    /// Each field's paths, first present wins.
    pub fn of(id: &[&str], name: &[&str], email: &[&str], image: &[&str]) -> ProfileMap {
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect();
        ProfileMap { id: v(id), name: v(name), email: v(email), image: v(image) }
    }
}

impl Default for ProfileMap {
    /// Auth.js's default OAuth profile: OpenID standard claims.
    fn default() -> Self {
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect();
        ProfileMap {
            id: v(&["sub", "id"]),
            name: v(&["name", "nickname", "preferred_username"]),
            email: v(&["email"]),
            image: v(&["picture"]),
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ButtonStyle {
    pub logo: Option<String>,
    pub bg: Option<String>,
    pub text: Option<String>,
    pub brand_color: Option<String>,
}

impl ButtonStyle {
    /// A logo (data URL) on a background colour, with a text colour.
    pub fn new(logo: &str, bg: &str, text: &str) -> ButtonStyle {
        ButtonStyle { logo: Some(logo.into()), bg: Some(bg.into()), text: Some(text.into()), brand_color: None }
    }
}

/// OIDC discovery result (the fields we use).
#[derive(Debug, Clone, Deserialize)]
pub struct Metadata {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub userinfo_endpoint: Option<String>,
    pub jwks_uri: Option<String>,
}

pub struct OAuthProvider {
    pub oidc: bool,
    /// The `builtin` name, if the provider is a built-in one.
    pub builtin: Option<&'static str>,
    /// Where this provider differs from the standard protocol.
    pub behaviour: &'static dyn ProviderBehaviour,
    pub client_id: String,
    pub client_secret: Option<String>,
    pub issuer: Option<String>,
    pub well_known: Option<String>,
    pub authorization: Endpoint,
    pub token: Endpoint,
    pub userinfo: Endpoint,
    /// Whether `userinfo` was configured explicitly (OIDC then calls it too).
    pub userinfo_configured: bool,
    pub jwks_uri: Option<String>,
    pub checks: Checks,
    pub pkce_encoding: PkceEncoding,
    pub client_auth: ClientAuth,
    pub profile_map: ProfileMap,
    pub style: ButtonStyle,
    pub redirect_proxy_url: Option<Url>,
    pub allow_dangerous_email_account_linking: bool,
    /// Read the profile from the id_token (OIDC default).
    pub id_token: bool,
    pub has_profile_hook: bool,
    pub http: HttpClient,
    /// Discovery and JWKS, fetched on first use and kept.
    pub metadata: RwLock<Option<Arc<Metadata>>>,
    pub jwks: RwLock<Option<Arc<josekit::jwk::JwkSet>>>,
    /// The provider-specific options it was configured with.
    pub options: ProviderOptions,
    /// A client secret the provider's behaviour minted (Apple's signed
    /// JWT) and until when it is used.
    pub minted_secret: Mutex<Option<(String, u64)>>,
}

impl std::fmt::Debug for OAuthProvider {
    /// The client secret never appears in logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthProvider")
            .field("oidc", &self.oidc)
            .field("builtin", &self.builtin)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "[redacted]"))
            .field("issuer", &self.issuer)
            .field("authorization", &self.authorization.url)
            .field("token", &self.token.url)
            .field("userinfo", &self.userinfo.url)
            .finish()
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum EndpointConfig {
    Url(String),
    Full {
        url: Option<String>,
        #[serde(default)]
        params: Map<String, Value>,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct OAuthConfig {
    #[serde(rename = "type")]
    kind: Option<String>,
    id: Option<String>,
    name: Option<String>,
    builtin: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    issuer: Option<String>,
    well_known: Option<String>,
    authorization: Option<EndpointConfig>,
    token: Option<EndpointConfig>,
    userinfo: Option<EndpointConfig>,
    jwks_uri: Option<String>,
    checks: Option<Value>,
    /// `"S256"` (standard) or `"hex"` (the form TikTok documents for desktop).
    pkce_challenge: Option<String>,
    client: Option<ClientConfig>,
    profile_map: Option<Map<String, Value>>,
    style: Option<ButtonStyle>,
    redirect_proxy_url: Option<String>,
    #[serde(default)]
    allow_dangerous_email_account_linking: bool,
    id_token: Option<bool>,
    /// GitLab: a self-managed instance's URL (default `https://gitlab.com`).
    base_url: Option<String>,
    /// Google: ask for a refresh token (`access_type=offline`,
    /// `prompt=consent`).
    offline_access: Option<bool>,
    /// Apple: the client secret is minted from the `.p8` key.
    team_id: Option<String>,
    key_id: Option<String>,
    private_key: Option<String>,
    /// Seconds for each outbound request (default 10).
    timeout: Option<u64>,
    /// The binding's marker for a `profile` function (a hook).
    profile: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
struct ClientConfig {
    token_endpoint_auth_method: Option<String>,
    #[serde(flatten)]
    _rest: Map<String, Value>,
}

pub fn parse(option: &str, value: &Value, host: &dyn Host, env: &dyn Env) -> Result<Provider, ConfigError> {
    let c: OAuthConfig = serde_json::from_value(value.clone()).map_err(|e| ConfigError::new(option, e.to_string()))?;
    let _ = c.profile;
    let (builtin, behaviour): (Option<&'static str>, &'static dyn ProviderBehaviour) = match c.builtin.as_deref() {
        None => (None, &Standard),
        Some(name) => match BUILTINS.iter().find(|(n, _)| *n == name) {
            Some((name, b)) => (Some(*name), *b),
            None => {
                let known: Vec<&str> = BUILTINS.iter().map(|(n, _)| *n).collect();
                return Err(ConfigError::new(
                    format!("{option}.builtin"),
                    format!("unknown built-in provider {name:?}; known: {}", known.join(", ")),
                ));
            }
        },
    };
    // Which provider it is (type, id, name) never depends on its options.
    let identity = behaviour.defaults();
    let oidc = match c.kind.as_deref().or(identity.kind) {
        Some("oidc") => true,
        Some("oauth") => false,
        other => {
            return Err(ConfigError::new(
                format!("{option}.type"),
                format!("expected \"oauth\" or \"oidc\", got {other:?}"),
            ))
        }
    };
    let id =
        c.id.or(identity.id.map(str::to_owned)).unwrap_or_else(|| if oidc { "oidc".into() } else { "oauth".into() });
    let name = c.name.or(identity.name.map(str::to_owned)).unwrap_or_else(|| id.clone());

    // AUTH_<ID>_ID / AUTH_<ID>_SECRET when not given.
    let env_key = id.to_ascii_uppercase().replace('-', "_");
    let client_id = c.client_id.or_else(|| env.var(&format!("AUTH_{env_key}_ID"))).ok_or_else(|| {
        ConfigError::new(format!("{option}.clientId"), format!("missing; set it or AUTH_{env_key}_ID"))
    })?;
    let client_secret = c.client_secret.or_else(|| env.var(&format!("AUTH_{env_key}_SECRET")));
    let env_var = |suffix: &str| if builtin.is_some() { env.var(&format!("AUTH_{env_key}_{suffix}")) } else { None };
    // A built-in provider's issuer may come from AUTH_<ID>_ISSUER, as in Auth.js.
    let configured_issuer = c.issuer.clone().or_else(|| env_var("ISSUER"));
    let apple_key = match (
        c.team_id.or_else(|| env_var("TEAM_ID")),
        c.key_id.or_else(|| env_var("KEY_ID")),
        c.private_key.or_else(|| env_var("PRIVATE_KEY")),
    ) {
        (None, None, None) => None,
        // A PEM in one environment line usually has its newlines written `\n`.
        (Some(team_id), Some(key_id), Some(private_key)) => {
            Some(SigningKey { team_id, key_id, private_key: private_key.replace("\\n", "\n") })
        }
        _ => {
            return Err(ConfigError::new(
                format!("{option}.privateKey"),
                "teamId, keyId and privateKey go together (all three, or none)",
            ))
        }
    };
    let options = ProviderOptions {
        issuer: configured_issuer.clone(),
        base_url: c.base_url,
        offline_access: c.offline_access.unwrap_or(false),
        signing_key: apple_key,
    };
    for (name, set) in options.given() {
        if set && !behaviour.options().contains(&name) {
            return Err(ConfigError::new(
                format!("{option}.{}", name.as_str()),
                format!("not an option of this provider ({})", builtin.unwrap_or("a custom provider")),
            ));
        }
    }
    let defaults = behaviour
        .configured_defaults(&options)
        .map_err(|(field, message)| ConfigError::new(format!("{option}.{field}"), message))?;

    let endpoint = |name: &str, given: Option<EndpointConfig>, default: Endpoint| -> Result<Endpoint, ConfigError> {
        let mut ep = default;
        match given {
            None => {}
            Some(EndpointConfig::Url(url)) => ep.url = Some(url),
            Some(EndpointConfig::Full { url, params }) => {
                if url.is_some() {
                    ep.url = url;
                }
                for (k, v) in params {
                    let v = match v {
                        Value::String(s) => s,
                        Value::Null => {
                            ep.params.retain(|(key, _)| key != &k);
                            continue;
                        }
                        other => other.to_string(),
                    };
                    ep.params.retain(|(key, _)| key != &k);
                    ep.params.push((k, v));
                }
            }
        }
        if let Some(url) = &ep.url {
            check_url(url, &format!("{option}.{name}"))?;
        }
        Ok(ep)
    };
    let userinfo_configured = c.userinfo.is_some();
    let mut authorization = endpoint("authorization", c.authorization, defaults.authorization)?;
    let token = endpoint("token", c.token, defaults.token)?;
    let userinfo = endpoint("userinfo", c.userinfo, defaults.userinfo)?;
    if oidc && !authorization.params.iter().any(|(k, _)| k == "scope") {
        authorization.params.push(("scope".into(), "openid profile email".into()));
    }

    let issuer = configured_issuer.or(defaults.issuer.clone());
    if let Some(issuer) = &issuer {
        check_url(issuer, &format!("{option}.issuer"))?;
    }
    if let Some(wk) = &c.well_known {
        check_url(wk, &format!("{option}.wellKnown"))?;
    }
    if oidc && issuer.is_none() {
        return Err(ConfigError::new(
            format!("{option}.issuer"),
            "required for an OIDC provider: every id_token's `iss` is checked against it (and it drives discovery)",
        ));
    }
    let can_discover = oidc && (issuer.is_some() || c.well_known.is_some());
    if !can_discover {
        if authorization.url.is_none() {
            return Err(ConfigError::new(
                format!("{option}.authorization"),
                "missing: give an authorization URL, or an `issuer` for OIDC discovery",
            ));
        }
        if token.url.is_none() {
            return Err(ConfigError::new(
                format!("{option}.token"),
                "missing: give a token URL, or an `issuer` for OIDC discovery",
            ));
        }
        if !oidc && userinfo.url.is_none() && !host.has(&Hook::provider(&id, "profile")) {
            return Err(ConfigError::new(
                format!("{option}.userinfo"),
                "missing: an OAuth provider needs a userinfo URL",
            ));
        }
    }

    let checks = parse_checks(
        c.checks.as_ref(),
        defaults.checks.unwrap_or(Checks { pkce: true, state: true, nonce: oidc }),
        option,
    )?;
    if behaviour.requires_pkce() && !checks.pkce {
        return Err(ConfigError::new(format!("{option}.checks"), "this provider requires PKCE: keep \"pkce\""));
    }
    let redirect_proxy_url = match c.redirect_proxy_url {
        Some(raw) => {
            Some(Url::parse(&raw).map_err(|e| ConfigError::new(format!("{option}.redirectProxyUrl"), e.to_string()))?)
        }
        None => None,
    };
    let pkce_encoding = match c.pkce_challenge.as_deref() {
        None | Some("S256") | Some("base64url") => PkceEncoding::Base64Url,
        Some("hex") => PkceEncoding::Hex,
        Some(other) => {
            return Err(ConfigError::new(
                format!("{option}.pkceChallenge"),
                format!("expected \"S256\" or \"hex\", got {other:?}"),
            ))
        }
    };
    let configured_auth = match c.client.as_ref().and_then(|c| c.token_endpoint_auth_method.as_deref()) {
        None => None,
        Some("client_secret_basic") => Some(ClientAuth::Basic),
        Some("client_secret_post") => Some(ClientAuth::Post),
        Some("none") => Some(ClientAuth::None),
        Some(other) => {
            return Err(ConfigError::new(
                format!("{option}.client.token_endpoint_auth_method"),
                format!("supported: client_secret_basic, client_secret_post, none; got {other:?}"),
            ))
        }
    };
    let client_auth = behaviour.client_auth(configured_auth);
    if client_secret.is_none() && client_auth != ClientAuth::None && options.signing_key.is_none() {
        return Err(ConfigError::new(
            format!("{option}.clientSecret"),
            format!("missing; set it or AUTH_{env_key}_SECRET (or use client.token_endpoint_auth_method \"none\")"),
        ));
    }
    let profile_map = match c.profile_map {
        None => defaults.profile_map.unwrap_or_default(),
        Some(map) => parse_profile_map(map, format!("{option}.profileMap"))?,
    };

    let provider = OAuthProvider {
        oidc,
        builtin,
        behaviour,
        client_id,
        client_secret,
        issuer,
        well_known: c.well_known,
        authorization,
        token,
        userinfo,
        userinfo_configured,
        jwks_uri: c.jwks_uri.or(defaults.jwks_uri),
        checks,
        pkce_encoding,
        client_auth,
        profile_map,
        style: c.style.or(defaults.style).unwrap_or_default(),
        redirect_proxy_url,
        allow_dangerous_email_account_linking: c.allow_dangerous_email_account_linking,
        id_token: c.id_token.unwrap_or(oidc),
        has_profile_hook: host.has(&Hook::provider(&id, "profile")),
        http: HttpClient::new(Duration::from_secs(c.timeout.unwrap_or(10).max(1))),
        metadata: RwLock::new(None),
        jwks: RwLock::new(None),
        options,
        minted_secret: Mutex::new(None),
    };
    Ok(Provider { id, name, kind: ProviderKind::OAuth(Box::new(provider)) })
}

/// Defaults a built-in provider starts from; the config overrides any of them.
#[derive(Default)]
pub struct BuiltinDefaults {
    pub kind: Option<&'static str>,
    pub id: Option<&'static str>,
    pub name: Option<&'static str>,
    pub issuer: Option<String>,
    pub jwks_uri: Option<String>,
    pub authorization: Endpoint,
    pub token: Endpoint,
    pub userinfo: Endpoint,
    pub checks: Option<Checks>,
    pub profile_map: Option<ProfileMap>,
    pub style: Option<ButtonStyle>,
}

/// Options only some built-in providers take; [`ProviderBehaviour::options`]
/// lists which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderOption {
    BaseUrl,
    OfflineAccess,
    SigningKey,
}

impl ProviderOption {
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderOption::BaseUrl => "baseUrl",
            ProviderOption::OfflineAccess => "offlineAccess",
            ProviderOption::SigningKey => "privateKey",
        }
    }
}

/// An Apple-style signing key: the client secret is a JWT signed with it.
#[derive(Clone)]
pub struct SigningKey {
    pub team_id: String,
    pub key_id: String,
    /// PEM (PKCS #8), as in the `.p8` file.
    pub private_key: String,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("team_id", &self.team_id)
            .field("key_id", &self.key_id)
            .field("private_key", &"[redacted]")
            .finish()
    }
}

/// The provider-specific options of one configured provider.
#[derive(Debug, Clone, Default)]
pub struct ProviderOptions {
    /// The configured (or `AUTH_<ID>_ISSUER`) issuer, before the
    /// provider's default.
    pub issuer: Option<String>,
    pub base_url: Option<String>,
    pub offline_access: bool,
    pub signing_key: Option<SigningKey>,
}

impl ProviderOptions {
    /// Each option and whether it was given.
    fn given(&self) -> [(ProviderOption, bool); 3] {
        [
            (ProviderOption::BaseUrl, self.base_url.is_some()),
            (ProviderOption::OfflineAccess, self.offline_access),
            (ProviderOption::SigningKey, self.signing_key.is_some()),
        ]
    }
}

fn check_url(raw: &str, option: &str) -> Result<(), ConfigError> {
    let url = Url::parse(raw).map_err(|e| ConfigError::new(option, format!("not a valid URL ({e}): {raw:?}")))?;
    if url.scheme() != "http" && url.scheme() != "https" {
        return Err(ConfigError::new(option, format!("must be an http(s) URL, got {raw:?}")));
    }
    Ok(())
}

fn parse_checks(value: Option<&Value>, default: Checks, option: &str) -> Result<Checks, ConfigError> {
    let Some(value) = value else { return Ok(default) };
    let list: Vec<&str> = match value {
        Value::String(s) => vec![s.as_str()],
        Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
        _ => {
            return Err(ConfigError::new(
                format!("{option}.checks"),
                "must be a list of \"pkce\", \"state\", \"nonce\" or \"none\"",
            ))
        }
    };
    let mut checks = Checks { pkce: false, state: false, nonce: false };
    for item in list {
        match item {
            "pkce" => checks.pkce = true,
            "state" => checks.state = true,
            "nonce" => checks.nonce = true,
            "none" => {}
            other => return Err(ConfigError::new(format!("{option}.checks"), format!("unknown check {other:?}"))),
        }
    }
    Ok(checks)
}

fn parse_profile_map(map: Map<String, Value>, option: String) -> Result<ProfileMap, ConfigError> {
    let mut out = ProfileMap::default();
    for (key, value) in map {
        let paths: Vec<String> = match value {
            Value::String(s) => vec![s],
            Value::Array(items) => items.into_iter().filter_map(|v| v.as_str().map(str::to_owned)).collect(),
            _ => return Err(ConfigError::new(format!("{option}.{key}"), "must be a path string or a list of them")),
        };
        match key.as_str() {
            "id" => out.id = paths,
            "name" => out.name = paths,
            "email" => out.email = paths,
            "image" => out.image = paths,
            other => {
                return Err(ConfigError::new(format!("{option}.{other}"), "profileMap has only id, name, email, image"))
            }
        }
    }
    Ok(out)
}

/// The value at a dotted path (`data.user.open_id`).
pub fn lookup<'a>(value: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.')
        .try_fold(value, |v, key| match v {
            // `images.0.url`: a number indexes an array.
            Value::Array(items) => items.get(key.parse::<usize>().ok()?),
            _ => v.get(key),
        })
        .filter(|v| !v.is_null())
}

impl OAuthProvider {
    /// The user a profile maps to: `{ id, name, email, image }`.
    pub fn map_profile(&self, profile: &Value) -> Map<String, Value> {
        let first = |paths: &[String]| paths.iter().find_map(|p| lookup(profile, p)).cloned();
        let mut user = Map::new();
        if let Some(id) = first(&self.profile_map.id) {
            let id = match id {
                Value::String(s) => Value::String(s),
                other => Value::String(other.to_string()),
            };
            user.insert("id".into(), id);
        }
        // A field the provider maps is `null` when its answer lacks it (as
        // Auth.js's `?? null`); a field it does not map at all (TikTok's
        // email) is absent, as the key is in Auth.js's profile function.
        for (key, paths) in
            [("name", &self.profile_map.name), ("email", &self.profile_map.email), ("image", &self.profile_map.image)]
        {
            if !paths.is_empty() {
                user.insert(key.into(), first(paths).unwrap_or(Value::Null));
            }
        }
        user
    }
}
