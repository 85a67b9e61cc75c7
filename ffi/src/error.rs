//! Result codes and the error object: the one error-conversion module of the
//! C binding. Engine error types map to codes variant by variant; the
//! message, the type name and (for a refused configuration) the option
//! travel in an `auth_error`.

use std::ffi::{c_char, CStr, CString};

use libauth_core::{AuthError, ConfigError, ErrorType};

/// What every `auth_*` function returns. `AUTH_OK` is success; codes below
/// 100 are misuse of the C API (checked before the engine runs); codes from
/// 100 are the engine's error types (`auth_error_type` gives the name, as
/// `error.type` in the other bindings). Values are stable.
#[allow(non_camel_case_types)]
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum auth_result {
    AUTH_OK = 0,
    /// A required pointer argument was NULL.
    AUTH_NULL_ARGUMENT = 1,
    /// A length no buffer can have (over `PTRDIFF_MAX`).
    AUTH_INVALID_LENGTH = 2,
    /// The input is not UTF-8.
    AUTH_INVALID_UTF8 = 3,
    /// The input is not JSON, or not JSON of the documented shape (a
    /// request whose `url` is not absolute; a hook result that is not JSON).
    AUTH_INVALID_JSON = 4,
    /// A bug in libauth (a Rust panic, caught at the boundary).
    AUTH_INTERNAL_ERROR = 5,
    /// An invalid configuration option (type `Configuration`).
    AUTH_CONFIGURATION = 100,
    AUTH_ACCESS_DENIED = 101,
    AUTH_ACCOUNT_NOT_LINKED = 102,
    AUTH_ADAPTER_ERROR = 103,
    AUTH_CALLBACK_ROUTE_ERROR = 104,
    AUTH_CREDENTIALS_SIGNIN = 105,
    AUTH_EMAIL_SIGN_IN_ERROR = 106,
    AUTH_ERROR_PAGE_LOOP = 107,
    AUTH_EVENT_ERROR = 108,
    AUTH_INVALID_CALLBACK_URL = 109,
    AUTH_INVALID_CHECK = 110,
    AUTH_INVALID_ENDPOINTS = 111,
    AUTH_INVALID_PROVIDER_TYPE = 112,
    AUTH_JWT_SESSION_ERROR = 113,
    AUTH_MISSING_ADAPTER = 114,
    AUTH_MISSING_ADAPTER_METHODS = 115,
    AUTH_MISSING_AUTHORIZE = 116,
    AUTH_MISSING_CSRF = 117,
    AUTH_MISSING_SECRET = 118,
    AUTH_OAUTH_ACCOUNT_NOT_LINKED = 119,
    AUTH_OAUTH_CALLBACK_ERROR = 120,
    AUTH_OAUTH_PROFILE_PARSE_ERROR = 121,
    AUTH_OAUTH_SIGN_IN_ERROR = 122,
    AUTH_SESSION_TOKEN_ERROR = 123,
    AUTH_SIGN_OUT_ERROR = 124,
    AUTH_UNKNOWN_ACTION = 125,
    AUTH_UNSUPPORTED_STRATEGY = 126,
    AUTH_UNTRUSTED_HOST = 127,
    AUTH_VERIFICATION = 128,
    /// `hooks.maxInFlight` requests that may call host code are in flight.
    AUTH_OVERLOADED = 129,
    /// A rate limit refused the request (429 with `Retry-After` from
    /// `auth_handle`).
    AUTH_RATE_LIMITED = 130,
    /// The provider refused the stored refresh token (`auth_get_access_token`):
    /// the user must sign in with the provider again.
    AUTH_REFRESH_TOKEN_REVOKED = 131,
    /// A passkey registration or assertion failed verification.
    AUTH_WEB_AUTHN_VERIFICATION_ERROR = 132,
    /// A `webauthn` provider without `experimental.enableWebAuthn`.
    AUTH_EXPERIMENTAL_FEATURE_NOT_ENABLED = 133,
    /// Deleting this passkey would leave the user no way to sign in.
    AUTH_LAST_SIGN_IN_METHOD = 134,
    /// A new password was refused (too short or long, or by the host's
    /// `checkPassword`); the message says why.
    AUTH_PASSWORD_REFUSED = 135,
    /// A form's email address is not a valid single address.
    AUTH_INVALID_EMAIL = 136,
    /// A second-factor code that is wrong, stale or used, or a change the
    /// user's second factor does not allow.
    AUTH_TWO_FACTOR_ERROR = 137,
}

