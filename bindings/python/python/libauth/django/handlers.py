"""Django's WSGI and ASGI applications with libauth's middleware in front,
answering the engine's routes only for hosts Django's ``get_host()``
accepts (``ALLOWED_HOSTS``)."""

from __future__ import annotations

import io
from typing import Any, Iterable

from ..asgi import ASGIMiddleware, ASGIApp, Receive, Scope, Send, scope_path
from ..wsgi import Environ, StartResponse, WSGIApp, WSGIMiddleware, environ_path
from . import get_auth
from .views import next_as_callback_url

BAD_HOST = b"Bad Request (Invalid host)"


def _host_allowed(request: Any) -> bool:
    from django.core.exceptions import DisallowedHost

    try:
        request.get_host()
    except DisallowedHost:
        return False
    return True


def wsgi_application() -> WSGIApp:
    from django.core.handlers.wsgi import WSGIRequest
    from django.core.wsgi import get_wsgi_application

    django_app = get_wsgi_application()
    auth = get_auth()
    with_auth = WSGIMiddleware(django_app, auth)
    signin = auth.base_path + "/signin"

    def application(environ: Environ, start_response: StartResponse) -> Iterable[bytes]:
        path = environ_path(environ)
        if auth.is_auth_path(path):
            if not _host_allowed(WSGIRequest(environ)):
                start_response(
                    "400 Bad Request", [("Content-Type", "text/plain"), ("Content-Length", str(len(BAD_HOST)))]
                )
                return [] if environ.get("REQUEST_METHOD") == "HEAD" else [BAD_HOST]
            if path == signin:
                query = next_as_callback_url(environ.get("QUERY_STRING", ""))
                if query is not None:
                    environ["QUERY_STRING"] = query
        return with_auth(environ, start_response)

    return application


def asgi_application() -> ASGIApp:
    from django.core.asgi import get_asgi_application
    from django.core.handlers.asgi import ASGIRequest

    django_app = get_asgi_application()
    auth = get_auth()
    with_auth = ASGIMiddleware(django_app, auth)  # type: ignore[arg-type]

    signin = auth.base_path + "/signin"

    async def application(scope: Scope, receive: Receive, send: Send) -> None:
        path = scope_path(scope) if scope["type"] == "http" else ""
        if path and auth.is_auth_path(path):
            if not _host_allowed(ASGIRequest(scope, io.BytesIO())):
                headers = [(b"content-type", b"text/plain"), (b"content-length", str(len(BAD_HOST)).encode())]
                await send({"type": "http.response.start", "status": 400, "headers": headers})
                await send({"type": "http.response.body", "body": b"" if scope.get("method") == "HEAD" else BAD_HOST})
                return
            if path == signin:
                query = next_as_callback_url((scope.get("query_string") or b"").decode("latin-1"))
                if query is not None:
                    scope = {**scope, "query_string": query.encode("latin-1")}
        await with_auth(scope, receive, send)

    return application


__all__ = ["wsgi_application", "asgi_application"]
