//! The C ABI of libauth: `libauth.so` / `libauth.a`, declared by
//! `include/auth.h` (generated from this crate by cbindgen; the contract —
//! JSON shapes, ownership, threads, deadlines — is written there).
//!
//! Every exported function runs inside [`firewall`]: a panic becomes
//! `AUTH_INTERNAL_ERROR`, never an unwind into C. Inputs are borrowed and
//! copied; outputs are written only on success, last.

#![deny(unsafe_op_in_unsafe_fn)]
#![warn(clippy::undocumented_unsafe_blocks)]
// The safety contract of every function is the header's, stated once there.
#![allow(clippy::missing_safety_doc)]
#![allow(non_camel_case_types)]

mod error;
#[cfg(test)]
mod hook_docs;
mod host;

use std::borrow::Cow;
use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, OnceLock};

use libauth_core::{Auth, AuthRequest, Config, ConfigError, SessionView, Work};
use serde_json::Value;

pub use error::{auth_error, auth_result};
pub use host::{auth_hook_fn, auth_hook_result, AUTH_HOOK_ERROR, AUTH_HOOK_OK};

use error::Failure;
use host::CHost;

/// The version of libauth this header declares (`auth_version()` gives the
/// library's).
pub const AUTH_VERSION_MAJOR: u32 = 0;
pub const AUTH_VERSION_MINOR: u32 = 1;
pub const AUTH_VERSION_PATCH: u32 = 0;

/// One engine for one configuration. Opaque; thread-safe: any number of
/// threads may call `auth_handle` and `auth_get_session` on it at once.
/// Built by `auth_new`, released by `auth_free`.
pub struct auth_engine {
    auth: Auth,
}

/// Bytes libauth returns: `data` points at `len` bytes of UTF-8 JSON followed
/// by a NUL (so `data` is also a C string). Read-only; released by
/// `auth_buffer_free`.
#[repr(C)]
pub struct auth_buffer {
    pub data: *const c_char,
    pub len: usize,
}

impl auth_buffer {
    /// A buffer holding a copy of `text`: one allocation, of its length
    /// and the NUL (a session read's answer, copied out of the session
    /// cache's JSON text, or out of this read's own).
    fn copied(text: &str) -> *mut auth_buffer {
        let mut bytes = Vec::with_capacity(text.len() + 1);
        bytes.extend_from_slice(text.as_bytes());
        auth_buffer::boxed(bytes)
    }

    fn boxed(mut bytes: Vec<u8>) -> *mut auth_buffer {
        let len = bytes.len();
        bytes.push(0);
        let data = Box::into_raw(bytes.into_boxed_slice()) as *const c_char;
        Box::into_raw(Box::new(auth_buffer { data, len }))
    }
}

/// Run an entry point: its failure (or a panic) becomes a code and, when
/// `error_out` is not NULL, an `auth_error` written there.
fn firewall(name: &str, error_out: *mut *mut auth_error, f: impl FnOnce() -> Result<(), Failure>) -> auth_result {
    let failure = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => return auth_result::AUTH_OK,
        Ok(Err(failure)) => failure,
        Err(_) => Failure::new(auth_result::AUTH_INTERNAL_ERROR, format!("libauth: internal error in {name}")),
    };
    let code = failure.code;
    if !error_out.is_null() {
        // Building the error allocates; should even that panic, the code
        // still gets out.
        if let Ok(error) = catch_unwind(AssertUnwindSafe(|| Box::into_raw(Box::new(failure.into_error())))) {
            // SAFETY: `error_out` is not NULL and, by the header's contract,
            // points at writable storage for one pointer.
            unsafe { *error_out = error };
        }
    }
    code
}

/// Borrow `len` bytes at `ptr` as UTF-8.
///
/// # Safety
/// `ptr` is NULL or points at `len` readable bytes that stay unchanged for
/// the lifetime `'a`.
unsafe fn text<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a str, Failure> {
    if ptr.is_null() {
        return Err(Failure::new(auth_result::AUTH_NULL_ARGUMENT, format!("{what} is NULL")));
    }
    if len > isize::MAX as usize {
        return Err(Failure::new(auth_result::AUTH_INVALID_LENGTH, format!("{what}: length {len} is impossible")));
    }
    // SAFETY: not NULL, length in range; readability is the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    std::str::from_utf8(bytes)
        .map_err(|e| Failure::new(auth_result::AUTH_INVALID_UTF8, format!("{what} is not UTF-8: {e}")))
}

/// The engine behind `auth`, or `AUTH_NULL_ARGUMENT`.
///
/// # Safety
/// `auth` is NULL or a live engine from `auth_new`.
unsafe fn engine<'a>(auth: *const auth_engine) -> Result<&'a Auth, Failure> {
    // SAFETY: the caller's contract: NULL or live.
    unsafe { auth.as_ref() }
        .map(|e| &e.auth)
        .ok_or_else(|| Failure::new(auth_result::AUTH_NULL_ARGUMENT, "auth is NULL"))
}

fn parse_request(json: &str) -> Result<AuthRequest, Failure> {
    let req: AuthRequest = serde_json::from_str(json).map_err(|e| {
        Failure::new(auth_result::AUTH_INVALID_JSON, format!("request_json is not a request ({e}); see auth.h"))
    })?;
    check_absolute_url(&req.url, "request_json: url")?;
    Ok(req)
}

/// The request's `url` must be absolute, as the client saw it: `http://` or
/// `https://`, a host, then the rest. Otherwise the engine would answer 400
/// (or read the session as if the URL were fine, with the plain cookie
/// names), and the host's bug - a path where the URL belongs, a proxy rule
/// not applied - would hide behind an `AUTH_OK`. The URL itself is not put
/// in the message: it may carry a sign-in token in its query.
/// `what` names the URL in the message (`request_json: url`, `url`).
fn check_absolute_url(url: &str, what: &str) -> Result<(), Failure> {
    let refused = |why: String| {
        Failure::new(
            auth_result::AUTH_INVALID_JSON,
            format!("{what} is not an absolute http(s) URL ({why}); see auth.h"),
        )
    };
    let scheme = ["http://", "https://"]
        .into_iter()
        .find(|prefix| url.get(..prefix.len()).is_some_and(|s| s.eq_ignore_ascii_case(prefix)))
        .ok_or_else(|| refused("it must start with http:// or https://".into()))?;
    // `Url::parse` is lenient (`http:///x` has the host `x`): the host must
    // come right after the scheme, as a client sends it. (Scanned as bytes:
    // every delimiter is ASCII, and this runs on every session read.)
    let rest = &url[scheme.len()..];
    let authority = &rest[..rest.bytes().position(|b| matches!(b, b'/' | b'\\' | b'?' | b'#')).unwrap_or(rest.len())];
    if authority.is_empty() {
        return Err(refused("no host after the scheme".into()));
    }
    // A `\` before the query: `Url::parse` reads it as `/`, a plain split
    // does not, so such a URL names two different paths (a Host header
    // such as `host\auth\callback\x?…` builds one). No client sends it.
    if url.bytes().take_while(|b| !matches!(b, b'?' | b'#')).any(|b| b == b'\\') {
        return Err(refused("a backslash before the query".into()));
    }
    // Nearly every URL has a plain DNS name for a host: nothing `Url::parse`
    // could refuse (the rest of an http(s) URL is escaped, never refused),
    // so the full parse (a third of a session read's cost) is skipped.
    if is_plain_authority(authority) {
        return Ok(());
    }
    match url::Url::parse(url) {
        Ok(parsed) if parsed.host_str().is_some_and(|h| !h.is_empty()) => Ok(()),
        Ok(_) => Err(refused("no host".into())),
        Err(e) => Err(refused(e.to_string())),
    }
}

