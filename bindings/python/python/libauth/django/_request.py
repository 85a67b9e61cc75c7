"""A Django request's URL, cookie and session, for WSGI and ASGI requests."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from .._auth import Auth
from ..wsgi import SESSION_KEY, environ_cookie, environ_headers


def _store(request: Any) -> Dict[str, Any]:
    """Where ``libauth.get_session(request)`` finds the session: the WSGI
    environ, or the ASGI scope."""
    scope = getattr(request, "scope", None)
    return scope if isinstance(scope, dict) else request.META


def store_auth(request: Any, auth: Auth) -> None:
    """Where ``libauth.get_session(request)`` finds the ``Auth``."""
    _store(request).setdefault("libauth.auth", auth)
    request.META.setdefault("libauth.auth", auth)


def request_url(request: Any) -> str:
    """The absolute URL the client asked for (the Host as sent: the engine
    checks it against trustHost/AUTH_URL; ``get_host()`` is checked where
    the engine's routes are answered)."""
    return f"{request.scheme}://{request._get_raw_host()}{request.get_full_path()}"


def request_cookie(request: Any) -> Optional[str]:
    return environ_cookie(request.META)


def request_headers(request: Any) -> List[Tuple[str, str]]:
    return environ_headers(request.META)


def cached_session(request: Any) -> Tuple[bool, Optional[Dict[str, Any]]]:
    store = _store(request)
    if SESSION_KEY in store:
        return True, store[SESSION_KEY]
    return False, None


def keep_session(request: Any, session: Optional[Dict[str, Any]]) -> None:
    _store(request)[SESSION_KEY] = session
    request.META.setdefault(SESSION_KEY, session)


def read_session(request: Any, auth: Auth) -> Optional[Dict[str, Any]]:
    """The session (on this thread), read once per request, with its
    ``identity`` (a ``SessionWithIdentity``)."""
    found, session = cached_session(request)
    if not found:
        session = auth.get_session_with_identity(request_url(request), request_cookie(request))
        keep_session(request, session)
    return session


async def read_session_async(request: Any, auth: Auth) -> Optional[Dict[str, Any]]:
    """The session for an async request: inline when no hook can be reached,
    else on the engine's worker threads."""
    found, session = cached_session(request)
    if not found:
        session = await auth.get_session_with_identity_async(request_url(request), request_cookie(request))
        keep_session(request, session)
    return session


__all__ = ["request_url", "request_cookie", "request_headers", "read_session", "read_session_async", "store_auth"]
