//! `libauth._native`: the engine for the Python package `libauth`. The
//! pure-Python half (`python/libauth/`) lifts functions out of the config
//! (they become hooks), adapts WSGI and ASGI requests, and maps errors to
//! exception classes.
//!
//! Threads and the GIL (docs/architecture.md has the whole model):
//! - Every engine call releases the GIL (`detach`), so threads read
//!   sessions and answer routes in parallel.
//! - A hook re-acquires the GIL on the engine's thread and calls the
//!   Python dispatcher (`host.rs`), which waits for `async` hooks on their
//!   event loop up to the hook's deadline. No Rust lock is held meanwhile.
//! - Panics never reach Python as `PanicException`: every entry point
//!   catches them and raises `EngineError` (a `libauth.AuthError` upstairs).

mod host;
mod requests;
mod shared_dicts;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use libauth_core::{Auth, AuthError, AuthRequest, AuthResponse, Config, ErrorType, Permit};
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyString, PyType};

use host::PyHost;
use shared_dicts::SharedDicts;

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
    /// The dicts of sessions shared across reads (see `shared_dicts`).
    dicts: SharedDicts,
}

/// Admitted engine work, to run once on a worker thread
/// (`NativeAuth.begin` / `begin_session`); its admission permit is freed
/// when it has run (or is garbage-collected unrun).
#[pyclass(module = "libauth._native")]
pub struct NativeJob {
    auth: Arc<Auth>,
    work: Option<(Work, Option<Permit>)>,
}

enum Work {
    Handle(AuthRequest),
    /// A session read: the request's URL, its `Cookie` header, and `true`
    /// for the identity too (see `session_to_py`).
    Session(String, Option<String>, bool),
}

#[derive(IntoPyObject)]
enum Begun {
    Answered(NativeResponse),
    Job(NativeJob),
}

impl NativeJob {
    fn with_session(
        mut self,
        url: String,
        cookie: Option<String>,
        with_identity: bool,
        permit: Option<Permit>,
    ) -> NativeJob {
        self.work = Some((Work::Session(url, cookie, with_identity), permit));
        self
    }
}

#[pymethods]
impl NativeJob {
    /// Run the work (the GIL is released meanwhile): a response for a
    /// request, the session dict (or `None`) for a session read.
    fn run<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let Some((work, _permit)) = self.work.take() else {
            return Err(engine_error(&AuthError::new(ErrorType::CallbackRouteError, "this job has run already")));
        };
        let auth = &self.auth;
        match work {
            Work::Handle(req) => {
                let res = py.detach(|| catch_unwind(AssertUnwindSafe(|| auth.handle(&req))));
                to_py(py, res.map_err(|_| internal())?).into_pyobject(py).map(|t| t.into_any())
            }
            Work::Session(url, cookie, with_identity) => {
                let read = py.detach(|| {
                    catch_unwind(AssertUnwindSafe(|| auth.get_session_view_by_cookie(&url, cookie.as_deref())))
                });
                session_to_py(py, read.map_err(|_| internal())?, with_identity)
            }
        }
    }
}

