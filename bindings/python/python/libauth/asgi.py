"""``ASGIMiddleware``: libauth in front of any ASGI application (Starlette,
FastAPI, Django's ASGI handler, …).

Engine work that may reach host code runs off the event loop, on the
engine's worker threads (``Auth.executor()``, sized by
``hooks.maxInFlight``; past the bound the answer is 503). ``async`` hooks
are scheduled back on this loop and awaited there, each up to its deadline.
Requests that can reach no hook run inline, with no thread hop."""

from __future__ import annotations

import collections.abc
from typing import Any, Callable, Dict, List, Optional, Tuple

from . import _native
from ._auth import Auth
from ._errors import AuthError

MAX_BODY = _native.max_body_bytes()

Scope = collections.abc.MutableMapping[str, Any]
#: ASGI messages as Starlette types them (MutableMapping), so a Starlette or
#: FastAPI app is an ``ASGIApp`` under ``mypy --strict``.
Receive = Callable[[], collections.abc.Awaitable[collections.abc.MutableMapping[str, Any]]]
Send = Callable[[collections.abc.MutableMapping[str, Any]], collections.abc.Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], collections.abc.Awaitable[None]]


def scope_path(scope: Scope) -> str:
    path = scope.get("path") or "/"
    root = scope.get("root_path") or ""
    if root and not path.startswith(root):
        path = root + path
    return str(path)


def scope_headers(scope: Scope) -> List[Tuple[str, str]]:
    return [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope.get("headers") or []]


def scope_header(scope: Scope, name: bytes) -> Optional[str]:
    for k, v in scope.get("headers") or []:
        if k.lower() == name:
            return str(v.decode("latin-1"))
    return None


def scope_url(scope: Scope) -> str:
    """The absolute URL the client asked for."""
    return _url(scope, scope_header(scope, b"host"))


def _url(scope: Scope, host: Optional[str]) -> str:
    scheme = scope.get("scheme") or "http"
    if host is None:
        server = scope.get("server") or ("localhost", None)
        host = server[0] if server[1] in (None, 80, 443) else f"{server[0]}:{server[1]}"
    raw = scope.get("raw_path")
    path = raw.decode("latin-1") if raw else scope_path(scope)
    root = scope.get("root_path") or ""
    if root and not path.startswith(root):
        path = root + path
    query = (scope.get("query_string") or b"").decode("latin-1")
    return f"{scheme}://{host}{path}" + (f"?{query}" if query else "")


def scope_url_and_cookie(scope: Scope) -> Tuple[str, Optional[str]]:
    """The absolute URL and the Cookie header (a session read needs both on
    every protected request). Several ``cookie`` headers (HTTP/2 may split
    them) are joined with ``"; "``. Read by the native module; a scope of
    another shape (a value of an unusual type) by ``_scope_url_and_cookie``."""
    return _native_url_and_cookie(scope) or _scope_url_and_cookie(scope)


_native_url_and_cookie = _native.scope_url_and_cookie


def _scope_url_and_cookie(scope: Scope) -> Tuple[str, Optional[str]]:
    """``scope_url_and_cookie`` in Python, in one pass over the headers: the
    reference the native reading follows (tests/test_native_requests.py)."""
    host: Optional[str] = None
    cookies: List[str] = []
    for k, v in scope.get("headers") or []:
        # Servers send header names in lowercase (ASGI says they should):
        # compared as they are first, lowercased only when the length
        # matches (bytes.lower() on every header cost more than the rest
        # of this function).
        n = len(k)
        if n == 6 and (k == b"cookie" or k.lower() == b"cookie"):
            cookies.append(v.decode("latin-1"))
        elif n == 4 and host is None and (k == b"host" or k.lower() == b"host"):
            host = v.decode("latin-1")
    cookie = cookies[0] if len(cookies) == 1 else ("; ".join(cookies) if cookies else None)
    return _url(scope, host), cookie


#: Where the middleware keeps the session it read, as ``environ["libauth.session"]``
#: under WSGI: a key of libauth's own, which no app state can shadow.
SESSION_KEY = "libauth.session"

#: The state keys the middleware owns. Whatever the app's state held under
#: them (lifespan state, an outer middleware) is dropped: were it kept, an
#: anonymous request would read the app's object as its session.
_OWN_STATE_KEYS = ("session", "session_error")