use auth_result::*;

impl auth_result {
    /// The code of an engine error type.
    pub fn of(t: ErrorType) -> auth_result {
        match t {
            ErrorType::AccessDenied => AUTH_ACCESS_DENIED,
            ErrorType::AccountNotLinked => AUTH_ACCOUNT_NOT_LINKED,
            ErrorType::AdapterError => AUTH_ADAPTER_ERROR,
            ErrorType::CallbackRouteError => AUTH_CALLBACK_ROUTE_ERROR,
            ErrorType::CredentialsSignin => AUTH_CREDENTIALS_SIGNIN,
            ErrorType::EmailSignInError => AUTH_EMAIL_SIGN_IN_ERROR,
            ErrorType::ErrorPageLoop => AUTH_ERROR_PAGE_LOOP,
            ErrorType::EventError => AUTH_EVENT_ERROR,
            ErrorType::InvalidCallbackUrl => AUTH_INVALID_CALLBACK_URL,
            ErrorType::InvalidCheck => AUTH_INVALID_CHECK,
            ErrorType::InvalidEndpoints => AUTH_INVALID_ENDPOINTS,
            ErrorType::InvalidProviderType => AUTH_INVALID_PROVIDER_TYPE,
            ErrorType::JWTSessionError => AUTH_JWT_SESSION_ERROR,
            ErrorType::MissingAdapter => AUTH_MISSING_ADAPTER,
            ErrorType::MissingAdapterMethods => AUTH_MISSING_ADAPTER_METHODS,
            ErrorType::MissingAuthorize => AUTH_MISSING_AUTHORIZE,
            ErrorType::MissingCSRF => AUTH_MISSING_CSRF,
            ErrorType::MissingSecret => AUTH_MISSING_SECRET,
            ErrorType::OAuthAccountNotLinked => AUTH_OAUTH_ACCOUNT_NOT_LINKED,
            ErrorType::OAuthCallbackError => AUTH_OAUTH_CALLBACK_ERROR,
            ErrorType::OAuthProfileParseError => AUTH_OAUTH_PROFILE_PARSE_ERROR,
            ErrorType::OAuthSignInError => AUTH_OAUTH_SIGN_IN_ERROR,
            ErrorType::SessionTokenError => AUTH_SESSION_TOKEN_ERROR,
            ErrorType::SignOutError => AUTH_SIGN_OUT_ERROR,
            ErrorType::UnknownAction => AUTH_UNKNOWN_ACTION,
            ErrorType::UnsupportedStrategy => AUTH_UNSUPPORTED_STRATEGY,
            ErrorType::UntrustedHost => AUTH_UNTRUSTED_HOST,
            ErrorType::Verification => AUTH_VERIFICATION,
            ErrorType::Overloaded => AUTH_OVERLOADED,
            ErrorType::RateLimited => AUTH_RATE_LIMITED,
            ErrorType::RefreshTokenRevoked => AUTH_REFRESH_TOKEN_REVOKED,
            ErrorType::WebAuthnVerificationError => AUTH_WEB_AUTHN_VERIFICATION_ERROR,
            ErrorType::ExperimentalFeatureNotEnabled => AUTH_EXPERIMENTAL_FEATURE_NOT_ENABLED,
            ErrorType::LastSignInMethod => AUTH_LAST_SIGN_IN_METHOD,
            ErrorType::PasswordRefused => AUTH_PASSWORD_REFUSED,
            ErrorType::InvalidEmail => AUTH_INVALID_EMAIL,
            ErrorType::TwoFactorError => AUTH_TWO_FACTOR_ERROR,
        }
    }