/// Build an engine, or say why the config is refused, as
/// `(option, message, type)` so the fields cross as fields.
/// `config_json`: the config without functions; `hooks`: the names of the
/// functions lifted out of it; `dispatch(hook, args_json, timeout_seconds)`
/// runs one and returns `(status, json)` (see `host.rs`).
#[pyfunction]
fn create_auth(py: Python<'_>, config_json: &str, hooks: Vec<String>, dispatch: Py<PyAny>) -> PyResult<Either> {
    let refused =
        |e: libauth_core::ConfigError| Either::Refused((e.option.clone(), e.message.clone(), e.type_name().to_owned()));
    let config = match Config::from_json(config_json) {
        Ok(config) => config,
        Err(e) => return Ok(refused(e)),
    };
    let host = Arc::new(PyHost::new(hooks, dispatch));
    // Building may call no hook, but SQLite opens its file: no GIL needed.
    let built = py.detach(|| catch_unwind(AssertUnwindSafe(|| Auth::new(config, host))));
    match built {
        Ok(Ok(auth)) => Ok(Either::Built(NativeAuth { auth: Arc::new(auth), dicts: SharedDicts::default() })),
        Ok(Err(e)) => Ok(refused(e)),
        Err(_) => Err(internal()),
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

    /// The sign-in page's path with `callback_url` to come back to.
    fn sign_in_url(&self, callback_url: &str) -> String {
        self.auth.sign_in_url(callback_url)
    }

    /// Requests admitted and not yet finished.
    #[getter]
    fn in_flight(&self) -> usize {
        self.auth.in_flight()
    }

    /// Start answering a request under basePath, as the engine's dispatch
    /// decides, in this one call: the response when it is computed here (no
    /// host code can be reached) or refused (503 past `hooks.maxInFlight`),
    /// else a `NativeJob` holding the request and its admission permit, to
    /// `run()` on a worker thread (asyncio hosts).
    #[pyo3(signature = (method, url, headers, body=None, remote_address=None))]
    fn begin(
        &self,
        py: Python<'_>,
        method: String,
        url: String,
        headers: Vec<(String, String)>,
        body: Option<Vec<u8>>,
        remote_address: Option<String>,
    ) -> PyResult<Begun> {
        let req = AuthRequest { method, url, headers, body, remote_address };
        let auth = &self.auth;
        let begun = py.detach(|| {
            catch_unwind(AssertUnwindSafe(|| auth.admit(libauth_core::Work::Request(&req)).request().map_err(Some)))
        });
        match begun {
            Ok(Ok(res)) => Ok(Begun::Answered(to_py(py, res))),
            Ok(Err(permit)) => {
                Ok(Begun::Job(NativeJob { auth: self.auth.clone(), work: Some((Work::Handle(req), permit)) }))
            }
            Err(_) => Err(internal()),
        }
    }

    /// Start reading a session off the event loop: a `NativeJob` whose
    /// `run()` answers as `get_session`; raises `Overloaded` (as an
    /// `EngineError`) past `hooks.maxInFlight`.
    #[pyo3(signature = (url, cookie=None, with_identity=false))]
    fn begin_session(&self, url: String, cookie: Option<String>, with_identity: bool) -> PyResult<NativeJob> {
        let job = NativeJob { auth: self.auth.clone(), work: None };
        match self.auth.admit(libauth_core::Work::SessionRead).permit() {
            Err(e) => Err(engine_error(&e)),
            Ok(permit) => Ok(job.with_session(url, cookie, with_identity, permit)),
        }
    }

    /// Answer a request under basePath on this thread, as the engine's
    /// dispatch decides (503 past `hooks.maxInFlight`); the GIL is
    /// released meanwhile. For WSGI, whose threads may block.
    #[pyo3(signature = (method, url, headers, body=None, remote_address=None))]
    fn handle(
        &self,
        py: Python<'_>,
        method: String,
        url: String,
        headers: Vec<(String, String)>,
        body: Option<Vec<u8>>,
        remote_address: Option<String>,
    ) -> PyResult<NativeResponse> {
        let req = AuthRequest { method, url, headers, body, remote_address };
        let auth = &self.auth;
        let res = py.detach(|| catch_unwind(AssertUnwindSafe(|| auth.handle_admitted(&req))));
        res.map(|r| to_py(py, r)).map_err(|_| internal())
    }

    /// The session as a dict, or `None`, read on this thread (see
    /// `read_session`).
    #[pyo3(signature = (url, cookie=None, with_identity=false))]
    fn get_session<'py>(
        &self,
        py: Python<'py>,
        url: &str,
        cookie: Option<&str>,
        with_identity: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.read_session(py, url, cookie, with_identity)
    }

    /// `get_session(url, cookie, True)`: a `libauth.SessionWithIdentity`
    /// (`libauth.Auth.get_session_with_identity` is this method itself).
    #[pyo3(signature = (url, cookie=None))]
    fn get_session_with_identity<'py>(
        &self,
        py: Python<'py>,
        url: &str,
        cookie: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.read_session(py, url, cookie, true)
    }

    /// `ASGIMiddleware`'s set-up of a request when no hook can be reached:
    /// `False` for a path under basePath, else `True` with
    /// `scope["state"]` a new `libauth.asgi._LazyState` reading the session
    /// with `auth` (a `libauth.Auth`) on first use; `None` for a scope of a
    /// shape only the Python code reads (see `requests.rs`).
    fn lazy_scope(&self, scope: &Bound<'_, PyAny>, auth: &Bound<'_, PyAny>) -> PyResult<Option<bool>> {
        requests::lazy_scope(scope, auth, &self.auth.settings().base_path)
    }

    /// A valid access token for the user's account with `provider` as a
    /// dict (`accessToken`, `expiresAt`, `tokenType`, `scope`), or `None`
    /// when not linked; refreshed first when due, once however many threads
    /// ask (the GIL released meanwhile: it may call the provider).
    fn get_access_token<'py>(&self, py: Python<'py>, user_id: &str, provider: &str) -> PyResult<Bound<'py, PyAny>> {
        let auth = &self.auth;
        let got = py.detach(|| {
            catch_unwind(AssertUnwindSafe(|| {
                let _permit = auth.admit(libauth_core::Work::HostCall).permit()?;
                auth.get_access_token(user_id, provider)
            }))
        });
        match got.map_err(|_| internal())? {
            Ok(Some(token)) => value_to_py(py, &serde_json::to_value(&token).unwrap_or_default()),
            Ok(None) => Ok(py.None().into_bound(py)),
            Err(e) => Err(engine_error(&e)),
        }
    }

    /// A passkey call for `user_id` (`call_json`: `{"action": "list" |
    /// "rename" | "delete", "id"?, "name"?}`, see `Auth::passkeys`), the GIL
    /// released: the answer as Python data, or the engine's error.
    fn passkeys<'py>(&self, py: Python<'py>, user_id: &str, call_json: &str) -> PyResult<Bound<'py, PyAny>> {
        self.user_json_call(py, user_id, call_json, Auth::passkeys)
    }

    /// A session call for `user_id` (`call_json`: `{"action": "list" |
    /// "end" | "endOthers" | "endAll", "id"?, "url"?, "cookie"?}`, see
    /// `Auth::sessions`), the GIL released: the answer as Python data, or
    /// the engine's error.
    fn sessions<'py>(&self, py: Python<'py>, user_id: &str, call_json: &str) -> PyResult<Bound<'py, PyAny>> {
        self.user_json_call(py, user_id, call_json, Auth::sessions)
    }

    /// A second-factor call for `user_id` (`call_json`: `{"action":
    /// "status" | "begin" | "confirm" | "verify" | "recoveryCodes" |
    /// "disable", "label"?, "code"?}`, see `Auth::two_factor`), the GIL
    /// released: the answer as Python data, or the engine's error.
    fn two_factor<'py>(&self, py: Python<'py>, user_id: &str, call_json: &str) -> PyResult<Bound<'py, PyAny>> {
        self.user_json_call(py, user_id, call_json, Auth::two_factor)
    }

    /// Call `hook` with `args_json` as the engine would (the GIL released;
    /// the hook takes it): the decoded answer as JSON, or `EngineError`
    /// with the hook's error. For the host-conventions conformance test.
    fn call_hook(&self, py: Python<'_>, hook: &str, args_json: &str) -> PyResult<String> {
        let args = serde_json::from_str(args_json).unwrap_or(serde_json::Value::Null);
        let auth = &self.auth;
        match py.detach(|| catch_unwind(AssertUnwindSafe(|| auth.call_hook(hook, args)))) {
            Ok(Ok(value)) => Ok(value.to_string()),
            Ok(Err(e)) => Err(EngineError::new_err(serde_json::to_string(&e).unwrap_or_default())),
            Err(_) => Err(internal()),
        }
    }

    /// Sign in from host code (a form action): `fields_json` is the
    /// submitted form as a JSON object; `remote_address` the client's
    /// address (rate limits count by it). Returns `(url, set_cookies)`.
    #[pyo3(signature = (provider, fields_json, method, url, headers, remote_address=None))]
    #[allow(clippy::too_many_arguments)]
    fn sign_in(
        &self,
        py: Python<'_>,
        provider: String,
        fields_json: &str,
        method: String,
        url: String,
        headers: Vec<(String, String)>,
        remote_address: Option<String>,
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
        let req = AuthRequest { method, url, headers, body: None, remote_address };
        let auth = &self.auth;
        match py.detach(|| catch_unwind(AssertUnwindSafe(|| auth.sign_in(&provider, fields, &req)))) {
            Ok(Ok(out)) => Ok((out.redirect, out.set_cookies)),
            Ok(Err(e)) => Err(engine_error(&e)),
            Err(_) => Err(internal()),
        }
    }

    /// A password-account step from host code (`action`: `signUp`,
    /// `requestPasswordReset`, `resetPassword`, `changePassword`,
    /// `changeEmail`, `deleteAccount`); as `sign_in`.
    #[pyo3(signature = (action, fields_json, method, url, headers, remote_address=None))]
    #[allow(clippy::too_many_arguments)]
    fn password_action(
        &self,
        py: Python<'_>,
        action: &str,
        fields_json: &str,
        method: String,
        url: String,
        headers: Vec<(String, String)>,
        remote_address: Option<String>,
    ) -> PyResult<(String, Vec<String>)> {
        let Some(action) = libauth_core::PasswordAction::parse(action) else {
            return Err(engine_error(&AuthError::new(
                ErrorType::UnknownAction,
                format!("no password action {action:?}"),
            )));
        };
        let fields = match serde_json::from_str::<serde_json::Value>(fields_json) {
            Ok(serde_json::Value::Object(fields)) => fields,
            _ => {
                return Err(engine_error(&AuthError::new(
                    ErrorType::CallbackRouteError,
                    "password_action: the fields must be a dict",
                )))
            }
        };
        let req = AuthRequest { method, url, headers, body: None, remote_address };
        let auth = &self.auth;
        match py.detach(|| catch_unwind(AssertUnwindSafe(|| auth.password_action(action, fields, &req)))) {
            Ok(Ok(out)) => Ok((out.redirect, out.set_cookies)),
            Ok(Err(e)) => Err(engine_error(&e)),
            Err(_) => Err(internal()),
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
        let req = AuthRequest { method, url, headers, body: None, remote_address: None };
        let auth = &self.auth;
        match py.detach(|| catch_unwind(AssertUnwindSafe(|| auth.sign_out(&req)))) {
            Ok(Ok(out)) => Ok((out.redirect, out.set_cookies)),
            Ok(Err(e)) => Err(engine_error(&e)),
            Err(_) => Err(internal()),
        }
    }
}

