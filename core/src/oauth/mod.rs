//! The OAuth 2 / OpenID Connect client: PKCE, discovery, the authorization
//! URL, the code exchange, id_token verification and user info. Pure
//! protocol logic; the check cookies and routing live in `routes/`.

mod id_token;
pub mod types;

use std::sync::Arc;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use url::Url;

use crate::providers::oauth::{ClientAuth, Metadata, OAuthProvider, PkceEncoding};
use crate::time::now_seconds;

pub use id_token::verify_id_token;
pub use types::{Endpoints, OAuthError};

/// A fresh PKCE verifier (32 random bytes, base64url) and its S256 challenge.
pub fn pkce_pair(encoding: PkceEncoding) -> (String, String) {
    let verifier = URL_SAFE_NO_PAD.encode(crate::random::bytes(32));
    let challenge = pkce_challenge(&verifier, encoding);
    (verifier, challenge)
}

pub fn pkce_challenge(verifier: &str, encoding: PkceEncoding) -> String {
    let digest = Sha256::digest(verifier.as_bytes());
    match encoding {
        PkceEncoding::Base64Url => URL_SAFE_NO_PAD.encode(digest),
        PkceEncoding::Hex => crate::random::to_hex(&digest),
    }
}

/// The provider's OIDC metadata, fetched once and kept.
pub fn discover(provider: &OAuthProvider) -> Result<Arc<Metadata>, OAuthError> {
    if let Some(m) = provider.metadata.read().unwrap_or_else(|e| e.into_inner()).as_ref() {
        return Ok(m.clone());
    }
    let url = match (&provider.well_known, &provider.issuer) {
        (Some(wk), _) => wk.clone(),
        (None, Some(issuer)) => format!("{}/.well-known/openid-configuration", issuer.trim_end_matches('/')),
        (None, None) => return Err(OAuthError::Discovery("no issuer or wellKnown configured".into())),
    };
    let res = provider.http.get_json(&url, None)?;
    if res.status != 200 {
        return Err(OAuthError::Discovery(format!("{url} answered HTTP {}", res.status)));
    }
    let metadata: Metadata =
        serde_json::from_value(res.body).map_err(|e| OAuthError::Discovery(format!("{url}: {e}")))?;
    if let Some(issuer) = &provider.issuer {
        // OIDC Discovery §4.3: the document must be the issuer's own.
        if metadata.issuer.trim_end_matches('/') != issuer.trim_end_matches('/') {
            return Err(OAuthError::Discovery(format!(
                "issuer mismatch: configured {issuer}, discovered {}",
                metadata.issuer
            )));
        }
    }
    let metadata = Arc::new(metadata);
    *provider.metadata.write().unwrap_or_else(|e| e.into_inner()) = Some(metadata.clone());
    Ok(metadata)
}

/// Configured endpoints win; OIDC fills the rest from discovery.
pub fn endpoints(provider: &OAuthProvider) -> Result<Endpoints, OAuthError> {
    let needs_discovery = provider.oidc
        && (provider.authorization.url.is_none()
            || provider.token.url.is_none()
            || (provider.id_token && provider.jwks_uri.is_none()));
    let metadata = if needs_discovery { Some(discover(provider)?) } else { None };
    let pick =
        |configured: &Option<String>, discovered: Option<&String>| configured.clone().or_else(|| discovered.cloned());
    Ok(Endpoints {
        authorization: pick(&provider.authorization.url, metadata.as_ref().map(|m| &m.authorization_endpoint))
            .ok_or(OAuthError::MissingEndpoint("authorization"))?,
        token: pick(&provider.token.url, metadata.as_ref().map(|m| &m.token_endpoint))
            .ok_or(OAuthError::MissingEndpoint("token"))?,
        userinfo: pick(&provider.userinfo.url, metadata.as_ref().and_then(|m| m.userinfo_endpoint.as_ref())),
        jwks: provider.jwks_uri.clone().or_else(|| metadata.as_ref().and_then(|m| m.jwks_uri.clone())),
        issuer: metadata.as_ref().map(|m| m.issuer.clone()).or_else(|| provider.issuer.clone()),
    })
}

