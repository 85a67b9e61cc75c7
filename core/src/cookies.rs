//! Cookie names and attributes (as Auth.js v5 names them), `Set-Cookie`
//! serialisation, and the chunking of large session cookies.

use std::borrow::Cow;

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use crate::config::{CookieOverride, CookiesConfig};
use crate::http::{percent_decode, AuthRequest};

/// Longest value in one cookie before it is split (4096 minus room for the
/// name and attributes), as in Auth.js.
pub const CHUNK_SIZE: usize = 4096 - 160;
/// Most chunks a session cookie is read from (a session token is one or
/// two chunks in practice; browsers keep about 50 cookies per site).
pub const MAX_CHUNKS: usize = 8;
/// Longest session-cookie value read, whole or reassembled.
pub const MAX_COOKIE_VALUE: usize = CHUNK_SIZE * MAX_CHUNKS;

/// What JavaScript's `encodeURIComponent` leaves alone, so our cookie values
/// are byte-identical to the ones Auth.js writes.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'!')
    .remove(b'~')
    .remove(b'*')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')');

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CookieOptions {
    pub http_only: bool,
    pub same_site: String,
    pub path: String,
    pub secure: bool,
    pub domain: Option<String>,
    /// Lifetime in seconds for short-lived cookies (OAuth checks).
    pub max_age: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CookieSpec {
    pub name: String,
    pub options: CookieOptions,
}

/// Every cookie the engine uses, for one value of `useSecureCookies`.
#[derive(Debug, Clone)]
pub struct CookieSet {
    pub session_token: CookieSpec,
    pub callback_url: CookieSpec,
    pub csrf_token: CookieSpec,
    pub pkce_code_verifier: CookieSpec,
    pub state: CookieSpec,
    pub nonce: CookieSpec,
    pub webauthn_challenge: CookieSpec,
    /// A sign-in waiting for its second factor (libauth's own).
    pub two_factor: CookieSpec,
    /// A browser its user trusts to skip the second step (libauth's own).
    pub trusted_device: CookieSpec,
}

impl CookieSet {
    pub fn new(secure: bool, overrides: &CookiesConfig) -> CookieSet {
        let prefix = if secure { "__Secure-" } else { "" };
        let base = CookieOptions {
            http_only: true,
            same_site: "lax".into(),
            path: "/".into(),
            secure,
            domain: None,
            max_age: None,
        };
        let short_lived = CookieOptions { max_age: Some(15 * 60), ..base.clone() };
        let spec = |name: String, options: &CookieOptions, over: &Option<CookieOverride>| {
            let mut spec = CookieSpec { name, options: options.clone() };
            if let Some(over) = over {
                if let Some(name) = &over.name {
                    spec.name = name.clone();
                }
                let o = &over.options;
                if let Some(v) = o.http_only {
                    spec.options.http_only = v;
                }
                if let Some(v) = &o.same_site {
                    spec.options.same_site = v.to_ascii_lowercase();
                }
                if let Some(v) = &o.path {
                    spec.options.path = v.clone();
                }
                if let Some(v) = o.secure {
                    spec.options.secure = v;
                }
                if let Some(v) = &o.domain {
                    spec.options.domain = Some(v.clone());
                }
                if let Some(v) = o.max_age {
                    spec.options.max_age = Some(v);
                }
            }
            spec
        };
        CookieSet {
            session_token: spec(format!("{prefix}authjs.session-token"), &base, &overrides.session_token),
            callback_url: spec(format!("{prefix}authjs.callback-url"), &base, &overrides.callback_url),
            csrf_token: spec(
                format!("{}authjs.csrf-token", if secure { "__Host-" } else { "" }),
                &base,
                &overrides.csrf_token,
            ),
            pkce_code_verifier: spec(
                format!("{prefix}authjs.pkce.code_verifier"),
                &short_lived,
                &overrides.pkce_code_verifier,
            ),
            state: spec(format!("{prefix}authjs.state"), &short_lived, &overrides.state),
            nonce: spec(format!("{prefix}authjs.nonce"), &short_lived, &overrides.nonce),
            webauthn_challenge: spec(format!("{prefix}authjs.challenge"), &short_lived, &overrides.webauthn_challenge),
            two_factor: spec(format!("{prefix}authjs.two-factor"), &short_lived, &None),
            trusted_device: spec(format!("{prefix}authjs.trusted-device"), &base, &None),
        }
    }
}

/// One `Set-Cookie` to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetCookie {
    pub name: String,
    pub value: String,
    pub options: CookieOptions,
    /// Absolute expiry (unix seconds), for session cookies.
    pub expires: Option<u64>,
}

impl SetCookie {
    pub fn new(spec: &CookieSpec, value: impl Into<String>) -> SetCookie {
        SetCookie { name: spec.name.clone(), value: value.into(), options: spec.options.clone(), expires: None }
    }

    /// A cookie that deletes `name` in the browser.
    pub fn expired(name: &str, options: &CookieOptions) -> SetCookie {
        SetCookie {
            name: name.to_owned(),
            value: String::new(),
            options: CookieOptions { max_age: Some(0), ..options.clone() },
            expires: None,
        }
    }

