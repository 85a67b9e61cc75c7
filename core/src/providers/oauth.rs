//! An OAuth 2 or OpenID Connect provider: its settings (endpoints, any of
//! them overridable, client authentication, checks, profile mapping) and
//! its behaviour, what it does differently from the standard protocol
//! ([`ProviderBehaviour`]). The two refer to each other (a provider holds
//! its behaviour; a behaviour reads its provider's settings), so they share
//! this file. Parsing the `providers[i]` option is `oauth_config.rs`.
//!

use std::sync::{Arc, Mutex, RwLock};

use serde::Deserialize;
use serde_json::{Map, Value};
use url::Url;

use crate::oauth::types::{Endpoints, OAuthError};
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
    pub(super) fn given(&self) -> [(ProviderOption, bool); 3] {
        [
            (ProviderOption::BaseUrl, self.base_url.is_some()),
            (ProviderOption::OfflineAccess, self.offline_access),
            (ProviderOption::SigningKey, self.signing_key.is_some()),
        ]
    }
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

// What a provider does differently from plain OAuth 2 / OpenID Connect,
// behind one trait. The generic client (`crate::oauth`, `routes/oauth.rs`)
// asks the provider's behaviour at every point where providers differ and
// never looks at which provider it is; the default methods are the
// standard protocol. A built-in provider is one module implementing
// [`ProviderBehaviour`] plus one line in [`super::builtin::BUILTINS`].

/// A provider configured field by field (`type: "oauth" | "oidc"`): the
/// standard protocol throughout.
pub struct Standard;

impl ProviderBehaviour for Standard {}

/// Provider-specific behaviour. Every method has the standard behaviour as
/// its default; a provider overrides only where it differs.
pub trait ProviderBehaviour: Send + Sync {
    /// The configuration the provider starts from (endpoints, scopes,
    /// checks, profile mapping, button style); the config overrides any of
    /// it.
    fn defaults(&self) -> BuiltinDefaults {
        BuiltinDefaults::default()
    }

    /// The provider-specific options it takes (any other is refused).
    fn options(&self) -> &'static [ProviderOption] {
        &[]
    }

    /// The defaults once its options are known (a tenant in the issuer, a
    /// self-managed instance's URL); an error names the bad option.
    fn configured_defaults(&self, _options: &ProviderOptions) -> Result<BuiltinDefaults, (&'static str, String)> {
        Ok(self.defaults())
    }

    /// The provider's own authorization parameter for the language of its
    /// pages, where it documents one (Google's `hl`), sent besides
    /// OpenID Connect's `ui_locales`.
    fn locale_param(&self) -> Option<&'static str> {
        None
    }

    /// The provider refuses authorization requests without PKCE, so the
    /// config may not turn it off.
    fn requires_pkce(&self) -> bool {
        false
    }

    /// The client secret to send: the configured one, unless the provider
    /// derives it (Apple mints a signed JWT).
    fn client_secret(&self, provider: &OAuthProvider) -> Result<Option<String>, OAuthError> {
        Ok(provider.client_secret.clone())
    }

    /// The `iss` an id_token must carry, given the issuer (configured or
    /// discovered) and the token's claims; an error refuses the token.
    /// Several values when the provider documents more than one spelling.
    fn accepted_issuers(&self, issuer: &str, _claims: &Map<String, Value>) -> Result<Vec<String>, String> {
        Ok(vec![issuer.to_owned()])
    }

    /// Add what the callback request itself carries to the profile (Apple
    /// posts the user's name once, beside the code).
    fn callback_profile(&self, _params: &Map<String, Value>, profile: Value) -> Value {
        profile
    }

    /// Client authentication at the token endpoint, given the config's
    /// `client.token_endpoint_auth_method` (`None` when not set).
    fn client_auth(&self, configured: Option<ClientAuth>) -> ClientAuth {
        configured.unwrap_or(ClientAuth::Basic)
    }

    /// The name of the parameter carrying the client id, in the
    /// authorization request and in a token request's form body.
    fn client_id_param(&self) -> &'static str {
        "client_id"
    }

    /// The `scope` parameter as the provider wants it written, from the
    /// configured value.
    fn scope(&self, configured: &str) -> String {
        configured.to_owned()
    }

    /// The token endpoint's answer (authorization code or refresh token
    /// grant): the tokens, or the error it stands for.
    fn token_response(&self, status: u16, body: Value) -> Result<Map<String, Value>, OAuthError> {
        standard_token_response(status, body, None)
    }

    /// Query parameters the user-info request adds to the configured ones,
    /// given the scopes granted (the callback's `scopes`, else the token
    /// response's `scope`).
    fn userinfo_params(&self, _configured: &[(String, String)], _granted_scopes: &str) -> Vec<(String, String)> {
        Vec::new()
    }

    /// The user-info endpoint's answer: the profile, or the error it stands
    /// for.
    fn userinfo_response(&self, status: u16, body: Value) -> Result<Value, OAuthError> {
        standard_userinfo_response(status, body)
    }

    /// Complete the profile after user info (further requests with the
    /// access token, for what user info leaves out).
    fn complete_profile(
        &self,
        _provider: &OAuthProvider,
        _endpoints: &Endpoints,
        _access_token: &str,
        profile: Value,
    ) -> Result<Value, OAuthError> {
        Ok(profile)
    }

    /// Check the profile has the provider's shape before it is mapped; the
    /// message becomes an `OAuthProfileParseError`.
    fn check_profile(&self, _profile: &Value) -> Result<(), String> {
        Ok(())
    }

    /// The address the provider itself vouches for in this profile, if any:
    /// its own "verified" claim, never the mere presence of an email (see
    /// `crate::identity`). The sign-in's email is proven only when it is
    /// this address. Standard: OpenID Connect's `email_verified` claim
    /// (`true`, or Apple's string `"true"`) beside `email`. A provider may
    /// ask its API (GitHub lists verified addresses at another endpoint);
    /// a failed request proves nothing, and fails no sign-in.
    fn verified_email(
        &self,
        _provider: &OAuthProvider,
        _endpoints: &Endpoints,
        _access_token: &str,
        profile: &Value,
    ) -> Option<String> {
        standard_verified_email(profile)
    }

    /// The user's account id at the provider, when a token response says it
    /// (used when refreshing). Standard token responses do not.
    fn account_id_from_tokens(&self, _tokens: &Map<String, Value>) -> Option<String> {
        None
    }
}

