//! The built-in GitLab provider (OAuth 2), as Auth.js's GitLab: scope
//! `read_user`, `/api/v4/user` as the profile, id = `String(id)`, name =
//! `name ?? username`, image = `avatar_url`. `baseUrl` points it at a
//! self-managed instance (default `https://gitlab.com`).

use super::oauth::ProviderBehaviour;
use super::oauth::{BuiltinDefaults, ButtonStyle, Endpoint, ProfileMap, ProviderOption, ProviderOptions};

/// GitLab's tanuki (Simple Icons, CC0), white, as an inline SVG data URL.
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+PHBhdGggZmlsbD0iI2ZmZiIgZD0ibTIzLjYwMDQgOS41OTI3LS4wMzM3LS4wODYyTDIwLjMuOTgxNGEuODUxLjg1MSAwIDAgMC0uMzM2Mi0uNDA1Ljg3NDguODc0OCAwIDAgMC0uOTk5Ny4wNTM5Ljg3NDguODc0OCAwIDAgMC0uMjkuNDM5OWwtMi4yMDU1IDYuNzQ4SDcuNTM3NWwtMi4yMDU3LTYuNzQ4YS44NTczLjg1NzMgMCAwIDAtLjI5LS40NDEyLjg3NDguODc0OCAwIDAgMC0uOTk5Ny0uMDUzNy44NTg1Ljg1ODUgMCAwIDAtLjMzNjIuNDA0OUwuNDMzMiA5LjUwMTVsLS4wMzI1LjA4NjJhNi4wNjU3IDYuMDY1NyAwIDAgMCAyLjAxMTkgNy4wMTA1bC4wMTEzLjAwODcuMDMuMDIxMyA0Ljk3NiAzLjcyNjQgMi40NjIgMS44NjMzIDEuNDk5NSAxLjEzMjFhMS4wMDg1IDEuMDA4NSAwIDAgMCAxLjIxOTcgMGwxLjQ5OTUtMS4xMzIxIDIuNDYxOS0xLjg2MzMgNS4wMDYtMy43NDg5LjAxMjUtLjAxYTYuMDY4MiA2LjA2ODIgMCAwIDAgMi4wMDk0LTcuMDAzeiIvPjwvc3ZnPg==";

pub const BASE_URL: &str = "https://gitlab.com";

/// GitLab's behaviour (`{ "builtin": "gitlab" }`).
pub struct GitLab;

impl GitLab {
    fn at(base: &str) -> BuiltinDefaults {
        let base = base.trim_end_matches('/');
        BuiltinDefaults {
            kind: Some("oauth"),
            id: Some("gitlab"),
            name: Some("GitLab"),
            authorization: Endpoint::new(format!("{base}/oauth/authorize"), &[("scope", "read_user")]),
            token: Endpoint::new(format!("{base}/oauth/token"), &[]),
            userinfo: Endpoint::new(format!("{base}/api/v4/user"), &[]),
            profile_map: Some(ProfileMap::of(&["sub", "id"], &["name", "username"], &["email"], &["avatar_url"])),
            style: Some(ButtonStyle::new(LOGO, "#FC6D26", "#fff")),
            ..BuiltinDefaults::default()
        }
    }
}

impl ProviderBehaviour for GitLab {
    /// GitLab's `/user` gives `confirmed_at` once the primary address was
    /// confirmed; an instance that skips confirmation leaves it null.
    fn verified_email(
        &self,
        _provider: &super::oauth::OAuthProvider,
        _endpoints: &crate::oauth::types::Endpoints,
        _access_token: &str,
        profile: &serde_json::Value,
    ) -> Option<String> {
        profile.get("confirmed_at").and_then(serde_json::Value::as_str).filter(|c| !c.is_empty())?;
        profile.get("email").and_then(serde_json::Value::as_str).map(str::to_owned)
    }

    fn defaults(&self) -> BuiltinDefaults {
        GitLab::at(BASE_URL)
    }

    fn options(&self) -> &'static [ProviderOption] {
        &[ProviderOption::BaseUrl]
    }

    fn configured_defaults(&self, options: &ProviderOptions) -> Result<BuiltinDefaults, (&'static str, String)> {
        let base = options.base_url.as_deref().unwrap_or(BASE_URL);
        match url::Url::parse(base) {
            Ok(u) if matches!(u.scheme(), "http" | "https") && u.query().is_none() => Ok(GitLab::at(base)),
            _ => Err(("baseUrl", format!("must be the http(s) URL of a GitLab instance, got {base:?}"))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_managed_instances() {
        let options = ProviderOptions { base_url: Some("https://git.example.com/".into()), ..Default::default() };
        let d = GitLab.configured_defaults(&options).unwrap();
        assert_eq!(d.token.url.as_deref(), Some("https://git.example.com/oauth/token"));
        assert_eq!(d.userinfo.url.as_deref(), Some("https://git.example.com/api/v4/user"));
        let bad = ProviderOptions { base_url: Some("git.example.com".into()), ..Default::default() };
        assert!(GitLab.configured_defaults(&bad).is_err());
    }
}