/// A config whose functions Python replaced by `{"$libauth.fn": n}`
/// markers, split by core: `(config_json, [(marker, hook name)], factories)`
/// (markers of uncalled provider factories to call and compile again), or a
/// refused config as `(option, message, type)`.
#[pyfunction]
fn compile_config(marked_json: &str) -> Compiled {
    let refused = |e: libauth_core::ConfigError| {
        Compiled::Refused((e.option.clone(), e.message.clone(), e.type_name().to_owned()))
    };
    let value = match serde_json::from_str(marked_json) {
        Ok(value) => value,
        Err(e) => return refused(libauth_core::ConfigError::new("config", format!("not valid JSON: {e}"))),
    };
    match catch_unwind(AssertUnwindSafe(|| libauth_core::conventions::compile_host_config(value))) {
        Ok(Ok(c)) => Compiled::Compiled((c.config.to_string(), c.hooks, c.factories)),
        Ok(Err(e)) => refused(e),
        Err(_) => {
            refused(libauth_core::ConfigError::new("config", "internal error in libauth (a bug; please report it)"))
        }
    }
}

#[derive(IntoPyObject)]
enum Compiled {
    Compiled((String, Vec<(u64, String)>, Vec<u64>)),
    Refused((String, String, String)),
}

/// Every error type the engine reports, and `Configuration`.
#[pyfunction]
fn error_types() -> Vec<&'static str> {
    ErrorType::ALL.iter().map(|t| t.as_str()).chain(["Configuration"]).collect()
}

