//! The native half of the npm package `libauth`: one engine per config,
//! reachable from JavaScript. The JavaScript half (`lib/`) lifts functions
//! out of the config (they become hooks), adapts Express and Web requests,
//! and turns the results into promises.
//!
//! Which thread runs what (docs/architecture.md has the whole model):
//! - A request that can reach no hook (JWT `getSession`, or `GET session`,
//!   `csrf`, `providers`, with no jwt/session callback, no session event, no
//!   custom jwt encode/decode and no logger function) runs inline, on the
//!   calling JavaScript thread, synchronously: no thread hop.
//! - Everything else runs on the addon's worker pool (`pool.rs`). Hooks are
//!   called back on the JavaScript thread through a weak ThreadsafeFunction
//!   (`host.rs`); the result goes back through a second weak
//!   ThreadsafeFunction. The JavaScript side keeps the event loop alive
//!   while results are outstanding.

// No hand-written `unsafe`: napi-rs's generated glue is the only unsafe code here.
#![deny(unsafe_code, unsafe_op_in_unsafe_fn)]

#[macro_use]
extern crate napi_derive;

mod host;
mod pool;
mod shared_ids;

use std::sync::Arc;

use libauth_core::{ActionOutcome, Auth, AuthRequest, AuthResponse, Config, Permit, Work};
use napi::bindgen_prelude::Either;
use napi::bindgen_prelude::{BufferSlice, ClassInstance, External, FnArgs, Function, JavaScriptClassExt};
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::{Env, JsString, Result, Status};

use host::{HookCall, JsHost};
use shared_ids::SharedIds;

/// What `readSession` reads with: the engine and the numbers it gives
/// shared sessions. A plain function over an `External` rather than a
/// method of [`NativeAuth`]: napi-rs tracks every borrow of a class
/// instance across a method call, about 3,000 instructions, a third of a
/// whole repeated session read; an `External` argument is a pointer lookup.
pub struct SessionReader {
    auth: Arc<Auth>,
    shared: SharedIds,
}

/// The session (`null` for none) of a request that came over HTTPS or
/// not (`true`/`false`, or its absolute URL) with this `Cookie` header, read on this thread as
/// `NativeAuth.getSessionJson` reads it (only when `inlineSession`; the
/// scheme is all of the URL such a read uses), answered as cheaply as it
/// can cross: a session shared by every read of one cached cookie as its
/// number ([`SharedIds`]; JavaScript keeps it parsed, `sharedSessionJson`
/// gives its JSON the first time), any other session as JSON text.
#[napi(catch_unwind)]
pub fn read_session<'env>(
    env: &'env Env,
    reader: &External<SessionReader>,
    scheme: Either<bool, String>,
    cookie: Option<JsString<'_>>,
) -> Result<Option<Either<u32, JsString<'env>>>> {
    let cookie = cookie.map(ascii_or_utf8).transpose()?;
    // Whether the request came over HTTPS, or its URL (the engine tells).
    let read = match &scheme {
        Either::A(https) => reader.auth.get_session_view_by_scheme(*https, cookie.as_deref()),
        Either::B(url) => reader.auth.get_session_view_by_cookie(url, cookie.as_deref()),
    };
    match read {
        Ok(Some(session)) => match session.shared_key() {
            Some(key) => Ok(Some(Either::A(reader.shared.id_for(key)))),
            None => env.create_string(session.json()).map(|s| Some(Either::B(s))),
        },
        Ok(None) => Ok(None),
        Err(e) => Err(napi::Error::new(Status::GenericFailure, error_json(&e))),
    }
}

/// The JSON of the shared session `readSession` numbered `id`, or `null`
/// once that number is forgotten.
#[napi]
pub fn shared_session_json(reader: &External<SessionReader>, id: u32) -> Option<String> {
    reader.shared.get(id).map(|key| key.json().to_owned())
}

/// A string argument that is ASCII in practice (a Cookie header: Node
/// hands headers over as Latin-1 text, one byte per character), read as
/// Latin-1: a plain copy out of V8, where UTF-8 costs a length pass and an
/// encoding pass (a third of a repeated session read's instructions). Text
/// with any other character is read again as UTF-8, so the engine sees the
/// same text either way.
fn ascii_or_utf8(s: JsString<'_>) -> Result<String> {
    let bytes: Vec<u8> = s.into_latin1()?.into();
    if bytes.is_ascii() {
        // ASCII is UTF-8 (no copy; the check cannot fail).
        return String::from_utf8(bytes).map_err(|e| napi::Error::new(Status::InvalidArg, e.to_string()));
    }
    s.into_utf8()?.into_owned()
}

