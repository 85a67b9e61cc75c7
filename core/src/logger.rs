//! The `logger` option: error, warn and debug levels, to host hooks when
//! given, else to stderr. Never logs a secret, a token or a cookie value.
//!
//! Messages carry text from outside (a provider's `error_description`, a
//! hook's exception): every control character in them is escaped, so no
//! client can forge a log line.

use std::borrow::Cow;

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
                causes.push(escape_controls(&s.to_string()).into_owned());
                source = s.source();
            }
            let args = json!({
                "name": error.error_type.as_str(),
                "type": error.error_type.as_str(),
                "message": escape_controls(&error.message),
                "code": error.code.as_deref().map(escape_controls),
                "cause": causes,
            });
            if host.call(&Hook::LOGGER_ERROR, args).is_ok() {
                return;
            }
        }
        let mut line = format!("[auth][error] {}: {}", error.error_type, escape_controls(&error.message));
        let mut source = std::error::Error::source(error);
        while let Some(s) = source {
            line.push_str(&format!("\n[auth][cause]: {}", escape_controls(&s.to_string())));
            source = s.source();
        }
        eprintln!("{line}");
    }

    pub fn warn(&self, host: &dyn Host, code: &str, message: &str) {
        let message = escape_controls(message);
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
        let message = escape_controls(message);
        if self.debug_hook
            && host.call(&Hook::LOGGER_DEBUG, json!({ "message": message, "metadata": metadata })).is_ok()
        {
            return;
        }
        eprintln!("[auth][debug]: {message} {}", escape_controls(&metadata.to_string()));
    }
}

/// `text` with every control character (C0, C1, DEL, and the line and
/// paragraph separators U+2028/U+2029) written as a `\u{…}` escape.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    let needs_escape = |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}');
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if needs_escape(c) => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::escape_controls;

    #[test]
    fn no_control_character_survives() {
        assert_eq!(escape_controls("plain text"), "plain text");
        assert_eq!(escape_controls("a\n[auth][error] forged"), "a\\n[auth][error] forged");
        assert_eq!(escape_controls("\r\t\u{1b}[31m\u{2028}\u{85}"), "\\r\\t\\u{001b}[31m\\u{2028}\\u{0085}");
        for c in (0u32..0x100).chain([0x2028, 0x2029]).filter_map(char::from_u32) {
            let text = format!("x{c}y");
            let escaped = escape_controls(&text);
            assert!(!escaped.chars().any(|e| e.is_control() || e == '\u{2028}' || e == '\u{2029}'), "{c:?}");
        }
    }
}
