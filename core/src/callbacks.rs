//! Callbacks (control hooks) and events, with their default behaviour when
//! the host gives none. Which hooks exist is asked once, at construction.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::error::{AuthError, ErrorType};
use crate::host::{Hook, Host};
use crate::logger::Logger;
use crate::redirect;

pub struct Callbacks {
    pub host: Arc<dyn Host>,
    pub logger: Logger,
    has_sign_in: bool,
    has_redirect: bool,
    pub has_jwt: bool,
    pub has_session: bool,
    has_event_sign_in: bool,
    has_event_sign_out: bool,
    pub has_event_session: bool,
}

/// What the signIn callback decided.
pub enum SignInDecision {
    Continue,
    /// Redirect there instead (already passed through the redirect callback).
    Redirect(String),
}

impl Callbacks {
    pub fn new(host: Arc<dyn Host>, debug: bool) -> Callbacks {
        let h = host.as_ref();
        Callbacks {
            logger: Logger::new(h, debug),
            has_sign_in: h.has(&Hook::SIGN_IN),
            has_redirect: h.has(&Hook::REDIRECT),
            has_jwt: h.has(&Hook::JWT),
            has_session: h.has(&Hook::SESSION),
            has_event_sign_in: h.has(&Hook::EVENT_SIGN_IN),
            has_event_sign_out: h.has(&Hook::EVENT_SIGN_OUT),
            has_event_session: h.has(&Hook::EVENT_SESSION),
            host,
        }
    }

    pub fn log(&self, error: &AuthError) {
        self.logger.error(self.host.as_ref(), error);
    }

    /// `callbacks.signIn`: `true` continues, `false` is AccessDenied, a
    /// string redirects there; a throw is AccessDenied with its message
    /// (unless it threw one of our typed errors).
    pub fn sign_in(&self, args: Value, base_url: &str) -> Result<SignInDecision, AuthError> {
        if !self.has_sign_in {
            return Ok(SignInDecision::Continue);
        }
        match self.host.call(&Hook::SIGN_IN, args) {
            Ok(Value::Bool(true)) => Ok(SignInDecision::Continue),
            Ok(Value::String(url)) => Ok(SignInDecision::Redirect(self.redirect(&url, base_url))),
            Ok(_) => Err(AuthError::new(ErrorType::AccessDenied, "AccessDenied")),
            Err(e) => Err(AuthError::from_host(e, ErrorType::AccessDenied)),
        }
    }

    /// `callbacks.redirect`, defaulting to same-origin only. Whatever the
    /// host returns must still be an http(s) URL or a path.
    pub fn redirect(&self, url: &str, base_url: &str) -> String {
        if !self.has_redirect {
            return redirect::default_redirect(url, base_url);
        }
        let result = self.host.call(&Hook::REDIRECT, json!({ "url": url, "baseUrl": base_url }));
        let target = match &result {
            Ok(Value::String(target)) => redirect::acceptable_target(target),
            _ => None,
        };
        match (target, result) {
            (Some(target), _) if target.starts_with('/') => format!("{base_url}{target}"),
            (Some(target), _) => target,
            (None, Err(e)) => {
                self.log(&AuthError::from_host(e, ErrorType::InvalidCallbackUrl));
                base_url.to_owned()
            }
            (None, Ok(other)) => {
                self.logger.warn(
                    self.host.as_ref(),
                    "redirect-callback-result",
                    &format!(
                        "the redirect callback returned {} that is not an http(s) URL or path; using the base URL",
                        type_name(&other)
                    ),
                );
                base_url.to_owned()
            }
        }
    }

    /// `callbacks.jwt`: `Ok(None)` when it returned null (end the session).
    pub fn jwt(
        &self,
        token: Map<String, Value>,
        args: Map<String, Value>,
    ) -> Result<Option<Map<String, Value>>, AuthError> {
        if !self.has_jwt {
            return Ok(Some(token));
        }
        let mut call = args;
        call.insert("token".into(), Value::Object(token));
        match self.host.call(&Hook::JWT, Value::Object(call)) {
            Ok(Value::Object(t)) => Ok(Some(t)),
            Ok(Value::Null) => Ok(None),
            Ok(other) => Err(AuthError::new(
                ErrorType::JWTSessionError,
                format!("the jwt callback must return an object or null, got {}", type_name(&other)),
            )),
            Err(e) => Err(AuthError::from_host(e, ErrorType::JWTSessionError)),
        }
    }

    /// `callbacks.session`: what the client sees.
    pub fn session(&self, session: Value, extra: Map<String, Value>) -> Result<Value, AuthError> {
        if !self.has_session {
            return Ok(session);
        }
        let mut call = extra;
        call.insert("session".into(), session);
        match self.host.call(&Hook::SESSION, Value::Object(call)) {
            Ok(v @ Value::Object(_)) => Ok(v),
            Ok(other) => Err(AuthError::new(
                ErrorType::JWTSessionError,
                format!("the session callback must return an object, got {}", type_name(&other)),
            )),
            Err(e) => Err(AuthError::from_host(e, ErrorType::JWTSessionError)),
        }
    }

    /// Fire an event. Events never break the request: a throw is logged.
    pub fn event(&self, hook: &Hook, message: impl FnOnce() -> Value) {
        let present = match hook.name() {
            "events.signIn" => self.has_event_sign_in,
            "events.signOut" => self.has_event_sign_out,
            "events.session" => self.has_event_session,
            _ => self.host.has(hook),
        };
        if !present {
            return;
        }
        if let Err(e) = self.host.call(hook, message()) {
            self.log(&AuthError::new(ErrorType::EventError, format!("{hook} failed: {}", e.message)).with_source(e));
        }
    }
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
