//! What a session read needs from an ASGI scope or a WSGI environ (the
//! absolute URL and the `Cookie` header), and the ASGI middleware's
//! per-request set-up, without a line of Python run: the same answers as
//! `libauth.asgi._scope_url_and_cookie` and `libauth.wsgi.environ_url` /
//! `environ_cookie`, whose Python loops, f-strings and regular expressions
//! cost more than the session read itself.
//!
//! Each function reads the common shape only (an exact `dict`; `str`,
//! `bytes`, `int` values of exactly those types; header pairs as tuples or
//! lists) and answers `None` for anything else, for which the caller runs
//! the Python reference: an odd scope reads the same, just slower.
//! tests/test_native_requests.py compares both on generated scopes and
//! environs.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyString, PyTuple, PyType};

/// `value` as an exact `str`, as UTF-8 text; `Err(())` for any other type
/// (a `str` subclass included: its methods may differ) or a `str` that is
/// no UTF-8 (a lone surrogate).
fn exact_str(value: &Bound<'_, PyAny>) -> Result<String, ()> {
    if !value.is_exact_instance_of::<PyString>() {
        return Err(());
    }
    let s = value.cast::<PyString>().map_err(|_| ())?;
    s.to_cow().map(std::borrow::Cow::into_owned).map_err(|_| ())
}

/// The dict's value for `key` as Python's `d.get(key) or default` reads it,
/// for an exact `str` (or a falsy value: `None`): `Ok(None)` when falsy.
fn str_or_none(dict: &Bound<'_, PyDict>, key: &Bound<'_, PyString>) -> Result<Option<String>, ()> {
    match dict.get_item(key).map_err(|_| ())? {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) => {
            let text = exact_str(&v)?;
            Ok(if text.is_empty() { None } else { Some(text) })
        }
    }
}

/// The dict's value for `key` as `(d.get(key) or b"").decode("latin-1")`
/// reads it, for exact `bytes` (or a falsy value): `Ok(None)` when falsy.
fn bytes_or_none(dict: &Bound<'_, PyDict>, key: &Bound<'_, PyString>) -> Result<Option<String>, ()> {
    match dict.get_item(key).map_err(|_| ())? {
        None => Ok(None),
        Some(v) if v.is_none() => Ok(None),
        Some(v) if v.is_exact_instance_of::<PyBytes>() => {
            let bytes = v.cast::<PyBytes>().map_err(|_| ())?.as_bytes();
            Ok(if bytes.is_empty() { None } else { Some(latin1(bytes)) })
        }
        Some(_) => Err(()),
    }
}

/// Bytes decoded as Latin-1 (each byte the code point of the same value).
fn latin1(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) if s.is_ascii() => s.to_owned(),
        _ => bytes.iter().map(|&b| char::from(b)).collect(),
    }
}

/// `path` with the ASGI `root_path` in front, unless it starts with it
/// (`libauth.asgi.scope_path`), from an exact dict.
fn scope_path(scope: &Bound<'_, PyDict>) -> Result<(String, Option<String>), ()> {
    let py = scope.py();
    let path = str_or_none(scope, pyo3::intern!(py, "path"))?.unwrap_or_else(|| "/".to_owned());
    let root = str_or_none(scope, pyo3::intern!(py, "root_path"))?;
    Ok((with_root(path, root.as_deref()), root))
}

fn with_root(path: String, root: Option<&str>) -> String {
    match root {
        Some(root) if !path.starts_with(root) => format!("{root}{path}"),
        _ => path,
    }
}

/// A header pair `(name, value)` of exact `bytes`, from a tuple or list of two.
fn header_pair<'py>(item: &Bound<'py, PyAny>) -> Result<(Bound<'py, PyAny>, Bound<'py, PyAny>), ()> {
    let (k, v) = if let Ok(t) = item.cast::<PyTuple>() {
        if t.len() != 2 {
            return Err(());
        }
        (t.get_item(0).map_err(|_| ())?, t.get_item(1).map_err(|_| ())?)
    } else if let Ok(l) = item.cast::<PyList>() {
        if l.len() != 2 {
            return Err(());
        }
        (l.get_item(0).map_err(|_| ())?, l.get_item(1).map_err(|_| ())?)
    } else {
        return Err(());
    };
    if k.is_exact_instance_of::<PyBytes>() && v.is_exact_instance_of::<PyBytes>() {
        Ok((k, v))
    } else {
        Err(())
    }
}