/// An engine response: status, headers as a flat `[name, value, …]` list
/// (several `set-cookie` allowed), body as text (the engine writes JSON or
/// HTML).
#[napi(object)]
pub struct NativeResponse {
    pub status: u32,
    pub headers: Vec<String>,
    pub body: String,
}

/// A finished engine call, on its way back to JavaScript.
pub struct Done {
    key: u32,
    id: u32,
    outcome: Outcome,
}

enum Outcome {
    Response(AuthResponse),
    /// A JSON result: a session (or `null`), or a sign-in/out outcome.
    Json(Option<String>),
    Failed(String),
}

/// The arguments of `on_done`: `(key, id, error, response, json)`.
type DoneArgs = FnArgs<(u32, u32, Option<String>, Option<NativeResponse>, Option<String>)>;

/// `(key, id, error, response, sessionJson) => void`; weak.
type DoneTsfn = ThreadsafeFunction<Done, (), DoneArgs, Status, false, true, 0>;

#[napi]
pub struct NativeAuth {
    key: u32,
    auth: Arc<Auth>,
    host: Arc<JsHost>,
    done: Arc<DoneTsfn>,
    base_path: String,
    inline_session: bool,
}

/// A configuration the engine refused, as fields: the option, the message,
/// and the error type (`MissingSecret`, `MissingAuthorize`, …, or
/// `Configuration`).
#[napi(object)]
pub struct NativeConfigError {
    pub option: String,
    pub message: String,
    #[napi(js_name = "type")]
    pub kind: String,
}

/// Build an engine, or say why the config is refused (as a value, so the
/// error's fields cross as fields). `config_json`: the config without
/// functions. `hooks`: the names of the functions lifted out of it.
/// `on_hook(key, id, hook, argsJson)` runs a hook and answers with
/// `hookDone`; `on_done(key, id, error, response, session)` receives a
/// finished engine call. `key` names this instance in both. `beside`: an
/// engine of the same config (another mount point) whose database adapter
/// and admission count this one shares.
#[napi(catch_unwind)]
pub fn create_auth<'env>(
    env: &'env Env,
    key: u32,
    config_json: String,
    hooks: Vec<String>,
    on_hook: Function<FnArgs<(u32, u32, String, String)>, ()>,
    on_done: Function<DoneArgs, ()>,
    beside: Option<&NativeAuth>,
) -> Result<Either<ClassInstance<'env, NativeAuth>, NativeConfigError>> {
    let refused = |e: libauth_core::ConfigError| {
        Either::B(NativeConfigError { kind: e.type_name().to_owned(), option: e.option, message: e.message })
    };
    let config = match Config::from_json(&config_json) {
        Ok(config) => config,
        Err(e) => return Ok(refused(e)),
    };
    let hook_tsfn = on_hook.build_threadsafe_function::<HookCall>().weak::<true>().build_callback(move |ctx| {
        let HookCall { id, hook, args } = ctx.value;
        Ok(FnArgs::from((key, id, hook, args)))
    })?;
    let done: DoneTsfn = on_done.build_threadsafe_function::<Done>().weak::<true>().build_callback(|ctx| {
        let Done { key, id, outcome } = ctx.value;
        Ok(FnArgs::from(match outcome {
            Outcome::Response(res) => (key, id, None, Some(to_native(res)), None),
            Outcome::Json(json) => (key, id, None, None, json),
            Outcome::Failed(message) => (key, id, Some(message), None, None),
        }))
    })?;
    let host = Arc::new(JsHost::new(hooks, hook_tsfn));
    let built = match beside {
        Some(sibling) => Auth::new_beside(config, host.clone(), &sibling.auth),
        None => Auth::new(config, host.clone()),
    };
    let auth = match built {
        Ok(auth) => auth,
        Err(e) => return Ok(refused(e)),
    };
    // The engine knows which paths can reach host code or a database.
    let inline_session = auth.session_is_hookless();
    let auth = Arc::new(auth);
    let native = NativeAuth {
        key,
        base_path: auth.settings().base_path.clone(),
        auth,
        host,
        done: Arc::new(done),
        inline_session,
    }
    .into_instance(env)?;
    Ok(Either::A(native))
}

