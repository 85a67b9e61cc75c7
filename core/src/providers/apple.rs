//! The built-in Apple provider (Sign in with Apple, OpenID Connect), as
//! Auth.js's Apple: issuer `https://appleid.apple.com`, scopes `name email`
//! with `response_mode=form_post`, the nonce and state checks, client
//! credentials in the token request body, id = `sub`, name = the name Apple
//! posts once (else the email), no image.
//!
//! Apple's quirks, all here:
//! - The client secret is an ES256 JWT signed with the app's `.p8` key
//!   (`teamId`, `keyId`, `privateKey`), minted on first use and again
//!   before it expires. A pre-made JWT can still be given as `clientSecret`.
//! - The callback is a cross-site POST; the route answers it with a
//!   same-site re-post when the browser left the check cookies out (see
//!   `routes/oauth.rs`), so they stay `SameSite=Lax`.
//! - The user's name is never in the id_token: Apple posts it beside the
//!   code, as the `user` form field (JSON), on the first consent only.

use std::time::{Duration, UNIX_EPOCH};

use josekit::jws::{JwsHeader, ES256};
use josekit::jwt::JwtPayload;
use serde_json::{Map, Value};

use super::oauth::ProviderBehaviour;
use super::oauth::{
    BuiltinDefaults, ButtonStyle, Checks, ClientAuth, Endpoint, OAuthProvider, ProfileMap, ProviderOption,
    ProviderOptions, SigningKey,
};
use crate::oauth::types::OAuthError;
use crate::time::now_seconds;

/// Apple's logo (Simple Icons, CC0), white, as an inline SVG data URL.
const LOGO: &str = "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAyNCAyNCI+PHBhdGggZmlsbD0iI2ZmZiIgZD0iTTEyLjE1MiA2Ljg5NmMtLjk0OCAwLTIuNDE1LTEuMDc4LTMuOTYtMS4wNC0yLjA0LjAyNy0zLjkxIDEuMTgzLTQuOTYxIDMuMDE0LTIuMTE3IDMuNjc1LS41NDYgOS4xMDMgMS41MTkgMTIuMDkgMS4wMTMgMS40NTQgMi4yMDggMy4wOSAzLjc5MiAzLjAzOSAxLjUyLS4wNjUgMi4wOS0uOTg3IDMuOTM1LS45ODcgMS44MzEgMCAyLjM1Ljk4NyAzLjk2Ljk0OCAxLjYzNy0uMDI2IDIuNjc2LTEuNDggMy42NzYtMi45NDggMS4xNTYtMS42ODggMS42MzYtMy4zMjUgMS42NjItMy40MTUtLjAzOS0uMDEzLTMuMTgyLTEuMjIxLTMuMjItNC44NTctLjAyNi0zLjA0IDIuNDgtNC40OTQgMi41OTctNC41NTktMS40MjktMi4wOS0zLjYyMy0yLjMyNC00LjM5LTIuMzc2LTItLjE1Ni0zLjY3NSAxLjA5LTQuNjEgMS4wOXpNMTUuNTMgMy44M2MuODQzLTEuMDEyIDEuNC0yLjQyNyAxLjI0NS0zLjgzLTEuMjA3LjA1Mi0yLjY2Mi44MDUtMy41MzIgMS44MTgtLjc4Ljg5Ni0xLjQ1NCAyLjMzOC0xLjI3MyAzLjcxNCAxLjMzOC4xMDQgMi43MTUtLjY4OCAzLjU1OS0xLjcwMSIvPjwvc3ZnPg==";

pub const ISSUER: &str = "https://appleid.apple.com";
/// How long a minted client secret is valid (Apple allows up to six months).
pub const SECRET_LIFETIME: u64 = 24 * 60 * 60;
/// A secret this close to its expiry is minted again.
pub const REMINT_BEFORE: u64 = 60 * 60;

/// Apple's behaviour (`{ "builtin": "apple" }`).
pub struct Apple;

impl Apple {
    fn at(issuer: &str) -> BuiltinDefaults {
        let base = issuer.trim_end_matches('/');
        BuiltinDefaults {
            kind: Some("oidc"),
            id: Some("apple"),
            name: Some("Apple"),
            issuer: Some(issuer.into()),
            // Apple's endpoints, given so no discovery is needed.
            authorization: Endpoint::new(
                format!("{base}/auth/authorize"),
                &[("scope", "name email"), ("response_mode", "form_post")],
            ),
            token: Endpoint::new(format!("{base}/auth/token"), &[]),
            jwks_uri: Some(format!("{base}/auth/keys")),
            checks: Some(Checks { pkce: false, state: true, nonce: true }),
            profile_map: Some(ProfileMap::of(&["sub"], &["name", "email"], &["email"], &[])),
            style: Some(ButtonStyle::new(LOGO, "#000", "#fff")),
            ..BuiltinDefaults::default()
        }
    }
}

impl ProviderBehaviour for Apple {
    fn defaults(&self) -> BuiltinDefaults {
        Apple::at(ISSUER)
    }

