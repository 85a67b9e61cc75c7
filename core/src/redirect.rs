//! Where a redirect may go. The default `redirect` callback allows relative
//! paths and same-origin URLs only; anything else (another host,
//! `javascript:`, garbage) becomes the base URL. Never an error: Auth.js v5
//! answers 500 on a malformed callback URL, we fall back instead.

use url::Url;

/// The default redirect callback.
pub fn default_redirect(url: &str, base_url: &str) -> String {
    same_origin(url, base_url).unwrap_or_else(|| base_url.to_owned())
}

/// `url` resolved against `base_url` if it is a relative path or a
/// same-origin absolute URL.
pub fn same_origin(url: &str, base_url: &str) -> Option<String> {
    let base = Url::parse(base_url).ok()?;
    // `//host` and `/\host` are protocol-relative URLs to another host in a
    // browser's eyes, not paths: refuse them outright.
    if url.starts_with("//") || url.starts_with("/\\") {
        return None;
    }
    if url.starts_with('/') {
        // Resolve then re-check, so `//evil.com` or `/\evil.com` can't
        // smuggle in another host.
        let joined = Url::parse(&format!("{}{url}", base.origin().ascii_serialization())).ok()?;
        return (joined.origin() == base.origin()).then(|| joined.to_string());
    }
    // The URL parser silently drops tabs and newlines; such a URL is refused
    // rather than passed on raw toward a Location header.
    if url.chars().any(char::is_control) {
        return None;
    }
    // Re-serialise the parsed URL: what reaches a Location header is the
    // parser's ASCII form (U+2028, backslashes, non-characters normalised),
    // never the client's raw text.
    let parsed = Url::parse(url).ok()?;
    (parsed.origin() == base.origin() && matches!(parsed.scheme(), "http" | "https")).then(|| serialise(&parsed, url))
}

/// The parser's form of `parsed`, without the `/` it adds to a bare origin
/// (`http://host` stays `http://host`, as the client wrote it).
fn serialise(parsed: &Url, raw: &str) -> String {
    let mut out = parsed.to_string();
    if parsed.path() == "/" && parsed.query().is_none() && parsed.fragment().is_none() && !raw.ends_with('/') {
        out.pop();
    }
    out
}

/// A result of a host's redirect callback: it may allow other hosts, but it
/// must be an http(s) URL or a path. Returns it normalised (absolute URLs
/// re-serialised; control characters refused), ready for a Location header.
pub fn acceptable_target(url: &str) -> Option<String> {
    if url.chars().any(char::is_control) {
        return None;
    }
    if url.starts_with('/') && !url.starts_with("//") && !url.starts_with("/\\") {
        // A path is normalised the way a browser would resolve it.
        let joined = Url::parse(&format!("http://path.invalid{url}")).ok()?;
        if joined.host_str() != Some("path.invalid") {
            return None;
        }
        let mut out = joined.path().to_owned();
        if let Some(q) = joined.query() {
            out.push('?');
            out.push_str(q);
        }
        if let Some(f) = joined.fragment() {
            out.push('#');
            out.push_str(f);
        }
        return Some(out);
    }
    Url::parse(url).ok().filter(|u| matches!(u.scheme(), "http" | "https")).map(|u| serialise(&u, url))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "http://localhost:3000";

    #[test]
    fn default_allows_only_same_origin() {
        assert_eq!(default_redirect("/dashboard?x=1", BASE), "http://localhost:3000/dashboard?x=1");
        assert_eq!(default_redirect("http://localhost:3000/a", BASE), "http://localhost:3000/a");
        for bad in [
            "https://evil.example/",
            "//evil.example/x",
            "javascript:alert(1)",
            "ftp://localhost:3000/x",
            "http://localhost:3001/",
            "not a url at all",
            "",
            "http://[::1",
            "data:text/html,hi",
        ] {
            assert_eq!(default_redirect(bad, BASE), BASE, "{bad:?}");
        }
        assert_eq!(default_redirect("/\\evil.example", BASE), BASE);
    }

    #[test]
    fn host_results_must_be_http_or_paths() {
        assert_eq!(acceptable_target("https://partner.example/x").as_deref(), Some("https://partner.example/x"));
        assert_eq!(acceptable_target("/x").as_deref(), Some("/x"));
        for bad in
            ["javascript:alert(1)", "//evil.example", "garbage", "/x\r\nSet-Cookie: a=b", "https://p.example/\r\nX: y"]
        {
            assert_eq!(acceptable_target(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn absolute_targets_are_reserialised() {
        assert_eq!(default_redirect("http://localhost:3000/\u{2028}x", BASE), "http://localhost:3000/%E2%80%A8x");
        assert_eq!(
            default_redirect("http://localhost:3000\\@evil.example/", BASE),
            "http://localhost:3000/@evil.example/"
        );
        assert_eq!(default_redirect("http://LOCALHOST:3000/a b", BASE), "http://localhost:3000/a%20b");
        assert_eq!(acceptable_target("/\u{2028}x").as_deref(), Some("/%E2%80%A8x"));
        assert_eq!(acceptable_target("https://p.example/\u{fffe}").as_deref(), Some("https://p.example/%EF%BF%BE"));
    }

    #[test]
    fn no_newline_reaches_a_location() {
        for url in ["http://localhost:3000/a\r\nSet-Cookie: x=1", "/a\r\nSet-Cookie: x=1", "http://localhost:3000/\tb"]
        {
            let target = default_redirect(url, BASE);
            assert!(!target.chars().any(char::is_control), "{url:?} -> {target:?}");
        }
    }
}
