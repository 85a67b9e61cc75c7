//! id_token verification (OIDC Core §3.1.3.7): signature against the
//! provider's JWKS (refetched once on an unknown `kid`, so key rotation
//! works), then `iss`, `aud`, `azp`, `exp` and `nonce`.

use std::sync::Arc;

use josekit::jwk::{Jwk, JwkSet};
use josekit::jws::{self, JwsVerifier};
use serde_json::{Map, Value};
use subtle::ConstantTimeEq;

use super::{Endpoints, OAuthError};
use crate::jwt::CLOCK_TOLERANCE;
use crate::providers::oauth::OAuthProvider;
use crate::time::now_seconds;

/// Algorithms we accept. Never `none`; HMAC ids are not supported.
const ALLOWED: &[&str] = &["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"];

pub fn verify_id_token(
    provider: &OAuthProvider,
    endpoints: &Endpoints,
    id_token: &str,
    expected_nonce: Option<&str>,
) -> Result<Map<String, Value>, OAuthError> {
    let header = josekit::jwt::decode_header(id_token).map_err(|e| OAuthError::IdToken(format!("bad header: {e}")))?;
    let alg = header.claim("alg").and_then(Value::as_str).unwrap_or("").to_owned();
    if !ALLOWED.contains(&alg.as_str()) {
        return Err(OAuthError::IdToken(format!("unsupported alg {alg:?}")));
    }
    let kid = header.claim("kid").and_then(Value::as_str).map(str::to_owned);
    let jwks_url = endpoints.jwks.as_deref().ok_or(OAuthError::MissingEndpoint("jwks_uri"))?;

    // Cached keys first; on an unknown kid, fetch again once (rotation).
    let mut jwks = cached_jwks(provider, jwks_url, false)?;
    let jwk = match find_key(&jwks, kid.as_deref(), &alg) {
        Some(k) => k,
        None => {
            jwks = cached_jwks(provider, jwks_url, true)?;
            find_key(&jwks, kid.as_deref(), &alg)
                .ok_or_else(|| OAuthError::IdToken(format!("no key {kid:?} for {alg} in the provider's JWKS")))?
        }
    };
    let verifier = verifier_for(&alg, &jwk)?;
    let (payload, _) = josekit::jwt::decode_with_verifier(id_token, verifier.as_ref())
        .map_err(|e| OAuthError::IdToken(format!("signature: {e}")))?;
    let claims = payload.claims_set().clone();
    check_claims(&claims, provider, endpoints, expected_nonce, now_seconds())?;
    Ok(claims)
}

fn check_claims(
    claims: &Map<String, Value>,
    provider: &OAuthProvider,
    endpoints: &Endpoints,
    expected_nonce: Option<&str>,
    now: u64,
) -> Result<(), OAuthError> {
    let now = now as f64;
    // An OIDC provider always has an issuer (configuration requires one);
    // without it no token is accepted, rather than any `iss` at all.
    let issuer =
        endpoints.issuer.as_deref().ok_or_else(|| OAuthError::IdToken("no issuer to check iss against".into()))?;
    // The provider may spell its issuer more than one way, or derive it
    // from the token (Entra ID's tenant template).
    let accepted = provider.behaviour.accepted_issuers(issuer, claims).map_err(OAuthError::IdToken)?;
    let iss = claims.get("iss").and_then(Value::as_str);
    if !accepted.iter().any(|a| Some(a.as_str()) == iss) {
        return Err(OAuthError::IdToken(format!("iss is not {}", accepted.join(" or "))));
    }
    let audiences: Vec<&str> = match claims.get("aud") {
        Some(Value::String(a)) => vec![a.as_str()],
        Some(Value::Array(list)) => list.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !audiences.contains(&provider.client_id.as_str()) {
        return Err(OAuthError::IdToken("aud does not contain our client id".into()));
    }
    // `azp`, whenever present (one audience or several), must be us.
    if let Some(azp) = claims.get("azp") {
        if azp.as_str() != Some(provider.client_id.as_str()) {
            return Err(OAuthError::IdToken("azp is not our client id".into()));
        }
    }
    let exp = claims.get("exp").and_then(Value::as_f64).ok_or_else(|| OAuthError::IdToken("no exp".into()))?;
    if !exp.is_finite() || exp + CLOCK_TOLERANCE as f64 <= now {
        return Err(OAuthError::IdToken("expired".into()));
    }
    let iat = claims.get("iat").and_then(Value::as_f64).ok_or_else(|| OAuthError::IdToken("no iat".into()))?;
    if !iat.is_finite() || iat > now + CLOCK_TOLERANCE as f64 {
        return Err(OAuthError::IdToken("iat is in the future".into()));
    }
    if claims.get("sub").and_then(Value::as_str).is_none_or(str::is_empty) {
        return Err(OAuthError::IdToken("no sub".into()));
    }
    if let Some(expected) = expected_nonce {
        let given = claims.get("nonce").and_then(Value::as_str).unwrap_or("");
        if !bool::from(given.as_bytes().ct_eq(expected.as_bytes())) {
            return Err(OAuthError::IdToken("nonce mismatch".into()));
        }
    }
    Ok(())
}

fn cached_jwks(provider: &OAuthProvider, url: &str, refresh: bool) -> Result<Arc<JwkSet>, OAuthError> {
    if !refresh {
        if let Some(set) = provider.jwks.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
            return Ok(set.clone());
        }
    }
    let res = provider.http.get_json(url, None)?;
    if res.status != 200 {
        return Err(OAuthError::IdToken(format!("JWKS answered HTTP {}", res.status)));
    }
    let set = JwkSet::from_map(res.body.as_object().cloned().unwrap_or_default())
        .map_err(|e| OAuthError::IdToken(format!("JWKS: {e}")))?;
    let set = Arc::new(set);
    *provider.jwks.write().unwrap_or_else(|e| e.into_inner()) = Some(set.clone());
    Ok(set)
}