    fn options(&self) -> &'static [ProviderOption] {
        &[ProviderOption::SigningKey]
    }

    fn configured_defaults(&self, options: &ProviderOptions) -> Result<BuiltinDefaults, (&'static str, String)> {
        if let Some(key) = &options.signing_key {
            ES256
                .signer_from_pem(key.private_key.as_bytes())
                .map_err(|e| ("privateKey", format!("not an ES256 private key in PEM (the .p8 file): {e}")))?;
        }
        Ok(Apple::at(options.issuer.as_deref().unwrap_or(ISSUER)))
    }

    fn client_auth(&self, configured: Option<ClientAuth>) -> ClientAuth {
        configured.unwrap_or(ClientAuth::Post)
    }

    /// The minted JWT, kept until [`REMINT_BEFORE`] its expiry.
    fn client_secret(&self, provider: &OAuthProvider) -> Result<Option<String>, OAuthError> {
        let Some(key) = &provider.options.signing_key else { return Ok(provider.client_secret.clone()) };
        let now = now_seconds();
        let mut cached = provider.minted_secret.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((secret, expires)) = cached.as_ref() {
            if now + REMINT_BEFORE < *expires {
                return Ok(Some(secret.clone()));
            }
        }
        let audience = provider.issuer.as_deref().unwrap_or(ISSUER).trim_end_matches('/');
        let secret = mint_client_secret(key, &provider.client_id, audience, now)?;
        *cached = Some((secret.clone(), now + SECRET_LIFETIME));
        Ok(Some(secret))
    }

    /// The first-consent `user` field: `{"name": {"firstName", "lastName"}, "email"}`.
    fn callback_profile(&self, params: &Map<String, Value>, mut profile: Value) -> Value {
        let Some(user) = params.get("user").and_then(Value::as_str).and_then(|u| serde_json::from_str::<Value>(u).ok())
        else {
            return profile;
        };
        let Some(claims) = profile.as_object_mut() else { return profile };
        let part = |k: &str| user.get("name").and_then(|n| n.get(k)).and_then(Value::as_str).unwrap_or("").trim();
        let name = format!("{} {}", part("firstName"), part("lastName")).trim().to_owned();
        if !name.is_empty() && !claims.contains_key("name") {
            claims.insert("name".into(), name.into());
        }
        claims.insert("user".into(), user);
        profile
    }
}

/// The client secret Apple documents: ES256, `kid` = key id, `iss` = team
/// id, `sub` = the Services ID (client id), `aud` = Apple's issuer.
pub fn mint_client_secret(key: &SigningKey, client_id: &str, audience: &str, now: u64) -> Result<String, OAuthError> {
    mint_client_secret_for(key, client_id, audience, now, SECRET_LIFETIME)
}

/// [`mint_client_secret`] valid for `lifetime` seconds (Apple accepts at
/// most six months): for a secret minted once and configured, as
/// `libauth provider add apple --p8` does.
pub fn mint_client_secret_for(
    key: &SigningKey,
    client_id: &str,
    audience: &str,
    now: u64,
    lifetime: u64,
) -> Result<String, OAuthError> {
    let fail = |e: josekit::JoseError| OAuthError::ClientSecret(e.to_string());
    let signer = ES256.signer_from_pem(key.private_key.as_bytes()).map_err(fail)?;
    let mut header = JwsHeader::new();
    header.set_key_id(&key.key_id);
    let mut payload = JwtPayload::new();
    payload.set_issuer(&key.team_id);
    payload.set_subject(client_id);
    payload.set_audience(vec![audience]);
    // A whole number, as Apple documents (josekit writes a fraction).
    payload.set_claim("iat", Some(serde_json::json!(now))).map_err(fail)?;
    payload.set_expires_at(&(UNIX_EPOCH + Duration::from_secs(now + lifetime)));
    josekit::jwt::encode_with_signer(&payload, &header, &signer).map_err(fail)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_name_comes_from_the_user_field() {
        let params = json!({"user": r#"{"name":{"firstName":"Jane","lastName":"Appleseed"},"email":"j@privaterelay.appleid.com"}"#});
        let profile = Apple.callback_profile(params.as_object().unwrap(), json!({"sub": "001.abc"}));
        assert_eq!(profile["name"], "Jane Appleseed");
        assert_eq!(profile["user"]["name"]["firstName"], "Jane");
        // Later sign-ins carry no `user`: the profile is the id_token's.
        let profile = Apple.callback_profile(&Map::new(), json!({"sub": "001.abc"}));
        assert_eq!(profile, json!({"sub": "001.abc"}));
        // Garbage is ignored.
        let params = json!({"user": "{not json"});
        assert_eq!(Apple.callback_profile(params.as_object().unwrap(), json!({"sub": "1"})), json!({"sub": "1"}));
    }

    #[test]
    fn the_client_secret_is_an_es256_jwt() {
        let pair = ES256.generate_key_pair().unwrap();
        let pem = String::from_utf8(pair.to_pem_private_key()).unwrap();
        let key = SigningKey { team_id: "TEAM123456".into(), key_id: "KEY1234567".into(), private_key: pem };
        let jwt = mint_client_secret(&key, "com.example.web", ISSUER, 1_700_000_000).unwrap();
        let verifier = ES256.verifier_from_pem(pair.to_pem_public_key()).unwrap();
        let (payload, header) = josekit::jwt::decode_with_verifier(&jwt, &verifier).unwrap();
        assert_eq!(header.key_id(), Some("KEY1234567"));
        assert_eq!(payload.issuer(), Some("TEAM123456"));
        assert_eq!(payload.subject(), Some("com.example.web"));
        assert_eq!(payload.claim("aud"), Some(&json!(ISSUER)));
        assert_eq!(payload.claim("exp"), Some(&json!(1_700_000_000 + SECRET_LIFETIME)));
    }
}
