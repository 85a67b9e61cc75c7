//! The OAuth client's result types that providers also use: what went
//! wrong ([`OAuthError`]) and where a provider's endpoints are
//! ([`Endpoints`]). A file of their own, so a provider's behaviour can name
//! them without depending on the client that uses the provider.

use crate::outbound::OutboundError;

#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    #[error("OIDC discovery failed: {0}")]
    Discovery(String),
    #[error("the provider has no {0} endpoint")]
    MissingEndpoint(&'static str),
    #[error("token endpoint error {error}: {description} (HTTP {status}{})", log_id.as_ref().map(|l| format!(", log_id {l}")).unwrap_or_default())]
    Token { status: u16, error: String, description: String, log_id: Option<String> },
    #[error("user info error {code}: {message} (HTTP {status}{})", log_id.as_ref().map(|l| format!(", log_id {l}")).unwrap_or_default())]
    UserInfo { status: u16, code: String, message: String, log_id: Option<String> },
    #[error("invalid id_token: {0}")]
    IdToken(String),
    #[error("could not make the client secret: {0}")]
    ClientSecret(String),
    #[error(transparent)]
    Http(#[from] OutboundError),
}

/// Where to send the user and post the code, after discovery.
pub struct Endpoints {
    pub authorization: String,
    pub token: String,
    pub userinfo: Option<String>,
    pub jwks: Option<String>,
    pub issuer: Option<String>,
}
