//! The engine's `Host` over JavaScript functions.
//!
//! A hook call made on a worker thread is queued to the JavaScript thread
//! through a *weak* ThreadsafeFunction (it does not keep the event loop
//! alive by itself) with a call id, the hook name and the arguments as JSON.
//! The JavaScript side (`lib/native.js`) calls the hook, awaits the Promise
//! it may return, and reports the outcome with `NativeAuth.hookDone(id, …)`,
//! which wakes the worker blocked in `call`. The JavaScript thread never
//! blocks; only workers do.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{sync_channel, RecvTimeoutError, SyncSender};
use std::sync::Mutex;
use std::thread::ThreadId;
use std::time::Duration;

use libauth_core::{Hook, Host, HostError};
use napi::bindgen_prelude::FnArgs;
use napi::threadsafe_function::{ThreadsafeFunction, ThreadsafeFunctionCallMode};
use napi::Status;
use serde_json::Value;

/// One hook call on its way to the JavaScript thread.
pub struct HookCall {
    pub id: u32,
    pub hook: String,
    pub args: String,
}

/// `(key, id, hook, argsJson) => void` on the JavaScript thread; weak; errors
/// are not passed as a first argument (callee_handled = false).
pub type HookTsfn = ThreadsafeFunction<HookCall, (), FnArgs<(u32, u32, String, String)>, Status, false, true, 0>;

type Reply = Result<Value, HostError>;

pub struct JsHost {
    hooks: HashSet<String>,
    tsfn: HookTsfn,
    pending: Mutex<HashMap<u32, SyncSender<Reply>>>,
    next_id: AtomicU32,
    js_thread: ThreadId,
}

impl JsHost {
    pub fn new(hooks: Vec<String>, tsfn: HookTsfn) -> JsHost {
        JsHost {
            hooks: hooks.into_iter().collect(),
            tsfn,
            pending: Mutex::new(HashMap::new()),
            next_id: AtomicU32::new(1),
            js_thread: std::thread::current().id(),
        }
    }

    /// The JavaScript side's answer to call `id`: `ok` with the result as
    /// JSON (empty for `undefined`), or not `ok` with a HostError as JSON.
    pub fn complete(&self, id: u32, ok: bool, json: &str) {
        let Some(sender) = self.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&id) else {
            return; // answered twice, or the caller gave up
        };
        let _ = sender.send(libauth_core::conventions::decode_reply(ok, json));
    }
}

impl Host for JsHost {
    fn has(&self, hook: &Hook) -> bool {
        self.hooks.contains(hook.name())
    }

    fn hook_names(&self) -> Option<Vec<String>> {
        Some(self.hooks.iter().cloned().collect())
    }

    fn call(&self, hook: &Hook, args: Value) -> Result<Value, HostError> {
        self.call_until(hook, args, None)
    }

    /// Stop waiting at the deadline; the hook's late answer finds no one
    /// waiting and is dropped (`complete`).
    fn call_with_timeout(&self, hook: &Hook, args: Value, timeout: Duration) -> Result<Value, HostError> {
        self.call_until(hook, args, Some(timeout))
    }
}

impl JsHost {
    fn call_until(&self, hook: &Hook, args: Value, timeout: Option<Duration>) -> Result<Value, HostError> {
        if !self.hooks.contains(hook.name()) {
            return Err(HostError::new(format!("hook {hook} is not registered by the host")));
        }
        // Firewall: the JavaScript thread must never wait for itself. Inline
        // paths are chosen so that no hook runs on them; should one slip
        // through, fail the hook (the engine falls back as for a throwing
        // hook) instead of deadlocking the process.
        if std::thread::current().id() == self.js_thread {
            return Err(HostError::new(format!(
                "hook {hook} was reached on the JavaScript thread; libauth runs such requests on its worker threads (please report this)"
            )));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (sender, receiver) = sync_channel(1);
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).insert(id, sender);
        // The call as core describes it: JavaScript applies it blindly.
        let described = libauth_core::conventions::HookCall::describe(hook.name(), args);
        let args = serde_json::to_string(&described).unwrap_or_else(|_| "{\"args\":[]}".into());
        let call = HookCall { id, hook: hook.name().to_owned(), args };
        let status = self.tsfn.call(call, ThreadsafeFunctionCallMode::NonBlocking);
        if status != Status::Ok {
            self.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
            return Err(HostError::new(format!("could not reach JavaScript to call {hook} ({status})")));
        }
        let abandoned = || Err(HostError::new(format!("{hook} was abandoned: the JavaScript environment went away")));
        match timeout {
            None => receiver.recv().unwrap_or_else(|_| abandoned()),
            Some(timeout) => match receiver.recv_timeout(timeout) {
                Ok(reply) => reply,
                Err(RecvTimeoutError::Timeout) => {
                    self.pending.lock().unwrap_or_else(|e| e.into_inner()).remove(&id);
                    Err(libauth_core::host::timed_out(hook, timeout))
                }
                Err(RecvTimeoutError::Disconnected) => abandoned(),
            },
        }
    }
}

impl Drop for JsHost {
    fn drop(&mut self) {
        // Wake anything still waiting (their senders drop with the map).
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}
