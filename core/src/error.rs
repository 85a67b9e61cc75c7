//! Error types. `ErrorType` carries the spec's error names (Auth.js v5's
//! `AuthError.type` values); they are stable strings that every binding
//! exposes as `error.type`.

use std::fmt;

/// The error names of Auth.js v5 (plus libauth's `Overloaded`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorType {
    AccessDenied,
    AccountNotLinked,
    AdapterError,
    CallbackRouteError,
    CredentialsSignin,
    EmailSignInError,
    ErrorPageLoop,
    EventError,
    InvalidCallbackUrl,
    InvalidCheck,
    InvalidEndpoints,
    InvalidProviderType,
    JWTSessionError,
    MissingAdapter,
    MissingAdapterMethods,
    MissingAuthorize,
    MissingCSRF,
    MissingSecret,
    OAuthAccountNotLinked,
    OAuthCallbackError,
    OAuthProfileParseError,
    OAuthSignInError,
    SessionTokenError,
    SignOutError,
    UnknownAction,
    UnsupportedStrategy,
    UntrustedHost,
    Verification,
    /// libauth's own: the bound of in-flight requests that need host code
    /// (`hooks.maxInFlight`) is reached; answered 503 with `Retry-After`.
    Overloaded,
    /// libauth's own: a rate limit refused the request; answered 429 with
    /// `Retry-After` (see `ratelimit`).
    RateLimited,
    /// libauth's own: the provider refused the stored refresh token
    /// (`invalid_grant`: revoked, expired or spent), and no newer one is
    /// stored; the user must sign in with the provider again.
    RefreshTokenRevoked,
    /// A passkey registration or assertion failed verification (bad
    /// signature, origin, RP ID, challenge, counter, unknown credential).
    WebAuthnVerificationError,
    /// A `webauthn` provider without `experimental.enableWebAuthn`.
    ExperimentalFeatureNotEnabled,
    /// libauth's own: deleting this passkey would leave the user no way to
    /// sign in.
    LastSignInMethod,
    /// libauth's own: a new password the policy or the host's
    /// `checkPassword` refused; the message says why and may be shown.
    PasswordRefused,
    /// libauth's own: a form's email address is not a valid single address.
    InvalidEmail,
    /// libauth's own: a second-factor code that is wrong, stale or used,
    /// or a second-factor change the user's state does not allow.
    TwoFactorError,
}

