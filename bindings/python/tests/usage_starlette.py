"""Checked by mypy --strict (tests/test_types.py): libauth.starlette as a Starlette app uses it."""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from starlette.applications import Starlette
from starlette.authentication import requires
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

import libauth
from libauth.starlette import LibAuthBackend, SessionUser, get_session, sign_in_url


def scopes(session: Dict[str, Any]) -> List[str]:
    return ["authenticated", "admin"] if session["user"].get("email") == "ada@example.com" else ["authenticated"]


@requires("authenticated")
async def me(request: Request) -> JSONResponse:
    user = request.user
    assert isinstance(user, SessionUser)
    session: Optional[Dict[str, Any]] = await get_session(request)
    where: str = sign_in_url(request)
    return JSONResponse(
        {
            "name": user.display_name,
            "id": user.identity,
            "session": session,
            "signin": where,
            "scopes": request.auth.scopes,
        }
    )


app = Starlette(
    routes=[Route("/me", me)], middleware=[Middleware(AuthenticationMiddleware, backend=LibAuthBackend(scopes=scopes))]
)
application = libauth.ASGIMiddleware(app, libauth.Auth({"providers": []}))
