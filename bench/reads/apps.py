"""The Python servers `bench/reads/servers.py` counts under callgrind, each
with a bare route and a protected one answering the same JSON:

- Starlette under uvicorn: ``starlette_bare`` (``GET /bare``, no libauth)
  and ``starlette_libauth`` (``libauth.ASGIMiddleware``; ``GET /protected``
  reads ``request.state.session``), as in bench/python/apps.py.
- Flask under waitress: ``flask_bare`` (``GET /bare``) and ``flask_libauth``
  (``libauth.flask.LibAuth``; ``GET /protected`` reads ``get_session()``).
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional

from flask import Flask, jsonify
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

import libauth
from libauth.flask import LibAuth, get_session

SECRET = os.environ["AUTH_SECRET"]
USER = {"id": "1", "name": "Bench User", "email": "bench@example.com", "image": "https://img.example/u.png"}
#: What the protected route answers for the benchmark's cookie (servers.py passes it).
BARE_BODY = json.loads(os.environ.get("BENCH_SESSION_JSON", "{}"))


def authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
    return dict(USER) if credentials.get("username") == "u" else None


def config() -> Dict[str, Any]:
    return {"secret": SECRET, "trustHost": True, "providers": [libauth.Credentials(authorize=authorize)]}


async def _protected(request: Request) -> Response:
    session = request.state.session
    if session is None:
        return RedirectResponse("/auth/signin", status_code=303)
    return JSONResponse(session)


async def _bare(request: Request) -> Response:
    return JSONResponse(BARE_BODY)


starlette_libauth = libauth.ASGIMiddleware(Starlette(routes=[Route("/protected", _protected)]), libauth.Auth(config()))
starlette_bare = Starlette(routes=[Route("/bare", _bare)])

flask_bare = Flask("bare")
flask_bare.get("/bare")(lambda: jsonify(BARE_BODY))

flask_libauth = Flask("libauth")
LibAuth(flask_libauth, config())


@flask_libauth.get("/protected")
def _flask_protected() -> Any:
    session = get_session()
    if session is None:
        return "", 303, {"location": "/auth/signin"}
    return jsonify(session)
