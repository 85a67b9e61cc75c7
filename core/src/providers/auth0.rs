//! The built-in Auth0 provider (OpenID Connect), as Auth.js's Auth0: the
//! tenant's issuer (`issuer` or `AUTH_AUTH0_ISSUER`, e.g.
//! `https://example.us.auth0.com/`) drives discovery; the standard claims
//! are the user.

use serde_json::{Map, Value};

use super::oauth::ProviderBehaviour;
use super::oauth::{BuiltinDefaults, ButtonStyle};

/// Auth0's mark (Simple Icons, CC0), white, as an inline SVG data URL.
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+PHBhdGggZmlsbD0iI2ZmZiIgZD0iTTIxLjk4IDcuNDQ4TDE5LjYyIDBINC4zNDdMMi4wMiA3LjQ0OGMtMS4zNTIgNC4zMTIuMDMgOS4yMDYgMy44MTUgMTIuMDE1TDEyLjAwNyAyNGw2LjE1Ny00LjU1MmMzLjc1NS0yLjgxIDUuMTgyLTcuNjg4IDMuODE1LTEyLjAxNWwtNi4xNiA0LjU4IDIuMzQzIDcuNDUtNi4xNTctNC41OTctNi4xNTggNC41OCAyLjM1OC03LjQzMy02LjE4OC00LjU1IDcuNjMtLjA0NUwxMi4wMDggMGwyLjM1NiA3LjQwNCA3LjYxNS4wNDR6Ii8+PC9zdmc+";

/// Auth0's behaviour (`{ "builtin": "auth0", "issuer": … }`).
pub struct Auth0;

impl ProviderBehaviour for Auth0 {
    fn defaults(&self) -> BuiltinDefaults {
        BuiltinDefaults {
            kind: Some("oidc"),
            id: Some("auth0"),
            name: Some("Auth0"),
            style: Some(ButtonStyle::new(LOGO, "#EB5424", "#fff")),
            ..BuiltinDefaults::default()
        }
    }

    /// Auth0's `iss` ends with `/` (`https://tenant.auth0.com/`); a
    /// configured issuer written without it is the same issuer.
    fn accepted_issuers(&self, issuer: &str, _claims: &Map<String, Value>) -> Result<Vec<String>, String> {
        let bare = issuer.trim_end_matches('/');
        Ok(vec![format!("{bare}/"), bare.to_owned()])
    }
}
