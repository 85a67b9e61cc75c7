//! The built-in GitHub provider (an OAuth App or a GitHub App's user
//! authorization), mapped as Auth.js's GitHub provider: id = `String(id)`,
//! name = `name ?? login`, email, image = `avatar_url`. A user without a
//! public email gets the primary verified one from `/user/emails` (the
//! `user:email` scope).

use serde_json::Value;

use super::oauth::ProviderBehaviour;
use super::oauth::{BuiltinDefaults, ButtonStyle, Endpoint, OAuthProvider, ProfileMap};
use crate::oauth::types::{Endpoints, OAuthError};

/// The sign-in button's logo: GitHub's mark (Octicons, MIT), white, as an inline SVG data
/// URL (the page loads nothing from the network).
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAxNiAxNiI+PHBhdGggZmlsbD0iI2ZmZiIgZD0iTTggMEMzLjU4IDAgMCAzLjU4IDAgOGMwIDMuNTQgMi4yOSA2LjUzIDUuNDcgNy41OS40LjA3LjU1LS4xNy41NS0uMzggMC0uMTktLjAxLS44Mi0uMDEtMS40OS0yLjAxLjM3LTIuNTMtLjQ5LTIuNjktLjk0LS4wOS0uMjMtLjQ4LS45NC0uODItMS4xMy0uMjgtLjE1LS42OC0uNTItLjAxLS41My42My0uMDEgMS4wOC41OCAxLjIzLjgyLjcyIDEuMjEgMS44Ny44NyAyLjMzLjY2LjA3LS41Mi4yOC0uODcuNTEtMS4wNy0xLjc4LS4yLTMuNjQtLjg5LTMuNjQtMy45NSAwLS44Ny4zMS0xLjU5LjgyLTIuMTUtLjA4LS4yLS4zNi0xLjAyLjA4LTIuMTIgMCAwIC42Ny0uMjEgMi4yLjgyLjY0LS4xOCAxLjMyLS4yNyAyLS4yNy42OCAwIDEuMzYuMDkgMiAuMjcgMS41My0xLjA0IDIuMi0uODIgMi4yLS44Mi40NCAxLjEuMTYgMS45Mi4wOCAyLjEyLjUxLjU2LjgyIDEuMjcuODIgMi4xNSAwIDMuMDctMS44NyAzLjc1LTMuNjUgMy45NS4yOS4yNS41NC43My41NCAxLjQ4IDAgMS4wNy0uMDEgMS45My0uMDEgMi4yIDAgLjIxLjE1LjQ2LjU1LjM4QTguMDEzIDguMDEzIDAgMCAwIDE2IDhjMC00LjQyLTMuNTgtOC04LTh6Ii8+PC9zdmc+";

pub const AUTHORIZATION_URL: &str = "https://github.com/login/oauth/authorize";
/// Answers JSON only when asked with `Accept: application/json` (every
/// token request asks so).
pub const TOKEN_URL: &str = "https://github.com/login/oauth/access_token";
pub const USERINFO_URL: &str = "https://api.github.com/user";
pub const DEFAULT_SCOPE: &str = "read:user user:email";

/// GitHub's behaviour (`{ "builtin": "github" }`). Its token endpoint
/// answers errors with HTTP 200, which the standard token handling already
/// treats as errors.
pub struct GitHub;

impl ProviderBehaviour for GitHub {
    /// GitHub marks each of the account's addresses `verified` at
    /// `<userinfo>/emails` (the `user:email` scope): the profile's address
    /// is proven when it is listed there as verified.
    fn verified_email(
        &self,
        provider: &OAuthProvider,
        endpoints: &Endpoints,
        access_token: &str,
        profile: &Value,
    ) -> Option<String> {
        let email = profile.get("email").and_then(Value::as_str)?;
        let res = provider.http.get_json(&emails_url(endpoints.userinfo.as_deref()?), Some(access_token)).ok()?;
        if res.status >= 400 {
            return None;
        }
        res.body.as_array()?.iter().find_map(|e| {
            let address = e.get("email").and_then(Value::as_str)?;
            let verified = e.get("verified").and_then(Value::as_bool) == Some(true);
            (verified && crate::identity::same_address(address, email)).then(|| address.to_owned())
        })
    }

    fn defaults(&self) -> BuiltinDefaults {
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect();
        BuiltinDefaults {
            kind: Some("oauth"),
            id: Some("github"),
            name: Some("GitHub"),
            issuer: None,
            jwks_uri: None,
            authorization: Endpoint {
                url: Some(AUTHORIZATION_URL.into()),
                params: vec![("scope".into(), DEFAULT_SCOPE.into())],
            },
            token: Endpoint { url: Some(TOKEN_URL.into()), params: Vec::new() },
            userinfo: Endpoint { url: Some(USERINFO_URL.into()), params: Vec::new() },
            checks: None,
            profile_map: Some(ProfileMap {
                id: v(&["id"]),
                name: v(&["name", "login"]),
                email: v(&["email"]),
                image: v(&["avatar_url"]),
            }),
            style: Some(ButtonStyle {
                logo: Some(LOGO.into()),
                bg: Some("#24292f".into()),
                text: Some("#fff".into()),
                brand_color: None,
            }),
        }
    }

    /// Without a public email, the primary verified address from
    /// `<userinfo>/emails` (so an overridden user endpoint moves this one
    /// with it). If that request is refused, the email stays empty, as in
    /// Auth.js; an unverified address is never used.
    fn complete_profile(
        &self,
        provider: &OAuthProvider,
        endpoints: &Endpoints,
        access_token: &str,
        mut profile: Value,
    ) -> Result<Value, OAuthError> {
        let has_email = profile.get("email").and_then(Value::as_str).is_some_and(|e| !e.is_empty());
        let Some(userinfo) = endpoints.userinfo.as_deref() else { return Ok(profile) };
        if has_email || !profile.is_object() {
            return Ok(profile);
        }
        let res = provider.http.get_json(&emails_url(userinfo), Some(access_token))?;
        if !(200..300).contains(&res.status) {
            return Ok(profile);
        }
        let primary = res.body.as_array().and_then(|emails| {
            emails.iter().find(|e| {
                e.get("primary").and_then(Value::as_bool) == Some(true)
                    && e.get("verified").and_then(Value::as_bool) == Some(true)
            })
        });
        if let Some(email) = primary.and_then(|e| e.get("email")).and_then(Value::as_str) {
            profile["email"] = Value::String(email.to_owned());
        }
        Ok(profile)
    }
}

/// `https://api.github.com/user` → `https://api.github.com/user/emails`.
fn emails_url(userinfo: &str) -> String {
    let base = userinfo.split(['?', '#']).next().unwrap_or(userinfo);
    format!("{}/emails", base.trim_end_matches('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn emails_url_follows_the_user_endpoint() {
        assert_eq!(emails_url(USERINFO_URL), "https://api.github.com/user/emails");
        assert_eq!(emails_url("http://127.0.0.1:9/api/v3/user/?x=1"), "http://127.0.0.1:9/api/v3/user/emails");
    }
}