/// Whether `authority` (what follows `http://` up to the path) is
/// `name[:port]` where `url::Url::parse` accepts the URL whatever its path:
/// dot-separated labels of ASCII letters, digits and `-`, none empty, none
/// an IDNA `xn--` label, the last starting with a letter (a last label
/// starting with a digit is parsed as an IPv4 address, `0x1` as well), or
/// an IPv4 address written the usual way (four decimal numbers up to 255,
/// without leading zeros: what a client connecting by address sends as its
/// Host), and a port of 1 to 5 digits up to 65535. Anything else (other
/// IPv4 forms, IPv6, userinfo, Unicode) takes the full parse. The `tests`
/// below check the claim against `Url::parse` over generated authorities.
fn is_plain_authority(authority: &str) -> bool {
    // As bytes (every character that passes is ASCII): a str's `split`
    // costs a searcher per call, and this runs on every session read.
    let authority = authority.as_bytes();
    let (host, port) = match authority.iter().position(|&b| b == b':') {
        Some(colon) => (&authority[..colon], Some(&authority[colon + 1..])),
        None => (authority, None),
    };
    let port_ok =
        port.is_none_or(|p| (1..=5).contains(&p.len()) && p.iter().all(u8::is_ascii_digit) && decimal(p) <= 65535);
    let label_ok = |label: &[u8]| {
        !label.is_empty()
            && label.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.get(..4).is_some_and(|p| p.eq_ignore_ascii_case(b"xn--"))
    };
    let labels = || host.split(|&b| b == b'.');
    let last_ok = labels().next_back().and_then(|l| l.first()).is_some_and(u8::is_ascii_alphabetic);
    port_ok && ((last_ok && labels().all(label_ok)) || is_dotted_quad(host))
}

/// `a.b.c.d`: four decimal numbers from 0 to 255, none with a leading zero
/// (`010` is octal to `Url::parse`, `09` an error).
fn is_dotted_quad(host: &[u8]) -> bool {
    let octet_ok = |part: &[u8]| {
        (1..=3).contains(&part.len())
            && part.iter().all(u8::is_ascii_digit)
            && (part == b"0" || part[0] != b'0')
            && decimal(part) <= 255
    };
    host.split(|&b| b == b'.').count() == 4 && host.split(|&b| b == b'.').all(octet_ok)
}

/// The value of up to 5 ASCII digits.
fn decimal(digits: &[u8]) -> u32 {
    digits.iter().fold(0, |n, &d| n * 10 + u32::from(d - b'0'))
}

