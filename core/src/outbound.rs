//! Outbound HTTP to providers (token, userinfo, discovery, JWKS) with
//! `ureq` and a timeout. Non-2xx answers are returned, not raised: several
//! providers (TikTok) put their error in the body, with any status.

#[cfg(not(any(feature = "rustls", feature = "native-tls")))]
compile_error!("libauth-core calls OAuth providers over HTTPS: enable the cargo feature `rustls` or `native-tls`");

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

#[derive(Debug)]
pub struct JsonResponse {
    pub status: u16,
    pub body: Value,
}

impl HttpClient {
    pub fn new(timeout: Duration) -> HttpClient {
        let builder = ureq::AgentBuilder::new()
            .timeout(timeout)
            .redirects(0)
            .user_agent(concat!("libauth/", env!("CARGO_PKG_VERSION")));
        // OpenSSL when it is the one TLS stack of the build; rustls (ureq's
        // default connector) otherwise.
        #[cfg(all(feature = "native-tls", not(feature = "rustls")))]
        let builder = match native_tls::TlsConnector::new() {
            Ok(connector) => builder.tls_connector(std::sync::Arc::new(connector)),
            // No usable OpenSSL configuration: every https call then fails
            // with ureq's own error, which the caller reports.
            Err(_) => builder,
        };
        let agent = builder.build();
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

/// Largest provider response read (token, userinfo, discovery and JWKS
/// documents are a few KiB); a larger one is an error, not a memory sink.
pub const MAX_RESPONSE_BYTES: u64 = 1024 * 1024;

fn read(url: &str, result: Result<ureq::Response, ureq::Error>) -> Result<JsonResponse, OutboundError> {
    let transport = |message: String| OutboundError::Transport { url: strip_query(url), message };
    let response = match result {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        // Kind and message only: ureq's Display repeats the full URL.
        Err(ureq::Error::Transport(t)) => {
            return Err(transport(format!("{}{}", t.kind(), t.message().map(|m| format!(": {m}")).unwrap_or_default())))
        }
    };
    let status = response.status();
    let mut body = Vec::new();
    std::io::Read::read_to_end(&mut std::io::Read::take(response.into_reader(), MAX_RESPONSE_BYTES + 1), &mut body)
        .map_err(|e| transport(e.to_string()))?;
    if body.len() as u64 > MAX_RESPONSE_BYTES {
        return Err(transport(format!("the response is larger than {MAX_RESPONSE_BYTES} bytes")));
    }
    let body = serde_json::from_slice(&body).map_err(|_| OutboundError::NotJson { url: strip_query(url), status })?;
    Ok(JsonResponse { status, body })
}

/// URLs in errors lose their query: it may carry codes or tokens.
fn strip_query(url: &str) -> String {
    url.split('?').next().unwrap_or(url).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};
    use std::net::TcpListener;

    /// A one-shot server answering `body` (with a Content-Length or not).
    fn serve(body: Vec<u8>, chunked: bool) -> String {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/token?code=secret-code", listener.local_addr().unwrap());
        std::thread::spawn(move || {
            let (mut stream, _) = listener.accept().unwrap();
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let head = if chunked {
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n".to_owned()
            } else {
                format!("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n", body.len())
            };
            let _ = stream.write_all(head.as_bytes());
            let _ = stream.write_all(&body);
        });
        url
    }

    #[test]
    fn responses_are_capped() {
        let client = HttpClient::new(Duration::from_secs(5));
        let small = serve(br#"{"access_token":"a"}"#.to_vec(), false);
        assert_eq!(client.get_json(&small, None).unwrap().body["access_token"], "a");
        for chunked in [false, true] {
            let mut huge = br#"{"pad":""#.to_vec();
            huge.extend(std::iter::repeat_n(b'a', MAX_RESPONSE_BYTES as usize + 10));
            huge.extend(br#""}"#);
            let url = serve(huge, chunked);
            let err = client.get_json(&url, None).unwrap_err().to_string();
            assert!(err.contains("larger than"), "{err}");
            assert!(!err.contains("secret-code"), "no query in errors: {err}");
        }
    }

    #[test]
    fn transport_errors_carry_no_query() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}/userinfo?token=secret-token", listener.local_addr().unwrap());
        drop(listener);
        let err = HttpClient::new(Duration::from_secs(2)).get_json(&url, None).unwrap_err().to_string();
        assert!(!err.contains("secret-token"), "{err}");
    }
}
