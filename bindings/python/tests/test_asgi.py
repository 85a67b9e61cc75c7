"""ASGIMiddleware against what the app and the server around it bring: a
``session`` already in the request state."""

from __future__ import annotations

import contextlib
import threading
from typing import Any, Dict, Iterator

import pytest

import libauth
from conftest import ADA, Browser, Server, base_config, free_port, sync_authorize, wait_for


class AppClient:
    """What an app keeps under ``session`` in its lifespan state (say, an
    HTTP client session). Truthy, as such objects are."""

    def __repr__(self) -> str:
        return "<the app's HTTP client session>"


def state_app(source: str) -> Any:
    """A Starlette app whose lifespan state holds ``client`` (and, for
    ``source == "lifespan"``, a ``session`` of its own); ``/me`` shows what
    the app sees as the session."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        state: Dict[str, Any] = {"client": "the app's"}
        if source == "lifespan":
            state["session"] = AppClient()
            state["session_error"] = RuntimeError("the app's")
        yield state

    async def me(request: Request) -> Any:
        session = request.state.session
        assert libauth.get_session(request) is session
        return JSONResponse({
            "session": session if session is None or isinstance(session, dict) else repr(session),
            "session_error": repr(getattr(request.state, "session_error", None)),
            "client": request.state.client,
        })

    return Starlette(routes=[Route("/me", me)], lifespan=lifespan)


def outer_middleware(app: Any) -> Any:
    """A middleware outside libauth's that puts a session of its own in the
    state (as a session middleware of another library would)."""

    async def wrapped(scope: Dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            state = scope.setdefault("state", {})
            state["session"] = {"user": {"name": "the outer middleware's"}, "expires": "2099-01-01T00:00:00.000Z"}
            state["session_error"] = RuntimeError("the outer middleware's")
        await app(scope, receive, send)

    return wrapped


@contextlib.contextmanager
def serve_with_lifespan(asgi: Any, auth: libauth.Auth) -> Iterator[Server]:
    import uvicorn

    port = free_port()
    server = uvicorn.Server(uvicorn.Config(asgi, host="127.0.0.1", port=port, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for(port)
    try:
        yield Server(f"http://127.0.0.1:{port}", lambda: None, auth)
    finally:
        server.should_exit = True
        thread.join(5)


@pytest.mark.parametrize("source", ["lifespan", "outer middleware"])
@pytest.mark.parametrize("hooked", [False, True], ids=["hookless", "session callback"])
def test_the_session_in_the_state_is_always_libauths(source: str, hooked: bool) -> None:
    """Whatever ``session`` the state held before the middleware (lifespan
    state, an outer middleware), the app sees libauth's: ``None`` for an
    anonymous request, the user's session once signed in; the app's other
    state stays."""
    config = base_config(sync_authorize, trustHost=True)
    if hooked:
        config["callbacks"] = {"session": lambda args: args["session"]}
    auth = libauth.Auth(config)
    assert auth.session_is_hookless is not hooked
    asgi: Any = libauth.ASGIMiddleware(state_app(source), auth)
    if source == "outer middleware":
        asgi = outer_middleware(asgi)
    with serve_with_lifespan(asgi, auth) as server:
        br = Browser(server)
        anonymous = br.get("/me").json()
        assert anonymous == {"session": None, "session_error": "None", "client": "the app's"}
        assert br.sign_in("ada", "lovelace").status_code == 302
        signed_in = br.get("/me").json()
        assert signed_in["session"]["user"]["email"] == ADA["email"], signed_in
        assert signed_in["session_error"] == "None" and signed_in["client"] == "the app's"


def test_get_session_without_the_middleware_ignores_the_apps_state() -> None:
    """``libauth.get_session(scope, auth)`` without the middleware reads the
    session, not a ``session`` the app keeps in its state."""
    auth = libauth.Auth(base_config(sync_authorize, trustHost=True))
    scope = {"type": "http", "scheme": "http", "path": "/me", "raw_path": b"/me", "query_string": b"",
             "root_path": "", "headers": [(b"host", b"example.test")], "state": {"session": AppClient()}}
    assert libauth.get_session(scope, auth) is None
    assert isinstance(scope["state"]["session"], AppClient), "the app's state is the app's"
