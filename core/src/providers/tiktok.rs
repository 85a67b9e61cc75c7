//! The built-in TikTok provider (Login Kit for Web, API v2). TikTok differs
//! from plain OAuth: `client_key` instead of `client_id`, comma-separated
//! scopes, client credentials in the token form body, errors in the body
//! whatever the HTTP status (with a `log_id`), user info fields chosen with
//! `fields` by granted scope inside a `{data, error}` envelope, and the
//! account id (`open_id`) in every token response.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::oauth::{standard_token_response, ProviderBehaviour};
use super::oauth::{BuiltinDefaults, ButtonStyle, Checks, ClientAuth, Endpoint, ProfileMap};
use crate::oauth::types::OAuthError;

/// The sign-in button's logo: TikTok's logo (Simple Icons, CC0), white, as an inline SVG data
/// URL (the page loads nothing from the network).
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+PHBhdGggZmlsbD0iI2ZmZiIgZD0iTTEyLjUyNS4wMmMxLjMxLS4wMiAyLjYxLS4wMSAzLjkxLS4wMi4wOCAxLjUzLjYzIDMuMDkgMS43NSA0LjE3IDEuMTIgMS4xMSAyLjcgMS42MiA0LjI0IDEuNzl2NC4wM2MtMS40NC0uMDUtMi44OS0uMzUtNC4yLS45Ny0uNTctLjI2LTEuMS0uNTktMS42Mi0uOTMtLjAxIDIuOTIuMDEgNS44NC0uMDIgOC43NS0uMDggMS40LS41NCAyLjc5LTEuMzUgMy45NC0xLjMxIDEuOTItMy41OCAzLjE3LTUuOTEgMy4yMS0xLjQzLjA4LTIuODYtLjMxLTQuMDgtMS4wMy0yLjAyLTEuMTktMy40NC0zLjM3LTMuNjUtNS43MS0uMDItLjUtLjAzLTEtLjAxLTEuNDkuMTgtMS45IDEuMTItMy43MiAyLjU4LTQuOTYgMS42Ni0xLjQ0IDMuOTgtMi4xMyA2LjE1LTEuNzIuMDIgMS40OC0uMDQgMi45Ni0uMDQgNC40NC0uOTktLjMyLTIuMTUtLjIzLTMuMDIuMzctLjYzLjQxLTEuMTEgMS4wNC0xLjM2IDEuNzUtLjIxLjUxLS4xNSAxLjA3LS4xNCAxLjYxLjI0IDEuNjQgMS44MiAzLjAyIDMuNSAyLjg3IDEuMTItLjAxIDIuMTktLjY2IDIuNzctMS42MS4xOS0uMzMuNC0uNjcuNDEtMS4wNi4xLTEuNzkuMDYtMy41Ny4wNy01LjM2LjAxLTQuMDMtLjAxLTguMDUuMDItMTIuMDd6Ii8+PC9zdmc+";

/// TikTok's behaviour (`{ "builtin": "tiktok" }`).
pub struct TikTok;

impl ProviderBehaviour for TikTok {
    fn defaults(&self) -> BuiltinDefaults {
        defaults()
    }

    /// Always the client key and secret in the form body: TikTok accepts
    /// nothing else.
    fn client_auth(&self, _configured: Option<ClientAuth>) -> ClientAuth {
        ClientAuth::Post
    }

    /// TikTok names the client `client_key`, and `client_id` makes it fail.
    fn client_id_param(&self) -> &'static str {
        "client_key"
    }

    fn scope(&self, configured: &str) -> String {
        normalise_scope(configured)
    }

    /// Errors come with HTTP 200 too, and carry a `log_id`.
    fn token_response(&self, status: u16, body: Value) -> Result<Map<String, Value>, OAuthError> {
        standard_token_response(status, body, Some("log_id"))
    }

    /// `fields` follows the granted scopes, unless configured.
    fn userinfo_params(&self, configured: &[(String, String)], granted_scopes: &str) -> Vec<(String, String)> {
        if configured.iter().any(|(k, _)| k == "fields") {
            return Vec::new();
        }
        vec![("fields".into(), fields_for_scopes(granted_scopes))]
    }

    /// The v2 envelope: `error.code` is "ok" on success.
    fn userinfo_response(&self, status: u16, body: Value) -> Result<Value, OAuthError> {
        if let Some(err) = body.get("error").filter(|e| e.is_object()) {
            let code = err.get("code").and_then(Value::as_str).unwrap_or("");
            if code != "ok" || status >= 400 {
                return Err(OAuthError::UserInfo {
                    status,
                    code: if code.is_empty() { "unknown".into() } else { code.into() },
                    message: err.get("message").and_then(Value::as_str).unwrap_or("").into(),
                    log_id: err.get("log_id").and_then(Value::as_str).map(str::to_owned),
                });
            }
            return Ok(body);
        }
        super::oauth::standard_userinfo_response(status, body)
    }

    fn check_profile(&self, profile: &Value) -> Result<(), String> {
        parse_profile(profile).map(|_| ())
    }

    /// Every token response names the user: `open_id`.
    fn account_id_from_tokens(&self, tokens: &Map<String, Value>) -> Option<String> {
        tokens.get("open_id").and_then(Value::as_str).filter(|id| !id.is_empty()).map(str::to_owned)
    }
}