/// The `libauth` command with these arguments (no program name), writing
/// to the process's stdout and stderr; its exit status. The console script
/// `libauth` (`libauth.cli:main`) runs it. The GIL is released: the
/// command may wait on a database.
#[pyfunction]
fn run_cli(py: Python<'_>, args: Vec<String>) -> i32 {
    py.detach(move || libauth_cli::run_host(args))
}

/// Largest request body the engine reads.
#[pyfunction]
fn max_body_bytes() -> usize {
    libauth_core::http::MAX_BODY_BYTES
}

fn engine_error(e: &AuthError) -> PyErr {
    EngineError::new_err(e.to_wire().to_string())
}

/// An engine error as the host's exception: the `libauth.AuthError`
/// subclass `libauth._errors.from_engine` makes of it (the class the Python
/// layer would raise), or `EngineError` should that module be missing.
fn host_error(py: Python<'_>, e: &AuthError) -> PyErr {
    static FROM_ENGINE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    FROM_ENGINE
        .get_or_try_init(py, || py.import("libauth._errors")?.getattr("from_engine").map(Bound::unbind))
        .and_then(|from_engine| from_engine.bind(py).call1((e.to_wire().to_string(),)))
        .map_or_else(|_| engine_error(e), PyErr::from_value)
}

/// A panic caught at this boundary, with the engine's one wording.
fn internal() -> PyErr {
    engine_error(&AuthError::internal())
}

