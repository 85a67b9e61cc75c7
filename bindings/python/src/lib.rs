//! `libauth._native`: the engine for the Python package `libauth`. The
//! pure-Python half (`python/libauth/`) lifts functions out of the config
//! (they become hooks), adapts WSGI and ASGI requests, and maps errors to
//! exception classes.
//!
//! Threads and the GIL (docs/architecture.md has the whole model):
//! - Every engine call releases the GIL (`allow_threads`), so threads read
//!   sessions and answer routes in parallel.
//! - A hook re-acquires the GIL on the engine's thread and calls the
//!   Python dispatcher (`host.rs`), which waits for `async` hooks on their
//!   event loop up to the hook's deadline. No Rust lock is held meanwhile.
//! - Panics never reach Python as `PanicException`: every entry point
//!   catches them and raises `EngineError` (a `libauth.AuthError` upstairs).

mod host;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use libauth_core::{Auth, AuthError, AuthRequest, AuthResponse, Config, ErrorType, Permit};
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyString};

use host::PyHost;

pyo3::create_exception!(
    _native,
    EngineError,
    PyException,
    "An engine error; args[0] is `{type, message, code?}` as JSON."
);

/// A response: `(status, [(name, value), …], body)`.
type NativeResponse = (u16, Vec<(String, String)>, Py<PyBytes>);

/// One engine per configuration; shared by every thread.
#[pyclass(frozen, module = "libauth._native")]
pub struct NativeAuth {
    auth: Arc<Auth>,
}

/// A place among the requests in flight that may reach host code
/// (`NativeAuth.admit`); `release` (or garbage collection) frees it.
#[pyclass(module = "libauth._native")]
pub struct NativePermit {
    permit: Option<Permit>,
}

#[pymethods]
impl NativePermit {
    fn release(&mut self) {
        self.permit.take();
    }
}

/// Build an engine, or say why the config is refused, as
/// `(option, message, type)` so the fields cross as fields.
/// `config_json`: the config without functions; `hooks`: the names of the
/// functions lifted out of it; `dispatch(hook, args_json, timeout_seconds)`
/// runs one and returns `(status, json)` (see `host.rs`).
#[pyfunction]
fn create_auth(py: Python<'_>, config_json: &str, hooks: Vec<String>, dispatch: PyObject) -> PyResult<Either> {
    let refused =
        |e: libauth_core::ConfigError| Either::Refused((e.option.clone(), e.message.clone(), e.type_name().to_owned()));
    let config = match Config::from_json(config_json) {
        Ok(config) => config,
        Err(e) => return Ok(refused(e)),
    };
    let host = Arc::new(PyHost::new(hooks, dispatch));
    // Building may call no hook, but SQLite opens its file: no GIL needed.
    let built = py.allow_threads(|| catch_unwind(AssertUnwindSafe(|| Auth::new(config, host))));
    match built {
        Ok(Ok(auth)) => Ok(Either::Built(NativeAuth { auth: Arc::new(auth) })),
        Ok(Err(e)) => Ok(refused(e)),
        Err(_) => Err(engine_error(&AuthError::new(
            ErrorType::CallbackRouteError,
            "internal error while building the engine",
        ))),
    }
}

#[derive(IntoPyObject)]
enum Either {
    Built(NativeAuth),
    Refused((String, String, String)),
}

#[pymethods]
impl NativeAuth {
    /// The normalised base path (e.g. `/auth`).
    #[getter]
    fn base_path(&self) -> String {
        self.auth.settings().base_path.clone()
    }

    /// `hooks.maxInFlight`: how many requests that may reach host code run at once.
    #[getter]
    fn max_in_flight(&self) -> usize {
        self.auth.settings().max_in_flight
    }

    /// Whether reading the session can reach no host code and no I/O.
    #[getter]
    fn session_is_hookless(&self) -> bool {
        self.auth.session_is_hookless()
    }

    /// Requests admitted and not yet finished.
    #[getter]
    fn in_flight(&self) -> usize {
        self.auth.in_flight()
    }

    /// Whether answering this request can reach no host code (run it inline).
    fn is_hookless(&self, method: String, url: String) -> bool {
        let req = AuthRequest { method, url, headers: Vec::new(), body: None };
        catch_unwind(AssertUnwindSafe(|| self.auth.is_hookless(&req))).unwrap_or(false)
    }

    /// A permit for a request that may reach host code, or `None` when
    /// `hooks.maxInFlight` are in flight (answer `overloaded_response`).
    fn admit(&self) -> Option<NativePermit> {
        self.auth.admit().map(|permit| NativePermit { permit: Some(permit) })
    }

    /// The 503 for a refused request.
    fn overloaded_response(&self, py: Python<'_>) -> PyResult<NativeResponse> {
        let res = py.allow_threads(|| catch_unwind(AssertUnwindSafe(|| self.auth.overloaded_response())));
        res.map(|r| to_py(py, r)).map_err(|_| internal("building the 503 response"))
    }

    /// Answer a request under basePath; the GIL is released meanwhile.
    /// With `admit`, the engine admits it on this thread (503 past
    /// `hooks.maxInFlight`); without, the caller holds a permit already.
    #[pyo3(signature = (method, url, headers, body=None, admit=false))]
    fn handle(
        &self,
        py: Python<'_>,
        method: String,
        url: String,
        headers: Vec<(String, String)>,
        body: Option<Vec<u8>>,
        admit: bool,
    ) -> PyResult<NativeResponse> {
        let req = AuthRequest { method, url, headers, body };
        let auth = &self.auth;
        let run = || if admit { auth.handle_admitted(&req) } else { auth.handle(&req) };
        let res = py.allow_threads(|| catch_unwind(AssertUnwindSafe(run)));
        res.map(|r| to_py(py, r)).map_err(|_| internal("handling the request"))
    }

