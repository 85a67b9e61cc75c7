"""libauth for Starlette: an ``AuthenticationBackend`` for Starlette's
``AuthenticationMiddleware``, so ``request.user`` (a ``SessionUser``),
``request.auth`` (``AuthCredentials(["authenticated"])``) and
``@requires("authenticated")`` work::

    app = Starlette(routes=..., middleware=[Middleware(AuthenticationMiddleware, backend=LibAuthBackend())])
    app = libauth.ASGIMiddleware(app, auth)      # the routes under /auth, and the session
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

from starlette.authentication import AuthCredentials, AuthenticationBackend, BaseUser
from starlette.requests import HTTPConnection

from ._auth import Auth
from .asgi import SESSION_KEY, _LazyState, scope_url_and_cookie

Session = Dict[str, Any]


class SessionUser(BaseUser):
    """``request.user`` with a libauth session: ``is_authenticated``,
    ``display_name`` (the name, else the email), ``identity`` (the engine's
    subject for the user, see ``libauth.Identity``), ``session`` (the whole session dict), and the user's
    ``id``, ``name``, ``email``, ``image``."""

    def __init__(self, session: Session) -> None:
        self.session = session
        user: Dict[str, Any] = session.get("user") or {}
        self.id: Optional[str] = user.get("id")
        self.name: Optional[str] = user.get("name")
        self.email: Optional[str] = user.get("email")
        self.image: Optional[str] = user.get("image")

    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def display_name(self) -> str:
        return self.name or self.email or ""

    @property
    def identity(self) -> str:
        # The engine's subject: unique per libauth user. Never the address,
        # which two sign-ups may both claim unproven.
        found = getattr(self.session, "identity", None)
        return found.subject if found is not None else (self.id or "")

    def __repr__(self) -> str:
        return f"<SessionUser {self.display_name!r}>"


def _auth_of(conn: HTTPConnection, auth: Optional[Auth]) -> Auth:
    found = auth or conn.scope.get("libauth.auth")
    if found is None:
        raise RuntimeError("libauth: no Auth for this request; wrap the app in libauth.ASGIMiddleware or pass `auth`")
    return found


async def get_session(conn: HTTPConnection, auth: Optional[Auth] = None) -> Optional[Session]:
    """The session of a request or WebSocket, or ``None``: the one
    ``libauth.ASGIMiddleware`` read (or reads now, on first use), else read
    with ``auth`` (never blocking the loop on a hook)."""
    scope = conn.scope
    if SESSION_KEY in scope:
        return scope[SESSION_KEY]  # type: ignore[no-any-return]
    state = scope.get("state")
    if isinstance(state, _LazyState):
        return state["session"]  # type: ignore[no-any-return]
    session = await _auth_of(conn, auth).get_session_with_identity_async(*scope_url_and_cookie(scope))
    scope[SESSION_KEY] = session
    return session


def sign_in_url(conn: HTTPConnection, auth: Optional[Auth] = None) -> str:
    """The sign-in page, with this request's path (and query) as ``callbackUrl``."""
    here = conn.url.path + (f"?{conn.url.query}" if conn.url.query else "")
    root = conn.scope.get("root_path") or ""
    if root and not here.startswith(root):
        here = root + here
    return _auth_of(conn, auth).sign_in_url(here)


class LibAuthBackend(AuthenticationBackend):
    """Starlette's ``AuthenticationMiddleware`` backend: a session gives
    ``(AuthCredentials(scopes), SessionUser(session))``; none, Starlette's
    ``UnauthenticatedUser``. ``scopes`` may be a function of the session
    (``"authenticated"`` is always among them). ``auth`` is needed only when
    the app is not inside ``libauth.ASGIMiddleware``."""

    def __init__(
        self,
        auth: Optional[Auth] = None,
        scopes: Union[Sequence[str], Callable[[Session], Sequence[str]]] = ("authenticated",),
    ) -> None:
        self.auth = auth
        self.scopes = scopes

    async def authenticate(self, conn: HTTPConnection) -> Optional[Tuple[AuthCredentials, BaseUser]]:
        session = await get_session(conn, self.auth)
        if session is None:
            return None
        scopes = list(self.scopes(session) if callable(self.scopes) else self.scopes)
        if "authenticated" not in scopes:  # a session is always "authenticated" (@requires("authenticated"))
            scopes.insert(0, "authenticated")
        return AuthCredentials(scopes), SessionUser(session)


__all__ = ["LibAuthBackend", "SessionUser", "Session", "get_session", "sign_in_url"]
