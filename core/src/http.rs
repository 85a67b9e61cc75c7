//! The engine's request and response (docs/architecture.md), and the small parsing
//! helpers every route needs: headers, cookies, query and body.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// A request as the client sent it. `url` is absolute, as the client saw it
/// (the binding applies its own proxy rules to build it).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct AuthRequest {
    pub method: String,
    pub url: String,
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    #[serde(default, with = "utf8_body", skip_serializing_if = "Option::is_none")]
    pub body: Option<Vec<u8>>,
    /// The connection's peer address (`1.2.3.4`, `::1`), as the server saw
    /// it: what rate limits count, through `trustedProxies`.
    #[serde(default, rename = "remoteAddress", skip_serializing_if = "Option::is_none")]
    pub remote_address: Option<String>,
}

/// A response for the host to write as is. Several `set-cookie` headers may
/// appear; `body` is UTF-8 (JSON or HTML).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct AuthResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    #[serde(with = "utf8_body_required")]
    pub body: Vec<u8>,
}

/// What a sign-in or sign-out called from host code (a form action, see
/// [`crate::Auth::sign_in`]) asks the host to do: set these cookies on its
/// response and send the user to `redirect`.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct ActionOutcome {
    /// Where to send the user: the callback URL (credentials), the
    /// provider's authorization URL (OAuth), the verify-request page
    /// (email), or wherever the signIn callback redirected.
    pub redirect: String,
    /// `Set-Cookie` header values, in order.
    pub set_cookies: Vec<String>,
}

impl AuthRequest {
    pub fn get(url: impl Into<String>) -> Self {
        AuthRequest { method: "GET".into(), url: url.into(), headers: Vec::new(), body: None, remote_address: None }
    }

    pub fn post_form(url: impl Into<String>, pairs: &[(&str, &str)]) -> Self {
        let body = url::form_urlencoded::Serializer::new(String::new()).extend_pairs(pairs).finish();
        AuthRequest {
            method: "POST".into(),
            url: url.into(),
            headers: vec![("content-type".into(), "application/x-www-form-urlencoded".into())],
            body: Some(body.into_bytes()),
            remote_address: None,
        }
    }

    pub fn post_json(url: impl Into<String>, body: &Value) -> Self {
        AuthRequest {
            method: "POST".into(),
            url: url.into(),
            headers: vec![("content-type".into(), "application/json".into())],
            body: Some(body.to_string().into_bytes()),
            remote_address: None,
        }
    }

    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    /// The first header of that name (case-insensitive).
    /// The request as host code sees it (a `Request` in JavaScript):
    /// `{ method, url, headers }`, header names in lowercase.
    pub fn to_record(&self) -> Value {
        let headers: Map<String, Value> =
            self.headers.iter().map(|(k, v)| (k.to_ascii_lowercase(), Value::String(v.clone()))).collect();
        serde_json::json!({ "method": self.method, "url": self.url, "headers": headers })
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Every `name=value` pair of every `Cookie` header, values raw (still
    /// percent-encoded). Lazy, so a lookup parses only up to what it needs.
    pub fn cookies(&self) -> impl Iterator<Item = (&str, &str)> {
        self.headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case("cookie")).flat_map(|(_, v)| cookie_pairs(v))
    }

    /// The decoded value of one cookie.
    pub fn cookie(&self, name: &str) -> Option<String> {
        self.cookies().find(|(n, _)| *n == name).map(|(_, v)| percent_decode(v).into_owned())
    }

    /// The body as a flat string map, parsed only by its declared type:
    /// `application/x-www-form-urlencoded` (HTML forms, the Auth.js
    /// client) or `application/json`. Any other type, or none, is no body:
    /// a cross-site `text/plain` POST (which needs no CORS preflight) then
    /// carries no CSRF token and changes nothing. Nested JSON values are
    /// kept as JSON.
    pub fn body_params(&self) -> Map<String, Value> {
        let Some(body) = self.body.as_deref().filter(|b| !b.is_empty()) else {
            return Map::new();
        };
        match self.body_kind() {
            Some(BodyKind::Json) => match serde_json::from_slice::<Value>(body) {
                Ok(Value::Object(map)) => map,
                _ => Map::new(),
            },
            Some(BodyKind::Form) => url::form_urlencoded::parse(body)
                .map(|(k, v)| (k.into_owned(), Value::String(v.into_owned())))
                .collect(),
            None => Map::new(),
        }
    }

    /// The body's media type, when it is one the engine reads.
    fn body_kind(&self) -> Option<BodyKind> {
        let content_type = self.header("content-type")?;
        let essence = content_type.split(';').next().unwrap_or_default().trim();
        if essence.eq_ignore_ascii_case("application/x-www-form-urlencoded") {
            Some(BodyKind::Form)
        } else if essence.eq_ignore_ascii_case("application/json") {
            Some(BodyKind::Json)
        } else {
            None
        }
    }
}

enum BodyKind {
    Form,
    Json,
}

/// Largest request body the engine reads (every binding gets this limit):
/// auth forms are a few hundred bytes; a larger body is answered 413.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

impl AuthResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// Every `Set-Cookie` header value.
    pub fn set_cookies(&self) -> impl Iterator<Item = &str> {
        self.headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case("set-cookie")).map(|(_, v)| v.as_str())
    }

    pub fn body_str(&self) -> &str {
        std::str::from_utf8(&self.body).unwrap_or("")
    }

    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }
}