    pub fn expires_at(mut self, unix_seconds: u64) -> SetCookie {
        self.expires = Some(unix_seconds);
        self
    }

    /// The header value, attributes in the order the `cookie` npm package
    /// writes them.
    pub fn to_header(&self) -> String {
        let mut out = String::with_capacity(self.name.len() + self.value.len() + 96);
        out.push_str(&self.name);
        out.push('=');
        out.extend(utf8_percent_encode(&self.value, COMPONENT));
        if let Some(max_age) = self.options.max_age {
            out.push_str("; Max-Age=");
            out.push_str(&max_age.to_string());
        }
        if let Some(domain) = &self.options.domain {
            out.push_str("; Domain=");
            out.push_str(domain);
        }
        out.push_str("; Path=");
        out.push_str(&self.options.path);
        if let Some(expires) = self.expires {
            out.push_str("; Expires=");
            out.push_str(&crate::time::http_date(expires));
        }
        if self.options.http_only {
            out.push_str("; HttpOnly");
        }
        if self.options.secure {
            out.push_str("; Secure");
        }
        match self.options.same_site.as_str() {
            "strict" => out.push_str("; SameSite=Strict"),
            "none" => out.push_str("; SameSite=None"),
            "lax" => out.push_str("; SameSite=Lax"),
            _ => {}
        }
        out
    }
}

/// The session cookie as the browser holds it: one cookie, or chunks
/// `name.0`, `name.1`, … when the value is over [`CHUNK_SIZE`].
pub struct ChunkedCookie<'a, 'r> {
    spec: &'a CookieSpec,
    /// Names of the cookies present in the request (for clean-up), borrowed
    /// from its headers: reading a session allocates nothing for them.
    present: Vec<&'r str>,
    value: Option<Cow<'r, str>>,
}

impl<'a, 'r> ChunkedCookie<'a, 'r> {
    /// Read the session cookie. A whole cookie wins over chunks (a planted
    /// `name.0` cannot override it); chunks count only when they run
    /// `0..n` without gaps or repeats, `n` at most [`MAX_CHUNKS`], and the
    /// value is at most [`MAX_COOKIE_VALUE`] bytes. Chunk names past
    /// [`MAX_CHUNKS`] are ignored entirely, so a flood of them costs
    /// neither memory nor one `Set-Cookie` each.
    pub fn read(spec: &'a CookieSpec, req: &'r AuthRequest) -> ChunkedCookie<'a, 'r> {
        Self::from_pairs(spec, req.cookies())
    }

    /// [`ChunkedCookie::read`] from the `name=value` pairs of the request's
    /// cookies, however they were given (a request's headers, or one
    /// `Cookie` header on its own: [`crate::http::cookie_pairs`]).
    pub fn from_pairs(spec: &'a CookieSpec, pairs: impl Iterator<Item = (&'r str, &'r str)>) -> ChunkedCookie<'a, 'r> {
        let mut whole: Option<&str> = None;
        let mut chunks: [Option<&str>; MAX_CHUNKS] = [None; MAX_CHUNKS];
        let mut valid_chunks = true;
        let mut present = Vec::new();
        for (name, value) in pairs {
            let Some(rest) = name.strip_prefix(spec.name.as_str()) else { continue };
            if rest.is_empty() {
                if whole.is_some() {
                    continue;
                }
                whole = Some(value);
            } else {
                let Some(index) = rest.strip_prefix('.').and_then(|i| i.parse::<usize>().ok()) else { continue };
                let Some(slot) = chunks.get_mut(index) else { continue };
                if slot.is_some() {
                    valid_chunks = false;
                    continue;
                }
                *slot = Some(value);
            }
            present.push(name);
        }
        let value = match whole {
            Some(whole) => Some(percent_decode(whole)),
            None if chunks[0].is_some() => {
                let count = chunks.iter().take_while(|c| c.is_some()).count();
                let contiguous = chunks[count..].iter().all(Option::is_none);
                let size: usize = chunks[..count].iter().flatten().map(|c| c.len()).sum();
                (valid_chunks && contiguous && size <= MAX_COOKIE_VALUE).then(|| {
                    Cow::Owned(chunks[..count].iter().flatten().map(|c| percent_decode(c)).collect::<String>())
                })
            }
            None => None,
        };
        ChunkedCookie { spec, present, value: value.filter(|v| !v.is_empty() && v.len() <= MAX_COOKIE_VALUE) }
    }

