//! The built-in Keycloak provider (OpenID Connect), as Auth.js's Keycloak:
//! the realm's issuer (`issuer` or `AUTH_KEYCLOAK_ISSUER`, e.g.
//! `https://kc.example.com/realms/myrealm`) drives discovery; the standard
//! claims are the user.

use super::oauth::ProviderBehaviour;
use super::oauth::{BuiltinDefaults, ButtonStyle};

/// Keycloak's mark (Simple Icons, CC0), white, as an inline SVG data URL.
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+PHBhdGggZmlsbD0iI2ZmZiIgZD0ibTE4Ljc0MiAxLjE4Mi0xMi40OTMuMDAyQzQuMTU1IDQuNzg0IDIuMDc5IDguMzkzIDAgMTIuMDAyYzIuMDcxIDMuNjEyIDQuMTYyIDcuMjE0IDYuMjUyIDEwLjgxNmwxMi40OS0uMDA0IDMuMDg5LTUuNDA0aDIuMTU4di0uMDAySDI0TDIzLjk5NiA2LjU5aC0yLjE2OHpNOC4zMjcgNC43OTJoMi4wODFsMS4wNCAxLjgtMy4xMiA1LjQxMyAzLjExNyA1LjQwMy0xLjAzNSAxLjgxSDguMzI3YTIwNDcuNTY2IDIwNDcuNTY2IDAgMCAwLTQuMTY4LTcuMjA0QzUuNTQ3IDkuNjA2IDYuOTM3IDcuMiA4LjMyNyA0Ljc5MlptNi4yNDEgMCAyLjA4Ni4wMDNjMS4zOTMgMi40MDUgMi43OCA0LjgxMyA0LjE2NiA3LjIyMmwtNC4xNjcgNy4yaC0yLjA4Yy0uMzgyLS41NjItMS4wMzgtMS44MDgtMS4wMzgtMS44MDhsMy4xMjMtNS40MDUtMy4xMjQtNS40MTN6Ii8+PC9zdmc+";

/// Keycloak's behaviour (`{ "builtin": "keycloak", "issuer": … }`).
pub struct Keycloak;

impl ProviderBehaviour for Keycloak {
    fn defaults(&self) -> BuiltinDefaults {
        BuiltinDefaults {
            kind: Some("oidc"),
            id: Some("keycloak"),
            name: Some("Keycloak"),
            style: Some(ButtonStyle::new(LOGO, "#428bca", "#fff")),
            ..BuiltinDefaults::default()
        }
    }
}