#[napi]
impl NativeAuth {
    /// The normalised base path (e.g. `/auth`).
    #[napi(getter)]
    pub fn base_path(&self) -> String {
        self.base_path.clone()
    }

    /// The session as JSON (`null` for none), read on this thread: only
    /// when `inlineSession` (no hook can be reached, no I/O). Plain napi-rs
    /// glue and core's one session builder: a hand-written N-API function
    /// writing the session's parts into an array saved 0.9 µs a call
    /// (`bench/session-call.mjs`), under 1% of a protected Express request,
    /// and was not worth its `unsafe`; the session built as an object by
    /// napi-rs (its `serde_json` conversion, one N-API call per key and
    /// value) cost 17% more instructions than this JSON and `JSON.parse`
    /// (38.5k against 33.0k per read, bench/reads, 2026-11-28).
    /// The JSON is the session cache's own text on a repeated cookie
    /// (built once per cookie, [`libauth_core::SessionView`]), copied once,
    /// into V8.
    #[napi(catch_unwind)]
    pub fn get_session_json<'env>(
        &self,
        env: &'env Env,
        url: String,
        cookie: Option<String>,
    ) -> Result<Option<JsString<'env>>> {
        if !self.inline_session {
            return Err(napi::Error::new(
                Status::GenericFailure,
                "libauth: this configuration's session reads run on the worker pool",
            ));
        }
        // The URL and the Cookie header straight to the engine: no request
        // is built, nothing copied past napi-rs's one copy out of V8.
        match self.auth.get_session_view_by_cookie(&url, cookie.as_deref()) {
            Ok(Some(session)) => env.create_string(session.json()).map(Some),
            Ok(None) => Ok(None),
            Err(e) => Err(napi::Error::new(Status::GenericFailure, error_json(&e))),
        }
    }

    /// The session reader of this engine (`readSession`), for JavaScript to
    /// keep: each call makes a new one, with numbers of its own. Only when
    /// `inlineSession`: `readSession` reads on the calling thread, where a
    /// hook (called back on this same thread) could never run.
    #[napi]
    pub fn session_reader(&self) -> Result<External<SessionReader>> {
        if !self.inline_session {
            return Err(napi::Error::new(
                Status::GenericFailure,
                "libauth: this configuration's session reads run on the worker pool",
            ));
        }
        Ok(External::new(SessionReader { auth: Arc::clone(&self.auth), shared: SharedIds::default() }))
    }

    /// Whether `getSessionJson` may be used (no hook can be reached).
    #[napi(getter)]
    pub fn inline_session(&self) -> bool {
        self.inline_session
    }

    /// Answer a request under basePath. Returns the response when the
    /// engine's dispatch decision lets it be computed here (no hook can be
    /// reached) or refuses it (503 past `hooks.maxInFlight`); otherwise
    /// `undefined`, and the response arrives later through `on_done` with
    /// this `id`.
    #[napi(catch_unwind)]
    pub fn handle(
        &self,
        id: u32,
        method: String,
        url: String,
        headers: Vec<String>,
        body: Option<BufferSlice>,
        remote_address: Option<String>,
    ) -> Option<NativeResponse> {
        let req =
            AuthRequest { method, url, headers: pair_up(headers), body: body.map(|b| b.to_vec()), remote_address };
        match self.auth.admit(Work::Request(&req)).request() {
            Ok(res) => Some(to_native(res)),
            Err(permit) => {
                self.run(id, permit, move |auth| Outcome::Response(auth.handle(&req)));
                None
            }
        }
    }

    /// The session, computed on a worker thread; the JSON (or `null`)
    /// arrives through `on_done` with this `id`.
    #[napi(catch_unwind)]
    pub fn get_session(&self, id: u32, url: String, cookie: Option<String>) {
        let read = move |auth: &Auth| match auth.get_session_view_by_cookie(&url, cookie.as_deref()) {
            Ok(session) => Outcome::Json(session.map(|s| s.json().into_owned())),
            Err(e) => Outcome::Failed(error_json(&e)),
        };
        match self.auth.admit(Work::SessionRead).permit() {
            Ok(None) => self.finish_now(id, read(&self.auth)),
            Ok(Some(permit)) => self.run(id, permit, read),
            Err(e) => self.finish_now(id, Outcome::Failed(error_json(&e))),
        }
    }

    /// Sign in from host code (a form action) on a worker thread:
    /// `fields_json` is the submitted form as a JSON object; the request is
    /// the host's own (its body is not read). `{ url, cookies }` as JSON, or
    /// the engine's error, arrives through `on_done` with this `id`.
    // One argument per JavaScript argument: napi-rs maps them positionally.
    #[allow(clippy::too_many_arguments)]
    #[napi(catch_unwind)]
    pub fn sign_in(
        &self,
        id: u32,
        provider: String,
        fields_json: String,
        method: String,
        url: String,
        headers: Vec<String>,
        remote_address: Option<String>,
    ) {
        let req = AuthRequest { method, url, headers: pair_up(headers), body: None, remote_address };
        let fields = match serde_json::from_str::<serde_json::Value>(&fields_json) {
            Ok(serde_json::Value::Object(fields)) => fields,
            _ => {
                let e = libauth_core::AuthError::new(
                    libauth_core::ErrorType::CallbackRouteError,
                    "signIn: the fields must be an object, FormData or URLSearchParams",
                );
                return self.finish_now(id, Outcome::Failed(error_json(&e)));
            }
        };
        self.run_admitted(id, move |auth| action_outcome(auth.sign_in(&provider, fields, &req)));
    }

    /// A password-account step from host code on a worker thread
    /// (`action`: `signUp`, `requestPasswordReset`, `resetPassword`,
    /// `changePassword`, `changeEmail`, `deleteAccount`); as `sign_in`.
    #[allow(clippy::too_many_arguments)]
    #[napi(catch_unwind)]
    pub fn password_action(
        &self,
        id: u32,
        action: String,
        fields_json: String,
        method: String,
        url: String,
        headers: Vec<String>,
        remote_address: Option<String>,
    ) {
        let req = AuthRequest { method, url, headers: pair_up(headers), body: None, remote_address };
        let Some(action) = libauth_core::PasswordAction::parse(&action) else {
            let e = libauth_core::AuthError::new(
                libauth_core::ErrorType::UnknownAction,
                format!("no password action {action:?}"),
            );
            return self.finish_now(id, Outcome::Failed(error_json(&e)));
        };
        let fields = match serde_json::from_str::<serde_json::Value>(&fields_json) {
            Ok(serde_json::Value::Object(fields)) => fields,
            _ => {
                let e = libauth_core::AuthError::new(
                    libauth_core::ErrorType::CallbackRouteError,
                    "the fields must be an object, FormData or URLSearchParams",
                );
                return self.finish_now(id, Outcome::Failed(error_json(&e)));
            }
        };
        self.run_admitted(id, move |auth| action_outcome(auth.password_action(action, fields, &req)));
    }

    /// Sign out from host code on a worker thread; as `sign_in`.
    #[napi(catch_unwind)]
    pub fn sign_out(&self, id: u32, method: String, url: String, headers: Vec<String>, remote_address: Option<String>) {
        let req = AuthRequest { method, url, headers: pair_up(headers), body: None, remote_address };
        self.run_admitted(id, move |auth| action_outcome(auth.sign_out(&req)));
    }

    /// The stored account of `user_id` with `provider` (tokens included) as
    /// JSON, or `null` when not linked; arrives through `on_done` with this
    /// `id`. On a worker thread: it reads the database.
    #[napi(catch_unwind)]
    pub fn get_account(&self, id: u32, user_id: String, provider: String) {
        self.run_admitted(id, move |auth| account_outcome(auth.get_account(&user_id, &provider)));
    }

    /// Refresh the stored account's access token at the provider, store the
    /// new tokens and answer the updated account as `get_account` does.
    #[napi(catch_unwind)]
    pub fn refresh_account(&self, id: u32, user_id: String, provider: String) {
        self.run_admitted(id, move |auth| account_outcome(auth.refresh_account(&user_id, &provider)));
    }

    /// A valid access token for the user's account with `provider`
    /// (refreshed when due, once however many ask) as JSON, or `null` when
    /// not linked; arrives through `on_done` with this `id`. On a worker
    /// thread: it reads the database and may call the provider.
    #[napi(catch_unwind)]
    pub fn get_access_token(&self, id: u32, user_id: String, provider: String) {
        self.run_admitted(id, move |auth| match auth.get_access_token(&user_id, &provider) {
            Ok(token) => Outcome::Json(Some(serde_json::to_string(&token).unwrap_or_else(|_| "null".into()))),
            Err(e) => Outcome::Failed(error_json(&e)),
        });
    }

    /// A passkey call for `user_id` (`call_json`: `{ action: "list" |
    /// "rename" | "delete", id?, name? }`, see `Auth::passkeys`); the answer
    /// as JSON arrives through `on_done` with this `id`.
    #[napi(catch_unwind)]
    pub fn passkeys(&self, id: u32, user_id: String, call_json: String) {
        self.user_json_call(id, user_id, call_json, Auth::passkeys);
    }

    /// A session call for `user_id` (`call_json`: `{ action: "list" |
    /// "end" | "endOthers" | "endAll", id?, url?, cookie? }`, see
    /// `Auth::sessions`); the answer as JSON arrives through `on_done` with
    /// this `id`.
    #[napi(catch_unwind)]
    pub fn sessions(&self, id: u32, user_id: String, call_json: String) {
        self.user_json_call(id, user_id, call_json, Auth::sessions);
    }

    /// A second-factor call for `user_id` (`call_json`: `{ action: "status"
    /// | "begin" | "confirm" | "verify" | "recoveryCodes" | "disable",
    /// label?, code? }`, see `Auth::two_factor`); the answer as JSON
    /// arrives through `on_done` with this `id`.
    #[napi(catch_unwind)]
    pub fn two_factor(&self, id: u32, user_id: String, call_json: String) {
        self.user_json_call(id, user_id, call_json, Auth::two_factor);
    }

    /// Call `hook` with `args_json` as the engine would, on a worker thread
    /// (the cross-language conformance test of the host conventions): the
    /// decoded answer as JSON, or the hook's error, arrives through
    /// `on_done` with this `id`.
    #[napi(catch_unwind)]
    pub fn call_hook(&self, id: u32, hook: String, args_json: String) {
        let args = serde_json::from_str(&args_json).unwrap_or(serde_json::Value::Null);
        self.run_admitted(id, move |auth| match auth.call_hook(&hook, args) {
            Ok(value) => Outcome::Json(Some(value.to_string())),
            Err(e) => Outcome::Failed(serde_json::to_string(&e).unwrap_or_default()),
        });
    }

    /// The outcome of hook call `id`: `ok` with the result as JSON (empty
    /// for `undefined`), or not `ok` with `{ message, type?, code? }`.
    #[napi]
    pub fn hook_done(&self, id: u32, ok: bool, json: String) {
        self.host.complete(id, ok, &json);
    }
}

