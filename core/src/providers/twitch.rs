//! The built-in Twitch provider (OpenID Connect), as Auth.js's Twitch:
//! issuer `https://id.twitch.tv/oauth2` (endpoints by discovery), client
//! credentials in the token request body, scopes `openid user:read:email`
//! with the `claims` parameter asking the id_token for `email`, `picture`
//! and `preferred_username`; name = `preferred_username`. Twitch's token
//! response gives `scope` as a JSON array (joined here into the standard
//! space-separated string), and its errors as `{error: "Bad Request",
//! status, message}` with no OAuth error name.

use serde_json::{Map, Value};

use super::oauth::{standard_token_response, ProviderBehaviour};
use super::oauth::{BuiltinDefaults, ButtonStyle, ClientAuth, Endpoint, ProfileMap};
use crate::oauth::types::OAuthError;

/// Twitch's glitch (Simple Icons, CC0), white, as an inline SVG data URL.
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+PHBhdGggZmlsbD0iI2ZmZiIgZD0iTTExLjU3MSA0LjcxNGgxLjcxNXY1LjE0M0gxMS41N3ptNC43MTUgMEgxOHY1LjE0M2gtMS43MTR6TTYgMEwxLjcxNCA0LjI4NnYxNS40MjhoNS4xNDNWMjRsNC4yODYtNC4yODZoMy40MjhMMjIuMjg2IDEyVjB6bTE0LjU3MSAxMS4xNDNsLTMuNDI4IDMuNDI4aC0zLjQyOWwtMyAzdi0zSDYuODU3VjEuNzE0aDEzLjcxNFoiLz48L3N2Zz4=";

pub const ISSUER: &str = "https://id.twitch.tv/oauth2";
const CLAIMS: &str = r#"{"id_token":{"email":null,"picture":null,"preferred_username":null}}"#;

/// Twitch's behaviour (`{ "builtin": "twitch" }`).
pub struct Twitch;

impl ProviderBehaviour for Twitch {
    fn defaults(&self) -> BuiltinDefaults {
        BuiltinDefaults {
            kind: Some("oidc"),
            id: Some("twitch"),
            name: Some("Twitch"),
            issuer: Some(ISSUER.into()),
            authorization: Endpoint {
                url: None,
                params: vec![("scope".into(), "openid user:read:email".into()), ("claims".into(), CLAIMS.into())],
            },
            profile_map: Some(ProfileMap::of(&["sub"], &["preferred_username"], &["email"], &["picture"])),
            style: Some(ButtonStyle::new(LOGO, "#65459B", "#fff")),
            ..BuiltinDefaults::default()
        }
    }

    fn client_auth(&self, configured: Option<ClientAuth>) -> ClientAuth {
        configured.unwrap_or(ClientAuth::Post)
    }

    fn token_response(&self, status: u16, body: Value) -> Result<Map<String, Value>, OAuthError> {
        standard_token_response(status, conform(body), None)
    }
}

/// `scope: ["openid", "user:read:email"]` → `"openid user:read:email"`;
/// `{error: "Bad Request", status: 400, message}` (Twitch's errors name the
/// HTTP status, not an OAuth error) → `{error, error_description: message}`,
/// where an invalid code or refresh token is RFC 6749's `invalid_grant` (so
/// a revoked refresh token is `RefreshTokenRevoked`) and anything else
/// `invalid_request`, as Auth.js.
fn conform(mut body: Value) -> Value {
    let Some(obj) = body.as_object_mut() else { return body };
    if let Some(Value::Array(scopes)) = obj.get("scope") {
        let joined = scopes.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" ");
        obj.insert("scope".into(), Value::String(joined));
    } else if obj.get("scope").is_some_and(|s| !s.is_string()) {
        obj.remove("scope");
    }
    let names_status = obj.get("status").is_some_and(Value::is_number);
    if names_status && !obj.contains_key("access_token") {
        if let Some(message) = obj.get("message").and_then(Value::as_str).map(str::to_owned) {
            let lower = message.to_ascii_lowercase();
            let invalid_grant =
                lower.starts_with("invalid refresh token") || lower.starts_with("invalid authorization code");
            obj.insert("error".into(), if invalid_grant { "invalid_grant" } else { "invalid_request" }.into());
            obj.insert("error_description".into(), message.into());
        }
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn scope_arrays_are_joined() {
        let tokens = Twitch.token_response(200, json!({"access_token": "a", "scope": ["openid", "user:read:email"]}));
        assert_eq!(tokens.unwrap()["scope"], "openid user:read:email");
        let err = Twitch
            .token_response(400, json!({"error": "Bad Request", "status": 400, "message": "Invalid refresh token"}));
        assert!(err.unwrap_err().to_string().contains("invalid_grant: Invalid refresh token"));
        let err = Twitch.token_response(400, json!({"status": 400, "message": "missing client secret"}));
        assert!(err.unwrap_err().to_string().contains("invalid_request: missing client secret"));
    }
}
