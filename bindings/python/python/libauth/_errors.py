"""libauth's exception classes. ``type`` names the error (Auth.js v5's
``AuthError.type`` values); ``CredentialsSignin.code`` goes into the redirect
URL, so it must not reveal anything sensitive."""

from __future__ import annotations

import json
from typing import Any, Dict, List, Optional, Type


class AuthError(Exception):
    """Base class of every libauth error; ``type`` is the engine's error type."""

    type: str = "AuthError"

    def __init__(self, message: str = "", *, type: Optional[str] = None) -> None:
        super().__init__(message)
        self.message = message
        if type is not None:
            self.type = type


class AccessDenied(AuthError):
    type = "AccessDenied"


class AccountNotLinked(AuthError):
    type = "AccountNotLinked"


class AdapterError(AuthError):
    type = "AdapterError"


class CallbackRouteError(AuthError):
    type = "CallbackRouteError"


class CredentialsSignin(AuthError):
    """Raise from a credentials provider's ``authorize`` to refuse a sign-in.
    ``code`` is placed in the ``code`` query parameter of the redirect: keep
    it generic."""

    type = "CredentialsSignin"

    def __init__(self, message: str = "", *, code: str = "credentials") -> None:
        super().__init__(message)
        self.code = code


class EmailSignInError(AuthError):
    type = "EmailSignInError"


class ErrorPageLoop(AuthError):
    type = "ErrorPageLoop"


class EventError(AuthError):
    type = "EventError"


class InvalidCallbackUrl(AuthError):
    type = "InvalidCallbackUrl"


class InvalidCheck(AuthError):
    type = "InvalidCheck"


class InvalidEndpoints(AuthError):
    type = "InvalidEndpoints"


class InvalidProviderType(AuthError):
    type = "InvalidProviderType"


class JWTSessionError(AuthError):
    type = "JWTSessionError"


class MissingAdapter(AuthError):
    type = "MissingAdapter"


class MissingAdapterMethods(AuthError):
    type = "MissingAdapterMethods"


class MissingAuthorize(AuthError):
    type = "MissingAuthorize"


class MissingCSRF(AuthError):
    type = "MissingCSRF"


class MissingSecret(AuthError):
    type = "MissingSecret"


class OAuthAccountNotLinked(AuthError):
    type = "OAuthAccountNotLinked"


class OAuthCallbackError(AuthError):
    type = "OAuthCallbackError"


class OAuthProfileParseError(AuthError):
    type = "OAuthProfileParseError"


class OAuthSignInError(AuthError):
    type = "OAuthSignInError"


class SessionTokenError(AuthError):
    type = "SessionTokenError"


class SignOutError(AuthError):
    type = "SignOutError"


class UnknownAction(AuthError):
    type = "UnknownAction"


class UnsupportedStrategy(AuthError):
    type = "UnsupportedStrategy"


class UntrustedHost(AuthError):
    type = "UntrustedHost"


class Verification(AuthError):
    type = "Verification"


class Overloaded(AuthError):
    """``hooks.maxInFlight`` requests that need host code are in flight."""

    type = "Overloaded"


class RefreshTokenRevoked(AuthError):
    """The provider refused the stored refresh token (revoked, expired or
    spent): the user must sign in with the provider again."""

    type = "RefreshTokenRevoked"


class WebAuthnVerificationError(AuthError):
    """A passkey registration or sign-in failed verification (signature,
    origin, relying party, challenge, counter, or an unknown passkey)."""

    type = "WebAuthnVerificationError"


class ExperimentalFeatureNotEnabled(AuthError):
    """A ``webauthn`` provider without ``experimental.enableWebAuthn``."""

    type = "ExperimentalFeatureNotEnabled"


class LastSignInMethod(AuthError):
    """Deleting this passkey would leave the user no way to sign in."""

    type = "LastSignInMethod"


class PasswordRefused(AuthError):
    """A new password was refused: too short or too long, or by the password
    provider's ``check_password``. The message says why and may be shown."""

    type = "PasswordRefused"


class InvalidEmail(AuthError):
    """A form's email address is not a valid single address."""

    type = "InvalidEmail"


class TwoFactorError(AuthError):
    """A second-factor code that is wrong, stale or used, or a change the
    user's second factor does not allow (turning it on twice)."""

    type = "TwoFactorError"


class RateLimited(AuthError):
    """A rate limit refused the request (too many failed sign-ins, links or
    callbacks); the HTTP answer is 429 with ``Retry-After``."""

    type = "RateLimited"


class InvalidConfig(AuthError, ValueError):
    """A configuration the engine refuses. ``option`` names the option in the
    spec's spelling (``secret``, ``providers[1].type``); ``type`` is the error
    type (``MissingSecret``, ``MissingAuthorize``, …, or ``Configuration``)."""

    type = "Configuration"

    def __init__(self, option: str, message: str, type: str = "Configuration") -> None:
        super().__init__(f"libauth: invalid option `{option}`: {message}", type=type)
        self.option = option


_CLASSES: List[Type[AuthError]] = [
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
    Overloaded,
    RateLimited,
    RefreshTokenRevoked,
    WebAuthnVerificationError,
    ExperimentalFeatureNotEnabled,
    LastSignInMethod,
    PasswordRefused,
    InvalidEmail,
    TwoFactorError,
    InvalidConfig,
]

#: Exception class by engine error type.
ERROR_CLASSES: Dict[str, Type[AuthError]] = {cls.type: cls for cls in _CLASSES}


def from_engine(payload: str) -> AuthError:
    """The engine's ``{type, message, code?}`` as an exception of that class."""
    try:
        data: Any = json.loads(payload)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return CallbackRouteError(str(payload))
    kind = str(data.get("type") or "AuthError")
    message = str(data.get("message") or kind)
    if kind == "CredentialsSignin":
        return CredentialsSignin(message, code=str(data.get("code") or "credentials"))
    cls = ERROR_CLASSES.get(kind)
    if cls is None or cls is InvalidConfig:
        return AuthError(message, type=kind)
    return cls(message)


def to_host_error(error: BaseException) -> Dict[str, str]:
    """An exception a hook raised, as the engine's ``{message, type?, code?}``."""
    out = {"message": str(error) or type(error).__name__}
    kind = getattr(error, "type", None)
    if isinstance(error, AuthError) and isinstance(kind, str):
        out["type"] = kind
        if isinstance(error, CredentialsSignin) and isinstance(error.code, str):
            out["code"] = error.code
    return out
