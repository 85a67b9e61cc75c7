"""libauth.starlette, libauth.fastapi and libauth.flask over real HTTP
(uvicorn and waitress on free ports): the protected page redirects to the
sign-in page with callbackUrl (FastAPI: 401 for a JSON client), sign-in,
the page shows the user; Starlette's request.user, request.auth and
@requires."""

from __future__ import annotations

import threading
from typing import Any, Dict, Iterator, List
from urllib.parse import parse_qs, urlparse

import pytest

import libauth
from libauth.fastapi import CurrentSession, RequiredSession  # module-level: FastAPI resolves the annotations here
from conftest import ADA, Browser, Server, base_config, free_port, start_asgi, sync_authorize, wait_for


async def session_callback(*, session: Dict[str, Any], **_: Any) -> Dict[str, Any]:
    """An async session callback: session reads reach a hook (not hookless)."""
    return {**session, "seen": True}


CONFIGS = {
    "hookless": lambda: base_config(),
    "session-hook": lambda: base_config(callbacks={"session": session_callback}),
}


@pytest.fixture
def servers() -> Iterator[List[Server]]:
    started: List[Server] = []
    yield started
    for s in started:
        s.stop()


def callback_of(location: str) -> str:
    assert urlparse(location).path == "/auth/signin", location
    return parse_qs(urlparse(location).query)["callbackUrl"][0]


# -- Starlette ----------------------------------------------------------------------


def starlette_app() -> Any:
    from starlette.applications import Starlette
    from starlette.authentication import requires
    from starlette.middleware import Middleware
    from starlette.middleware.authentication import AuthenticationMiddleware
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    from libauth.starlette import LibAuthBackend, SessionUser

    def user_json(request: Request) -> Dict[str, Any]:
        user = request.user
        return {
            "authenticated": user.is_authenticated,
            "display_name": user.display_name,
            "identity": user.identity if user.is_authenticated else None,
            "scopes": request.auth.scopes,
            "session": user.session if isinstance(user, SessionUser) else None,
        }

    @requires("authenticated")
    async def me(request: Request) -> JSONResponse:
        return JSONResponse(user_json(request))

    @requires("admin")
    async def admin(request: Request) -> JSONResponse:
        return JSONResponse(user_json(request))

    async def maybe(request: Request) -> JSONResponse:
        return JSONResponse(user_json(request))

    def scopes(session: Dict[str, Any]) -> List[str]:
        return ["reader"]  # "authenticated" is added

    return Starlette(
        routes=[Route("/me", me), Route("/admin", admin), Route("/maybe", maybe)],
        middleware=[Middleware(AuthenticationMiddleware, backend=LibAuthBackend(scopes=scopes))],
    )


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_starlette_backend(config: str, servers: List[Server]) -> None:
    server = start_asgi(CONFIGS[config](), app=starlette_app())
    servers.append(server)
    b = Browser(server)
    assert b.get("/me").status_code == 403  # @requires("authenticated")
    assert b.get("/maybe").json() == {
        "authenticated": False,
        "display_name": "",
        "identity": None,
        "scopes": [],
        "session": None,
    }
    assert b.sign_in("ada", "lovelace").status_code == 302
    me = b.get("/me").json()
    assert me["authenticated"] is True and me["display_name"] == "Ada Lovelace"
    # The user's key is the engine's subject (provider and account id), never
    # the address, which another sign-up could claim unproven.
    assert me["identity"] == f"credentials:{ADA['id']}"
    assert me["scopes"] == ["authenticated", "reader"]
    assert me["session"]["user"]["email"] == ADA["email"]
    assert me["session"].get("seen") is (True if config == "session-hook" else None)
    assert b.get("/admin").status_code == 403  # a scope the session has not


# -- FastAPI ------------------------------------------------------------------------