    /// The type name of a code: the engine's error type (`CredentialsSignin`),
    /// `Configuration`, or the C API's own (`NullArgument`, …).
    pub fn c_name(self) -> &'static CStr {
        match self {
            AUTH_OK => c"Ok",
            AUTH_NULL_ARGUMENT => c"NullArgument",
            AUTH_INVALID_LENGTH => c"InvalidLength",
            AUTH_INVALID_UTF8 => c"InvalidUtf8",
            AUTH_INVALID_JSON => c"InvalidJson",
            AUTH_INTERNAL_ERROR => c"InternalError",
            AUTH_CONFIGURATION => c"Configuration",
            AUTH_ACCESS_DENIED => c"AccessDenied",
            AUTH_ACCOUNT_NOT_LINKED => c"AccountNotLinked",
            AUTH_ADAPTER_ERROR => c"AdapterError",
            AUTH_CALLBACK_ROUTE_ERROR => c"CallbackRouteError",
            AUTH_CREDENTIALS_SIGNIN => c"CredentialsSignin",
            AUTH_EMAIL_SIGN_IN_ERROR => c"EmailSignInError",
            AUTH_ERROR_PAGE_LOOP => c"ErrorPageLoop",
            AUTH_EVENT_ERROR => c"EventError",
            AUTH_INVALID_CALLBACK_URL => c"InvalidCallbackUrl",
            AUTH_INVALID_CHECK => c"InvalidCheck",
            AUTH_INVALID_ENDPOINTS => c"InvalidEndpoints",
            AUTH_INVALID_PROVIDER_TYPE => c"InvalidProviderType",
            AUTH_JWT_SESSION_ERROR => c"JWTSessionError",
            AUTH_MISSING_ADAPTER => c"MissingAdapter",
            AUTH_MISSING_ADAPTER_METHODS => c"MissingAdapterMethods",
            AUTH_MISSING_AUTHORIZE => c"MissingAuthorize",
            AUTH_MISSING_CSRF => c"MissingCSRF",
            AUTH_MISSING_SECRET => c"MissingSecret",
            AUTH_OAUTH_ACCOUNT_NOT_LINKED => c"OAuthAccountNotLinked",
            AUTH_OAUTH_CALLBACK_ERROR => c"OAuthCallbackError",
            AUTH_OAUTH_PROFILE_PARSE_ERROR => c"OAuthProfileParseError",
            AUTH_OAUTH_SIGN_IN_ERROR => c"OAuthSignInError",
            AUTH_SESSION_TOKEN_ERROR => c"SessionTokenError",
            AUTH_SIGN_OUT_ERROR => c"SignOutError",
            AUTH_UNKNOWN_ACTION => c"UnknownAction",
            AUTH_UNSUPPORTED_STRATEGY => c"UnsupportedStrategy",
            AUTH_UNTRUSTED_HOST => c"UntrustedHost",
            AUTH_VERIFICATION => c"Verification",
            AUTH_OVERLOADED => c"Overloaded",
            AUTH_RATE_LIMITED => c"RateLimited",
            AUTH_REFRESH_TOKEN_REVOKED => c"RefreshTokenRevoked",
            AUTH_WEB_AUTHN_VERIFICATION_ERROR => c"WebAuthnVerificationError",
            AUTH_EXPERIMENTAL_FEATURE_NOT_ENABLED => c"ExperimentalFeatureNotEnabled",
            AUTH_LAST_SIGN_IN_METHOD => c"LastSignInMethod",
            AUTH_PASSWORD_REFUSED => c"PasswordRefused",
            AUTH_INVALID_EMAIL => c"InvalidEmail",
            AUTH_TWO_FACTOR_ERROR => c"TwoFactorError",
        }
    }

    /// The code with this value, if any (C may pass any integer).
    pub fn from_code(code: i32) -> Option<auth_result> {
        const OWN: [auth_result; 7] = [
            AUTH_OK,
            AUTH_NULL_ARGUMENT,
            AUTH_INVALID_LENGTH,
            AUTH_INVALID_UTF8,
            AUTH_INVALID_JSON,
            AUTH_INTERNAL_ERROR,
            AUTH_CONFIGURATION,
        ];
        OWN.into_iter().chain(ErrorType::ALL.into_iter().map(auth_result::of)).find(|c| *c as i32 == code)
    }

    pub fn name(self) -> &'static str {
        self.c_name().to_str().unwrap_or("Unknown")
    }
}

