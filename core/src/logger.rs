//! The `logger` option: error, warn and debug levels, to host hooks when
//! given, else to stderr. Never logs a secret, a token or a cookie value.

use serde_json::{json, Value};

use crate::error::AuthError;
use crate::host::{Hook, Host};

pub struct Logger {
    debug_enabled: bool,
    error_hook: bool,
    warn_hook: bool,
    debug_hook: bool,
}

impl Logger {
    /// Whether any level goes to host code.
    pub fn has_hooks(&self) -> bool {
        self.error_hook || self.warn_hook || self.debug_hook
    }

    pub fn new(host: &dyn Host, debug_enabled: bool) -> Logger {
        Logger {
            debug_enabled,
            error_hook: host.has(&Hook::LOGGER_ERROR),
            warn_hook: host.has(&Hook::LOGGER_WARN),
            debug_hook: host.has(&Hook::LOGGER_DEBUG),
        }
    }

    pub fn error(&self, host: &dyn Host, error: &AuthError) {
        if self.error_hook {
            let mut causes = Vec::new();
            let mut source = std::error::Error::source(error);
            while let Some(s) = source {
                causes.push(s.to_string());
                source = s.source();
            }
            let args = json!({
                "name": error.error_type.as_str(),
                "type": error.error_type.as_str(),
                "message": error.message,
                "code": error.code,
                "cause": causes,
            });
            if host.call(&Hook::LOGGER_ERROR, args).is_ok() {
                return;
            }
        }
        let mut line = format!("[auth][error] {}: {}", error.error_type, error.message);
        let mut source = std::error::Error::source(error);
        while let Some(s) = source {
            line.push_str(&format!("\n[auth][cause]: {s}"));
            source = s.source();
        }
        eprintln!("{line}");
    }

    pub fn warn(&self, host: &dyn Host, code: &str, message: &str) {
        if self.warn_hook && host.call(&Hook::LOGGER_WARN, json!({ "code": code, "message": message })).is_ok() {
            return;
        }
        eprintln!("[auth][warn][{code}] {message}");
    }

    /// `metadata` is built only when debug logging is on.
    pub fn debug(&self, host: &dyn Host, message: &str, metadata: impl FnOnce() -> Value) {
        if !self.debug_enabled {
            return;
        }
        let metadata = metadata();
        if self.debug_hook
            && host.call(&Hook::LOGGER_DEBUG, json!({ "message": message, "metadata": metadata })).is_ok()
        {
            return;
        }
        eprintln!("[auth][debug]: {message} {metadata}");
    }
}