/// The absolute URL and the `Cookie` header of an ASGI scope
/// (`libauth.asgi._scope_url_and_cookie`), or `Err` for a scope of another
/// shape. The cookie is decoded once, straight into a `str` (it is most
/// of the text: no copy through Rust).
fn scope_url_and_cookie_of<'py>(scope: &Bound<'py, PyAny>) -> Result<(String, Option<Bound<'py, PyAny>>), ()> {
    if !scope.is_exact_instance_of::<PyDict>() {
        return Err(());
    }
    let scope = scope.cast::<PyDict>().map_err(|_| ())?;
    let py = scope.py();
    let mut host: Option<String> = None;
    let mut cookies: Vec<Bound<'py, PyBytes>> = Vec::new();
    match scope.get_item(pyo3::intern!(py, "headers")).map_err(|_| ())? {
        None => {}
        Some(h) if h.is_none() => {}
        Some(h) => {
            let mut each = |item: Bound<'py, PyAny>| -> Result<(), ()> {
                let (k, v) = header_pair(&item)?;
                let name = k.cast::<PyBytes>().map_err(|_| ())?.as_bytes();
                if name.eq_ignore_ascii_case(b"cookie") {
                    cookies.push(v.cast_into::<PyBytes>().map_err(|_| ())?);
                } else if host.is_none() && name.eq_ignore_ascii_case(b"host") {
                    host = Some(latin1(v.cast::<PyBytes>().map_err(|_| ())?.as_bytes()));
                }
                Ok(())
            };
            if let Ok(list) = h.cast::<PyList>() {
                for item in list.iter() {
                    each(item)?;
                }
            } else if let Ok(tuple) = h.cast::<PyTuple>() {
                for item in tuple.iter() {
                    each(item)?;
                }
            } else {
                return Err(());
            }
        }
    }
    // `scope.get("scheme") or "http"`
    let scheme = str_or_none(scope, pyo3::intern!(py, "scheme"))?;
    let host = match host {
        Some(host) => host,
        None => server_host(scope)?,
    };
    let raw = bytes_or_none(scope, pyo3::intern!(py, "raw_path"))?;
    let (path, root) = match raw {
        Some(raw) => (raw, str_or_none(scope, pyo3::intern!(py, "root_path"))?),
        None => scope_path(scope)?,
    };
    let path = with_root(path, root.as_deref());
    let query = bytes_or_none(scope, pyo3::intern!(py, "query_string"))?;
    let scheme = scheme.as_deref().unwrap_or("http");
    let mut url =
        String::with_capacity(scheme.len() + 3 + host.len() + path.len() + query.as_ref().map_or(0, |q| q.len() + 1));
    url.push_str(scheme);
    url.push_str("://");
    url.push_str(&host);
    url.push_str(&path);
    if let Some(query) = query {
        url.push('?');
        url.push_str(&query);
    }
    let cookie = match cookies.as_slice() {
        [] => None,
        [one] => Some(latin1_str(py, one.as_bytes())?),
        several => {
            let mut joined = Vec::new();
            for (i, c) in several.iter().enumerate() {
                if i > 0 {
                    joined.extend_from_slice(b"; ");
                }
                joined.extend_from_slice(c.as_bytes());
            }
            Some(latin1_str(py, &joined)?)
        }
    };
    Ok((url, cookie))
}

