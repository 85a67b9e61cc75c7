"""libauth for FastAPI: the dependencies ``current_session`` (the session or
``None``) and ``require_session`` (the session; without one, a browser is
redirected (303) to the sign-in page with ``callbackUrl``, a JSON client
gets 401), and their ``Annotated`` forms::

    @app.get("/me")
    async def me(session: RequiredSession) -> dict: ...

The app runs inside ``libauth.ASGIMiddleware`` (the routes under /auth, and
the session)."""

from __future__ import annotations

from typing import Annotated, Any, Dict, Optional

from fastapi import Depends, HTTPException, Request


from .starlette import LibAuthBackend, SessionUser, get_session, sign_in_url

Session = Dict[str, Any]


def _wants_json(request: Request) -> bool:
    """A JSON client: its Accept names JSON and not HTML."""
    accept = request.headers.get("accept", "").lower()
    return "json" in accept and "text/html" not in accept


async def current_session(request: Request) -> Optional[Session]:
    """The session, or ``None``."""
    return await get_session(request)


async def require_session(request: Request) -> Session:
    """The session; without one, ``HTTPException`` 303 to the sign-in page
    (``callbackUrl`` this request) for a browser, 401 for a JSON client."""
    session = await get_session(request)
    if session is not None:
        return session
    if _wants_json(request):
        raise HTTPException(status_code=401, detail="Not signed in")
    raise HTTPException(status_code=303, detail="Sign-in required", headers={"Location": sign_in_url(request)})


#: ``session: CurrentSession`` in a path operation: the session or ``None``.
CurrentSession = Annotated[Optional[Session], Depends(current_session)]
#: ``session: RequiredSession``: the session, or the redirect / 401.
RequiredSession = Annotated[Session, Depends(require_session)]

__all__ = [
    "current_session",
    "require_session",
    "CurrentSession",
    "RequiredSession",
    "Session",
    "LibAuthBackend",
    "SessionUser",
]
