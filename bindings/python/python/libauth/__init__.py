"""libauth: sign-in and sessions for Python web apps, Auth.js v5
wire-compatible, on libauth's Rust engine.

    auth = libauth.Auth({"secret": ..., "trustHost": True, "providers": [libauth.Credentials(authorize=check)]})
    app = libauth.WSGIMiddleware(app, auth)        # Flask, Django (WSGI)
    app = libauth.ASGIMiddleware(app, auth)        # Starlette, FastAPI (ASGI)
    session = libauth.get_session(request)         # in a view
"""

from __future__ import annotations

from typing import Any, Dict, Optional

try:
    from . import _native
except ImportError as _error:  # said in plain words: what was expected, found, and the way out
    from ._loading import native_import_error as _native_import_error

    raise _native_import_error(_error) from _error
from ._auth import ActionResult, Auth, Identity, PasswordAction, Response, SessionWithIdentity
from ._errors import (
    AccessDenied,
    AccountNotLinked,
    AdapterError,
    AuthError,
    CallbackRouteError,
    CredentialsSignin,
    EmailSignInError,
    ErrorPageLoop,
    EventError,
    InvalidCallbackUrl,
    InvalidCheck,
    InvalidConfig,
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
    Overloaded,
    RateLimited,
    RefreshTokenRevoked,
    WebAuthnVerificationError,
    ExperimentalFeatureNotEnabled,
    LastSignInMethod,
    PasswordRefused,
    InvalidEmail,
    TwoFactorError,
    SessionTokenError,
    SignOutError,
    UnknownAction,
    UnsupportedStrategy,
    UntrustedHost,
    Verification,
)
from .asgi import ASGIMiddleware
from .providers import (
    OIDC,
    Apple,
    Auth0,
    Credentials,
    Discord,
    Email,
    Facebook,
    GitHub,
    GitLab,
    Google,
    Keycloak,
    LinkedIn,
    MicrosoftEntraID,
    OAuth,
    Okta,
    Passkey,
    Password,
    Slack,
    Spotify,
    TikTok,
    Twitch,
    Twitter,
)
from .wsgi import WSGIMiddleware, session_from_environ


def get_session(request: Any, auth: Optional[Auth] = None) -> Optional[Dict[str, Any]]:
    """The session of a request, or ``None``: a WSGI ``environ``, an ASGI
    ``scope``, or a framework request carrying one (Flask/Werkzeug and
    Django ``request.environ``; Starlette/FastAPI ``request.scope``).

    WSGI: read on first use (on this thread) and kept in
    ``environ["libauth.session"]``. ASGI: the session ``ASGIMiddleware``
    read (kept in ``scope["libauth.session"]``, never an app's own
    ``state["session"]``); without the middleware, ``auth`` is needed,
    and a configuration whose session reads reach hooks must use
    ``await auth.get_session_async(...)`` instead (hooks are awaited on the
    event loop, which this call would block)."""
    scope = getattr(request, "scope", None)
    environ = getattr(request, "environ", None)
    if scope is None and environ is None and isinstance(request, dict):
        if "asgi" in request or (request.get("type") in ("http", "websocket") and "headers" in request):
            scope = request
        else:
            environ = request
    if scope is not None:
        from .asgi import SESSION_KEY, _LazyState, scope_url_and_cookie

        if SESSION_KEY in scope:
            return scope[SESSION_KEY]  # type: ignore[no-any-return]
        # Not ``state["session"]`` of any state: the app's own (lifespan
        # state, a middleware) may hold that name. Only the middleware's lazy
        # state reads libauth's session there.
        state = scope.get("state")
        if isinstance(state, _LazyState):
            return state["session"]  # type: ignore[no-any-return]
        auth = auth or scope.get("libauth.auth")
        if auth is None:
            raise RuntimeError("libauth: no Auth for this request; wrap the app in ASGIMiddleware or pass `auth`")
        if not auth.session_is_hookless:
            raise RuntimeError(
                "libauth: this configuration's session reads call hooks; use ASGIMiddleware "
                "(request.state.session) or `await auth.get_session_async(url, cookie)`"
            )
        session = auth.get_session_with_identity(*scope_url_and_cookie(scope))
        scope[SESSION_KEY] = session
        return session
    if environ is None:
        raise TypeError("libauth.get_session: expected a WSGI environ, an ASGI scope, or a request carrying one")
    return session_from_environ(environ, auth)


#: Every engine error type (``AuthError.type`` values).
ERROR_TYPES = tuple(_native.error_types())

__all__ = [
    "ActionResult",
    "PasswordAction",
    "Identity",
    "SessionWithIdentity",
    "Auth",
    "Response",
    "WSGIMiddleware",
    "ASGIMiddleware",
    "get_session",
    "Credentials",
    "TikTok",
    "GitHub",
    "Google",
    "Apple",
    "MicrosoftEntraID",
    "Discord",
    "GitLab",
    "Twitter",
    "Facebook",
    "LinkedIn",
    "Slack",
    "Twitch",
    "Spotify",
    "Keycloak",
    "Auth0",
    "Okta",
    "OAuth",
    "OIDC",
    "Email",
    "Passkey",
    "Password",
    "AuthError",
    "InvalidConfig",
    "ERROR_TYPES",
    "AccessDenied",
    "AccountNotLinked",
    "AdapterError",
    "CallbackRouteError",
    "CredentialsSignin",
    "EmailSignInError",
    "ErrorPageLoop",
    "EventError",
    "InvalidCallbackUrl",
    "InvalidCheck",
    "InvalidEndpoints",
    "InvalidProviderType",
    "JWTSessionError",
    "MissingAdapter",
    "MissingAdapterMethods",
    "MissingAuthorize",
    "MissingCSRF",
    "MissingSecret",
    "OAuthAccountNotLinked",
    "OAuthCallbackError",
    "OAuthProfileParseError",
    "OAuthSignInError",
    "Overloaded",
    "RateLimited",
    "RefreshTokenRevoked",
    "WebAuthnVerificationError",
    "ExperimentalFeatureNotEnabled",
    "LastSignInMethod",
    "PasswordRefused",
    "InvalidEmail",
    "TwoFactorError",
    "SessionTokenError",
    "SignOutError",
    "UnknownAction",
    "UnsupportedStrategy",
    "UntrustedHost",
    "Verification",
]