def _request_state(scope: Scope) -> Dict[str, Any]:
    """A new state dict for this request: the app's keys, less the ones the
    middleware owns. New rather than updated in place, so a state dict an
    outer middleware shares between requests never holds one request's
    session."""
    state = dict(scope.get("state") or {})
    for key in _OWN_STATE_KEYS:
        state.pop(key, None)
    return state


class _LazyState(dict):  # type: ignore[type-arg]
    """``scope["state"]`` whose ``session`` is read on first use (hookless
    configurations only: no hook can be reached, so it runs inline). Made
    by ``NativeAuth.lazy_scope`` (or ``_lazy_state``), which set ``_auth``
    (the ``Auth``) and ``_scope``: no ``__init__`` runs per request. Once
    read, the state lets go of the scope (keeping its URL and cookie in
    ``_request``): the scope and its state no longer hold each other, so
    both go with the request instead of waiting for the cycle collector."""

    __slots__ = ("_auth", "_scope", "_request")
    _auth: Auth
    _scope: Optional[Scope]
    _request: Tuple[str, Optional[str]]

    def __missing__(self, key: str) -> Any:
        if key != "session":
            raise KeyError(key)
        scope = self._scope
        if scope is None:  # read before, and deleted since: read again
            session = self["session"] = self._auth.get_session_with_identity(*self._request)
            return session
        request = _native_url_and_cookie(scope) or _scope_url_and_cookie(scope)
        session = self._auth.get_session_with_identity(*request)
        self["session"] = session
        scope[SESSION_KEY] = session
        self._request = request
        self._scope = None
        return session


def _lazy_state(scope: Scope, auth: Auth) -> _LazyState:
    """``NativeAuth.lazy_scope``'s state, in Python (for a scope of a shape
    the native module leaves to Python)."""
    state = _LazyState(_request_state(scope))
    state._auth = auth
    state._scope = scope
    return state


async def _read_body(receive: Receive) -> bytes:
    """The body, read until it passes the limit and no further: one byte
    past it is enough for the engine to answer 413, so that answer goes out
    at once (after at most one chunk more than the limit) while a client
    may still be sending, instead of after the whole body was drained. The
    server deals with the unread rest (it closes the connection)."""
    chunks: List[bytes] = []
    size = 0
    while size <= MAX_BODY:
        message = await receive()
        if message["type"] == "http.disconnect":
            break
        chunk = message.get("body") or b""
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body"):
            break
    return b"".join(chunks)[: MAX_BODY + 1]


async def session_from_scope(scope: Scope, auth: Auth) -> Optional[Dict[str, Any]]:
    """Read the session of an ASGI request (inline when hookless, else on a
    worker thread)."""
    return await auth.get_session_with_identity_async(*scope_url_and_cookie(scope))


class ASGIMiddleware:
    """Answers every route under the engine's basePath and passes every other
    HTTP request to ``app`` with ``scope["state"]["session"]`` set (so
    ``request.state.session`` in Starlette and FastAPI): read on first use
    when no hook can be reached, else read before the app runs (with the
    error, if any, in ``scope["state"]["session_error"]``). Both keys are
    always libauth's: a ``session`` the state already held (lifespan state,
    an outer middleware) is not passed on."""

    def __init__(self, app: ASGIApp, auth: Auth) -> None:
        self.app = app
        self.auth = auth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        auth = self.auth
        scope["libauth.auth"] = auth
        # Hookless: the path test and the lazy state in one native call
        # (None: a scope of a shape left to the Python code below).
        lazy = auth._native.lazy_scope(scope, auth) if auth.session_is_hookless else None
        if lazy:
            await self.app(scope, receive, send)
            return
        if lazy is None and not auth.is_auth_path(scope_path(scope)):
            if auth.session_is_hookless:
                scope["state"] = _lazy_state(scope, auth)
            else:
                state = _request_state(scope)
                try:
                    session = await session_from_scope(scope, auth)
                except AuthError as e:
                    session = None
                    state["session_error"] = e
                state["session"] = scope[SESSION_KEY] = session
                scope["state"] = state
            await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        body = None if method in ("GET", "HEAD") else await _read_body(receive)
        client = scope.get("client")
        peer = str(client[0]) if client else None
        res = await auth.handle_async(method, scope_url(scope), scope_headers(scope), body, peer)
        headers = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in res.headers]
        if not any(k == b"content-length" for k, _ in headers):
            headers.append((b"content-length", str(len(res.body)).encode()))
        await send({"type": "http.response.start", "status": res.status, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if method == "HEAD" else res.body})
