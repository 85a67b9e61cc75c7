//! The built-in LinkedIn provider ("Sign In with LinkedIn using OpenID
//! Connect"), as Auth.js's LinkedIn: issuer `https://www.linkedin.com/oauth`
//! (endpoints by discovery), client credentials in the token request body,
//! the state check only (LinkedIn documents no PKCE for web apps), the
//! standard claims as the user.

use super::oauth::ProviderBehaviour;
use super::oauth::{BuiltinDefaults, ButtonStyle, Checks, ClientAuth};

/// A LinkedIn-style "in" mark drawn for this button (LinkedIn asked Simple
/// Icons to remove its logo; this is a plain drawing, no trademark artwork
/// copied), as an inline SVG data URL.
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+PHJlY3Qgd2lkdGg9IjI0IiBoZWlnaHQ9IjI0IiByeD0iMyIgZmlsbD0iI2ZmZiIvPjxwYXRoIGZpbGw9IiMwNjkiIGQ9Ik01IDloM3YxMEg1ek02LjUgNC41YTEuNzUgMS43NSAwIDEgMSAwIDMuNSAxLjc1IDEuNzUgMCAwIDEgMC0zLjV6TTEwIDloM3YxLjRjLjUtLjkgMS42LTEuNiAzLjEtMS42IDMgMCAzLjkgMS44IDMuOSA0LjZWMTloLTN2LTVjMC0xLjMtLjMtMi40LTEuNy0yLjRzLTIuMyAxLTIuMyAyLjVWMTloLTN6Ii8+PC9zdmc+";

pub const ISSUER: &str = "https://www.linkedin.com/oauth";

/// LinkedIn's behaviour (`{ "builtin": "linkedin" }`).
pub struct LinkedIn;

impl ProviderBehaviour for LinkedIn {
    fn defaults(&self) -> BuiltinDefaults {
        BuiltinDefaults {
            kind: Some("oidc"),
            id: Some("linkedin"),
            name: Some("LinkedIn"),
            issuer: Some(ISSUER.into()),
            checks: Some(Checks { pkce: false, state: true, nonce: false }),
            style: Some(ButtonStyle::new(LOGO, "#069", "#fff")),
            ..BuiltinDefaults::default()
        }
    }

    fn client_auth(&self, configured: Option<ClientAuth>) -> ClientAuth {
        configured.unwrap_or(ClientAuth::Post)
    }
}
