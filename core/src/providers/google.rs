//! The built-in Google provider (OpenID Connect), as Auth.js's Google:
//! issuer `https://accounts.google.com`, endpoints by discovery, the
//! standard claims as the user (`sub`, `name`, `email`, `picture`).
//! `offlineAccess: true` asks for a refresh token: Google issues one only
//! with `access_type=offline`, and again only with `prompt=consent`.

use serde_json::{Map, Value};

use super::oauth::ProviderBehaviour;
use super::oauth::{BuiltinDefaults, ButtonStyle, ProviderOption, ProviderOptions};

/// Google's "G" (Simple Icons, CC0), white, as an inline SVG data URL.
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+PHBhdGggZmlsbD0iI2ZmZiIgZD0iTTEyLjQ4IDEwLjkydjMuMjhoNy44NGMtLjI0IDEuODQtLjg1MyAzLjE4Ny0xLjc4NyA0LjEzMy0xLjE0NyAxLjE0Ny0yLjkzMyAyLjQtNi4wNTMgMi40LTQuODI3IDAtOC42LTMuODkzLTguNi04LjcyczMuNzczLTguNzIgOC42LTguNzJjMi42IDAgNC41MDcgMS4wMjcgNS45MDcgMi4zNDdsMi4zMDctMi4zMDdDMTguNzQ3IDEuNDQgMTYuMTMzIDAgMTIuNDggMCA1Ljg2NyAwIC4zMDcgNS4zODcuMzA3IDEyczUuNTYgMTIgMTIuMTczIDEyYzMuNTczIDAgNi4yNjctMS4xNzMgOC4zNzMtMy4zNiAyLjE2LTIuMTYgMi44NC01LjIxMyAyLjg0LTcuNjY3IDAtLjc2LS4wNTMtMS40NjctLjE3My0yLjA1M0gxMi40OHoiLz48L3N2Zz4=";

pub const ISSUER: &str = "https://accounts.google.com";

/// Google's behaviour (`{ "builtin": "google" }`).
pub struct Google;

impl ProviderBehaviour for Google {
    fn defaults(&self) -> BuiltinDefaults {
        BuiltinDefaults {
            kind: Some("oidc"),
            id: Some("google"),
            name: Some("Google"),
            issuer: Some(ISSUER.into()),
            style: Some(ButtonStyle::new(LOGO, "#1a73e8", "#fff")),
            ..BuiltinDefaults::default()
        }
    }

    fn options(&self) -> &'static [ProviderOption] {
        &[ProviderOption::OfflineAccess]
    }

    fn configured_defaults(&self, options: &ProviderOptions) -> Result<BuiltinDefaults, (&'static str, String)> {
        let mut defaults = self.defaults();
        if options.offline_access {
            defaults.authorization.params =
                vec![("access_type".into(), "offline".into()), ("prompt".into(), "consent".into())];
        }
        Ok(defaults)
    }

    /// Google documents `hl` on its authorization endpoint: a BCP 47 tag
    /// for the language of its sign-in, account chooser and consent screens.
    fn locale_param(&self) -> Option<&'static str> {
        Some("hl")
    }

    /// Google documents `iss` as `https://accounts.google.com` or
    /// `accounts.google.com`: the issuer without its scheme is the same one.
    fn accepted_issuers(&self, issuer: &str, _claims: &Map<String, Value>) -> Result<Vec<String>, String> {
        let bare = issuer.split_once("://").map(|(_, rest)| rest.to_owned());
        Ok(std::iter::once(issuer.to_owned()).chain(bare).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offline_access_asks_for_a_refresh_token() {
        let d = Google.configured_defaults(&ProviderOptions { offline_access: true, ..Default::default() }).unwrap();
        assert!(d.authorization.params.contains(&("access_type".into(), "offline".into())));
        assert!(d.authorization.params.contains(&("prompt".into(), "consent".into())));
        assert!(Google.configured_defaults(&ProviderOptions::default()).unwrap().authorization.params.is_empty());
    }

    #[test]
    fn both_spellings_of_the_issuer() {
        let accepted = Google.accepted_issuers(ISSUER, &Map::new()).unwrap();
        assert_eq!(accepted, ["https://accounts.google.com", "accounts.google.com"]);
    }
}
