//! The engine's `Host` over Python functions.
//!
//! The engine calls a hook on the thread that handles the request, with the
//! GIL released. The call takes the GIL and runs the Python dispatcher
//! (`libauth._host.Dispatcher`) with the hook name, core's description of
//! the call (`HookCall`: positional arguments, and which are dates, requests
//! and errors) as JSON and
//! the hook's deadline in seconds. The dispatcher calls the function; for an
//! `async def` it schedules the coroutine on the request's event loop
//! (ASGI: `asyncio.run_coroutine_threadsafe`) or a private one (WSGI) and
//! waits at most until the deadline, with the GIL released while it waits.
//! It answers `(status, json)`: `0` and the result, `1` and the error as
//! `{ message, type?, code? }`, `2` when the deadline passed.
//!
//! No Rust lock is taken here: the hook names are fixed at construction.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use libauth_core::{Hook, Host, HostError};
use pyo3::prelude::*;
use serde_json::Value;

pub struct PyHost {
    hooks: HashSet<String>,
    dispatch: Py<PyAny>,
}

impl PyHost {
    pub fn new(hooks: Vec<String>, dispatch: Py<PyAny>) -> PyHost {
        PyHost { hooks: hooks.into_iter().collect(), dispatch }
    }

    fn call_until(&self, hook: &Hook, args: Value, timeout: Option<Duration>) -> Result<Value, HostError> {
        if !self.hooks.contains(hook.name()) {
            return Err(HostError::new(format!("hook {hook} is not registered by the host")));
        }
        let started = Instant::now();
        // The call as core describes it: Python applies it blindly.
        let described = libauth_core::conventions::HookCall::describe(hook.name(), args);
        let args = serde_json::to_string(&described).unwrap_or_else(|_| "{\"args\":[]}".into());
        let seconds = timeout.map(|t| t.as_secs_f64());
        let answer = Python::attach(|py| -> PyResult<(u8, String)> {
            self.dispatch.call1(py, (hook.name(), args, seconds))?.extract(py)
        });
        let (status, json) = match answer {
            Ok(answer) => answer,
            Err(e) => return Err(HostError::new(format!("calling {hook} failed: {e}"))),
        };
        if let Some(timeout) = timeout {
            // A synchronous hook cannot be stopped; its late result is dropped.
            if status == 2 || started.elapsed() > timeout {
                return Err(libauth_core::host::timed_out(hook, timeout));
            }
        }
        libauth_core::conventions::decode_reply(status == 0, &json)
    }
}

impl Host for PyHost {
    fn has(&self, hook: &Hook) -> bool {
        self.hooks.contains(hook.name())
    }

    fn hook_names(&self) -> Option<Vec<String>> {
        Some(self.hooks.iter().cloned().collect())
    }

    fn call(&self, hook: &Hook, args: Value) -> Result<Value, HostError> {
        self.call_until(hook, args, None)
    }

    /// Stop waiting for an `async` hook at the deadline (the dispatcher
    /// cancels it); a synchronous hook's late result is dropped.
    fn call_with_timeout(&self, hook: &Hook, args: Value, timeout: Duration) -> Result<Value, HostError> {
        self.call_until(hook, args, Some(timeout))
    }
}