impl NativeAuth {
    /// Hand a result to `on_done` from this (the JavaScript) thread.
    fn finish_now(&self, id: u32, outcome: Outcome) {
        self.done.call(Done { key: self.key, id, outcome }, ThreadsafeFunctionCallMode::NonBlocking);
    }

    /// A call about one user with a JSON argument and a JSON answer
    /// (`passkeys`, `sessions`), on a worker thread; the answer arrives
    /// through `on_done` with this `id`.
    fn user_json_call(
        &self,
        id: u32,
        user_id: String,
        call_json: String,
        run: fn(&Auth, &str, &serde_json::Value) -> std::result::Result<serde_json::Value, libauth_core::AuthError>,
    ) {
        let call = serde_json::from_str(&call_json).unwrap_or(serde_json::Value::Null);
        self.run_admitted(id, move |auth| match run(auth, &user_id, &call) {
            Ok(value) => Outcome::Json(Some(value.to_string())),
            Err(e) => Outcome::Failed(error_json(&e)),
        });
    }

    /// Host-code work that is always admitted (form actions, account
    /// calls): past `hooks.maxInFlight` it fails at once with `Overloaded`.
    fn run_admitted<F>(&self, id: u32, job: F)
    where
        F: FnOnce(&Auth) -> Outcome + Send + 'static,
    {
        match self.auth.admit(Work::HostCall).permit() {
            Ok(Some(permit)) => self.run(id, permit, job),
            // Host calls always take a place: never inline.
            Ok(None) => self.finish_now(id, job(&self.auth)),
            Err(e) => self.finish_now(id, Outcome::Failed(error_json(&e))),
        }
    }