/// In C a hook is on when `hooks.implemented` lists it: JSON holds no
/// function, so `"callbacks": {"session": …}` names a hook the host
/// believes it configured. Unless listed, that is refused by name rather
/// than never called. (A name the engine does not know at all is refused
/// by `Config` itself, for every binding.)
fn check_listed_hooks(config: &Value, implemented: &[String]) -> Result<(), ConfigError> {
    for group in ["callbacks", "events", "logger"] {
        let Some(map) = config.get(group).and_then(Value::as_object) else { continue };
        for name in map.keys() {
            let hook = format!("{group}.{name}");
            if libauth_core::host::HookKind::parse(&hook).is_some() && !implemented.contains(&hook) {
                return Err(ConfigError::new(
                    hook.clone(),
                    format!(
                        "is in the configuration but not in hooks.implemented: a C host lists the hooks its \
                         hook_fn answers there (\"hooks\": {{\"implemented\": [\"{hook}\"]}})"
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn null_output(what: &str) -> Failure {
    Failure::new(auth_result::AUTH_NULL_ARGUMENT, format!("{what} is NULL"))
}

/// Build an engine from a configuration: `config_json` (`config_len` bytes,
/// UTF-8 JSON, Auth.js option names, see the top of this header) and the
/// host's hook function (`hook_fn`, NULL when `hooks.implemented` is empty)
/// with its `user_data`, passed back on every hook call.
///
/// On success writes the engine to `*auth_out`. On failure writes nothing
/// there, and (when `error_out` is not NULL) an error to `*error_out`: a
/// refused configuration names its option (`auth_error_option`) and has the
/// engine's type (`AUTH_CONFIGURATION`, `AUTH_MISSING_SECRET`, …), e.g.
/// `session.strategy` for a wrong type inside `session`. An unknown or
/// misspelt hook name is refused naming it, in `hooks.implemented` or as a
/// key under `callbacks`, `events` or `logger` (`callbacks.sesion`); so is a
/// right name there that `hooks.implemented` does not list.
#[no_mangle]
pub unsafe extern "C" fn auth_new(
    config_json: *const c_char,
    config_len: usize,
    hook_fn: auth_hook_fn,
    user_data: *mut c_void,
    auth_out: *mut *mut auth_engine,
    error_out: *mut *mut auth_error,
) -> auth_result {
    firewall("auth_new", error_out, || {
        // SAFETY: the header's contract for `config_json`.
        let json = unsafe { text(config_json, config_len, "config_json") }?;
        if auth_out.is_null() {
            return Err(null_output("auth_out"));
        }
        let mut value: Value = serde_json::from_str(json).map_err(|e| Failure {
            code: auth_result::AUTH_INVALID_JSON,
            message: format!("config_json is not JSON: {e}"),
            option: Some("config".into()),
        })?;
        let hooks = take_implemented_hooks(&mut value)?;
        check_listed_hooks(&value, &hooks)?;
        if !hooks.is_empty() && hook_fn.is_none() {
            return Err(ConfigError::new("hooks.implemented", "names hooks, but hook_fn is NULL").into());
        }
        let config = Config::from_value(value)?;
        let auth = Auth::new(config, Arc::new(CHost::new(hook_fn, user_data, hooks)))?;
        let engine = Box::into_raw(Box::new(auth_engine { auth }));
        // SAFETY: `auth_out` is not NULL; the contract makes it writable.
        unsafe { *auth_out = engine };
        Ok(())
    })
}

/// `hooks.implemented`: the hook names the host's function answers. Taken
/// out of the config here: the engine learns them as the host's hook list,
/// as every binding's hooks.
fn take_implemented_hooks(config: &mut Value) -> Result<Vec<String>, ConfigError> {
    let Some(hooks) = config.get_mut("hooks").and_then(Value::as_object_mut) else { return Ok(Vec::new()) };
    let Some(implemented) = hooks.remove("implemented") else { return Ok(Vec::new()) };
    let names: Option<Vec<String>> = implemented
        .as_array()
        .map(|list| list.iter().map(|n| n.as_str().map(str::to_owned)).collect::<Option<Vec<String>>>())
        .unwrap_or(None);
    names.ok_or_else(|| ConfigError::new("hooks.implemented", "must be an array of hook names"))
}

/// Answer one request under `basePath` (every Auth.js route: sign-in pages,
/// csrf, providers, session, callbacks, sign-out, …). `request_json` is the
/// request (`request_len` bytes, the shape at the top of this header). On
/// success writes the response (status, headers with every Set-Cookie,
/// body; shape at the top) to `*response_out`; release it with
/// `auth_buffer_free`. Engine failures are responses (redirects to the error
/// page, 4xx, 503 when overloaded), not errors: an error code means the call
/// itself was wrong (NULL, bad length, not UTF-8, not a request, or a `url`
/// that is not absolute: `AUTH_INVALID_JSON`).
#[no_mangle]
pub unsafe extern "C" fn auth_handle(
    auth: *const auth_engine,
    request_json: *const c_char,
    request_len: usize,
    response_out: *mut *mut auth_buffer,
    error_out: *mut *mut auth_error,
) -> auth_result {
    firewall("auth_handle", error_out, || {
        // SAFETY: the header's contract for `auth`.
        let auth = unsafe { engine(auth) }?;
        // SAFETY: the header's contract for `request_json`.
        let json = unsafe { text(request_json, request_len, "request_json") }?;
        if response_out.is_null() {
            return Err(null_output("response_out"));
        }
        let req = parse_request(json)?;
        // Admitted (hooks.maxInFlight), or answered 503 at once.
        let res = auth.handle_admitted(&req);
        let bytes =
            serde_json::to_vec(&res).map_err(|e| Failure::new(auth_result::AUTH_INTERNAL_ERROR, e.to_string()))?;
        let buffer = auth_buffer::boxed(bytes);
        // SAFETY: not NULL; the contract makes it writable.
        unsafe { *response_out = buffer };
        Ok(())
    })
}

/// The current session of a request (its cookies; usually a page of the
/// app, not an auth route). On success writes the session JSON
/// (`{"user": {...}, "expires": "..."}`, after the session callback) to
/// `*session_out`, or NULL when there is no valid session. Fails with the
/// engine's error: `AUTH_ADAPTER_ERROR` (database strategy, the database
/// failed: the session may well exist), `AUTH_OVERLOADED` (`hooks.maxInFlight`
/// reached), or a misuse code (as for `auth_handle`: a `url` that is not
/// absolute is `AUTH_INVALID_JSON`).
#[no_mangle]
pub unsafe extern "C" fn auth_get_session(
    auth: *const auth_engine,
    request_json: *const c_char,
    request_len: usize,
    session_out: *mut *mut auth_buffer,
    error_out: *mut *mut auth_error,
) -> auth_result {
    firewall("auth_get_session", error_out, || {
        // SAFETY: the header's contract for `auth`.
        let auth = unsafe { engine(auth) }?;
        // SAFETY: the header's contract for `request_json`.
        let json = unsafe { text(request_json, request_len, "request_json") }?;
        if session_out.is_null() {
            return Err(null_output("session_out"));
        }
        let req = parse_request(json)?;
        let _permit = auth.admit(Work::SessionRead).permit()?;
        let buffer = match auth.get_session_view(&req)? {
            Some(session) => auth_buffer::copied(&session.json()),
            None => std::ptr::null_mut(),
        };
        // SAFETY: not NULL; the contract makes it writable.
        unsafe { *session_out = buffer };
        Ok(())
    })
}

/// `auth_get_session` from what a session read needs and no more: the
/// request's absolute URL (`url`, `url_len` bytes of UTF-8, as for
/// `auth_handle`: its scheme picks the secure or plain cookie names) and its
/// `Cookie` header value (`cookie`, `cookie_len` bytes; NULL with length 0,
/// or an empty string, when the request has none; several `Cookie` headers
/// joined with "; "). No request JSON is built or parsed; the answer (the
/// session JSON or NULL in `*session_out`, the result code, the error) is
/// the one `auth_get_session` gives for a request with that URL and header.
/// A `url` that is not absolute fails with `AUTH_INVALID_JSON`, as in
/// `auth_get_session`.
#[no_mangle]
pub unsafe extern "C" fn auth_get_session_by_cookie(
    auth: *const auth_engine,
    url: *const c_char,
    url_len: usize,
    cookie: *const c_char,
    cookie_len: usize,
    session_out: *mut *mut auth_buffer,
    error_out: *mut *mut auth_error,
) -> auth_result {
    firewall("auth_get_session_by_cookie", error_out, || {
        // SAFETY: the header's contract for the arguments.
        let session = unsafe { read_by_cookie(auth, url, url_len, cookie, cookie_len, session_out.is_null()) }?;
        let buffer = match session {
            Some(session) => auth_buffer::copied(&session.json()),
            None => std::ptr::null_mut(),
        };
        // SAFETY: not NULL (checked above); the contract makes it writable.
        unsafe { *session_out = buffer };
        Ok(())
    })
}

/// The read of `auth_get_session_by_cookie` and `auth_session_read`: the
/// arguments checked (`out_is_null`: the caller's output pointer is NULL,
/// `session_out`), the URL checked absolute, the read admitted.
///
/// # Safety
/// The header's contract for `auth`, `url` and `cookie`.
unsafe fn read_by_cookie(
    auth: *const auth_engine,
    url: *const c_char,
    url_len: usize,
    cookie: *const c_char,
    cookie_len: usize,
    out_is_null: bool,
) -> Result<Option<SessionView>, Failure> {
    // SAFETY: the header's contract for `auth`.
    let auth = unsafe { engine(auth) }?;
    // SAFETY: the header's contract for `url`.
    let url = unsafe { text(url, url_len, "url") }?;
    // No Cookie header may be given as NULL with length 0.
    let cookie = if cookie.is_null() && cookie_len == 0 {
        None
    } else {
        // SAFETY: the header's contract for `cookie`.
        Some(unsafe { text(cookie, cookie_len, "cookie") }?)
    };
    if out_is_null {
        return Err(null_output("session_out"));
    }
    check_absolute_url(url, "url")?;
    // Admitted as `auth_get_session` is (hooks.maxInFlight), or refused.
    let _permit = auth.admit(Work::SessionRead).permit()?;
    Ok(auth.get_session_view_by_cookie(url, cookie)?)
}

/// A session read by `auth_session_read`, to read fields from without
/// parsing JSON: `auth_session_user_field`, `auth_session_string`,
/// `auth_session_expires`, `auth_session_json`. Opaque and read-only: it
/// holds the session the read answered (for a cached cookie, the session
/// cache's own copy, shared: nothing is copied). Strings the accessors
/// return belong to it and stay valid until `auth_session_free`. It may be
/// read from any thread, by several at once, and may outlive the engine.
pub struct auth_session {
    view: SessionView,
    /// The JSON text of a session built for this read (session hooks, the
    /// database strategy), made by the first `auth_session_json`. A session
    /// shared with the cache has its text already.
    json: OnceLock<String>,
}

// The header promises reads from several threads at once.
const _: fn() = || {
    fn send_and_sync<T: Send + Sync>() {}
    send_and_sync::<auth_session>();
};

impl auth_session {
    fn json(&self) -> &str {
        if let Some(json) = self.json.get() {
            return json;
        }
        match self.view.json() {
            Cow::Borrowed(json) => json,
            Cow::Owned(json) => self.json.get_or_init(|| json),
        }
    }

    /// The string at `key` (`subkey` NULL) or at `key.subkey`.
    fn string(&self, key: &CStr, subkey: Option<&CStr>) -> Option<&str> {
        let value = field(self.view.map(), key)?;
        let value = match subkey {
            Some(subkey) => field(value.as_object()?, subkey)?,
            None => value,
        };
        value.as_str()
    }
}

/// `map[key]`. A session's maps are small (`user`, `expires`; a user's id,
/// name, email, image): comparing the keys' bytes in turn costs less than
/// hashing `key`, and needs no UTF-8 check of it.
fn field<'a>(map: &'a serde_json::Map<String, Value>, key: &CStr) -> Option<&'a Value> {
    let key = key.to_bytes();
    if map.len() <= 16 {
        map.iter().find(|(k, _)| k.as_bytes() == key).map(|(_, v)| v)
    } else {
        map.get(std::str::from_utf8(key).ok()?)
    }
}

/// `auth_get_session_by_cookie`, answered as a handle instead of JSON text:
/// the same arguments, checks, result codes and errors. On success writes a
/// new `auth_session` to `*session_out` (read it with
/// `auth_session_user_field` and the other `auth_session_*` accessors,
/// release it with `auth_session_free`), or NULL when the request has no
/// valid session (none, expired, tampered: `AUTH_OK` all the same). For a
/// cookie the session cache holds (the same cookie read again, no session
/// hooks) nothing is copied or serialized: the handle shares the cached
/// session.
#[no_mangle]
pub unsafe extern "C" fn auth_session_read(
    auth: *const auth_engine,
    url: *const c_char,
    url_len: usize,
    cookie: *const c_char,
    cookie_len: usize,
    session_out: *mut *mut auth_session,
    error_out: *mut *mut auth_error,
) -> auth_result {
    firewall("auth_session_read", error_out, || {
        // SAFETY: the header's contract for the arguments.
        let session = unsafe { read_by_cookie(auth, url, url_len, cookie, cookie_len, session_out.is_null()) }?;
        let handle = match session {
            Some(view) => Box::into_raw(Box::new(auth_session { view, json: OnceLock::new() })),
            None => std::ptr::null_mut(),
        };
        // SAFETY: not NULL (checked above); the contract makes it writable.
        unsafe { *session_out = handle };
        Ok(())
    })
}

/// An accessor's string: its bytes and length, written to `*len_out`. An
/// empty string points at a static "" (never a dangling pointer).
///
/// # Safety
/// `len_out` is not NULL and writable.
unsafe fn string_out(s: &str, len_out: *mut usize) -> *const c_char {
    // SAFETY: the caller's contract.
    unsafe { *len_out = s.len() };
    if s.is_empty() {
        c"".as_ptr()
    } else {
        s.as_ptr().cast()
    }
}

/// The string at `key` of the session (`subkey` NULL: `"expires"`, or a
/// field a session callback added) or at `key.subkey` (`"user"`,
/// `"email"`); `key` and `subkey` are NUL-terminated UTF-8. Returns its
/// first byte and writes its length in bytes to `*len_out`; the string is
/// NOT NUL-terminated (print it with `"%.*s", (int)len, s`; a JSON string
/// may even hold NUL bytes), belongs to the session and is valid until
/// `auth_session_free`. Returns NULL, and writes nothing, when the field is
/// absent or not a string, or when `session`, `key` or `len_out` is NULL.
#[no_mangle]
pub unsafe extern "C" fn auth_session_string(
    session: *const auth_session,
    key: *const c_char,
    subkey: *const c_char,
    len_out: *mut usize,
) -> *const c_char {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: NULL or a live session (the contract).
        let Some(session) = (unsafe { session.as_ref() }) else { return std::ptr::null() };
        if key.is_null() || len_out.is_null() {
            return std::ptr::null();
        }
        // SAFETY: NUL-terminated strings (the contract); `subkey` may be NULL.
        let (key, subkey) = unsafe { (CStr::from_ptr(key), (!subkey.is_null()).then(|| CStr::from_ptr(subkey))) };
        match session.string(key, subkey) {
            // SAFETY: `len_out` is not NULL; the contract makes it writable.
            Some(s) => unsafe { string_out(s, len_out) },
            None => std::ptr::null(),
        }
    }))
    .unwrap_or(std::ptr::null())
}

/// A string field of the session's user (`auth_session_string(session,
/// "user", name, len_out)`): `name` is `"id"`, `"name"`, `"email"`,
/// `"image"`, or a field a session callback added. The same answer: the
/// bytes (NOT NUL-terminated, valid until `auth_session_free`) with their
/// length in `*len_out`, or NULL when absent or not a string (a user
/// without a name has none, a passkey user often) or for a NULL argument.
#[no_mangle]
pub unsafe extern "C" fn auth_session_user_field(
    session: *const auth_session,
    name: *const c_char,
    len_out: *mut usize,
) -> *const c_char {
    // SAFETY: the same contract.
    unsafe { auth_session_string(session, c"user".as_ptr(), name, len_out) }
}

/// When the session expires, in Unix seconds (its `expires` field, an ISO
/// 8601 date); -1 when it has none that is a date, or for NULL.
#[no_mangle]
pub unsafe extern "C" fn auth_session_expires(session: *const auth_session) -> i64 {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: NULL or a live session (the contract).
        let session = unsafe { session.as_ref() }?;
        let expires = session.string(c"expires", None)?;
        libauth_core::store::date::parse_iso(expires).map(|ms| ms.div_euclid(1000))
    }))
    .ok()
    .flatten()
    .unwrap_or(-1)
}