/// Latin-1 bytes as a Python `str` (`bytes.decode("latin-1")`): ASCII (a
/// Cookie header in practice) as it is, anything else byte by byte.
fn latin1_str<'py>(py: Python<'py>, bytes: &[u8]) -> Result<Bound<'py, PyAny>, ()> {
    let text = match std::str::from_utf8(bytes) {
        Ok(ascii) if ascii.is_ascii() => std::borrow::Cow::Borrowed(ascii),
        _ => std::borrow::Cow::Owned(bytes.iter().map(|&b| char::from(b)).collect::<String>()),
    };
    Ok(PyString::new(py, &text).into_any())
}

/// The host from `scope["server"]` when no `Host` header came:
/// `(host, port)`, the port left out when `None`, 80 or 443.
fn server_host(scope: &Bound<'_, PyDict>) -> Result<String, ()> {
    let py = scope.py();
    let server = match scope.get_item(pyo3::intern!(py, "server")).map_err(|_| ())? {
        None => return Ok("localhost".to_owned()),
        Some(s) if s.is_none() => return Ok("localhost".to_owned()),
        Some(s) => s,
    };
    let (name, port) = if let Ok(t) = server.cast::<PyTuple>() {
        if t.len() != 2 {
            return Err(());
        }
        (t.get_item(0).map_err(|_| ())?, t.get_item(1).map_err(|_| ())?)
    } else if let Ok(l) = server.cast::<PyList>() {
        if l.len() != 2 {
            return Err(());
        }
        (l.get_item(0).map_err(|_| ())?, l.get_item(1).map_err(|_| ())?)
    } else {
        return Err(());
    };
    let name = exact_str(&name)?;
    if port.is_none() {
        return Ok(name);
    }
    if !port.is_exact_instance_of::<PyInt>() {
        return Err(());
    }
    let port: i64 = port.extract().map_err(|_| ())?;
    Ok(if port == 80 || port == 443 { name } else { format!("{name}:{port}") })
}

/// The absolute URL and the `Cookie` header of a WSGI environ
/// (`libauth.wsgi.environ_url`'s plain case and `environ_cookie`), or
/// `None` for anything `wsgiref.util.request_uri` would percent-encode, a
/// missing `Host` header, a `Cookie` header with a comma (repeated headers
/// joined) or values of other types.
fn environ_url_and_cookie_of<'py>(environ: &Bound<'py, PyAny>) -> Result<(String, Option<Bound<'py, PyAny>>), ()> {
    if !environ.is_exact_instance_of::<PyDict>() {
        return Err(());
    }
    let environ = environ.cast::<PyDict>().map_err(|_| ())?;
    let py = environ.py();
    let host = str_or_none(environ, pyo3::intern!(py, "HTTP_HOST"))?.ok_or(())?;
    let script = str_or_none(environ, pyo3::intern!(py, "SCRIPT_NAME"))?;
    // `environ.get("PATH_INFO", "")`: a `None` is not the default.
    let path = match environ.get_item(pyo3::intern!(py, "PATH_INFO")).map_err(|_| ())? {
        None => String::new(),
        Some(p) => exact_str(&p)?,
    };
    let plain_script = |c: u8| c.is_ascii_alphanumeric() || b"_.~/-".contains(&c);
    let plain_path = |c: u8| plain_script(c) || b";=,".contains(&c);
    if !script.as_deref().unwrap_or("").bytes().all(plain_script) || !path.bytes().all(plain_path) {
        return Err(());
    }
    let scheme = match environ.get_item(pyo3::intern!(py, "wsgi.url_scheme")).map_err(|_| ())? {
        Some(s) => exact_str(&s)?,
        None => return Err(()),
    };
    let query = str_or_none(environ, pyo3::intern!(py, "QUERY_STRING"))?;
    let mut url = String::with_capacity(
        scheme.len()
            + 4
            + host.len()
            + script.as_ref().map_or(0, String::len)
            + path.len()
            + 1
            + query.as_ref().map_or(0, String::len),
    );
    url.push_str(&scheme);
    url.push_str("://");
    url.push_str(&host);
    match script {
        Some(script) => {
            url.push_str(&script);
            url.push_str(&path);
        }
        // `/{path[1:]}`: the path is ASCII (checked above).
        None => {
            url.push('/');
            url.push_str(path.get(1..).unwrap_or(""));
        }
    }
    if let Some(query) = query {
        url.push('?');
        url.push_str(&query);
    }
    // `environ_cookie`: the header's own `str` (no copy), when it has no
    // comma (repeated headers a server joined, which Python splits again).
    let cookie = match environ.get_item(pyo3::intern!(py, "HTTP_COOKIE")).map_err(|_| ())? {
        None => None,
        Some(c) if c.is_none() => None,
        Some(c) => {
            if !c.is_exact_instance_of::<PyString>() {
                return Err(());
            }
            // `str.__contains__` in C: the text is not copied out.
            if c.len().map_err(|_| ())? == 0 {
                None
            } else if c.contains(pyo3::intern!(py, ",")).map_err(|_| ())? {
                return Err(());
            } else {
                Some(c)
            }
        }
    };
    Ok((url, cookie))
}