/// An error: a code, a message, the type name, and for a refused
/// configuration the option. Opaque; read it with `auth_error_*`, release it
/// with `auth_error_free`.
pub struct auth_error {
    pub(crate) code: auth_result,
    message: CString,
    type_name: CString,
    option: Option<CString>,
}

/// A C string from any text: an interior NUL (the input may hold one)
/// becomes U+FFFD, so nothing is cut short or lost.
pub(crate) fn c_string(s: &str) -> CString {
    CString::new(s.replace('\0', "\u{FFFD}")).unwrap_or_default()
}

/// A failure on its way out of an entry point.
#[derive(Debug)]
pub(crate) struct Failure {
    pub code: auth_result,
    pub message: String,
    pub option: Option<String>,
}

impl Failure {
    pub fn new(code: auth_result, message: impl Into<String>) -> Failure {
        Failure { code, message: message.into(), option: None }
    }

    pub fn into_error(self) -> auth_error {
        auth_error {
            code: self.code,
            type_name: c_string(self.code.name()),
            message: c_string(&self.message),
            option: self.option.as_deref().map(c_string),
        }
    }
}

impl From<ConfigError> for Failure {
    fn from(e: ConfigError) -> Failure {
        let code = e.kind.map(auth_result::of).unwrap_or(AUTH_CONFIGURATION);
        Failure { code, message: e.to_string(), option: Some(e.option) }
    }
}

impl From<AuthError> for Failure {
    fn from(e: AuthError) -> Failure {
        Failure::new(auth_result::of(e.error_type), e.to_string())
    }
}

impl auth_error {
    pub(crate) fn message_ptr(&self) -> *const c_char {
        self.message.as_ptr()
    }
    pub(crate) fn type_ptr(&self) -> *const c_char {
        self.type_name.as_ptr()
    }
    pub(crate) fn option_ptr(&self) -> *const c_char {
        self.option.as_ref().map_or(std::ptr::null(), |o| o.as_ptr())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_type_has_its_own_code_and_name() {
        let mut codes = std::collections::HashSet::new();
        for t in ErrorType::ALL {
            let code = auth_result::of(t);
            assert!(codes.insert(code as i32), "{t} shares a code");
            assert!(code as i32 > 100);
            assert_eq!(code.name(), t.as_str());
        }
        assert_eq!(AUTH_CONFIGURATION.name(), "Configuration");
    }

    #[test]
    fn a_config_error_keeps_kind_and_option() {
        let f = Failure::from(ConfigError::new("secret", "too short").with_kind(ErrorType::MissingSecret));
        assert_eq!(f.code, AUTH_MISSING_SECRET);
        assert_eq!(f.option.as_deref(), Some("secret"));
        let f = Failure::from(ConfigError::new("basePath", "bad"));
        assert_eq!(f.code, AUTH_CONFIGURATION);
    }

    #[test]
    fn messages_with_nul_survive() {
        assert_eq!(c_string("a\0b").to_str().unwrap(), "a\u{FFFD}b");
    }
}