pub(crate) fn percent_decode(value: &str) -> std::borrow::Cow<'_, str> {
    // Most values (session tokens are base64url) hold no escape: borrow them.
    if memchr::memchr(b'%', value.as_bytes()).is_none() {
        return std::borrow::Cow::Borrowed(value);
    }
    std::borrow::Cow::Owned(percent_encoding::percent_decode_str(value).decode_utf8_lossy().into_owned())
}

/// `s` split at every `byte` (ASCII), as `str::split` does, with a SIMD
/// search: Cookie headers and session tokens are long and split on every
/// request.
/// Every `name=value` pair of one `Cookie` header value, values raw (still
/// percent-encoded, surrounding quotes removed). Lazy. What
/// [`AuthRequest::cookies`] reads from each `Cookie` header, and what
/// [`crate::Auth::get_session_by_cookie`] reads from the one it is given.
pub fn cookie_pairs(header: &str) -> impl Iterator<Item = (&str, &str)> {
    split_ascii(header, b';').filter_map(|pair| {
        let (name, value) = pair.split_once('=')?;
        let value = value.trim();
        let value = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')).unwrap_or(value);
        Some((name.trim(), value))
    })
}

pub(crate) fn split_ascii(s: &str, byte: u8) -> impl Iterator<Item = &str> {
    debug_assert!(byte.is_ascii(), "an ASCII byte never splits a UTF-8 character");
    let mut start = 0;
    let mut ends = memchr::memchr_iter(byte, s.as_bytes()).chain(std::iter::once(s.len()));
    std::iter::from_fn(move || {
        let end = ends.next()?;
        let part = &s[start..end];
        start = end + 1;
        Some(part)
    })
}

/// The request URL, parsed by the one parser every decision about a request
/// uses (which route it is, whether it can run without host code, and the
/// route itself), so no two of them can disagree on where the path starts.
///
/// Bindings build the URL from the client's `Host` (or a trusted
/// `X-Forwarded-Host`), so its authority is client input: it must be a
/// plain `host[:port]` (a DNS name, IPv4 or bracketed IPv6 address, and a
/// decimal port). Anything else (a backslash, `/`, `?`, `#`, `@`, `%`,
/// spaces, non-ASCII) is refused here rather than left to a URL parser
/// that would read part of it as a path: `Host: h\auth\callback\x?…`
/// must not turn `GET /auth/session` into an OAuth callback.
pub fn parse_request_url(url: &str) -> Option<url::Url> {
    let scheme_end = url.find("://")?;
    let rest = &url[scheme_end + 3..];
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    if !is_host_and_port(&rest[..authority_end]) {
        return None;
    }
    let parsed = url::Url::parse(url).ok()?;
    matches!(parsed.scheme(), "http" | "https").then_some(parsed)
}

/// The request's URL ([`parse_request_url`]), once its `Host` and
/// `X-Forwarded-Host` headers are checked too: bindings build the URL from
/// one of them, so each present must be a plain `host[:port]`, and a
/// request with two `Host` headers is refused (RFC 9112: 400). A `Host`
/// such as `localhost/auth/callback/x?code=…&y=` would otherwise make a
/// valid-looking URL whose path the client wrote in a header.
pub fn checked_request_url(req: &AuthRequest) -> Option<url::Url> {
    let mut hosts = 0;
    for (name, value) in &req.headers {
        if name.eq_ignore_ascii_case("host") {
            hosts += 1;
            if hosts > 1 || !is_host_and_port(value.trim()) {
                return None;
            }
        } else if name.eq_ignore_ascii_case("x-forwarded-host") && !value.split(',').all(|h| is_host_and_port(h.trim()))
        {
            return None;
        }
    }
    parse_request_url(&req.url)
}

