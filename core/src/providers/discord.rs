//! The built-in Discord provider (OAuth 2), as Auth.js's Discord: scopes
//! `identify email`, `/users/@me` as the profile, name = `global_name ??
//! username`, the image built from the avatar hash on Discord's CDN (or the
//! default avatar when there is none).

use serde_json::Value;

use super::oauth::ProviderBehaviour;
use super::oauth::{BuiltinDefaults, ButtonStyle, Endpoint, OAuthProvider, ProfileMap};
use crate::oauth::types::{Endpoints, OAuthError};

/// Discord's mark (Simple Icons, CC0), white, as an inline SVG data URL.
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+PHBhdGggZmlsbD0iI2ZmZiIgZD0iTTIwLjMxNyA0LjM2OThhMTkuNzkxMyAxOS43OTEzIDAgMDAtNC44ODUxLTEuNTE1Mi4wNzQxLjA3NDEgMCAwMC0uMDc4NS4wMzcxYy0uMjExLjM3NTMtLjQ0NDcuODY0OC0uNjA4MyAxLjI0OTUtMS44NDQ3LS4yNzYyLTMuNjgtLjI3NjItNS40ODY4IDAtLjE2MzYtLjM5MzMtLjQwNTgtLjg3NDItLjYxNzctMS4yNDk1YS4wNzcuMDc3IDAgMDAtLjA3ODUtLjAzNyAxOS43MzYzIDE5LjczNjMgMCAwMC00Ljg4NTIgMS41MTUuMDY5OS4wNjk5IDAgMDAtLjAzMjEuMDI3N0MuNTMzNCA5LjA0NTgtLjMxOSAxMy41Nzk5LjA5OTIgMTguMDU3OGEuMDgyNC4wODI0IDAgMDAuMDMxMi4wNTYxYzIuMDUyOCAxLjUwNzYgNC4wNDEzIDIuNDIyOCA1Ljk5MjkgMy4wMjk0YS4wNzc3LjA3NzcgMCAwMC4wODQyLS4wMjc2Yy40NjE2LS42MzA0Ljg3MzEtMS4yOTUyIDEuMjI2LTEuOTk0MmEuMDc2LjA3NiAwIDAwLS4wNDE2LS4xMDU3Yy0uNjUyOC0uMjQ3Ni0xLjI3NDMtLjU0OTUtMS44NzIyLS44OTIzYS4wNzcuMDc3IDAgMDEtLjAwNzYtLjEyNzdjLjEyNTgtLjA5NDMuMjUxNy0uMTkyMy4zNzE4LS4yOTE0YS4wNzQzLjA3NDMgMCAwMS4wNzc2LS4wMTA1YzMuOTI3OCAxLjc5MzMgOC4xOCAxLjc5MzMgMTIuMDYxNCAwYS4wNzM5LjA3MzkgMCAwMS4wNzg1LjAwOTVjLjEyMDIuMDk5LjI0Ni4xOTgxLjM3MjguMjkyNGEuMDc3LjA3NyAwIDAxLS4wMDY2LjEyNzYgMTIuMjk4NiAxMi4yOTg2IDAgMDEtMS44NzMuODkxNC4wNzY2LjA3NjYgMCAwMC0uMDQwNy4xMDY3Yy4zNjA0LjY5OC43NzE5IDEuMzYyOCAxLjIyNSAxLjk5MzJhLjA3Ni4wNzYgMCAwMC4wODQyLjAyODZjMS45NjEtLjYwNjcgMy45NDk1LTEuNTIxOSA2LjAwMjMtMy4wMjk0YS4wNzcuMDc3IDAgMDAuMDMxMy0uMDU1MmMuNTAwNC01LjE3Ny0uODM4Mi05LjY3MzktMy41NDg1LTEzLjY2MDRhLjA2MS4wNjEgMCAwMC0uMDMxMi0uMDI4NnpNOC4wMiAxNS4zMzEyYy0xLjE4MjUgMC0yLjE1NjktMS4wODU3LTIuMTU2OS0yLjQxOSAwLTEuMzMzMi45NTU1LTIuNDE4OSAyLjE1Ny0yLjQxODkgMS4yMTA4IDAgMi4xNzU3IDEuMDk1MiAyLjE1NjggMi40MTkgMCAxLjMzMzItLjk1NTUgMi40MTg5LTIuMTU2OSAyLjQxODl6bTcuOTc0OCAwYy0xLjE4MjUgMC0yLjE1NjktMS4wODU3LTIuMTU2OS0yLjQxOSAwLTEuMzMzMi45NTU0LTIuNDE4OSAyLjE1NjktMi40MTg5IDEuMjEwOCAwIDIuMTc1NyAxLjA5NTIgMi4xNTY4IDIuNDE5IDAgMS4zMzMyLS45NDYgMi40MTg5LTIuMTU2OCAyLjQxODlaIi8+PC9zdmc+";

