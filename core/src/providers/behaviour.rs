//! What a provider does differently from plain OAuth 2 / OpenID Connect,
//! behind one trait. The generic client (`crate::oauth`, `routes/oauth.rs`)
//! asks the provider's behaviour at every point where providers differ and
//! never looks at which provider it is; the default methods are the
//! standard protocol. A built-in provider is one module implementing
//! [`ProviderBehaviour`] plus one line in [`BUILTINS`].

use serde_json::{Map, Value};

use super::oauth::{BuiltinDefaults, ClientAuth, OAuthProvider, ProviderOption, ProviderOptions};
use super::{
    apple, auth0, discord, entra, facebook, github, gitlab, google, keycloak, linkedin, okta, slack, spotify, tiktok,
    twitch, twitter,
};
use crate::oauth::{Endpoints, OAuthError};

/// Every built-in provider, by the name its config gives as `builtin`.
pub const BUILTINS: &[(&str, &dyn ProviderBehaviour)] = &[
    ("tiktok", &tiktok::TikTok),
    ("github", &github::GitHub),
    ("google", &google::Google),
    ("apple", &apple::Apple),
    ("microsoft-entra-id", &entra::MicrosoftEntraId),
    ("discord", &discord::Discord),
    ("gitlab", &gitlab::GitLab),
    ("twitter", &twitter::Twitter),
    ("facebook", &facebook::Facebook),
    ("linkedin", &linkedin::LinkedIn),
    ("slack", &slack::Slack),
    ("twitch", &twitch::Twitch),
    ("spotify", &spotify::Spotify),
    ("keycloak", &keycloak::Keycloak),
    ("auth0", &auth0::Auth0),
    ("okta", &okta::Okta),
];

/// The behaviour of `{ "builtin": name }`.
pub fn builtin(name: &str) -> Option<&'static dyn ProviderBehaviour> {
    BUILTINS.iter().find(|(n, _)| *n == name).map(|(_, b)| *b)
}

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
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn builtins_are_registered_by_name() {
        assert!(builtin("tiktok").is_some() && builtin("github").is_some());
        for (name, b) in BUILTINS {
            assert_eq!(b.defaults().id, Some(*name), "a built-in's id is its name");
            assert!(b
                .defaults()
                .style
                .and_then(|s| s.logo)
                .is_some_and(|l| l.starts_with("data:image/svg+xml;base64,")));
        }
        assert!(builtin("nope").is_none());
    }

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
