//! The built-in X (Twitter) provider (OAuth 2.0 with PKCE), as Auth.js's
//! Twitter: scopes `users.read tweet.read offline.access`, `/2/users/me`
//! with `user.fields=profile_image_url` as the profile, the user under
//! `data`. X refuses authorization requests without PKCE, so the config
//! cannot turn it off.

use super::oauth::ProviderBehaviour;
use super::oauth::{BuiltinDefaults, ButtonStyle, Checks, Endpoint, ProfileMap};

/// X's mark (Simple Icons, CC0), white, as an inline SVG data URL.
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+PHBhdGggZmlsbD0iI2ZmZiIgZD0iTTE0LjIzNCAxMC4xNjIgMjIuOTc3IDBoLTIuMDcybC03LjU5MSA4LjgyNEw3LjI1MSAwSC4yNThsOS4xNjggMTMuMzQzTC4yNTggMjRIMi4zM2w4LjAxNi05LjMxOEwxNi43NDkgMjRoNi45OTN6bS0yLjgzNyAzLjI5OS0uOTI5LTEuMzI5TDMuMDc2IDEuNTZoMy4xODJsNS45NjUgOC41MzIuOTI5IDEuMzI5IDcuNzU0IDExLjA5aC0zLjE4MnoiLz48L3N2Zz4=";

pub const AUTHORIZATION_URL: &str = "https://x.com/i/oauth2/authorize";
pub const TOKEN_URL: &str = "https://api.x.com/2/oauth2/token";
pub const USERINFO_URL: &str = "https://api.x.com/2/users/me";

/// X's behaviour (`{ "builtin": "twitter" }`).
pub struct Twitter;

impl ProviderBehaviour for Twitter {
    fn defaults(&self) -> BuiltinDefaults {
        BuiltinDefaults {
            kind: Some("oauth"),
            id: Some("twitter"),
            name: Some("Twitter"),
            authorization: Endpoint::new(AUTHORIZATION_URL, &[("scope", "users.read tweet.read offline.access")]),
            token: Endpoint::new(TOKEN_URL, &[]),
            userinfo: Endpoint::new(USERINFO_URL, &[("user.fields", "profile_image_url")]),
            checks: Some(Checks { pkce: true, state: true, nonce: false }),
            profile_map: Some(ProfileMap::of(
                &["data.id"],
                &["data.name"],
                &["data.email"],
                &["data.profile_image_url"],
            )),
            style: Some(ButtonStyle::new(LOGO, "#1da1f2", "#fff")),
            ..BuiltinDefaults::default()
        }
    }

    fn requires_pkce(&self) -> bool {
        true
    }
}