/// The whole session as JSON text, the bytes `auth_get_session_by_cookie`
/// would return (`{"user": {...}, "expires": "..."}`): returns its first
/// byte and writes its length to `*len_out`. NOT NUL-terminated; belongs to
/// the session, valid until `auth_session_free`. A session shared with the
/// cache has its text already; one built for this read (session hooks, the
/// database strategy) is serialized once, on the first call. NULL for a
/// NULL argument.
#[no_mangle]
pub unsafe extern "C" fn auth_session_json(session: *const auth_session, len_out: *mut usize) -> *const c_char {
    catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: NULL or a live session (the contract).
        let Some(session) = (unsafe { session.as_ref() }) else { return std::ptr::null() };
        if len_out.is_null() {
            return std::ptr::null();
        }
        // SAFETY: `len_out` is not NULL; the contract makes it writable.
        unsafe { string_out(session.json(), len_out) }
    }))
    .unwrap_or(std::ptr::null())
}

/// Release a session from `auth_session_read`; every string read from it
/// goes with it. NULL is ignored. No accessor may be running on it.
#[no_mangle]
pub unsafe extern "C" fn auth_session_free(session: *mut auth_session) {
    if session.is_null() {
        return;
    }
    // SAFETY: from `auth_session_read`, released once (the contract).
    let session = unsafe { Box::from_raw(session) };
    let _ = catch_unwind(AssertUnwindSafe(move || drop(session)));
}