    /// The cookie this is.
    pub fn spec(&self) -> &'a CookieSpec {
        self.spec
    }

    pub fn value(&self) -> Option<&str> {
        self.value.as_deref()
    }

    /// Cookies that store `value` (chunked if needed) and expire any stale
    /// chunk the browser still holds.
    pub fn write(&self, value: &str, expires: u64) -> Vec<SetCookie> {
        let mut out: Vec<SetCookie> = Vec::new();
        let mut written: Vec<String> = Vec::new();
        if value.len() <= CHUNK_SIZE {
            out.push(SetCookie::new(self.spec, value).expires_at(expires));
            written.push(self.spec.name.clone());
        } else {
            // Values are base64url/ASCII, so byte offsets are char offsets.
            for (i, chunk) in value.as_bytes().chunks(CHUNK_SIZE).enumerate() {
                let name = format!("{}.{i}", self.spec.name);
                let chunk = std::str::from_utf8(chunk).unwrap_or_default();
                out.push(SetCookie {
                    name: name.clone(),
                    value: chunk.to_owned(),
                    options: self.spec.options.clone(),
                    expires: Some(expires),
                });
                written.push(name);
            }
        }
        for name in &self.present {
            if !written.iter().any(|w| w == name) {
                out.push(SetCookie::expired(name, &self.spec.options));
            }
        }
        out
    }

    /// Cookies that delete every part of the session cookie.
    pub fn clear(&self) -> Vec<SetCookie> {
        self.present.iter().map(|name| SetCookie::expired(name, &self.spec.options)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_follow_authjs() {
        let plain = CookieSet::new(false, &CookiesConfig::default());
        assert_eq!(plain.session_token.name, "authjs.session-token");
        assert_eq!(plain.csrf_token.name, "authjs.csrf-token");
        let secure = CookieSet::new(true, &CookiesConfig::default());
        assert_eq!(secure.session_token.name, "__Secure-authjs.session-token");
        assert_eq!(secure.csrf_token.name, "__Host-authjs.csrf-token");
        assert_eq!(secure.callback_url.name, "__Secure-authjs.callback-url");
        assert_eq!(secure.pkce_code_verifier.options.max_age, Some(900));
    }

    #[test]
    fn set_cookie_header_format() {
        let set = CookieSet::new(true, &CookiesConfig::default());
        let c = SetCookie::new(&set.callback_url, "http://localhost:3000").expires_at(0);
        assert_eq!(
            c.to_header(),
            "__Secure-authjs.callback-url=http%3A%2F%2Flocalhost%3A3000; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; Secure; SameSite=Lax"
        );
        assert_eq!(
            SetCookie::expired("a", &set.session_token.options).to_header(),
            "a=; Max-Age=0; Path=/; HttpOnly; Secure; SameSite=Lax"
        );
    }

    #[test]
    fn chunks_round_trip_and_stale_chunks_expire() {
        let set = CookieSet::new(false, &CookiesConfig::default());
        let big = "x".repeat(CHUNK_SIZE * 2 + 10);
        let empty = AuthRequest::get("http://x/");
        let written = ChunkedCookie::read(&set.session_token, &empty).write(&big, 100);
        assert_eq!(written.len(), 3);
        assert_eq!(written[2].name, "authjs.session-token.2");

        // Read back, out of order.
        let header = written.iter().rev().map(|c| format!("{}={}", c.name, c.value)).collect::<Vec<_>>().join("; ");
        let req = AuthRequest::get("http://x/").with_header("cookie", header);
        let read = ChunkedCookie::read(&set.session_token, &req);
        assert_eq!(read.value(), Some(big.as_str()));

        // A small value replaces the chunks: chunks 0..2 expire.
        let rewritten = read.write("small", 100);
        assert_eq!(rewritten[0].name, "authjs.session-token");
        let expired: Vec<_> =
            rewritten.iter().filter(|c| c.options.max_age == Some(0)).map(|c| c.name.as_str()).collect();
        assert_eq!(expired.len(), 3);
        assert_eq!(read.clear().len(), 3);
    }

    #[test]
    fn same_site_is_written_as_configured() {
        let set = CookieSet::new(true, &CookiesConfig::default());
        let header = |same_site: &str| {
            let options = CookieOptions { same_site: same_site.into(), ..set.state.options.clone() };
            SetCookie::expired("c", &options).to_header()
        };
        assert!(header("strict").ends_with("; Secure; SameSite=Strict"), "{}", header("strict"));
        assert!(header("none").ends_with("; Secure; SameSite=None"), "{}", header("none"));
        assert!(header("lax").ends_with("; Secure; SameSite=Lax"), "{}", header("lax"));
    }

    #[test]
    fn a_whole_cookie_over_the_size_bound_is_not_read() {
        let set = CookieSet::new(false, &CookiesConfig::default());
        let at_bound = "v".repeat(MAX_COOKIE_VALUE);
        let req = AuthRequest::get("http://x/").with_header("cookie", format!("authjs.session-token={at_bound}"));
        assert_eq!(ChunkedCookie::read(&set.session_token, &req).value(), Some(at_bound.as_str()));
        let over = "v".repeat(MAX_COOKIE_VALUE + 1);
        let req = AuthRequest::get("http://x/").with_header("cookie", format!("authjs.session-token={over}"));
        assert_eq!(ChunkedCookie::read(&set.session_token, &req).value(), None);
    }

    #[test]
    fn unrelated_cookies_with_the_same_prefix_are_ignored() {
        let set = CookieSet::new(false, &CookiesConfig::default());
        let req =
            AuthRequest::get("http://x/").with_header("cookie", "authjs.session-token-other=1; authjs.session-token=v");
        assert_eq!(ChunkedCookie::read(&set.session_token, &req).value(), Some("v"));
    }
}
