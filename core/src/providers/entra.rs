//! The built-in Microsoft Entra ID provider (OpenID Connect, v2.0
//! endpoints), as Auth.js's MicrosoftEntraID: issuer
//! `https://login.microsoftonline.com/{tenant}/v2.0` (`issuer` or
//! `AUTH_MICROSOFT_ENTRA_ID_ISSUER`, default the `common` tenant), scopes
//! `openid profile email User.Read`, the standard claims as the user.
//!
//! The tenant decides which id_tokens are accepted, from their `tid` claim:
//! a tenant id accepts only its own tenant's tokens; `common` any tenant's;
//! `organizations` any but the personal-accounts tenant; `consumers` only
//! that one. The expected `iss` is always `…/{tid}/v2.0`, Microsoft's
//! issuer template with the token's own tenant, so a token whose `iss` and
//! `tid` disagree is refused too.

use serde_json::{Map, Value};
use subtle::ConstantTimeEq;

use crate::oauth::types::OAuthError;

use super::oauth::{standard_token_response, ProviderBehaviour};
use super::oauth::{BuiltinDefaults, ButtonStyle, Endpoint};

/// Microsoft's four squares, drawn for this button (Microsoft asked Simple
/// Icons to remove its logos; Microsoft's sign-in branding guidelines show
/// this mark on "Sign in with Microsoft" buttons), as an inline SVG data URL.
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyMyAyMyI+PHBhdGggZmlsbD0iI2YyNTAyMiIgZD0iTTEgMWgxMHYxMEgxeiIvPjxwYXRoIGZpbGw9IiM3ZmJhMDAiIGQ9Ik0xMiAxaDEwdjEwSDEyeiIvPjxwYXRoIGZpbGw9IiMwMGE0ZWYiIGQ9Ik0xIDEyaDEwdjEwSDF6Ii8+PHBhdGggZmlsbD0iI2ZmYjkwMCIgZD0iTTEyIDEyaDEwdjEwSDEyeiIvPjwvc3ZnPg==";

pub const ISSUER: &str = "https://login.microsoftonline.com/common/v2.0";
/// The tenant of personal Microsoft accounts.
pub const CONSUMERS_TENANT: &str = "9188040d-6c67-4c5b-b112-36a304b66dad";

/// Entra ID's behaviour (`{ "builtin": "microsoft-entra-id" }`).
pub struct MicrosoftEntraId;

/// `https://login.microsoftonline.com/{tenant}/v2.0` → (origin, tenant).
fn split_issuer(issuer: &str) -> Option<(String, String)> {
    let url = url::Url::parse(issuer).ok()?;
    let segments: Vec<&str> = url.path().trim_matches('/').split('/').collect();
    match segments.as_slice() {
        [tenant, "v2.0"] if !tenant.is_empty() => Some((url.origin().ascii_serialization(), (*tenant).to_owned())),
        _ => None,
    }
}

fn defaults_at(issuer: &str, origin: &str, tenant: &str) -> BuiltinDefaults {
    BuiltinDefaults {
        kind: Some("oidc"),
        id: Some("microsoft-entra-id"),
        name: Some("Microsoft Entra ID"),
        issuer: Some(issuer.into()),
        // The tenant's endpoints, given so no discovery is needed (the
        // multi-tenant discovery documents name an `{tenantid}` template
        // as their issuer).
        authorization: Endpoint::new(
            format!("{origin}/{tenant}/oauth2/v2.0/authorize"),
            &[("scope", "openid profile email User.Read")],
        ),
        token: Endpoint::new(format!("{origin}/{tenant}/oauth2/v2.0/token"), &[]),
        jwks_uri: Some(format!("{origin}/{tenant}/discovery/v2.0/keys")),
        style: Some(ButtonStyle::new(LOGO, "#0072c6", "#fff")),
        ..BuiltinDefaults::default()
    }
}

impl ProviderBehaviour for MicrosoftEntraId {
    /// Never: Entra ID's `email` claim is a mutable directory attribute that
    /// a tenant's own administrators (or, under the `common` issuer, any
    /// tenant's) set to any address, unverified; its `email_verified` is not
    /// issued for it.
    fn verified_email(
        &self,
        _provider: &super::oauth::OAuthProvider,
        _endpoints: &crate::oauth::types::Endpoints,
        _access_token: &str,
        _profile: &Value,
    ) -> Option<String> {
        None
    }

    fn defaults(&self) -> BuiltinDefaults {
        defaults_at(ISSUER, "https://login.microsoftonline.com", "common")
    }