/// A valid access token for the user's account with `provider` (both
/// UTF-8), for calling the provider's API: on success writes
/// `{"accessToken": "...", "expiresAt": 1767225600, "tokenType": "bearer",
/// "scope": "..."}` to `*token_out`, or NULL when the user has no such
/// account. A token that expires within `tokenRefresh.skew` (60 s) is
/// refreshed first, once however many threads (and, with a shared
/// rate-limit store, processes) ask at the same time. Fails with
/// `AUTH_REFRESH_TOKEN_REVOKED` when the provider refuses the stored refresh
/// token (the user must sign in with the provider again),
/// `AUTH_MISSING_ADAPTER` without an adapter, `AUTH_ADAPTER_ERROR`,
/// `AUTH_OAUTH_CALLBACK_ERROR` for another provider error, or
/// `AUTH_OVERLOADED`. It may call the provider: don't call it where a
/// blocking network call is not allowed. Admitted as `auth_handle` is.
#[no_mangle]
pub unsafe extern "C" fn auth_get_access_token(
    auth: *const auth_engine,
    user_id: *const c_char,
    user_id_len: usize,
    provider: *const c_char,
    provider_len: usize,
    token_out: *mut *mut auth_buffer,
    error_out: *mut *mut auth_error,
) -> auth_result {
    firewall("auth_get_access_token", error_out, || {
        // SAFETY: the header's contract for `auth`.
        let auth = unsafe { engine(auth) }?;
        // SAFETY: the header's contract for `user_id` and `provider`.
        let user_id = unsafe { text(user_id, user_id_len, "user_id") }?;
        // SAFETY: as above.
        let provider = unsafe { text(provider, provider_len, "provider") }?;
        if token_out.is_null() {
            return Err(null_output("token_out"));
        }
        let _permit = auth.admit(Work::HostCall).permit()?;
        let buffer = match auth.get_access_token(user_id, provider)? {
            Some(token) => auth_buffer::boxed(
                serde_json::to_vec(&token)
                    .map_err(|e| Failure::new(auth_result::AUTH_INTERNAL_ERROR, e.to_string()))?,
            ),
            None => std::ptr::null_mut(),
        };
        // SAFETY: not NULL; the contract makes it writable.
        unsafe { *token_out = buffer };
        Ok(())
    })
}

/// A passkey call for the user `user_id` (UTF-8): `call` is JSON (UTF-8),
/// `{"action": "list"}`, `{"action": "rename", "id": "...", "name": "..."}`
/// or `{"action": "delete", "id": "..."}`. On success writes the answer as
/// JSON to `*result_out`: the list of passkeys (`id`, `name`, `createdAt`,
/// `lastUsedAt`, `deviceType`, `backedUp`, `transports`), the renamed
/// passkey, or `null`. Fails with `AUTH_LAST_SIGN_IN_METHOD` when a delete
/// would leave the user no way to sign in, `AUTH_WEB_AUTHN_VERIFICATION_ERROR`
/// for a passkey that is not the user's, `AUTH_INVALID_JSON`,
/// `AUTH_ADAPTER_ERROR` or `AUTH_OVERLOADED`. Reads the database; admitted
/// as `auth_handle` is.
#[no_mangle]
pub unsafe extern "C" fn auth_passkeys(
    auth: *const auth_engine,
    user_id: *const c_char,
    user_id_len: usize,
    call: *const c_char,
    call_len: usize,
    result_out: *mut *mut auth_buffer,
    error_out: *mut *mut auth_error,
) -> auth_result {
    // SAFETY: the header's contract, passed on.
    unsafe {
        user_json_call(
            "auth_passkeys",
            auth,
            user_id,
            user_id_len,
            call,
            call_len,
            result_out,
            error_out,
            Auth::passkeys,
        )
    }
}

/// A session call for the user `user_id` (UTF-8): `call` is JSON (UTF-8),
/// `{"action": "list"}`, `{"action": "end", "id": "..."}`,
/// `{"action": "endOthers"}` or `{"action": "endAll"}`, with `"url"` and
/// `"cookie"` (the request's URL and `Cookie` header) to say which session
/// is the caller's. On success writes the answer as JSON to `*result_out`:
/// the user's database sessions (`id`, `createdAt`, `lastActiveAt`,
/// `expires`, `userAgent`, `device`, `ip` as its network, `current`), `null`
/// for `end`, or `{"ended": n}`. Fails with `AUTH_SESSION_TOKEN_ERROR` for an
/// id that is not one of the user's sessions, `AUTH_UNSUPPORTED_STRATEGY`
/// for JWT sessions, `AUTH_INVALID_JSON`, `AUTH_ADAPTER_ERROR` or
/// `AUTH_OVERLOADED`. Reads the database; admitted as `auth_handle` is.
#[no_mangle]
pub unsafe extern "C" fn auth_sessions(
    auth: *const auth_engine,
    user_id: *const c_char,
    user_id_len: usize,
    call: *const c_char,
    call_len: usize,
    result_out: *mut *mut auth_buffer,
    error_out: *mut *mut auth_error,
) -> auth_result {
    // SAFETY: the header's contract, passed on.
    unsafe {
        user_json_call(
            "auth_sessions",
            auth,
            user_id,
            user_id_len,
            call,
            call_len,
            result_out,
            error_out,
            Auth::sessions,
        )
    }
}

