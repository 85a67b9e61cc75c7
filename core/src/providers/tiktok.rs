//! The built-in TikTok provider (Login Kit for Web, API v2). Facts:
//! `shared/reference/tiktok-login-kit.md`. TikTok differs from plain OAuth:
//! `client_key` instead of `client_id`, comma-separated scopes, client
//! credentials in the token form body, errors in the body whatever the HTTP
//! status, and user info fields chosen with `fields` by granted scope.

use super::oauth::{BuiltinDefaults, ButtonStyle, Checks, Endpoint, ProfileMap};

pub const AUTHORIZATION_URL: &str = "https://www.tiktok.com/v2/auth/authorize/";
pub const TOKEN_URL: &str = "https://open.tiktokapis.com/v2/oauth/token/";
pub const USERINFO_URL: &str = "https://open.tiktokapis.com/v2/user/info/";
pub const DEFAULT_SCOPE: &str = "user.info.basic";

/// The user fields each scope unlocks (reference §9.2).
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
        style: Some(ButtonStyle { logo: None, bg: Some("#000000".into()), text: Some("#ffffff".into()), brand_color: None }),
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
        assert!(profile.contains("username") && profile.contains("bio_description") && !profile.contains("follower_count"));
        let all = fields_for_scopes("user.info.profile,user.info.stats");
        assert!(all.contains("open_id") && all.contains("likes_count"));
    }

    #[test]
    fn scopes_are_comma_separated() {
        assert_eq!(normalise_scope("user.info.basic user.info.profile"), "user.info.basic,user.info.profile");
        assert_eq!(normalise_scope("user.info.basic, user.info.stats"), "user.info.basic,user.info.stats");
    }
}