/// A session read's outcome for Python: the dict (built here, with the
/// GIL, from the engine's value), `None`, or the engine's error.
/// `with_identity`: the dict is a `libauth.SessionWithIdentity` holding
/// the identity's fields (`subject`, `email`, `email_verified`) as a tuple
/// in `_identity`, made into a `libauth.Identity` on first use: built here
/// in one pass, so the middlewares pay no copy on their hot path.
fn session_to_py<'py>(
    py: Python<'py>,
    read: Result<Option<libauth_core::SessionView>, AuthError>,
    with_identity: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let session = match read {
        Ok(Some(session)) => session,
        Ok(None) => return Ok(py.None().into_bound(py)),
        Err(e) => return Err(host_error(py, &e)),
    };
    let dict = if with_identity {
        let dict = session_with_identity_class(py)?.call0()?.cast_into::<PyDict>()?;
        fill_session_dict(py, &dict, &session)?;
        set_identity(&dict, &session)?;
        dict
    } else {
        session_dict(py, &session)?
    };
    Ok(dict.into_any())
}

/// `libauth._auth.SessionWithIdentity`.
fn session_with_identity_class(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static SESSION_CLASS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    SESSION_CLASS.import(py, "libauth._auth", "SessionWithIdentity")
}

/// The identity's fields in a `SessionWithIdentity`'s `_identity` (left
/// unset for a session without one).
fn set_identity(dict: &Bound<'_, PyDict>, session: &libauth_core::SessionView) -> PyResult<()> {
    if let Some(id) = identity_fields(dict.py(), session)? {
        dict.setattr(pyo3::intern!(dict.py(), "_identity"), id)?;
    }
    Ok(())
}

/// `(subject, email, email_verified)`, or `None` for a session without an identity.
fn identity_fields<'py>(py: Python<'py>, session: &libauth_core::SessionView) -> PyResult<Option<Bound<'py, PyAny>>> {
    session
        .identity()
        .map(|id| (id.subject.as_str(), id.email.as_deref(), id.email_verified).into_pyobject(py).map(Bound::into_any))
        .transpose()
}

