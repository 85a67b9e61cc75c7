//! The one interface through which the engine reaches host code: callbacks,
//! events, a credentials `authorize`, an email sender, a host database
//! adapter, a logger. Bindings implement [`Host`] over their language's
//! functions; Rust users can use [`HookMap`].

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::error::HostError;

/// A hook name: a stable string such as `callbacks.signIn`,
/// `events.signOut`, `providers.credentials.authorize`, `adapter.getUser`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Hook(Cow<'static, str>);

impl Hook {
    pub const SIGN_IN: Hook = Hook::fixed("callbacks.signIn");
    pub const REDIRECT: Hook = Hook::fixed("callbacks.redirect");
    pub const JWT: Hook = Hook::fixed("callbacks.jwt");
    pub const SESSION: Hook = Hook::fixed("callbacks.session");

    pub const EVENT_SIGN_IN: Hook = Hook::fixed("events.signIn");
    pub const EVENT_SIGN_OUT: Hook = Hook::fixed("events.signOut");
    pub const EVENT_CREATE_USER: Hook = Hook::fixed("events.createUser");
    pub const EVENT_UPDATE_USER: Hook = Hook::fixed("events.updateUser");
    pub const EVENT_LINK_ACCOUNT: Hook = Hook::fixed("events.linkAccount");
    pub const EVENT_SESSION: Hook = Hook::fixed("events.session");
    pub const EVENT_RATE_LIMITED: Hook = Hook::fixed("events.rateLimited");
    pub const EVENT_REFRESH_TOKEN_REVOKED: Hook = Hook::fixed("events.refreshTokenRevoked");
    pub const EVENT_EMAIL_VERIFIED: Hook = Hook::fixed("events.emailVerified");
    pub const EVENT_PASSWORD_RESET: Hook = Hook::fixed("events.passwordReset");
    pub const EVENT_PASSWORD_CHANGED: Hook = Hook::fixed("events.passwordChanged");
    pub const EVENT_EMAIL_CHANGED: Hook = Hook::fixed("events.emailChanged");
    pub const EVENT_ACCOUNT_DELETED: Hook = Hook::fixed("events.accountDeleted");
    pub const EVENT_SESSIONS_ENDED: Hook = Hook::fixed("events.sessionsEnded");
    pub const EVENT_TWO_FACTOR_ENABLED: Hook = Hook::fixed("events.twoFactorEnabled");
    pub const EVENT_TWO_FACTOR_DISABLED: Hook = Hook::fixed("events.twoFactorDisabled");
    pub const EVENT_RECOVERY_CODE_USED: Hook = Hook::fixed("events.recoveryCodeUsed");

    pub const JWT_ENCODE: Hook = Hook::fixed("jwt.encode");
    pub const JWT_DECODE: Hook = Hook::fixed("jwt.decode");
    pub const GENERATE_SESSION_TOKEN: Hook = Hook::fixed("session.generateSessionToken");

    pub const LOGGER_ERROR: Hook = Hook::fixed("logger.error");
    pub const LOGGER_WARN: Hook = Hook::fixed("logger.warn");
    pub const LOGGER_DEBUG: Hook = Hook::fixed("logger.debug");

    /// Every hook whose name does not depend on a provider or an adapter method.
    pub const FIXED: [Hook; 27] = [
        Hook::SIGN_IN,
        Hook::REDIRECT,
        Hook::JWT,
        Hook::SESSION,
        Hook::EVENT_SIGN_IN,
        Hook::EVENT_SIGN_OUT,
        Hook::EVENT_CREATE_USER,
        Hook::EVENT_UPDATE_USER,
        Hook::EVENT_LINK_ACCOUNT,
        Hook::EVENT_SESSION,
        Hook::EVENT_RATE_LIMITED,
        Hook::EVENT_REFRESH_TOKEN_REVOKED,
        Hook::EVENT_EMAIL_VERIFIED,
        Hook::EVENT_PASSWORD_RESET,
        Hook::EVENT_PASSWORD_CHANGED,
        Hook::EVENT_EMAIL_CHANGED,
        Hook::EVENT_ACCOUNT_DELETED,
        Hook::EVENT_SESSIONS_ENDED,
        Hook::EVENT_TWO_FACTOR_ENABLED,
        Hook::EVENT_TWO_FACTOR_DISABLED,
        Hook::EVENT_RECOVERY_CODE_USED,
        Hook::JWT_ENCODE,
        Hook::JWT_DECODE,
        Hook::GENERATE_SESSION_TOKEN,
        Hook::LOGGER_ERROR,
        Hook::LOGGER_WARN,
        Hook::LOGGER_DEBUG,
    ];