/// A user's second factor: `call` is `{"action": "status"}`, `{"action":
/// "begin", "label"?}`, `{"action": "confirm", "code"}`, `{"action":
/// "verify", "code"}`, `{"action": "recoveryCodes", "code"}` or
/// `{"action": "disable", "code"}`; `*result_out` receives the status
/// (`{"enabled", "pending", "enabledAt", "recoveryCodesLeft"}`), the
/// enrolment (`{"uri", "secret", "qrSvg"}`), `{"recoveryCodes": [...]}`,
/// `{"factor": "totp" | "recoveryCode"}` or `null`. Fails with
/// `AUTH_TWO_FACTOR_ERROR` for a wrong, stale or used code (or a change the
/// user's state does not allow), `AUTH_UNKNOWN_ACTION`, `AUTH_INVALID_JSON`,
/// `AUTH_ADAPTER_ERROR` or `AUTH_OVERLOADED`. Reads the database; admitted
/// as `auth_handle` is.
#[no_mangle]
pub unsafe extern "C" fn auth_two_factor(
    auth: *const auth_engine,
    user_id: *const c_char,
    user_id_len: usize,
    call: *const c_char,
    call_len: usize,
    result_out: *mut *mut auth_buffer,
    error_out: *mut *mut auth_error,
) -> auth_result {
    // SAFETY: the header's contract, passed on.
    unsafe {
        user_json_call(
            "auth_two_factor",
            auth,
            user_id,
            user_id_len,
            call,
            call_len,
            result_out,
            error_out,
            Auth::two_factor,
        )
    }
}

/// A call about one user with a JSON argument and a JSON answer
/// (`auth_passkeys`, `auth_sessions`, `auth_two_factor`): the text checked, the call parsed,
/// admitted as `auth_handle` is, the answer written to `*result_out`.
///
/// # Safety
/// The contract of the function named `name` in `auth.h`.
#[allow(clippy::too_many_arguments)]
unsafe fn user_json_call(
    name: &'static str,
    auth: *const auth_engine,
    user_id: *const c_char,
    user_id_len: usize,
    call: *const c_char,
    call_len: usize,
    result_out: *mut *mut auth_buffer,
    error_out: *mut *mut auth_error,
    run: fn(&Auth, &str, &Value) -> Result<Value, libauth_core::AuthError>,
) -> auth_result {
    firewall(name, error_out, || {
        // SAFETY: the header's contract for `auth`.
        let auth = unsafe { engine(auth) }?;
        // SAFETY: the header's contract for `user_id` and `call`.
        let user_id = unsafe { text(user_id, user_id_len, "user_id") }?;
        // SAFETY: as above.
        let call = unsafe { text(call, call_len, "call") }?;
        if result_out.is_null() {
            return Err(null_output("result_out"));
        }
        let call: serde_json::Value = serde_json::from_str(call)
            .map_err(|e| Failure::new(auth_result::AUTH_INVALID_JSON, format!("call: {e}")))?;
        let _permit = auth.admit(Work::HostCall).permit()?;
        let answer = run(auth, user_id, &call)?;
        let bytes =
            serde_json::to_vec(&answer).map_err(|e| Failure::new(auth_result::AUTH_INTERNAL_ERROR, e.to_string()))?;
        // SAFETY: not NULL; the contract makes it writable.
        unsafe { *result_out = auth_buffer::boxed(bytes) };
        Ok(())
    })
}

/// A step of the password provider from host code (a form of the app's
/// own): `action` (UTF-8) is `signUp`, `requestPasswordReset`,
/// `resetPassword`, `changePassword`, `changeEmail` or `deleteAccount`;
/// `request_json` the host's request (the shape of `auth_handle`'s; its
/// cookies name the signed-in user); `fields_json` a JSON object of the
/// form's fields (`email`, `password`, `name`; `token`; `currentPassword`,
/// `newPassword`, `newEmail`). No CSRF token: the host's own form protection
/// applies (a request whose `Origin` or `Sec-Fetch-Site` names another site
/// fails with `AUTH_MISSING_CSRF`). On success writes `{"url": "...",
/// "cookies": ["Set-Cookie value", ...]}` to `*result_out`: where the
/// built-in flow goes next, and the cookies to set. Fails with
/// `AUTH_PASSWORD_REFUSED` (the message says why), `AUTH_INVALID_EMAIL`,
/// `AUTH_CREDENTIALS_SIGNIN` (a wrong current password), `AUTH_VERIFICATION`
/// (a bad reset token), `AUTH_RATE_LIMITED`, `AUTH_UNKNOWN_ACTION`,
/// `AUTH_INVALID_JSON`, `AUTH_ADAPTER_ERROR` or `AUTH_OVERLOADED`. Hashes a
/// password and may send mail: admitted as `auth_handle` is.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn auth_password_action(
    auth: *const auth_engine,
    action: *const c_char,
    action_len: usize,
    request_json: *const c_char,
    request_len: usize,
    fields_json: *const c_char,
    fields_len: usize,
    result_out: *mut *mut auth_buffer,
    error_out: *mut *mut auth_error,
) -> auth_result {
    firewall("auth_password_action", error_out, || {
        // SAFETY: the header's contract for `auth`.
        let auth = unsafe { engine(auth) }?;
        // SAFETY: the header's contract for `action`, `request_json` and `fields_json`.
        let action = unsafe { text(action, action_len, "action") }?;
        // SAFETY: as above.
        let json = unsafe { text(request_json, request_len, "request_json") }?;
        // SAFETY: as above.
        let fields = unsafe { text(fields_json, fields_len, "fields_json") }?;
        if result_out.is_null() {
            return Err(null_output("result_out"));
        }
        let action = libauth_core::PasswordAction::parse(action)
            .ok_or_else(|| Failure::new(auth_result::AUTH_UNKNOWN_ACTION, format!("no password action {action:?}")))?;
        let req = parse_request(json)?;
        let fields = match serde_json::from_str::<serde_json::Value>(fields) {
            Ok(serde_json::Value::Object(fields)) => fields,
            Ok(_) => return Err(Failure::new(auth_result::AUTH_INVALID_JSON, "fields_json: must be an object")),
            Err(e) => return Err(Failure::new(auth_result::AUTH_INVALID_JSON, format!("fields_json: {e}"))),
        };
        let _permit = auth.admit(Work::HostCall).permit()?;
        let outcome = auth.password_action(action, fields, &req)?;
        let bytes = serde_json::to_vec(&serde_json::json!({ "url": outcome.redirect, "cookies": outcome.set_cookies }))
            .map_err(|e| Failure::new(auth_result::AUTH_INTERNAL_ERROR, e.to_string()))?;
        // SAFETY: not NULL; the contract makes it writable.
        unsafe { *result_out = auth_buffer::boxed(bytes) };
        Ok(())
    })
}