/// A shared session as `SharedDicts` keeps it: its dict and its identity's fields.
fn kept_session<'py>(py: Python<'py>, session: &libauth_core::SessionView) -> PyResult<shared_dicts::Built<'py>> {
    Ok((session_dict(py, session)?, identity_fields(py, session)?))
}

impl NativeAuth {
    /// The session read on this thread, as the engine's dispatch decides
    /// (`Overloaded` past `hooks.maxInFlight`). The URL and the `Cookie`
    /// header go to the engine as borrowed text (no request built); the GIL
    /// is released while the engine reads (a session read may wait on a
    /// database), and the dict is built after, with the GIL, from the
    /// engine's value (no JSON round trip through Python).
    fn read_session<'py>(
        &self,
        py: Python<'py>,
        url: &str,
        cookie: Option<&str>,
        with_identity: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let auth = &self.auth;
        let read = || {
            catch_unwind(AssertUnwindSafe(|| {
                let _permit = auth.admit(libauth_core::Work::SessionRead).permit()?;
                auth.get_session_view_by_cookie(url, cookie)
            }))
        };
        let read = py.detach(read);
        // `libauth.Auth.get_session` is this method itself (no Python frame
        // between): it raises the host's error classes.
        let read = read.unwrap_or_else(|_| Err(AuthError::internal()));
        // A session shared by every read of this cookie: its dict is built
        // once, and each read gets a copy (a `SessionWithIdentity` with the
        // identity's fields when asked for).
        if let Ok(Some(view)) = &read {
            if let Some(key) = view.shared_key() {
                if !with_identity {
                    return Ok(self.dicts.dict(py, key, || kept_session(py, view))?.into_any());
                }
                let out = session_with_identity_class(py)?.call0()?.cast_into::<PyDict>()?;
                self.dicts.copy_into(py, key, &out, || kept_session(py, view))?;
                return Ok(out.into_any());
            }
        }
        session_to_py(py, read, with_identity)
    }

    /// A call about one user with a JSON argument (`passkeys`, `sessions`),
    /// admitted and with the GIL released: the answer as Python data, or
    /// the engine's error.
    fn user_json_call<'py>(
        &self,
        py: Python<'py>,
        user_id: &str,
        call_json: &str,
        run: fn(&Auth, &str, &serde_json::Value) -> Result<serde_json::Value, AuthError>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let call = serde_json::from_str(call_json).unwrap_or(serde_json::Value::Null);
        let auth = &self.auth;
        let got = py.detach(|| {
            catch_unwind(AssertUnwindSafe(|| {
                let _permit = auth.admit(libauth_core::Work::HostCall).permit()?;
                run(auth, user_id, &call)
            }))
        });
        match got.map_err(|_| internal())? {
            Ok(value) => value_to_py(py, &value),
            Err(e) => Err(engine_error(&e)),
        }
    }
}

/// The session as a plain dict.
fn session_dict<'py>(py: Python<'py>, session: &libauth_core::SessionView) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    fill_session_dict(py, &dict, session)?;
    Ok(dict)
}

fn fill_session_dict(py: Python<'_>, dict: &Bound<'_, PyDict>, session: &libauth_core::SessionView) -> PyResult<()> {
    for (key, value) in session.map() {
        dict.set_item(key_to_py(py, key), value_to_py(py, value)?)?;
    }
    Ok(())
}

fn to_py(py: Python<'_>, res: AuthResponse) -> NativeResponse {
    (res.status, res.headers, PyBytes::new(py, &res.body).unbind())
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeAuth>()?;
    m.add_class::<NativeJob>()?;
    m.add_function(wrap_pyfunction!(create_auth, m)?)?;
    m.add_function(wrap_pyfunction!(compile_config, m)?)?;
    m.add_function(wrap_pyfunction!(error_types, m)?)?;
    m.add_function(wrap_pyfunction!(max_body_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(run_cli, m)?)?;
    m.add_function(wrap_pyfunction!(requests::scope_url_and_cookie, m)?)?;
    m.add_function(wrap_pyfunction!(requests::environ_url_and_cookie, m)?)?;
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