def fastapi_app() -> Any:
    from fastapi import FastAPI

    app = FastAPI()

    @app.get("/maybe")
    async def maybe(session: CurrentSession) -> Dict[str, Any]:
        return {"session": session}

    @app.get("/private")
    async def private(session: RequiredSession) -> Dict[str, Any]:
        return {"name": session["user"]["name"]}

    return app


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_fastapi_dependencies(config: str, servers: List[Server]) -> None:
    server = start_asgi(CONFIGS[config](), app=fastapi_app())
    servers.append(server)
    b = Browser(server)
    assert b.get("/maybe").json() == {"session": None}
    res = b.get("/private?x=1", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert res.status_code == 303
    assert callback_of(res.headers["location"]) == "/private?x=1"
    res = b.get("/private", headers={"Accept": "application/json"})
    assert res.status_code == 401 and res.json() == {"detail": "Not signed in"}
    res = b.sign_in("ada", "lovelace", callbackUrl="/private?x=1")
    assert res.status_code == 302 and res.headers["location"] == f"{server.url}/private?x=1"
    assert b.get("/private?x=1").json() == {"name": "Ada Lovelace"}
    assert b.get("/maybe").json()["session"]["user"]["email"] == ADA["email"]


# -- Flask --------------------------------------------------------------------------


def start_flask(config: Dict[str, Any]) -> Server:
    import waitress.server
    from flask import Flask, render_template_string

    from libauth.flask import LibAuth, current_session, login_required

    app = Flask(__name__)
    app.config["LIBAUTH"] = config
    ext = LibAuth()
    ext.init_app(app)

    @app.get("/")
    def home() -> str:
        return render_template_string(
            "{% if libauth_session %}Signed in as {{ libauth_session.user.name }}{% else %}Not signed in{% endif %}"
        )

    @app.get("/dashboard")
    @login_required
    def dashboard() -> str:
        return render_template_string("<p>Hello {{ name }}</p>", name=current_session["user"]["name"])

    port = free_port()
    server = waitress.server.create_server(app, host="127.0.0.1", port=port, threads=4)
    threading.Thread(target=server.run, daemon=True).start()
    wait_for(port)
    assert ext.auth is not None
    return Server(f"http://127.0.0.1:{port}", server.close, ext.auth)


def test_flask_extension(servers: List[Server]) -> None:
    server = start_flask(base_config(sync_authorize))
    servers.append(server)
    b = Browser(server)
    assert b.get("/").text == "Not signed in"
    res = b.get("/dashboard?tab=1")
    assert res.status_code == 302 and callback_of(res.headers["location"]) == "/dashboard?tab=1"
    assert b.get(res.headers["location"]).status_code == 200  # the sign-in page, through the extension's middleware
    res = b.sign_in("ada", "lovelace", callbackUrl="/dashboard?tab=1")
    assert res.status_code == 302 and res.headers["location"] == f"{server.url}/dashboard?tab=1"
    assert b.get("/dashboard?tab=1").text == "<p>Hello Ada Lovelace</p>"
    assert b.get("/").text == "Signed in as Ada Lovelace"
    res = b.post("/auth/signout", {"csrfToken": b.csrf()})
    assert res.status_code == 302
    assert b.get("/dashboard").status_code == 302


def test_starlette_backend_without_the_middleware_reads_with_auth() -> None:
    """LibAuthBackend(auth) and get_session(conn, auth) when the app is not
    inside ASGIMiddleware (the routes served elsewhere)."""
    import asyncio

    from starlette.requests import Request

    from libauth.starlette import LibAuthBackend

    auth = libauth.Auth(base_config())

    def scope() -> Dict[str, Any]:
        return {
            "type": "http",
            "method": "GET",
            "path": "/",
            "headers": [(b"host", b"app.example")],
            "query_string": b"",
            "scheme": "http",
            "server": ("app.example", 80),
        }

    assert asyncio.run(LibAuthBackend(auth).authenticate(Request(scope()))) is None
    with pytest.raises(RuntimeError, match="ASGIMiddleware"):
        asyncio.run(LibAuthBackend().authenticate(Request(scope())))
