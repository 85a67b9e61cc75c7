"""A WSGI app for tests/test_prefork.py, loaded by pre-fork servers
(``gunicorn --preload``, uWSGI without ``lazy-apps``): its ``Auth`` is
built and used (a sign-in, so the database connection is open) in the
master process at import, before the server forks its workers, as an app
that opens its database at start-up would be. Database sessions on the
adapter named by ``LIBAUTH_PREFORK_ADAPTER`` (JSON)."""

from __future__ import annotations

import json
import os
from typing import Any, Callable, Dict, List, Optional

import libauth

SECRET = "libauth-python-test-secret-0123456789abcdef"
ORIGIN = "http://127.0.0.1"


def authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
    name = str(credentials.get("username") or "")
    return {"id": name, "name": name, "email": f"{name}@example.com"} if name else None


auth = libauth.Auth(
    {
        "secret": SECRET,
        "trustHost": True,
        "basePath": "/auth",
        "adapter": json.loads(os.environ["LIBAUTH_PREFORK_ADAPTER"]),
        "session": {"strategy": "database"},
        "rateLimit": False,
        "providers": [libauth.Credentials(credentials={"username": {}}, authorize=authorize)],
    }
)

# Use the database in the master, before the fork.
_csrf = auth.handle("GET", f"{ORIGIN}/auth/csrf", [])
_cookie = next(v for k, v in _csrf.headers if k == "set-cookie").split(";")[0]
_token = json.loads(_csrf.body)["csrfToken"]
_signed = auth.handle(
    "POST",
    f"{ORIGIN}/auth/callback/credentials",
    [("content-type", "application/x-www-form-urlencoded"), ("cookie", _cookie)],
    f"csrfToken={_token}&username=master".encode(),
    "127.0.0.1",
)
assert _signed.status == 302, _signed.status


def _app(environ: Dict[str, Any], start_response: Callable[..., Any]) -> List[bytes]:
    if environ.get("PATH_INFO") == "/me":
        body = json.dumps(libauth.get_session(environ)).encode()
    else:
        body = b'"app"'
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


wsgi_app = libauth.WSGIMiddleware(_app, auth)