impl ErrorType {
    pub const ALL: [ErrorType; 37] = [
        Self::AccessDenied,
        Self::AccountNotLinked,
        Self::AdapterError,
        Self::CallbackRouteError,
        Self::CredentialsSignin,
        Self::EmailSignInError,
        Self::ErrorPageLoop,
        Self::EventError,
        Self::InvalidCallbackUrl,
        Self::InvalidCheck,
        Self::InvalidEndpoints,
        Self::InvalidProviderType,
        Self::JWTSessionError,
        Self::MissingAdapter,
        Self::MissingAdapterMethods,
        Self::MissingAuthorize,
        Self::MissingCSRF,
        Self::MissingSecret,
        Self::OAuthAccountNotLinked,
        Self::OAuthCallbackError,
        Self::OAuthProfileParseError,
        Self::OAuthSignInError,
        Self::SessionTokenError,
        Self::SignOutError,
        Self::UnknownAction,
        Self::UnsupportedStrategy,
        Self::UntrustedHost,
        Self::Verification,
        Self::Overloaded,
        Self::RateLimited,
        Self::RefreshTokenRevoked,
        Self::WebAuthnVerificationError,
        Self::ExperimentalFeatureNotEnabled,
        Self::LastSignInMethod,
        Self::PasswordRefused,
        Self::InvalidEmail,
        Self::TwoFactorError,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::AccessDenied => "AccessDenied",
            Self::AccountNotLinked => "AccountNotLinked",
            Self::AdapterError => "AdapterError",
            Self::CallbackRouteError => "CallbackRouteError",
            Self::CredentialsSignin => "CredentialsSignin",
            Self::EmailSignInError => "EmailSignInError",
            Self::ErrorPageLoop => "ErrorPageLoop",
            Self::EventError => "EventError",
            Self::InvalidCallbackUrl => "InvalidCallbackUrl",
            Self::InvalidCheck => "InvalidCheck",
            Self::InvalidEndpoints => "InvalidEndpoints",
            Self::InvalidProviderType => "InvalidProviderType",
            Self::JWTSessionError => "JWTSessionError",
            Self::MissingAdapter => "MissingAdapter",
            Self::MissingAdapterMethods => "MissingAdapterMethods",
            Self::MissingAuthorize => "MissingAuthorize",
            Self::MissingCSRF => "MissingCSRF",
            Self::MissingSecret => "MissingSecret",
            Self::OAuthAccountNotLinked => "OAuthAccountNotLinked",
            Self::OAuthCallbackError => "OAuthCallbackError",
            Self::OAuthProfileParseError => "OAuthProfileParseError",
            Self::OAuthSignInError => "OAuthSignInError",
            Self::SessionTokenError => "SessionTokenError",
            Self::SignOutError => "SignOutError",
            Self::UnknownAction => "UnknownAction",
            Self::UnsupportedStrategy => "UnsupportedStrategy",
            Self::UntrustedHost => "UntrustedHost",
            Self::Verification => "Verification",
            Self::Overloaded => "Overloaded",
            Self::RateLimited => "RateLimited",
            Self::RefreshTokenRevoked => "RefreshTokenRevoked",
            Self::WebAuthnVerificationError => "WebAuthnVerificationError",
            Self::ExperimentalFeatureNotEnabled => "ExperimentalFeatureNotEnabled",
            Self::LastSignInMethod => "LastSignInMethod",
            Self::PasswordRefused => "PasswordRefused",
            Self::InvalidEmail => "InvalidEmail",
            Self::TwoFactorError => "TwoFactorError",
        }
    }

    pub fn parse(name: &str) -> Option<ErrorType> {
        Self::ALL.into_iter().find(|t| t.as_str() == name)
    }

    /// Errors whose type may be shown to the user (in the `error` query
    /// parameter). Everything else is reported as `Configuration`, so a
    /// server-side failure never leaks its details into a URL.
    pub fn is_client_safe(self) -> bool {
        matches!(
            self,
            Self::CredentialsSignin
                | Self::OAuthAccountNotLinked
                | Self::OAuthCallbackError
                | Self::AccessDenied
                | Self::Verification
                | Self::MissingCSRF
                | Self::AccountNotLinked
                | Self::RateLimited
                | Self::WebAuthnVerificationError
                | Self::PasswordRefused
                | Self::InvalidEmail
        )
    }

    /// Which page an error redirects to: sign-in errors go back to the
    /// sign-in page (the user can try again), the rest to the error page.
    pub fn page(self) -> ErrorPage {
        match self {
            Self::CredentialsSignin
            | Self::OAuthAccountNotLinked
            | Self::OAuthCallbackError
            | Self::OAuthSignInError
            | Self::EmailSignInError
            | Self::MissingCSRF
            | Self::AccountNotLinked => ErrorPage::SignIn,
            _ => ErrorPage::Error,
        }
    }
}

impl fmt::Display for ErrorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorPage {
    SignIn,
    Error,
}

/// An error of the engine, named by its spec type. `code` is set for
/// `CredentialsSignin` (the value placed in the redirect's `code` parameter).
#[derive(Debug, thiserror::Error)]
#[error("{error_type}: {message}")]
pub struct AuthError {
    pub error_type: ErrorType,
    pub message: String,
    pub code: Option<String>,
    #[source]
    pub source: Option<Box<dyn std::error::Error + Send + Sync>>,
}