    /// The one runner of admitted work: on the worker pool, holding the
    /// permit, behind this binding's one panic firewall; the outcome goes
    /// back through `on_done`.
    fn run<F>(&self, id: u32, permit: Permit, job: F)
    where
        F: FnOnce(&Auth) -> Outcome + Send + 'static,
    {
        let (auth, done, key) = (self.auth.clone(), self.done.clone(), self.key);
        pool::spawn(move || {
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| job(&auth)))
                .unwrap_or_else(|_| Outcome::Failed(error_json(&libauth_core::AuthError::internal())));
            // The place is freed before the outcome is sent: once JavaScript
            // has the answer, the client may send its next request at once,
            // and that one must find the place free (with `maxInFlight: 1`, a
            // CSRF fetch's place still held here refused the sign-in after it).
            drop(permit);
            done.call(Done { key, id, outcome }, ThreadsafeFunctionCallMode::NonBlocking);
        });
    }
}

fn action_outcome(result: std::result::Result<ActionOutcome, libauth_core::AuthError>) -> Outcome {
    match result {
        Ok(out) => {
            Outcome::Json(Some(serde_json::json!({ "url": out.redirect, "cookies": out.set_cookies }).to_string()))
        }
        Err(e) => Outcome::Failed(error_json(&e)),
    }
}