    /// The session as a dict, or `None`; the GIL is released while the
    /// engine reads it (the dict is built after, with the GIL: no JSON
    /// round trip through Python).
    /// With `admit`, admitted on this thread as `handle` is (`Overloaded`
    /// past `hooks.maxInFlight`).
    #[pyo3(signature = (url, cookie=None, admit=false))]
    fn get_session<'py>(
        &self,
        py: Python<'py>,
        url: String,
        cookie: Option<String>,
        admit: bool,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        let headers = match cookie {
            Some(c) if !c.is_empty() => vec![("cookie".to_owned(), c)],
            _ => Vec::new(),
        };
        let req = AuthRequest { method: "GET".into(), url, headers, body: None };
        let auth = &self.auth;
        let read = || if admit { auth.get_session_admitted(&req) } else { auth.get_session(&req) };
        match py.allow_threads(|| catch_unwind(AssertUnwindSafe(read))) {
            Ok(Ok(Some(session))) => {
                let dict = PyDict::new(py);
                for (key, value) in &session.0 {
                    dict.set_item(key_to_py(py, key), value_to_py(py, value)?)?;
                }
                Ok(Some(dict.into_any()))
            }
            Ok(Ok(None)) => Ok(None),
            Ok(Err(e)) => Err(engine_error(&e)),
            Err(_) => Err(internal("reading the session")),
        }
    }

    /// Sign in from host code (a form action): `fields_json` is the
    /// submitted form as a JSON object. Returns `(url, set_cookies)`.
    fn sign_in(
        &self,
        py: Python<'_>,
        provider: String,
        fields_json: &str,
        method: String,
        url: String,
        headers: Vec<(String, String)>,
    ) -> PyResult<(String, Vec<String>)> {
        let fields = match serde_json::from_str::<serde_json::Value>(fields_json) {
            Ok(serde_json::Value::Object(fields)) => fields,
            _ => {
                return Err(engine_error(&AuthError::new(
                    ErrorType::CallbackRouteError,
                    "sign_in: the fields must be a dict",
                )))
            }
        };
        let req = AuthRequest { method, url, headers, body: None };
        let auth = &self.auth;
        match py.allow_threads(|| catch_unwind(AssertUnwindSafe(|| auth.sign_in(&provider, fields, &req)))) {
            Ok(Ok(out)) => Ok((out.redirect, out.set_cookies)),
            Ok(Err(e)) => Err(engine_error(&e)),
            Err(_) => Err(internal("signing in")),
        }
    }

    /// Sign out from host code; as `sign_in`.
    fn sign_out(
        &self,
        py: Python<'_>,
        method: String,
        url: String,
        headers: Vec<(String, String)>,
    ) -> PyResult<(String, Vec<String>)> {
        let req = AuthRequest { method, url, headers, body: None };
        let auth = &self.auth;
        match py.allow_threads(|| catch_unwind(AssertUnwindSafe(|| auth.sign_out(&req)))) {
            Ok(Ok(out)) => Ok((out.redirect, out.set_cookies)),
            Ok(Err(e)) => Err(engine_error(&e)),
            Err(_) => Err(internal("signing out")),
        }
    }
}

/// The adapter methods the engine calls (Auth.js names).
#[pyfunction]
fn adapter_methods() -> Vec<&'static str> {
    libauth_core::adapter::METHODS.to_vec()
}

/// Every error type the engine reports, and `Configuration`.
#[pyfunction]
fn error_types() -> Vec<&'static str> {
    ErrorType::ALL.iter().map(|t| t.as_str()).chain(["Configuration"]).collect()
}

/// Largest request body the engine reads.
#[pyfunction]
fn max_body_bytes() -> usize {
    libauth_core::http::MAX_BODY_BYTES
}

fn engine_error(e: &AuthError) -> PyErr {
    let mut json = serde_json::json!({ "type": e.error_type.as_str(), "message": e.message });
    if let Some(code) = &e.code {
        json["code"] = code.clone().into();
    }
    EngineError::new_err(json.to_string())
}

fn internal(what: &str) -> PyErr {
    engine_error(&AuthError::new(ErrorType::CallbackRouteError, format!("internal error while {what}")))
}

fn to_py(py: Python<'_>, res: AuthResponse) -> NativeResponse {
    (res.status, res.headers, PyBytes::new(py, &res.body).unbind())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeAuth>()?;
    m.add_class::<NativePermit>()?;
    m.add_function(wrap_pyfunction!(create_auth, m)?)?;
    m.add_function(wrap_pyfunction!(adapter_methods, m)?)?;
    m.add_function(wrap_pyfunction!(error_types, m)?)?;
    m.add_function(wrap_pyfunction!(max_body_bytes, m)?)?;
    m.add("EngineError", m.py().get_type::<EngineError>())?;
    Ok(())
}

/// A JSON value as the Python object `json.loads` would give.
fn value_to_py<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            (None, None) => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(value_to_py(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key_to_py(py, key), value_to_py(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// A dict key as a Python string: the keys every session has are
/// interned once (no new string per read, and the app's own lookups of
/// `session["user"]` compare by identity first).
fn key_to_py<'py>(py: Python<'py>, key: &str) -> Bound<'py, PyString> {
    match key {
        "user" => pyo3::intern!(py, "user").clone(),
        "expires" => pyo3::intern!(py, "expires").clone(),
        "name" => pyo3::intern!(py, "name").clone(),
        "email" => pyo3::intern!(py, "email").clone(),
        "image" => pyo3::intern!(py, "image").clone(),
        _ => PyString::new(py, key),
    }
}