impl AuthError {
    /// What `get_session` reports when [`crate::Auth::admit`] refused it.
    pub fn overloaded() -> AuthError {
        AuthError::new(ErrorType::Overloaded, "hooks.maxInFlight requests that need host code are in flight")
    }

    /// The error as it crosses to a host: `{ type, message, code? }` (the
    /// binding raises its error class for `type`, with `code` for
    /// `CredentialsSignin`).
    pub fn to_wire(&self) -> serde_json::Value {
        let mut wire = serde_json::json!({ "type": self.error_type.as_str(), "message": self.message });
        if let Some(code) = &self.code {
            wire["code"] = code.clone().into();
        }
        wire
    }

    /// A panic caught at a boundary (the engine's entry points, a binding's
    /// worker): a bug, reported with one wording everywhere.
    pub fn internal() -> AuthError {
        AuthError::new(ErrorType::CallbackRouteError, "internal error in libauth (a bug; please report it)")
    }

    pub fn new(error_type: ErrorType, message: impl Into<String>) -> Self {
        AuthError { error_type, message: message.into(), code: None, source: None }
    }

    pub fn with_source(mut self, source: impl std::error::Error + Send + Sync + 'static) -> Self {
        self.source = Some(Box::new(source));
        self
    }

    /// `CredentialsSignin` with its URL-safe `code` (default `credentials`).
    pub fn credentials_signin(code: Option<String>, message: impl Into<String>) -> Self {
        let mut e = AuthError::new(ErrorType::CredentialsSignin, message);
        e.code = Some(code.unwrap_or_else(|| "credentials".to_owned()));
        e
    }

    /// Turn a failed host hook into the engine error it stands for: a hook
    /// that threw one of our error types keeps it; anything else becomes
    /// `fallback` with the hook's message.
    pub fn from_host(err: HostError, fallback: ErrorType) -> Self {
        let error_type = err.error_type.as_deref().and_then(ErrorType::parse).unwrap_or(fallback);
        let mut e = AuthError::new(error_type, err.message.clone());
        if error_type == ErrorType::CredentialsSignin {
            e.code = Some(err.code.clone().unwrap_or_else(|| "credentials".to_owned()));
        }
        e.source = Some(Box::new(err));
        e
    }
}

/// An error raised by host code (a callback, event, authorize function,
/// adapter method...). `error_type` is the name of the host error class when
/// it is one of ours (e.g. `CredentialsSignin`), and `code` its code.
#[derive(Debug, Clone, thiserror::Error, serde::Serialize, serde::Deserialize)]
#[error("{message}")]
pub struct HostError {
    pub message: String,
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub error_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

impl HostError {
    pub fn new(message: impl Into<String>) -> Self {
        HostError { message: message.into(), error_type: None, code: None }
    }

    pub fn typed(error_type: &str, message: impl Into<String>) -> Self {
        HostError { message: message.into(), error_type: Some(error_type.to_owned()), code: None }
    }
}

/// A configuration the engine refuses at construction. `option` names the
/// offending option in the spec's spelling (e.g. `secret`, `providers[1].type`).
///
/// `kind` is the Auth.js error type when one applies (`MissingSecret`,
/// `MissingAuthorize`, `MissingAdapter`, …); `None` is a plain invalid
/// option. Bindings carry both fields as fields, never inside the message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid option `{option}`: {message}")]
pub struct ConfigError {
    pub option: String,
    pub message: String,
    pub kind: Option<ErrorType>,
}

impl ConfigError {
    pub fn new(option: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError { option: option.into(), message: message.into(), kind: None }
    }

    pub fn with_kind(mut self, kind: ErrorType) -> Self {
        self.kind = Some(kind);
        self
    }

    /// The error's type name for bindings: the kind, or `Configuration`.
    pub fn type_name(&self) -> &'static str {
        self.kind.map(ErrorType::as_str).unwrap_or("Configuration")
    }
}
