"""Apps for tests/test_servers.py, loaded by real servers in their own
processes (gunicorn, uWSGI, waitress, uvicorn, hypercorn, granian):
libauth's WSGI and ASGI middleware in front of an app answering ``/me``
(the session as JSON, or ``null``) and ``/cookie`` (the Cookie header the
server handed over)."""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, List, Optional

import libauth

SECRET = "libauth-python-test-secret-0123456789abcdef"


def authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
    if credentials.get("username") == "ada" and credentials.get("password") == "lovelace":
        return {"id": "42", "name": "Ada Lovelace", "email": "ada@example.com"}
    return None


def _config() -> Dict[str, Any]:
    config: Dict[str, Any] = {
        "secret": SECRET,
        "trustHost": True,
        "basePath": "/auth",
        "providers": [libauth.Credentials(authorize=authorize)],
    }
    # JWT sessions kept beside a shared SQLite file, whose sign-outs every
    # server process checks (tests/test_user_sessions.py).
    shared_db = os.environ.get("LIBAUTH_TEST_SHARED_DB")
    if shared_db:
        interval = int(os.environ.get("LIBAUTH_TEST_REVOCATION_INTERVAL", "60"))
        config["adapter"] = {"type": "sqlite", "path": shared_db}
        config["session"] = {"strategy": "jwt", "revocationCheck": {"interval": interval}}
    return config


auth = libauth.Auth(_config())


def _wsgi(environ: Dict[str, Any], start_response: Callable[..., Any]) -> List[bytes]:
    path = environ.get("PATH_INFO", "")
    if path == "/me":
        body = json.dumps(libauth.get_session(environ)).encode()
    elif path == "/cookie":
        body = json.dumps(environ.get("HTTP_COOKIE")).encode()
    else:
        body = b'"app"'
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [b""] if environ.get("REQUEST_METHOD") == "HEAD" else [body]


async def _asgi(scope: Dict[str, Any], receive: Any, send: Any) -> None:
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    path = scope.get("path", "")
    if path == "/me":
        body = json.dumps(scope["state"]["session"]).encode()
    elif path == "/cookie":
        body = json.dumps([v.decode("latin-1") for k, v in scope["headers"] if k.lower() == b"cookie"]).encode()
    else:
        body = b'"app"'
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if scope.get("method") == "HEAD" else body})


wsgi_app = libauth.WSGIMiddleware(_wsgi, auth)
asgi_app = libauth.ASGIMiddleware(_asgi, auth)