    const fn fixed(name: &'static str) -> Hook {
        Hook(Cow::Borrowed(name))
    }

    /// A hook by its name (as a binding registers it).
    pub fn named(name: impl Into<String>) -> Hook {
        Hook(Cow::Owned(name.into()))
    }

    /// `providers.<id>.<method>`: `authorize`, `sendVerificationRequest`, `profile`.
    pub fn provider(provider_id: &str, method: &str) -> Hook {
        Hook(Cow::Owned(format!("providers.{provider_id}.{method}")))
    }

    /// `adapter.<method>` of a host-implemented database adapter.
    pub fn adapter(method: &str) -> Hook {
        Hook(Cow::Owned(format!("adapter.{method}")))
    }

    pub fn name(&self) -> &str {
        &self.0
    }
}

/// Every kind of hook the engine calls. A binding registers hooks by name;
/// [`HookKind::parse`] is the one place a name is understood, and
/// `Auth::new` refuses any registered name it does not know
/// (`callbacks.sesion` is an `InvalidConfig` naming that option, not a
/// callback silently never called).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookKind {
    /// `callbacks.signIn`, `callbacks.redirect`, `callbacks.jwt`, `callbacks.session`.
    Callback(Callback),
    /// `events.<name>`.
    Event(Event),
    /// `providers.<id>.<method>`.
    Provider {
        id: String,
        method: ProviderMethod,
    },
    /// `adapter.<method>` of a host adapter (a name in [`crate::store::METHODS`]
    /// or [`crate::store::AUTHENTICATOR_METHODS`]).
    Adapter(String),
    /// `logger.error`, `logger.warn`, `logger.debug`.
    Logger(LogLevel),
    /// `jwt.encode` / `jwt.decode`: a custom session-token codec.
    JwtEncode,
    JwtDecode,
    /// `session.generateSessionToken`.
    GenerateSessionToken,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Callback {
    SignIn,
    Redirect,
    Jwt,
    Session,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Event {
    SignIn,
    SignOut,
    CreateUser,
    UpdateUser,
    LinkAccount,
    Session,
    /// A request refused by a rate limit: `{ route, key, limit, window, retryAfter }`.
    RateLimited,
    /// The provider refused a stored refresh token: `{ userId, provider, providerAccountId }`.
    RefreshTokenRevoked,
    /// A password account's address was proven by its link: `{ user }`.
    EmailVerified,
    /// A password was set through a reset link: `{ user }`.
    PasswordReset,
    /// A signed-in user changed their password: `{ user }`.
    PasswordChanged,
    /// A user's address changed, proven at the new one: `{ user, previousEmail }`.
    EmailChanged,
    /// A user deleted their own account: `{ user }`.
    AccountDeleted,
    /// Sessions of a user were ended from their list, by the server or a
    /// password change: `{ userId, ended, scope, before? }` (`scope`:
    /// `one`, `others`, `all`; `before` for JWT sessions).
    SessionsEnded,
    /// A user turned a TOTP second factor on: `{ userId }`.
    TwoFactorEnabled,
    /// A user turned it off: `{ userId }`.
    TwoFactorDisabled,
    /// A recovery code was used: `{ userId, left }`.
    RecoveryCodeUsed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderMethod {
    /// Credentials providers.
    Authorize,
    /// Email providers.
    SendVerificationRequest,
    /// OAuth / OIDC providers: map the provider's profile to a user.
    Profile,
    /// Passkey providers: who is signing in (`{ user, exists }` or null).
    GetUserInfo,
    /// Password providers: mail a link or a notice (`{ kind, to, url?, … }`).
    SendEmail,
    /// Password providers: refuse a new password (a message) or accept it (null).
    CheckPassword,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogLevel {
    Error,
    Warn,
    Debug,
}

impl HookKind {
    /// The kind of hook `name` is, or `None` for a name the engine never calls.
    pub fn parse(name: &str) -> Option<HookKind> {
        let (group, rest) = name.split_once('.')?;
        Some(match (group, rest) {
            ("callbacks", "signIn") => HookKind::Callback(Callback::SignIn),
            ("callbacks", "redirect") => HookKind::Callback(Callback::Redirect),
            ("callbacks", "jwt") => HookKind::Callback(Callback::Jwt),
            ("callbacks", "session") => HookKind::Callback(Callback::Session),
            ("events", "signIn") => HookKind::Event(Event::SignIn),
            ("events", "signOut") => HookKind::Event(Event::SignOut),
            ("events", "createUser") => HookKind::Event(Event::CreateUser),
            ("events", "updateUser") => HookKind::Event(Event::UpdateUser),
            ("events", "linkAccount") => HookKind::Event(Event::LinkAccount),
            ("events", "session") => HookKind::Event(Event::Session),
            ("events", "rateLimited") => HookKind::Event(Event::RateLimited),
            ("events", "refreshTokenRevoked") => HookKind::Event(Event::RefreshTokenRevoked),
            ("events", "emailVerified") => HookKind::Event(Event::EmailVerified),
            ("events", "passwordReset") => HookKind::Event(Event::PasswordReset),
            ("events", "passwordChanged") => HookKind::Event(Event::PasswordChanged),
            ("events", "emailChanged") => HookKind::Event(Event::EmailChanged),
            ("events", "accountDeleted") => HookKind::Event(Event::AccountDeleted),
            ("events", "sessionsEnded") => HookKind::Event(Event::SessionsEnded),
            ("events", "twoFactorEnabled") => HookKind::Event(Event::TwoFactorEnabled),
            ("events", "twoFactorDisabled") => HookKind::Event(Event::TwoFactorDisabled),
            ("events", "recoveryCodeUsed") => HookKind::Event(Event::RecoveryCodeUsed),
            ("logger", "error") => HookKind::Logger(LogLevel::Error),
            ("logger", "warn") => HookKind::Logger(LogLevel::Warn),
            ("logger", "debug") => HookKind::Logger(LogLevel::Debug),
            ("jwt", "encode") => HookKind::JwtEncode,
            ("jwt", "decode") => HookKind::JwtDecode,
            ("session", "generateSessionToken") => HookKind::GenerateSessionToken,
            ("adapter", method)
                if crate::store::METHODS.contains(&method)
                    || crate::store::AUTHENTICATOR_METHODS.contains(&method)
                    || crate::store::ACCOUNT_METHODS.contains(&method) =>
            {
                HookKind::Adapter(method.to_owned())
            }
            ("providers", rest) => {
                let (id, method) = rest.rsplit_once('.')?;
                let method = match method {
                    "authorize" => ProviderMethod::Authorize,
                    "sendVerificationRequest" => ProviderMethod::SendVerificationRequest,
                    "profile" => ProviderMethod::Profile,
                    "getUserInfo" => ProviderMethod::GetUserInfo,
                    "sendEmail" => ProviderMethod::SendEmail,
                    "checkPassword" => ProviderMethod::CheckPassword,
                    _ => return None,
                };
                (!id.is_empty()).then_some(())?;
                HookKind::Provider { id: id.to_owned(), method }
            }
            _ => return None,
        })
    }

    /// Whether calling this hook can be part of reading a session (the
    /// engine's hookless rule: a session read with none of these runs
    /// inline, with no thread hop).
    pub fn reached_by_session_reads(&self) -> bool {
        matches!(
            self,
            HookKind::Callback(Callback::Jwt | Callback::Session)
                | HookKind::Event(Event::Session)
                | HookKind::JwtEncode
                | HookKind::JwtDecode
                | HookKind::Logger(_)
                | HookKind::Adapter(_)
        )
    }

    /// Whether calling this hook can be part of rendering a built-in page
    /// (`signin`, `signout`, `error`, `verify-request`): the redirect
    /// callback (for `callbackUrl`) and the logger.
    pub fn reached_by_pages(&self) -> bool {
        matches!(self, HookKind::Callback(Callback::Redirect) | HookKind::Logger(_))
    }
}

/// What the engine expects under each group of hook names, for errors.
pub(crate) fn known_hooks_hint(name: &str) -> &'static str {
    match name.split('.').next().unwrap_or_default() {
        "callbacks" => "the callbacks are signIn, redirect, jwt and session",
        "events" => "the events are signIn, signOut, createUser, updateUser, linkAccount, session, rateLimited, refreshTokenRevoked, emailVerified, passwordReset, passwordChanged, emailChanged, accountDeleted and sessionsEnded",
        "logger" => "the logger's levels are error, warn and debug",
        "jwt" => "the jwt functions are encode and decode",
        "session" => "the session function is generateSessionToken",
        "adapter" => "not an adapter method libauth calls",
        "providers" => {
            "provider functions are authorize (credentials), sendVerificationRequest (email), profile (oauth/oidc), getUserInfo (webauthn), sendEmail and checkPassword (password)"
        }
        _ => "not a hook libauth calls",
    }
}

impl std::fmt::Display for Hook {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Host code, as the engine sees it. `call` runs synchronously on the thread
/// that handles the request; a binding whose hooks are asynchronous waits for
/// them there. Arguments and results are JSON with the spec's field names.
pub trait Host: Send + Sync {
    /// Whether the host implements this hook. Asked once per hook when the
    /// `Auth` is built, so it may be slow; the answer must not change.
    fn has(&self, hook: &Hook) -> bool;
    fn call(&self, hook: &Hook, args: Value) -> Result<Value, HostError>;

    /// Every hook name the host registered, when it can list them (a
    /// binding always can). `Auth::new` refuses names it does not know.
    fn hook_names(&self) -> Option<Vec<String>> {
        None
    }

    /// `call`, answered within `timeout`: past it, [`timed_out`],
    /// and a late result is dropped. The engine calls every hook this way,
    /// with the hook's deadline (`hooks.timeout`, `hooks.timeouts`).
    ///
    /// The default runs `call` on this thread and discards a result that
    /// came too late: right for hooks that cannot hang (Rust closures, C
    /// functions that bound their own I/O). A binding whose hooks run
    /// elsewhere (a JavaScript or asyncio event loop) overrides it to stop
    /// waiting at the deadline.
    fn call_with_timeout(&self, hook: &Hook, args: Value, timeout: Duration) -> Result<Value, HostError> {
        let started = Instant::now();
        let result = self.call(hook, args);
        if started.elapsed() > timeout {
            return Err(timed_out(hook, timeout));
        }
        result
    }
}

/// The host as the engine holds it: every call goes through
/// [`Host::call_with_timeout`] with that hook's deadline.
pub(crate) struct TimedHost {
    inner: Arc<dyn Host>,
    default: Duration,
    per_hook: HashMap<String, Duration>,
}

impl TimedHost {
    pub(crate) fn new(inner: Arc<dyn Host>, default: Duration, per_hook: HashMap<String, Duration>) -> TimedHost {
        TimedHost { inner, default, per_hook }
    }
}

impl Host for TimedHost {
    fn has(&self, hook: &Hook) -> bool {
        self.inner.has(hook)
    }

    fn hook_names(&self) -> Option<Vec<String>> {
        self.inner.hook_names()
    }

    fn call(&self, hook: &Hook, args: Value) -> Result<Value, HostError> {
        let timeout = self.per_hook.get(hook.name()).copied().unwrap_or(self.default);
        self.inner.call_with_timeout(hook, args, timeout)
    }
}

/// A host with no hooks: every callback keeps its default behaviour.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoHooks;

impl Host for NoHooks {
    fn has(&self, _: &Hook) -> bool {
        false
    }
    fn hook_names(&self) -> Option<Vec<String>> {
        Some(Vec::new())
    }
    fn call(&self, hook: &Hook, _: Value) -> Result<Value, HostError> {
        Err(HostError::new(format!("hook {hook} is not registered by the host")))
    }
}

type HookFn = Box<dyn Fn(Value) -> Result<Value, HostError> + Send + Sync>;

/// Hooks as Rust closures, for Rust applications and tests.
///
/// ```
/// use libauth_core::{HookMap, Host, Hook};
/// let hooks = HookMap::new().on("callbacks.signIn", |_args| Ok(serde_json::json!(true)));
/// assert!(hooks.has(&Hook::SIGN_IN));
/// ```
#[derive(Default)]
pub struct HookMap {
    hooks: HashMap<String, HookFn>,
}

impl HookMap {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn on(mut self, name: &str, f: impl Fn(Value) -> Result<Value, HostError> + Send + Sync + 'static) -> Self {
        self.hooks.insert(name.to_owned(), Box::new(f));
        self
    }
}

impl Host for HookMap {
    fn has(&self, hook: &Hook) -> bool {
        self.hooks.contains_key(hook.name())
    }

    fn hook_names(&self) -> Option<Vec<String>> {
        Some(self.hooks.keys().cloned().collect())
    }

    fn call(&self, hook: &Hook, args: Value) -> Result<Value, HostError> {
        match self.hooks.get(hook.name()) {
            Some(f) => f(args),
            None => Err(HostError::new(format!("hook {hook} is not registered by the host"))),
        }
    }
}

/// The hook did not answer within its deadline. Untyped on purpose: the
/// engine treats it as that hook throwing (AccessDenied for signIn, the
/// error page for authorize, …), and the message names the hook.
pub fn timed_out(hook: &Hook, timeout: std::time::Duration) -> HostError {
    HostError::new(format!("{hook} did not answer within {} ms (hooks.timeout)", timeout.as_millis()))
}
