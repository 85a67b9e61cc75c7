//! Parsing an OAuth or OIDC provider's option (`providers[i]` with
//! `type: "oauth" | "oidc"`, or `builtin: name`) into an [`OAuthProvider`].

use std::sync::{Mutex, RwLock};
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value};
use url::Url;

use super::builtin::BUILTINS;
use super::oauth::*;
use super::{Provider, ProviderKind};
use crate::config::Env;
use crate::error::ConfigError;
use crate::host::{Hook, Host};
use crate::outbound::HttpClient;

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