fn account_outcome(
    result: std::result::Result<Option<libauth_core::store::AdapterAccount>, libauth_core::AuthError>,
) -> Outcome {
    match result {
        Ok(account) => Outcome::Json(Some(serde_json::to_string(&account).unwrap_or_else(|_| "null".into()))),
        Err(e) => Outcome::Failed(error_json(&e)),
    }
}

/// A config whose functions JavaScript replaced by `{"$libauth.fn": n}`
/// markers, split by core into the engine's config (JSON) and the hook
/// name of each marker (`names[i]` for `markers[i]`); `factories`: markers
/// of uncalled provider factories to call and compile again.
#[napi(object)]
pub struct CompiledConfig {
    pub config: String,
    pub markers: Vec<u32>,
    pub names: Vec<String>,
    pub factories: Vec<u32>,
}

/// See [`CompiledConfig`]; a refused config comes back as its error's fields.
#[napi(catch_unwind)]
pub fn compile_config(marked_json: String) -> Either<CompiledConfig, NativeConfigError> {
    let refused = |e: libauth_core::ConfigError| {
        Either::B(NativeConfigError { kind: e.type_name().to_owned(), option: e.option, message: e.message })
    };
    let value = match serde_json::from_str(&marked_json) {
        Ok(value) => value,
        Err(e) => return refused(libauth_core::ConfigError::new("config", format!("not valid JSON: {e}"))),
    };
    match libauth_core::conventions::compile_host_config(value) {
        Ok(compiled) => Either::A(CompiledConfig {
            config: compiled.config.to_string(),
            markers: compiled.hooks.iter().map(|(m, _)| *m as u32).collect(),
            names: compiled.hooks.into_iter().map(|(_, n)| n).collect(),
            factories: compiled.factories.into_iter().map(|m| m as u32).collect(),
        }),
        Err(e) => refused(e),
    }
}

/// The engine's request body limit: a body longer than this is answered
/// 413 by the engine, so a binding need read no more than one byte past it.
#[napi]
pub fn max_body_bytes() -> u32 {
    libauth_core::http::MAX_BODY_BYTES as u32
}

/// The `libauth` command with these arguments (no program name), writing
/// to this process's stdout and stderr; its exit status. The package's
/// `bin/libauth.js` runs it.
#[napi(catch_unwind)]
pub fn run_cli(args: Vec<String>) -> i32 {
    libauth_cli::run_host(args)
}

/// Worker threads started so far (0 until the first job: the pool is lazy).
#[napi]
pub fn worker_threads() -> u32 {
    pool::thread_count() as u32
}

/// An engine error for JavaScript, in core's wire form.
fn error_json(e: &libauth_core::AuthError) -> String {
    e.to_wire().to_string()
}

fn pair_up(flat: Vec<String>) -> Vec<(String, String)> {
    let mut out = Vec::with_capacity(flat.len() / 2);
    let mut it = flat.into_iter();
    while let (Some(k), Some(v)) = (it.next(), it.next()) {
        out.push((k, v));
    }
    out
}

fn to_native(res: AuthResponse) -> NativeResponse {
    let mut headers = Vec::with_capacity(res.headers.len() * 2);
    for (k, v) in res.headers {
        headers.push(k);
        headers.push(v);
    }
    let body = String::from_utf8(res.body).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
    NativeResponse { status: res.status as u32, headers, body }
}

/// Every error type the engine reports (`error.type` in JavaScript).
#[napi]
pub fn error_types() -> Vec<String> {
    libauth_core::ErrorType::ALL.iter().map(|t| t.as_str().to_owned()).chain(["Configuration".to_owned()]).collect()
}