/// RFC 6749 token response handling, made robust: any body with an `error`,
/// or without a string `access_token`, is a failure whatever the HTTP status
/// (several providers answer errors with 200). `log_id` is the body field
/// naming the provider's request id for its support, if it has one.
pub fn standard_token_response(
    status: u16,
    body: Value,
    log_id: Option<&str>,
) -> Result<Map<String, Value>, OAuthError> {
    let Value::Object(body) = body else {
        return Err(OAuthError::Token {
            status,
            error: "invalid_response".into(),
            description: "not a JSON object".into(),
            log_id: None,
        });
    };
    let error = body.get("error").and_then(Value::as_str).filter(|e| !e.is_empty());
    if error.is_some() || !body.get("access_token").is_some_and(Value::is_string) || status >= 400 {
        return Err(OAuthError::Token {
            status,
            error: error.unwrap_or("invalid_response").to_owned(),
            description: body
                .get("error_description")
                .and_then(Value::as_str)
                .unwrap_or("no access_token in the response")
                .to_owned(),
            log_id: log_id.and_then(|field| body.get(field)).and_then(Value::as_str).map(str::to_owned),
        });
    }
    Ok(body)
}

/// OpenID Connect's claims: `email`, when `email_verified` is true.
pub fn standard_verified_email(profile: &Value) -> Option<String> {
    if !crate::identity::flag_is_true(profile.get("email_verified")) {
        return None;
    }
    profile.get("email").and_then(Value::as_str).filter(|e| !e.trim().is_empty()).map(str::to_owned)
}

/// User info: a JSON object with a success status and no `error` member.
pub fn standard_userinfo_response(status: u16, body: Value) -> Result<Value, OAuthError> {
    if let Some(error) = body.get("error").filter(|e| !e.is_null()) {
        let code = match error {
            Value::String(s) => s.clone(),
            other => other.get("code").and_then(Value::as_str).unwrap_or("unknown").to_owned(),
        };
        let message = body
            .get("error_description")
            .or_else(|| error.get("message"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        return Err(OAuthError::UserInfo { status, code, message, log_id: None });
    }
    if status >= 400 || !body.is_object() {
        let message = body.get("message").and_then(Value::as_str).unwrap_or_default().to_owned();
        return Err(OAuthError::UserInfo { status, code: "http_error".into(), message, log_id: None });
    }
    Ok(body)
}

#[cfg(test)]
mod behaviour_tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn standard_token_errors_whatever_the_status() {
        let err = standard_token_response(200, json!({"error": "bad_verification_code"}), None).unwrap_err();
        assert!(err.to_string().contains("bad_verification_code"));
        assert!(standard_token_response(500, json!({"access_token": "a"}), None).is_err());
        assert!(standard_token_response(200, json!("a"), None).is_err());
        assert_eq!(standard_token_response(200, json!({"access_token": "a"}), None).unwrap()["access_token"], "a");
    }

    #[test]
    fn standard_userinfo_errors() {
        assert!(standard_userinfo_response(200, json!({"error": "invalid_token"})).is_err());
        assert!(standard_userinfo_response(401, json!({"message": "Bad credentials"})).is_err());
        assert!(standard_userinfo_response(200, json!([1])).is_err());
        assert!(standard_userinfo_response(200, json!({"sub": "1", "error": null})).is_ok());
        assert_eq!(Standard.account_id_from_tokens(&Map::new()), None);
    }
}