/// Release an engine. NULL is ignored. No call on it may be running or
/// follow.
#[no_mangle]
pub unsafe extern "C" fn auth_free(auth: *mut auth_engine) {
    if auth.is_null() {
        return;
    }
    // SAFETY: from `auth_new`, released once (the header's contract).
    let engine = unsafe { Box::from_raw(auth) };
    let _ = catch_unwind(AssertUnwindSafe(move || drop(engine)));
}

/// Release a buffer libauth returned. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn auth_buffer_free(buf: *mut auth_buffer) {
    if buf.is_null() {
        return;
    }
    // SAFETY: from `auth_buffer::boxed`, released once (the contract).
    let buf = unsafe { Box::from_raw(buf) };
    let slice = std::ptr::slice_from_raw_parts_mut(buf.data as *mut u8, buf.len + 1);
    // SAFETY: `data` is the boxed slice of `len` bytes plus the NUL made by
    // `auth_buffer::boxed`.
    drop(unsafe { Box::from_raw(slice) });
}

/// Release an error. NULL is ignored.
#[no_mangle]
pub unsafe extern "C" fn auth_error_free(err: *mut auth_error) {
    if !err.is_null() {
        // SAFETY: from `firewall`, released once (the contract).
        drop(unsafe { Box::from_raw(err) });
    }
}

/// The error's code (`AUTH_NULL_ARGUMENT` for a NULL error).
#[no_mangle]
pub unsafe extern "C" fn auth_error_code(err: *const auth_error) -> auth_result {
    // SAFETY: NULL or live (the contract).
    unsafe { err.as_ref() }.map_or(auth_result::AUTH_NULL_ARGUMENT, |e| e.code)
}

/// The error's message, a NUL-terminated UTF-8 string owned by the error
/// (valid until `auth_error_free`); "" for a NULL error.
#[no_mangle]
pub unsafe extern "C" fn auth_error_message(err: *const auth_error) -> *const c_char {
    // SAFETY: NULL or live (the contract).
    unsafe { err.as_ref() }.map_or(c"".as_ptr(), |e| e.message_ptr())
}

/// The error's type name: the engine's (`Configuration`, `MissingSecret`,
/// `CredentialsSignin`, `Overloaded`, …) or the C API's (`NullArgument`,
/// `InvalidLength`, `InvalidUtf8`, `InvalidJson`, `InternalError`). Owned by
/// the error; "" for a NULL error.
#[no_mangle]
pub unsafe extern "C" fn auth_error_type(err: *const auth_error) -> *const c_char {
    // SAFETY: NULL or live (the contract).
    unsafe { err.as_ref() }.map_or(c"".as_ptr(), |e| e.type_ptr())
}

/// The configuration option a refused `auth_new` names (`secret`,
/// `providers[1].type`, `callbacks.sesion`, …), owned by the error; NULL
/// when the error is not about an option.
#[no_mangle]
pub unsafe extern "C" fn auth_error_option(err: *const auth_error) -> *const c_char {
    // SAFETY: NULL or live (the contract).
    unsafe { err.as_ref() }.map_or(std::ptr::null(), |e| e.option_ptr())
}

/// The type name of a result code (as `auth_error_type`), a static string;
/// "Unknown" for a value that is no `auth_result`.
#[no_mangle]
pub extern "C" fn auth_result_name(code: i32) -> *const c_char {
    auth_result::from_code(code).map_or(c"Unknown".as_ptr(), |c| c.c_name().as_ptr())
}

/// Answer a hook call: copy `len` bytes of UTF-8 JSON from `json` as the
/// hook's result (the caller keeps its buffer). Call it from inside the
/// hook, then return `AUTH_HOOK_OK`; a second call replaces the first.
/// Text that is not one JSON value is refused with `AUTH_INVALID_JSON`
/// (`AUTH_INVALID_UTF8`, `AUTH_NULL_ARGUMENT` for those) and nothing is
/// recorded: an earlier answer stands, and with none the result is `null`.
#[no_mangle]
pub unsafe extern "C" fn auth_hook_result_set(
    result: *mut auth_hook_result,
    json: *const c_char,
    len: usize,
) -> auth_result {
    firewall("auth_hook_result_set", std::ptr::null_mut(), || {
        // SAFETY: the contract for `json`.
        let json = unsafe { text(json, len, "json") }?;
        // SAFETY: NULL or the live slot of the current hook call.
        let result = unsafe { result.as_mut() }.ok_or_else(|| null_output("result"))?;
        // Parsed here, not after the hook returned: the host learns of its
        // bug from the code, at the call that made it.
        let value: Value = serde_json::from_str(json)
            .map_err(|e| Failure::new(auth_result::AUTH_INVALID_JSON, format!("the hook result is not JSON: {e}")))?;
        result.json = Some(value);
        Ok(())
    })
}

/// Report a hook failure: `message` (required), `type` (an engine error type
/// such as `CredentialsSignin` or `AccessDenied`, or NULL) and `code` (the
/// `CredentialsSignin` code shown in the redirect's `code` parameter, or
/// NULL), all NUL-terminated UTF-8, copied. Then return `AUTH_HOOK_ERROR`.
/// A `CredentialsSignin` from `authorize` sends the user back to the sign-in
/// page with `error=CredentialsSignin&code=<code>`, as in Auth.js.
#[no_mangle]
pub unsafe extern "C" fn auth_hook_result_error(
    result: *mut auth_hook_result,
    error_type: *const c_char,
    message: *const c_char,
    code: *const c_char,
) -> auth_result {
    firewall("auth_hook_result_error", std::ptr::null_mut(), || {
        // SAFETY: NULL or a NUL-terminated string (the contract).
        let c_str = |p: *const c_char| unsafe { (!p.is_null()).then(|| std::ffi::CStr::from_ptr(p)) };
        let utf8 = |s: &std::ffi::CStr, what: &str| {
            s.to_str()
                .map(str::to_owned)
                .map_err(|_| Failure::new(auth_result::AUTH_INVALID_UTF8, format!("{what} is not UTF-8")))
        };
        let message = c_str(message).ok_or_else(|| null_output("message"))?;
        let message = utf8(message, "message")?;
        let error_type = c_str(error_type).map(|t| utf8(t, "type")).transpose()?;
        let code = c_str(code).map(|c| utf8(c, "code")).transpose()?;
        // SAFETY: NULL or the live slot of the current hook call.
        let result = unsafe { result.as_mut() }.ok_or_else(|| null_output("result"))?;
        result.error = Some(libauth_core::HostError { message, error_type, code });
        Ok(())
    })
}

