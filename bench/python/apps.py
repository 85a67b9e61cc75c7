"""The servers the benchmark runs under uvicorn (bench/python/bench.py):

- ``libauth_app``: a Starlette app behind ``libauth.ASGIMiddleware``;
  ``GET /auth/session`` is answered by the engine, ``GET /protected`` reads
  ``request.state.session`` and returns it as JSON (a redirect without one).
- ``bare_app``: the same Starlette route with no middleware, returning the
  same JSON (a constant): the ceiling both are measured against.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

import libauth

SECRET = os.environ.get("AUTH_SECRET", "bench-secret-0123456789abcdefghijklmnop")
USER = {"id": "42", "name": "Ada Lovelace", "email": "ada@example.com"}


def authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
    return dict(USER) if credentials.get("username") == "ada" else None


def make_auth() -> libauth.Auth:
    return libauth.Auth({"secret": SECRET, "trustHost": True, "providers": [libauth.Credentials(authorize=authorize)]})


async def protected(request: Request) -> Response:
    session = request.state.session
    if session is None:
        return RedirectResponse("/auth/signin", status_code=303)
    return JSONResponse(session)


libauth_app = libauth.ASGIMiddleware(Starlette(routes=[Route("/protected", protected)]), make_auth())

#: What /auth/session answers for the benchmark's cookie (bench.py passes it).
BARE_BODY = json.loads(os.environ.get("BENCH_SESSION_JSON", "{}"))


async def bare(request: Request) -> Response:
    return JSONResponse(BARE_BODY)


bare_app = Starlette(routes=[Route("/bare", bare)])