/// `(url, cookie)` of an ASGI scope, or `None` when the scope is of a
/// shape only the Python reference reads (`libauth.asgi.scope_url_and_cookie`
/// falls back to it).
#[pyfunction]
pub(crate) fn scope_url_and_cookie<'py>(scope: &Bound<'py, PyAny>) -> Option<(String, Option<Bound<'py, PyAny>>)> {
    scope_url_and_cookie_of(scope).ok()
}

/// `(url, cookie)` of a WSGI environ, or `None` when only the Python
/// reference reads it (`libauth.wsgi`'s `environ_url`, `environ_cookie`).
#[pyfunction]
pub(crate) fn environ_url_and_cookie<'py>(environ: &Bound<'py, PyAny>) -> Option<(String, Option<Bound<'py, PyAny>>)> {
    environ_url_and_cookie_of(environ).ok()
}

/// `ASGIMiddleware`'s set-up of a request in a hookless configuration, in
/// one call: `False` for a path under `base_path` (the engine answers it;
/// the scope is left as it is); else `True`, with `scope["state"]` a new
/// `libauth.asgi._LazyState` holding the app's state less the keys the
/// middleware owns (`session`, `session_error`: `_OWN_STATE_KEYS`), reading the session with `auth` on first use. `None`
/// (nothing changed) for a scope only the Python code reads.
pub(crate) fn lazy_scope(scope: &Bound<'_, PyAny>, auth: &Bound<'_, PyAny>, base_path: &str) -> PyResult<Option<bool>> {
    static LAZY_STATE: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    if !scope.is_exact_instance_of::<PyDict>() {
        return Ok(None);
    }
    let scope = scope.cast::<PyDict>()?;
    let py = scope.py();
    let Ok((path, _)) = scope_path(scope) else {
        return Ok(None);
    };
    let under = path.strip_prefix(base_path).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'));
    if under {
        return Ok(Some(false));
    }
    let state_key = pyo3::intern!(py, "state");
    // `dict(scope.get("state") or {})`: a dict (a subclass too) is merged
    // as `dict()` merges it; any other state is left to the Python code.
    let app_state = match scope.get_item(state_key)? {
        None => None,
        Some(s) if s.is_none() => None,
        Some(s) => match s.cast_into::<PyDict>() {
            Ok(d) if d.is_exact_instance_of::<PyDict>() || d.is_truthy()? => Some(d),
            Ok(_) => None,
            Err(_) => return Ok(None),
        },
    };
    let state = LAZY_STATE.import(py, "libauth.asgi", "_LazyState")?.call0()?.cast_into::<PyDict>()?;
    if let Some(app_state) = app_state {
        state.update(app_state.as_mapping())?;
        for key in [pyo3::intern!(py, "session"), pyo3::intern!(py, "session_error")] {
            if state.contains(key)? {
                state.del_item(key)?;
            }
        }
    }
    state.setattr(pyo3::intern!(py, "_auth"), auth)?;
    state.setattr(pyo3::intern!(py, "_scope"), scope)?;
    scope.set_item(state_key, state)?;
    Ok(Some(true))
}