/// The checks a sign-in carries to the provider.
pub struct AuthorizationChecks<'a> {
    pub state: Option<&'a str>,
    pub code_challenge: Option<&'a str>,
    pub nonce: Option<&'a str>,
    /// OpenID Connect's `ui_locales` (and the provider's own parameter, such
    /// as Google's `hl`): the language the user's request asked for (an
    /// allow-listed tag), unless the provider's params set one.
    pub ui_locales: Option<&'a str>,
}

pub fn authorization_url(
    provider: &OAuthProvider,
    endpoint: &str,
    redirect_uri: &str,
    checks: &AuthorizationChecks,
) -> Result<String, OAuthError> {
    let mut url = Url::parse(endpoint).map_err(|_| OAuthError::MissingEndpoint("authorization"))?;
    {
        let behaviour = provider.behaviour;
        let mut q = url.query_pairs_mut();
        q.append_pair("response_type", "code");
        q.append_pair(behaviour.client_id_param(), &provider.client_id);
        q.append_pair("redirect_uri", redirect_uri);
        for (k, v) in &provider.authorization.params {
            if k == "scope" {
                q.append_pair(k, &behaviour.scope(v));
            } else {
                q.append_pair(k, v);
            }
        }
        if let Some(state) = checks.state {
            q.append_pair("state", state);
        }
        if let Some(challenge) = checks.code_challenge {
            q.append_pair("code_challenge", challenge);
            q.append_pair("code_challenge_method", "S256");
        }
        if let Some(nonce) = checks.nonce {
            q.append_pair("nonce", nonce);
        }
        if let Some(tag) = checks.ui_locales {
            let configured = |name: &str| provider.authorization.params.iter().any(|(k, _)| k == name);
            if provider.oidc && !configured("ui_locales") {
                q.append_pair("ui_locales", tag);
            }
            // The provider's own parameter, where it documents one: never
            // over the configuration's.
            if let Some(name) = behaviour.locale_param().filter(|name| !configured(name)) {
                q.append_pair(name, tag);
            }
        }
    }
    Ok(url.into())
}

