"""``WSGIMiddleware``: libauth in front of any WSGI application (Flask,
Django, Pyramid, Bottle, …)."""

from __future__ import annotations

import http
import collections.abc
import re
from typing import Any, Callable, Dict, List, Optional, Tuple
from wsgiref.util import request_uri

from . import _native
from ._auth import Auth

MAX_BODY = _native.max_body_bytes()

Environ = Dict[str, Any]
StartResponse = Callable[..., Any]
WSGIApp = Callable[[Environ, StartResponse], collections.abc.Iterable[bytes]]

#: ``environ`` keys: the engine serving this request, and the session once read.
AUTH_KEY = "libauth.auth"
SESSION_KEY = "libauth.session"


#: A ``SCRIPT_NAME`` and a ``PATH_INFO`` that ``request_uri`` would leave
#: as they are (``urllib.parse.quote``'s always-safe characters, plus the
#: ones each call lets through).
_PLAIN_SCRIPT = re.compile(r"[A-Za-z0-9_.~/-]*")
_PLAIN_PATH = re.compile(r"[A-Za-z0-9_.~/;=,-]*")


def environ_url(environ: Environ) -> str:
    """The absolute URL the client asked for: ``wsgiref``'s ``request_uri``.
    A plain path with a ``Host`` header (nearly every request) is put
    together directly, to the same text: ``request_uri`` percent-encodes
    the path with ``urllib.parse.quote``, which costs more than the session
    read this URL is built for (tests/test_lean_reads.py compares the two)."""
    host = environ.get("HTTP_HOST")
    script = environ.get("SCRIPT_NAME") or ""
    path = environ.get("PATH_INFO", "")
    if host and _PLAIN_SCRIPT.fullmatch(script) and _PLAIN_PATH.fullmatch(path):
        url = (
            f"{environ['wsgi.url_scheme']}://{host}{script}{path}"
            if script
            else f"{environ['wsgi.url_scheme']}://{host}/{path[1:]}"
        )
        query = environ.get("QUERY_STRING")
        return f"{url}?{query}" if query else url
    return request_uri(environ, include_query=True)


#: A comma that a WSGI server put between two ``Cookie`` headers it joined
#: (waitress joins repeated headers with ", ", gunicorn with ","): one
#: followed by a ``name=``. A cookie value has no comma (RFC 6265's
#: cookie-octet), so no real pair is split.
_JOINED_COOKIE = re.compile(r"\s*,\s*(?=[^\s=;,]+=)")


def environ_cookie(environ: Environ) -> Optional[str]:
    """The ``Cookie`` header, repeated ones read as one (``"; "``-joined,
    whatever separator the server joined them with)."""
    cookie = environ.get("HTTP_COOKIE")
    if cookie and "," in cookie:
        cookie = _JOINED_COOKIE.sub("; ", cookie)
    return cookie or None


_native_url_and_cookie = _native.environ_url_and_cookie


def environ_headers(environ: Environ) -> List[Tuple[str, str]]:
    headers = []
    for key, value in environ.items():
        if key == "HTTP_COOKIE":
            headers.append(("cookie", environ_cookie(environ) or ""))
        elif key.startswith("HTTP_"):
            headers.append((key[5:].replace("_", "-").lower(), value))
        elif key in ("CONTENT_TYPE", "CONTENT_LENGTH") and value:
            headers.append((key.replace("_", "-").lower(), value))
    return headers


def environ_path(environ: Environ) -> str:
    return (environ.get("SCRIPT_NAME") or "") + (environ.get("PATH_INFO") or "")


def _read_body(environ: Environ) -> Optional[bytes]:
    if environ.get("REQUEST_METHOD", "GET").upper() in ("GET", "HEAD"):
        return None
    stream = environ.get("wsgi.input")
    if stream is None:
        return None
    try:
        length = int(environ.get("CONTENT_LENGTH") or -1)
    except ValueError:
        length = -1
    # One byte past the limit is enough for the engine to answer 413.
    limit = MAX_BODY + 1 if length < 0 else min(length, MAX_BODY + 1)
    return stream.read(limit) if limit > 0 else b""


def session_from_environ(environ: Environ, auth: Optional[Auth] = None) -> Optional[Dict[str, Any]]:
    """The session of this WSGI request, read on first use and kept in
    ``environ["libauth.session"]``."""
    if SESSION_KEY in environ:
        return environ[SESSION_KEY]  # type: ignore[no-any-return]
    auth = auth or environ.get(AUTH_KEY)
    if auth is None:
        raise RuntimeError("libauth: no Auth for this request; wrap the app in WSGIMiddleware or pass `auth`")
    # The URL and the cookie read by the native module; an environ it leaves
    # to Python (a path to percent-encode, no Host header, joined Cookie
    # headers) by environ_url and environ_cookie.
    found = _native_url_and_cookie(environ) or (environ_url(environ), environ_cookie(environ))
    session = auth.get_session_with_identity(*found)
    environ[SESSION_KEY] = session
    return session


class WSGIMiddleware:
    """Answers every route under the engine's basePath and passes every other
    request to ``app``, with ``environ["libauth.auth"]`` set: the session is
    read on first use by ``libauth.get_session(request_or_environ)`` and then
    kept in ``environ["libauth.session"]``. Engine work releases the GIL, so
    a threaded server serves sessions in parallel."""

    def __init__(self, app: WSGIApp, auth: Auth) -> None:
        self.app = app
        self.auth = auth

    def __call__(self, environ: Environ, start_response: StartResponse) -> collections.abc.Iterable[bytes]:
        auth = environ[AUTH_KEY] = self.auth
        # environ_path and Auth.is_auth_path, inline (every request passes here).
        path = (environ.get("SCRIPT_NAME") or "") + (environ.get("PATH_INFO") or "")
        if path != auth.base_path and not path.startswith(auth._base_prefix):
            return self.app(environ, start_response)
        method = environ.get("REQUEST_METHOD", "GET")
        res = auth.handle(
            method,
            environ_url(environ),
            environ_headers(environ),
            _read_body(environ),
            environ.get("REMOTE_ADDR") or None,
        )
        try:
            reason = http.HTTPStatus(res.status).phrase
        except ValueError:
            reason = "Unknown"
        headers = list(res.headers)
        if not any(k.lower() == "content-length" for k, _ in headers):
            headers.append(("Content-Length", str(len(res.body))))
        start_response(f"{res.status} {reason}", headers)
        # HEAD: the headers of the answer (its Content-Length included) and no
        # body. Not every server drops a HEAD body (waitress writes it), and
        # one written would be read as the start of the next response on a
        # keep-alive connection.
        return [] if method.upper() == "HEAD" else [res.body]
