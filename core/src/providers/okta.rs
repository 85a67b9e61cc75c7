//! The built-in Okta provider (OpenID Connect), as Auth.js's Okta: the org
//! or authorization server's issuer (`issuer` or `AUTH_OKTA_ISSUER`, e.g.
//! `https://dev-1.okta.com/oauth2/default`) drives discovery; PKCE and
//! state, no nonce (Auth.js's checks); the standard claims are the user.

use super::oauth::ProviderBehaviour;
use super::oauth::{BuiltinDefaults, ButtonStyle, Checks};

/// Okta's mark (Simple Icons, CC0), white, as an inline SVG data URL.
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+PHBhdGggZmlsbD0iI2ZmZiIgZD0iTTEyIDBDNS4zODkgMCAwIDUuMzUgMCAxMnM1LjM1IDEyIDEyIDEyIDEyLTUuMzUgMTItMTJTMTguNjExIDAgMTIgMHptMCAxOGMtMy4zMjUgMC02LTIuNjc1LTYtNnMyLjY3NS02IDYtNiA2IDIuNjc1IDYgNi0yLjY3NSA2LTYgNnoiLz48L3N2Zz4=";

/// Okta's behaviour (`{ "builtin": "okta", "issuer": … }`).
pub struct Okta;

impl ProviderBehaviour for Okta {
    fn defaults(&self) -> BuiltinDefaults {
        BuiltinDefaults {
            kind: Some("oidc"),
            id: Some("okta"),
            name: Some("Okta"),
            checks: Some(Checks { pkce: true, state: true, nonce: false }),
            style: Some(ButtonStyle::new(LOGO, "#000", "#fff")),
            ..BuiltinDefaults::default()
        }
    }
}