/// Exchange the code at the token endpoint. The provider's behaviour reads
/// the answer (by default any body with an `error`, or without
/// `access_token`, is a failure whatever the HTTP status).
pub fn exchange_code<'a>(
    provider: &'a OAuthProvider,
    token_url: &str,
    code: &'a str,
    redirect_uri: &'a str,
    code_verifier: Option<&'a str>,
) -> Result<Map<String, Value>, OAuthError> {
    let mut form: Vec<(&str, &str)> =
        vec![("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirect_uri)];
    if let Some(v) = code_verifier {
        form.push(("code_verifier", v));
    }
    token_request(provider, token_url, form)
}

/// Use a refresh token for a new access token (providers that rotate
/// refresh tokens return a new one: keep it).
pub fn refresh_tokens(provider: &OAuthProvider, refresh_token: &str) -> Result<Map<String, Value>, OAuthError> {
    let token_url = endpoints(provider)?.token;
    token_request(provider, &token_url, vec![("grant_type", "refresh_token"), ("refresh_token", refresh_token)])
}

fn token_request<'a>(
    provider: &'a OAuthProvider,
    token_url: &str,
    form: Vec<(&'a str, &'a str)>,
) -> Result<Map<String, Value>, OAuthError> {
    let secret = provider.behaviour.client_secret(provider)?.unwrap_or_default();
    let secret = secret.as_str();
    let mut form: Vec<(&str, &str)> = form;
    let extra: Vec<(&str, &str)> = provider.token.params.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    form.extend(extra);
    let client_id_param = provider.behaviour.client_id_param();
    let basic = match provider.client_auth {
        ClientAuth::Basic => Some((provider.client_id.as_str(), secret)),
        ClientAuth::Post => {
            form.push((client_id_param, &provider.client_id));
            form.push(("client_secret", secret));
            None
        }
        ClientAuth::None => {
            form.push((client_id_param, &provider.client_id));
            None
        }
    };
    let res = provider.http.post_form(token_url, &form, basic)?;
    provider.behaviour.token_response(res.status, res.body)
}

/// Fetch the profile from the userinfo endpoint, with the query parameters
/// configured and those the provider's behaviour adds for the granted
/// scopes; the behaviour reads the answer.
pub fn fetch_userinfo(
    provider: &OAuthProvider,
    userinfo_url: &str,
    access_token: &str,
    granted_scopes: &str,
) -> Result<Value, OAuthError> {
    let mut url = Url::parse(userinfo_url).map_err(|_| OAuthError::MissingEndpoint("userinfo"))?;
    {
        let mut q = url.query_pairs_mut();
        for (k, v) in &provider.userinfo.params {
            q.append_pair(k, v);
        }
        for (k, v) in provider.behaviour.userinfo_params(&provider.userinfo.params, granted_scopes) {
            q.append_pair(&k, &v);
        }
    }
    let mut url: String = url.into();
    if url.ends_with('?') {
        url.pop();
    }
    let res = provider.http.get_json(&url, Some(access_token))?;
    provider.behaviour.userinfo_response(res.status, res.body)
}

/// The Account (Auth.js's shape) from a token response: every field the
/// provider returned, `token_type` lowercased, `expires_at` computed.
/// Keys of an Account that only the engine sets: which provider and
/// account it is, and (when linked) whose. A token response carrying them
/// is not believed.
pub const IDENTITY_KEYS: [&str; 4] = ["provider", "type", "providerAccountId", "userId"];

fn is_identity_key(key: &str) -> bool {
    IDENTITY_KEYS.contains(&key)
}

pub fn account_from_tokens(
    provider_id: &str,
    provider_type: &str,
    provider_account_id: &str,
    tokens: &Map<String, Value>,
) -> Map<String, Value> {
    // The token response first, the identity after it: a provider (or
    // whoever answers at its token endpoint) never names the account, its
    // provider or its owner. `userId` is the engine's to set when linking.
    let mut account: Map<String, Value> =
        tokens.iter().filter(|(k, _)| !is_identity_key(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
    account.insert("provider".into(), provider_id.into());
    account.insert("type".into(), provider_type.into());
    account.insert("providerAccountId".into(), provider_account_id.into());
    if let Some(t) = tokens.get("token_type").and_then(Value::as_str) {
        account.insert("token_type".into(), t.to_ascii_lowercase().into());
    }
    if let Some(expires_in) = tokens.get("expires_in").and_then(|v| v.as_f64().or_else(|| v.as_str()?.parse().ok())) {
        // A provider's number may be anything (1e300, negative, NaN):
        // saturate, and keep expires_at a real time.
        let lifetime = if expires_in.is_finite() { expires_in.max(0.0) as u64 } else { 0 };
        let expires_at = now_seconds().saturating_add(lifetime).min(crate::jwt::MAX_TIME_CLAIM);
        account.insert("expires_at".into(), expires_at.into());
    }
    account
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pkce_challenges() {
        // RFC 7636 Appendix B.
        let v = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        assert_eq!(pkce_challenge(v, PkceEncoding::Base64Url), "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM");
        assert_eq!(pkce_challenge(v, PkceEncoding::Hex).len(), 64);
        let (verifier, challenge) = pkce_pair(PkceEncoding::Base64Url);
        assert_eq!(verifier.len(), 43);
        assert_eq!(challenge, pkce_challenge(&verifier, PkceEncoding::Base64Url));
    }

    #[test]
    fn account_lowercases_token_type_and_computes_expires_at() {
        let tokens = serde_json::json!({"access_token": "a", "token_type": "Bearer", "expires_in": 7200, "scope": "x"});
        let account = account_from_tokens("tiktok", "oauth", "u1", tokens.as_object().unwrap());
        assert_eq!(account["token_type"], "bearer");
        let at = account["expires_at"].as_u64().unwrap();
        assert!((now_seconds() + 7199..=now_seconds() + 7201).contains(&at));
        assert_eq!(account["providerAccountId"], "u1");
    }

    #[test]
    fn any_expires_in_gives_a_sane_expires_at() {
        let now = now_seconds();
        for expires_in in [json!(1e300), json!(f64::MAX), json!(-5), json!(u64::MAX), json!("1e400"), json!("NaN")] {
            let tokens = json!({ "access_token": "a", "expires_in": expires_in });
            let account = account_from_tokens("p", "oauth", "u", tokens.as_object().unwrap());
            let at = account["expires_at"].as_u64().unwrap();
            assert!((now..=crate::jwt::MAX_TIME_CLAIM).contains(&at), "{expires_in} -> {at}");
        }
    }
}