/// Whether `authority` is `host` or `host:port`, as a `Host` header must be
/// (RFC 9110 and RFC 3986's `reg-name` without percent-escapes).
pub fn is_host_and_port(authority: &str) -> bool {
    let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
        let Some((address, after)) = v6.split_once(']') else { return false };
        if address.is_empty() || !address.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.') {
            return false;
        }
        match after {
            "" => return true,
            _ => match after.strip_prefix(':') {
                Some(port) => ("v6", port),
                None => return false,
            },
        }
    } else {
        match authority.rsplit_once(':') {
            Some((host, port)) => (host, port),
            None => (authority, "0"),
        }
    };
    let host_ok = !host.is_empty()
        && host.len() <= 253
        && host.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
    let port_ok = !port.is_empty() && port.len() <= 5 && port.bytes().all(|b| b.is_ascii_digit());
    host_ok && port_ok && port.parse::<u32>().is_ok_and(|p| p <= 65535)
}

/// Bodies cross language boundaries as JSON strings: requests carry form or JSON text.
mod utf8_body {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(body: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match body {
            Some(bytes) => s.serialize_str(&String::from_utf8_lossy(bytes)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        Ok(Option::<String>::deserialize(d)?.map(String::into_bytes))
    }
}

mod utf8_body_required {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(body: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&String::from_utf8_lossy(body))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        Ok(String::deserialize(d)?.into_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_parsed_lazily_and_decoded() {
        let req = AuthRequest::get("http://x/")
            .with_header("Cookie", "a=1; authjs.callback-url=http%3A%2F%2Flocalhost%3A3000; b=\"q\"")
            .with_header("cookie", "c=3");
        assert_eq!(req.cookie("authjs.callback-url").as_deref(), Some("http://localhost:3000"));
        assert_eq!(req.cookie("b").as_deref(), Some("q"));
        assert_eq!(req.cookie("c").as_deref(), Some("3"));
        assert_eq!(req.cookie("d"), None);
    }

    #[test]
    fn body_is_form_or_json() {
        let form = AuthRequest::post_form("http://x/", &[("csrfToken", "a b"), ("x", "1")]);
        assert_eq!(form.body_params()["csrfToken"], "a b");
        let json = AuthRequest::post_json("http://x/", &serde_json::json!({"csrfToken": "t", "data": {"n": 1}}));
        assert_eq!(json.body_params()["data"]["n"], 1);
        let junk =
            AuthRequest { body: Some(b"{not json".to_vec()), ..AuthRequest::post_json("http://x/", &Value::Null) };
        assert!(junk.body_params().is_empty());
    }

    #[test]
    fn other_content_types_are_no_body() {
        let form = AuthRequest::post_form("http://x/", &[("csrfToken", "t")]);
        for content_type in [None, Some("text/plain"), Some("multipart/form-data"), Some("application/jsonx"), Some("")]
        {
            let mut req = form.clone();
            req.headers.clear();
            if let Some(ct) = content_type {
                req.headers.push(("content-type".into(), ct.into()));
            }
            assert!(req.body_params().is_empty(), "{content_type:?}");
        }
        let mut with_charset = form.clone();
        with_charset.headers = vec![("Content-Type".into(), "Application/X-WWW-Form-Urlencoded; charset=UTF-8".into())];
        assert_eq!(with_charset.body_params()["csrfToken"], "t");
    }

    #[test]
    fn serde_round_trip_uses_strings_for_bodies() {
        let req: AuthRequest = serde_json::from_str(
            r#"{"method":"POST","url":"http://x/auth/csrf","headers":[["cookie","a=1"]],"body":"csrfToken=t"}"#,
        )
        .unwrap();
        assert_eq!(req.body.as_deref(), Some(&b"csrfToken=t"[..]));
        let res = AuthResponse { status: 200, headers: vec![], body: b"null".to_vec() };
        assert_eq!(serde_json::to_string(&res).unwrap(), r#"{"status":200,"headers":[],"body":"null"}"#);
    }
}