pub const AUTHORIZATION_URL: &str = "https://discord.com/api/oauth2/authorize";
pub const TOKEN_URL: &str = "https://discord.com/api/oauth2/token";
pub const USERINFO_URL: &str = "https://discord.com/api/users/@me";
const CDN: &str = "https://cdn.discordapp.com";

/// Discord's behaviour (`{ "builtin": "discord" }`).
pub struct Discord;

impl ProviderBehaviour for Discord {
    /// Discord says whether the account's address was verified in the
    /// user object's own `verified` field.
    fn verified_email(
        &self,
        _provider: &OAuthProvider,
        _endpoints: &Endpoints,
        _access_token: &str,
        profile: &Value,
    ) -> Option<String> {
        if profile.get("verified") != Some(&Value::Bool(true)) {
            return None;
        }
        profile.get("email").and_then(Value::as_str).map(str::to_owned)
    }

    fn defaults(&self) -> BuiltinDefaults {
        BuiltinDefaults {
            kind: Some("oauth"),
            id: Some("discord"),
            name: Some("Discord"),
            authorization: Endpoint::new(AUTHORIZATION_URL, &[("scope", "identify email")]),
            token: Endpoint::new(TOKEN_URL, &[]),
            userinfo: Endpoint::new(USERINFO_URL, &[]),
            profile_map: Some(ProfileMap::of(&["id"], &["global_name", "username"], &["email"], &["image_url"])),
            style: Some(ButtonStyle::new(LOGO, "#5865F2", "#fff")),
            ..BuiltinDefaults::default()
        }
    }

    /// `image_url`, as Auth.js computes it: the avatar (animated ones,
    /// `a_…`, as GIF), else the default avatar for the account.
    fn complete_profile(
        &self,
        _provider: &OAuthProvider,
        _endpoints: &Endpoints,
        _access_token: &str,
        mut profile: Value,
    ) -> Result<Value, OAuthError> {
        if let Some(url) = image_url(&profile) {
            profile["image_url"] = Value::String(url);
        }
        Ok(profile)
    }
}

fn image_url(profile: &Value) -> Option<String> {
    let id = profile.get("id")?.as_str()?;
    match profile.get("avatar").and_then(Value::as_str) {
        Some(hash) => {
            let format = if hash.starts_with("a_") { "gif" } else { "png" };
            Some(format!("{CDN}/avatars/{id}/{hash}.{format}"))
        }
        None => {
            // New usernames (discriminator "0"): (id >> 22) % 6; legacy: discriminator % 5.
            let n = match profile.get("discriminator").and_then(Value::as_str) {
                Some("0") | None => (id.parse::<u64>().ok()? >> 22) % 6,
                Some(d) => d.parse::<u64>().ok()? % 5,
            };
            Some(format!("{CDN}/embed/avatars/{n}.png"))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn avatars_as_authjs() {
        let p = json!({"id": "80351110224678912", "avatar": "8342729096ea3675442027381ff50dfe", "discriminator": "0"});
        assert_eq!(
            image_url(&p).unwrap(),
            "https://cdn.discordapp.com/avatars/80351110224678912/8342729096ea3675442027381ff50dfe.png"
        );
        let p = json!({"id": "1", "avatar": "a_x"});
        assert!(image_url(&p).unwrap().ends_with("/a_x.gif"));
        let p = json!({"id": "80351110224678912", "avatar": null, "discriminator": "0"});
        assert_eq!(image_url(&p).unwrap(), format!("{CDN}/embed/avatars/{}.png", (80351110224678912u64 >> 22) % 6));
        let p = json!({"id": "1", "avatar": null, "discriminator": "1337"});
        assert_eq!(image_url(&p).unwrap(), format!("{CDN}/embed/avatars/2.png"));
    }
}