    fn configured_defaults(
        &self,
        options: &super::oauth::ProviderOptions,
    ) -> Result<BuiltinDefaults, (&'static str, String)> {
        let issuer = options.issuer.as_deref().unwrap_or(ISSUER);
        let (origin, tenant) = split_issuer(issuer).ok_or_else(|| {
            ("issuer", format!("must be https://login.microsoftonline.com/<tenant id>/v2.0, got {issuer:?}"))
        })?;
        // A tenant named by its domain can't be checked against `tid` (a GUID).
        if tenant.contains('.') {
            return Err(("issuer", format!("name the tenant by its ID (a GUID), not its domain {tenant:?}")));
        }
        Ok(defaults_at(issuer, &origin, &tenant))
    }

    /// Errors carry `trace_id`, the request id Microsoft's support asks for.
    fn token_response(&self, status: u16, body: Value) -> Result<Map<String, Value>, OAuthError> {
        standard_token_response(status, body, Some("trace_id"))
    }

    fn accepted_issuers(&self, issuer: &str, claims: &Map<String, Value>) -> Result<Vec<String>, String> {
        let (origin, tenant) = split_issuer(issuer).ok_or_else(|| format!("issuer {issuer:?} names no tenant"))?;
        let tid = claims.get("tid").and_then(Value::as_str).filter(|t| !t.is_empty()).ok_or("no tid claim")?;
        let same =
            |a: &str, b: &str| bool::from(a.to_ascii_lowercase().as_bytes().ct_eq(b.to_ascii_lowercase().as_bytes()));
        match tenant.as_str() {
            "common" | "{tenantid}" => {}
            "organizations" if same(tid, CONSUMERS_TENANT) => {
                return Err("a personal Microsoft account, but the tenant is organizations".into())
            }
            "organizations" => {}
            "consumers" if !same(tid, CONSUMERS_TENANT) => {
                return Err("a work or school account, but the tenant is consumers".into())
            }
            "consumers" => {}
            configured if !same(tid, configured) => {
                return Err(format!("the id_token is from tenant {tid}, not the configured tenant"))
            }
            _ => {}
        }
        Ok(vec![format!("{origin}/{tid}/v2.0")])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TENANT: &str = "72f988bf-86f1-41af-91ab-2d7cd011db47";
    const OTHER: &str = "00000000-0000-0000-0000-000000000001";

    fn claims(tid: &str) -> Map<String, Value> {
        json!({ "tid": tid }).as_object().unwrap().clone()
    }

    #[test]
    fn the_tenant_decides() {
        let b = MicrosoftEntraId;
        let at = |t: &str| format!("https://login.microsoftonline.com/{t}/v2.0");
        assert_eq!(b.accepted_issuers(ISSUER, &claims(TENANT)).unwrap(), [at(TENANT)]);
        assert_eq!(b.accepted_issuers(&at(TENANT), &claims(TENANT)).unwrap(), [at(TENANT)]);
        assert!(b.accepted_issuers(&at(TENANT), &claims(OTHER)).is_err(), "another tenant's token");
        assert!(b.accepted_issuers(&at("organizations"), &claims(CONSUMERS_TENANT)).is_err());
        assert!(b.accepted_issuers(&at("organizations"), &claims(TENANT)).is_ok());
        assert!(b.accepted_issuers(&at("consumers"), &claims(TENANT)).is_err());
        assert!(b.accepted_issuers(&at("consumers"), &claims(CONSUMERS_TENANT)).is_ok());
        assert!(b.accepted_issuers(ISSUER, &Map::new()).is_err(), "no tid");
    }

    #[test]
    fn endpoints_follow_the_tenant() {
        let options = super::super::oauth::ProviderOptions {
            issuer: Some(format!("https://login.microsoftonline.com/{TENANT}/v2.0")),
            ..Default::default()
        };
        let d = MicrosoftEntraId.configured_defaults(&options).unwrap();
        assert_eq!(d.token.url.unwrap(), format!("https://login.microsoftonline.com/{TENANT}/oauth2/v2.0/token"));
        assert_eq!(d.jwks_uri.unwrap(), format!("https://login.microsoftonline.com/{TENANT}/discovery/v2.0/keys"));
        let domain = super::super::oauth::ProviderOptions {
            issuer: Some("https://login.microsoftonline.com/contoso.onmicrosoft.com/v2.0".into()),
            ..Default::default()
        };
        assert!(MicrosoftEntraId.configured_defaults(&domain).is_err());
    }
}