/// The library's version, e.g. "0.1.0" (static; compare with
/// `AUTH_VERSION_MAJOR` … to check the header matches the library).
#[no_mangle]
pub extern "C" fn auth_version() -> *const c_char {
    const VERSION: &std::ffi::CStr =
        match std::ffi::CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => panic!("the version holds a NUL"),
        };
    VERSION.as_ptr()
}

#[cfg(test)]
mod tests {
    use super::*;
    use libauth_core::AuthError;
    use proptest::prelude::*;

    proptest! {
        /// The fast path never accepts a URL the full check would refuse:
        /// authorities from an alphabet rich in what `Url::parse` treats
        /// specially (dots, digits, `x`, `n`, `-`, `:`, `@`, `[`, `%`, non-ASCII).
        #[test]
        fn a_plain_authority_is_one_url_parse_accepts(
            authority in "[a-cnx0-9.:@%\\[\\]é-]{0,24}",
            rest in "(/[a-z%é ]{0,8})?([?#][a-z]{0,4})?",
        ) {
            if is_plain_authority(&authority) {
                let url = format!("http://{authority}{rest}");
                let parsed = url::Url::parse(&url);
                prop_assert!(parsed.as_ref().is_ok_and(|p| p.host_str().is_some_and(|h| !h.is_empty())), "{url}: {parsed:?}");
            }
        }
    }

    proptest! {
        /// The same claim over authorities shaped like IPv4 addresses,
        /// right and wrong (numbers over 255, leading zeros, three or five
        /// parts, stray dots), with or without a port.
        #[test]
        fn a_dotted_quad_authority_is_one_url_parse_accepts(
            authority in "(0|[1-9][0-9]{0,3}|0[0-9]{1,2})(\\.{1,2}(0|[1-9][0-9]{0,3}|0[0-9]{1,2})){2,4}\\.?(:[0-9]{0,6})?",
        ) {
            if is_plain_authority(&authority) {
                let url = format!("http://{authority}/x?y=1");
                let parsed = url::Url::parse(&url);
                prop_assert!(parsed.as_ref().is_ok_and(|p| p.host_str().is_some_and(|h| !h.is_empty())), "{url}: {parsed:?}");
            }
        }
    }

    #[test]
    fn plain_authorities_take_the_fast_path_and_others_the_full_parse() {
        for plain in [
            "localhost",
            "localhost:3000",
            "example.com",
            "a-b.example.co:65535",
            "EXAMPLE.com",
            "127.0.0.1",
            "127.0.0.1:4516",
            "0.0.0.0",
            "10.0.200.255:80",
        ] {
            assert!(is_plain_authority(plain), "{plain}");
        }
        for other in [
            "",
            "1.2.3.999",
            "1.2.3.256",
            "127.0.0.01",
            "127.0.0.09",
            "1.2.3",
            "1.2.3.4.5",
            "1.2.3.4.",
            "0x7f.0.0.1",
            "1234.0.0.1",
            "127.0.0.1:",
            "host.0x1",
            "a..b",
            ".a",
            "a.",
            "xn--abc.com",
            "a.XN--x",
            "user@host",
            "host:",
            "host:65536",
            "host:123456",
            "[::1]",
            "hé.com",
            "host:3000:1",
            "ex%41mple.com",
        ] {
            assert!(!is_plain_authority(other), "{other}");
        }
    }

    #[test]
    fn the_firewall_turns_a_panic_into_a_code_and_an_error() {
        let mut err: *mut auth_error = std::ptr::null_mut();
        let code = firewall("test", &mut err, || panic!("boom"));
        assert_eq!(code, auth_result::AUTH_INTERNAL_ERROR);
        assert!(!err.is_null());
        // SAFETY: just written by the firewall.
        unsafe {
            assert_eq!(auth_error_code(err), auth_result::AUTH_INTERNAL_ERROR);
            let message = std::ffi::CStr::from_ptr(auth_error_message(err)).to_str().unwrap();
            assert!(message.contains("internal error in test"), "{message}");
            auth_error_free(err);
        }
        // No error slot: the code alone.
        assert_eq!(firewall("test", std::ptr::null_mut(), || panic!("boom")), auth_result::AUTH_INTERNAL_ERROR);
    }

    #[test]
    fn the_firewall_passes_failures_and_success() {
        let mut err: *mut auth_error = std::ptr::null_mut();
        assert_eq!(firewall("t", &mut err, || Ok(())), auth_result::AUTH_OK);
        assert!(err.is_null(), "nothing written on success");
        let code = firewall("t", &mut err, || Err(AuthError::overloaded().into()));
        assert_eq!(code, auth_result::AUTH_OVERLOADED);
        // SAFETY: written by the firewall.
        unsafe {
            assert_eq!(std::ffi::CStr::from_ptr(auth_error_type(err)).to_str().unwrap(), "Overloaded");
            auth_error_free(err);
        }
    }

    #[test]
    fn versions_agree() {
        let v = format!("{AUTH_VERSION_MAJOR}.{AUTH_VERSION_MINOR}.{AUTH_VERSION_PATCH}");
        assert_eq!(v, env!("CARGO_PKG_VERSION"));
        // SAFETY: a static C string.
        assert_eq!(unsafe { std::ffi::CStr::from_ptr(auth_version()) }.to_str().unwrap(), v);
    }

    #[test]
    fn implemented_hooks_must_be_a_list_of_names() {
        let mut v = serde_json::json!({ "hooks": { "implemented": ["callbacks.jwt"], "timeout": 2 } });
        assert_eq!(take_implemented_hooks(&mut v).unwrap(), vec!["callbacks.jwt"]);
        assert_eq!(v, serde_json::json!({ "hooks": { "timeout": 2 } }));
        let mut v = serde_json::json!({ "hooks": { "implemented": [1] } });
        assert_eq!(take_implemented_hooks(&mut v).unwrap_err().option, "hooks.implemented");
    }
}