/// TikTok's user-info answer (`VideoProviderProfile`): what the
/// callbacks receive as `profile`. Optional fields come only when their
/// scope was granted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VideoProviderProfile {
    pub data: VideoProviderData,
    #[serde(default)]
    pub error: Option<VideoProviderError>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VideoProviderData {
    pub user: VideoProviderUser,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VideoProviderUser {
    pub open_id: String,
    pub union_id: Option<String>,
    pub avatar_url: Option<String>,
    pub avatar_url_100: Option<String>,
    pub avatar_large_url: Option<String>,
    pub display_name: Option<String>,
    pub username: Option<String>,
    pub bio_description: Option<String>,
    pub profile_deep_link: Option<String>,
    pub is_verified: Option<bool>,
    pub follower_count: Option<i64>,
    pub following_count: Option<i64>,
    pub likes_count: Option<i64>,
    pub video_count: Option<i64>,
    /// Never provided by TikTok; kept for the profile type's shape.
    pub email: Option<String>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VideoProviderError {
    pub code: String,
    #[serde(default)]
    pub message: String,
    #[serde(default)]
    pub log_id: String,
}

/// Check a user-info answer has TikTok's shape (an `open_id` at least).
pub fn parse_profile(profile: &Value) -> Result<VideoProviderProfile, String> {
    serde_json::from_value(profile.clone()).map_err(|e| format!("TikTok user info has an unexpected shape: {e}"))
}

pub const AUTHORIZATION_URL: &str = "https://www.tiktok.com/v2/auth/authorize/";
pub const TOKEN_URL: &str = "https://open.tiktokapis.com/v2/oauth/token/";
pub const USERINFO_URL: &str = "https://open.tiktokapis.com/v2/user/info/";
pub const DEFAULT_SCOPE: &str = "user.info.basic";

/// The user fields each scope unlocks.
const FIELDS_BY_SCOPE: &[(&str, &[&str])] = &[
    ("user.info.basic", &["open_id", "union_id", "avatar_url", "avatar_url_100", "avatar_large_url", "display_name"]),
    ("user.info.profile", &["bio_description", "profile_deep_link", "is_verified", "username"]),
    ("user.info.stats", &["follower_count", "following_count", "likes_count", "video_count"]),
];

pub fn defaults() -> BuiltinDefaults {
    let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect();
    BuiltinDefaults {
        kind: Some("oauth"),
        id: Some("tiktok"),
        name: Some("TikTok"),
        // TikTok has no issuer; none is needed since every endpoint is given.
        issuer: None,
        jwks_uri: None,
        authorization: Endpoint {
            url: Some(AUTHORIZATION_URL.into()),
            params: vec![("scope".into(), DEFAULT_SCOPE.into())],
        },
        token: Endpoint { url: Some(TOKEN_URL.into()), params: Vec::new() },
        userinfo: Endpoint { url: Some(USERINFO_URL.into()), params: Vec::new() },
        checks: Some(Checks { pkce: true, state: true, nonce: false }),
        profile_map: Some(ProfileMap {
            id: v(&["data.user.open_id"]),
            name: v(&["data.user.display_name"]),
            // TikTok provides no email.
            email: Vec::new(),
            image: v(&["data.user.avatar_url"]),
        }),
        style: Some(ButtonStyle {
            logo: Some(LOGO.into()),
            bg: Some("#000000".into()),
            text: Some("#ffffff".into()),
            brand_color: None,
        }),
    }
}

/// TikTok separates scopes with commas; accept a space-separated config too.
pub fn normalise_scope(scope: &str) -> String {
    scope.split([',', ' ']).map(str::trim).filter(|s| !s.is_empty()).collect::<Vec<_>>().join(",")
}

/// The `fields` to ask user info for, from the scopes actually granted
/// (the callback's `scopes`, else the token's `scope`). `open_id` and the
/// basic fields are always asked: `user.info.basic` comes with Login Kit.
pub fn fields_for_scopes(granted: &str) -> String {
    let granted: Vec<&str> = granted.split([',', ' ']).map(str::trim).collect();
    FIELDS_BY_SCOPE
        .iter()
        .filter(|(scope, _)| *scope == "user.info.basic" || granted.contains(scope))
        .flat_map(|(_, fields)| fields.iter().copied())
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_follow_granted_scopes() {
        let basic = fields_for_scopes("user.info.basic");
        assert!(basic.contains("open_id") && basic.contains("display_name") && !basic.contains("username"));
        let profile = fields_for_scopes("user.info.basic,user.info.profile");
        assert!(
            profile.contains("username") && profile.contains("bio_description") && !profile.contains("follower_count")
        );
        let all = fields_for_scopes("user.info.profile,user.info.stats");
        assert!(all.contains("open_id") && all.contains("likes_count"));
    }

    #[test]
    fn open_id_is_the_account_id() {
        let tokens = serde_json::json!({"access_token": "a", "open_id": "u-1"});
        assert_eq!(TikTok.account_id_from_tokens(tokens.as_object().unwrap()).as_deref(), Some("u-1"));
        assert_eq!(TikTok.account_id_from_tokens(&Map::new()), None);
    }

    #[test]
    fn scopes_are_comma_separated() {
        assert_eq!(normalise_scope("user.info.basic user.info.profile"), "user.info.basic,user.info.profile");
        assert_eq!(normalise_scope("user.info.basic, user.info.stats"), "user.info.basic,user.info.stats");
    }
}
