//! Outbound HTTP to providers (token, userinfo, discovery, JWKS) with
//! `ureq` and a timeout. Non-2xx answers are returned, not raised: several
//! providers (TikTok) put their error in the body, with any status.

use std::time::Duration;

use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum OutboundError {
    #[error("request to {url} failed: {message}")]
    Transport { url: String, message: String },
    #[error("{url} answered HTTP {status} with a body that is not JSON")]
    NotJson { url: String, status: u16 },
}

/// A provider's HTTP client: one connection pool, one timeout.
#[derive(Clone)]
pub struct HttpClient {
    agent: ureq::Agent,
}

pub struct JsonResponse {
    pub status: u16,
    pub body: Value,
}

impl HttpClient {
    pub fn new(timeout: Duration) -> HttpClient {
        let agent = ureq::AgentBuilder::new()
            .timeout(timeout)
            .redirects(0)
            .user_agent(concat!("libauth/", env!("CARGO_PKG_VERSION")))
            .build();
        HttpClient { agent }
    }

    pub fn get_json(&self, url: &str, bearer: Option<&str>) -> Result<JsonResponse, OutboundError> {
        let mut req = self.agent.get(url).set("accept", "application/json");
        if let Some(token) = bearer {
            req = req.set("authorization", &format!("Bearer {token}"));
        }
        read(url, req.call())
    }

    /// A form-encoded POST; `basic` sends client credentials as HTTP Basic
    /// (each part form-encoded first, as RFC 6749 §2.3.1 says).
    pub fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
        basic: Option<(&str, &str)>,
    ) -> Result<JsonResponse, OutboundError> {
        let mut req = self.agent.post(url).set("accept", "application/json");
        if let Some((user, password)) = basic {
            use base64::Engine as _;
            let enc = |s: &str| url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
            let creds = base64::engine::general_purpose::STANDARD.encode(format!("{}:{}", enc(user), enc(password)));
            req = req.set("authorization", &format!("Basic {creds}"));
        }
        read(url, req.send_form(form))
    }
}

fn read(url: &str, result: Result<ureq::Response, ureq::Error>) -> Result<JsonResponse, OutboundError> {
    let response = match result {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(ureq::Error::Transport(t)) => {
            return Err(OutboundError::Transport { url: strip_query(url), message: t.to_string() })
        }
    };
    let status = response.status();
    let text = response
        .into_string()
        .map_err(|e| OutboundError::Transport { url: strip_query(url), message: e.to_string() })?;
    let body = serde_json::from_str(&text).map_err(|_| OutboundError::NotJson { url: strip_query(url), status })?;
    Ok(JsonResponse { status, body })
}

/// URLs in errors lose their query: it may carry codes or tokens.
fn strip_query(url: &str) -> String {
    url.split('?').next().unwrap_or(url).to_owned()
}