/// The key for `kid` (or, without a kid, the only key usable for `alg`).
fn find_key(set: &JwkSet, kid: Option<&str>, alg: &str) -> Option<Jwk> {
    let usable = |k: &&Jwk| k.key_use().is_none_or(|u| u == "sig") && k.algorithm().is_none_or(|a| a == alg);
    match kid {
        Some(kid) => set.get(kid).into_iter().find(usable).cloned(),
        None => {
            let keys: Vec<&Jwk> = set.keys().into_iter().filter(usable).filter(|k| key_fits(k, alg)).collect();
            (keys.len() == 1).then(|| keys[0].clone())
        }
    }
}

fn key_fits(jwk: &Jwk, alg: &str) -> bool {
    match jwk.key_type() {
        "RSA" => alg.starts_with("RS") || alg.starts_with("PS"),
        "EC" => alg.starts_with("ES"),
        "OKP" => alg == "EdDSA",
        _ => false,
    }
}

fn verifier_for(alg: &str, jwk: &Jwk) -> Result<Box<dyn JwsVerifier>, OAuthError> {
    let err = |e: josekit::JoseError| OAuthError::IdToken(format!("key: {e}"));
    Ok(match alg {
        "RS256" => Box::new(jws::RS256.verifier_from_jwk(jwk).map_err(err)?),
        "RS384" => Box::new(jws::RS384.verifier_from_jwk(jwk).map_err(err)?),
        "RS512" => Box::new(jws::RS512.verifier_from_jwk(jwk).map_err(err)?),
        "PS256" => Box::new(jws::PS256.verifier_from_jwk(jwk).map_err(err)?),
        "PS384" => Box::new(jws::PS384.verifier_from_jwk(jwk).map_err(err)?),
        "PS512" => Box::new(jws::PS512.verifier_from_jwk(jwk).map_err(err)?),
        "ES256" => Box::new(jws::ES256.verifier_from_jwk(jwk).map_err(err)?),
        "ES384" => Box::new(jws::ES384.verifier_from_jwk(jwk).map_err(err)?),
        "ES512" => Box::new(jws::ES512.verifier_from_jwk(jwk).map_err(err)?),
        "EdDSA" => Box::new(jws::EdDSA.verifier_from_jwk(jwk).map_err(err)?),
        other => return Err(OAuthError::IdToken(format!("unsupported alg {other}"))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::providers::{ProviderKind, Providers};
    use serde_json::json;

    fn provider() -> crate::providers::Provider {
        let config = json!([{ "type": "oidc", "id": "op", "issuer": "https://op.example", "clientId": "app", "clientSecret": "s" }]);
        let providers =
            Providers::parse(config.as_array().unwrap(), &crate::NoHooks, &std::collections::HashMap::new()).unwrap();
        providers.into_iter().next().unwrap()
    }

    fn endpoints() -> Endpoints {
        Endpoints {
            authorization: "https://op.example/auth".into(),
            token: "https://op.example/token".into(),
            userinfo: None,
            jwks: None,
            issuer: Some("https://op.example".into()),
        }
    }

    fn claims(extra: Value) -> Map<String, Value> {
        let now = now_seconds();
        let mut c = json!({ "iss": "https://op.example", "aud": "app", "sub": "u1", "iat": now, "exp": now + 60, "nonce": "n1" });
        for (k, v) in extra.as_object().unwrap() {
            c[k] = v.clone();
        }
        c.as_object().unwrap().clone()
    }

    #[test]
    fn claim_checks() {
        let p = provider();
        let ProviderKind::OAuth(p) = &p.kind else { panic!() };
        let e = endpoints();
        let now = now_seconds();
        assert!(check_claims(&claims(json!({})), p, &e, Some("n1"), now).is_ok());
        for (bad, why) in [
            (json!({ "iss": "https://evil.example" }), "iss"),
            (json!({ "aud": "other-app" }), "aud"),
            (json!({ "aud": ["other", "app"], "azp": "other" }), "azp"),
            (json!({ "exp": now - 100 }), "expired"),
            (json!({ "iat": null }), "iat"),
            (json!({ "sub": "" }), "sub"),
            (json!({ "nonce": "n2" }), "nonce"),
        ] {
            let err = check_claims(&claims(bad.clone()), p, &e, Some("n1"), now).unwrap_err();
            assert!(err.to_string().contains(why), "{bad}: {err}");
        }
        // Within the clock tolerance, and several audiences with our azp.
        assert!(check_claims(&claims(json!({ "exp": now - 5 })), p, &e, Some("n1"), now).is_ok());
        assert!(check_claims(&claims(json!({ "aud": ["other", "app"], "azp": "app" })), p, &e, Some("n1"), now).is_ok());
        // No nonce expected (nonce check off): none required.
        assert!(check_claims(&claims(json!({ "nonce": null })), p, &e, None, now).is_ok());
    }

    #[test]
    fn keys_are_matched_by_kid_or_single_fit() {
        let set = JwkSet::from_bytes(br#"{"keys":[{"kty":"RSA","kid":"a","use":"sig","n":"AQAB","e":"AQAB"},{"kty":"EC","kid":"b","crv":"P-256","x":"AQAB","y":"AQAB"}]}"#).unwrap();
        assert_eq!(find_key(&set, Some("a"), "RS256").unwrap().key_id(), Some("a"));
        assert!(find_key(&set, Some("zzz"), "RS256").is_none());
        assert_eq!(find_key(&set, None, "ES256").unwrap().key_id(), Some("b"));
    }

    #[test]
    fn a_key_is_used_only_for_signatures_and_its_own_alg() {
        let set = JwkSet::from_bytes(
            br#"{"keys":[{"kty":"RSA","kid":"enc","use":"enc","n":"AQAB","e":"AQAB"},
                         {"kty":"RSA","kid":"ps","alg":"PS256","n":"AQAB","e":"AQAB"}]}"#,
        )
        .unwrap();
        assert!(find_key(&set, Some("enc"), "RS256").is_none(), "an encryption key never verifies");
        assert!(find_key(&set, Some("ps"), "RS256").is_none(), "a key pinned to PS256 is not used for RS256");
        assert_eq!(find_key(&set, Some("ps"), "PS256").unwrap().key_id(), Some("ps"));
    }

    #[test]
    fn without_a_kid_the_key_type_must_fit_the_alg() {
        let one = |jwk: &str| JwkSet::from_bytes(format!(r#"{{"keys":[{jwk}]}}"#).as_bytes()).unwrap();
        let rsa = one(r#"{"kty":"RSA","n":"AQAB","e":"AQAB"}"#);
        for alg in ["RS256", "PS384"] {
            assert!(find_key(&rsa, None, alg).is_some(), "RSA fits {alg}");
        }
        assert!(find_key(&rsa, None, "ES256").is_none());
        let okp = one(r#"{"kty":"OKP","crv":"Ed25519","x":"AQAB"}"#);
        assert!(find_key(&okp, None, "EdDSA").is_some());
        assert!(find_key(&okp, None, "ES256").is_none());
        let ec = one(r#"{"kty":"EC","crv":"P-256","x":"AQAB","y":"AQAB"}"#);
        assert!(find_key(&ec, None, "EdDSA").is_none());
    }

    #[test]
    fn iat_may_lead_the_clock_by_the_tolerance_only() {
        let p = provider();
        let ProviderKind::OAuth(p) = &p.kind else { panic!() };
        let e = endpoints();
        let now = now_seconds();
        let ahead = |secs: u64| claims(json!({ "iat": now + secs }));
        assert!(check_claims(&ahead(CLOCK_TOLERANCE), p, &e, Some("n1"), now).is_ok());
        assert!(check_claims(&ahead(CLOCK_TOLERANCE + 1), p, &e, Some("n1"), now).is_err());
    }
}
