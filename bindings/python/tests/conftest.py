"""Real servers on free ports for the tests: waitress (WSGI) and uvicorn
(ASGI), each in a thread of the test process, so hooks are test functions."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional

import pytest
import requests

import libauth

SECRET = "libauth-python-test-secret-0123456789abcdef"
os.environ.setdefault("AUTH_TRUST_HOST", "true")

ADA = {"id": "42", "name": "Ada Lovelace", "email": "ada@example.com", "image": "https://img.example/ada.png"}


class InvalidLogin(libauth.CredentialsSignin):
    def __init__(self) -> None:
        super().__init__("bad login", code="invalid_login")


async def async_authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
    await asyncio.sleep(0.001)
    if credentials.get("username") == "ada" and credentials.get("password") == "lovelace":
        return dict(ADA)
    if credentials.get("username") == "throw":
        raise InvalidLogin()
    return None


def sync_authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
    if credentials.get("username") == "ada" and credentials.get("password") == "lovelace":
        return dict(ADA)
    if credentials.get("username") == "throw":
        raise InvalidLogin()
    return None


def base_config(authorize: Callable[..., Any] = async_authorize, **extra: Any) -> Dict[str, Any]:
    config: Dict[str, Any] = {
        "secret": SECRET,
        "basePath": "/auth",
        "providers": [
            libauth.Credentials(
                credentials={"username": {"label": "Username"}, "password": {"label": "Password", "type": "password"}},
                authorize=authorize,
            )
        ],
    }
    config.update(extra)
    return config


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(port: int) -> None:
    deadline = time.time() + 10
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"server on {port} did not start")


# -- the apps behind the middleware: /me (the session, or 302 /login) ------------


def wsgi_app(environ: Dict[str, Any], start_response: Callable[..., Any]) -> Any:
    path = environ.get("PATH_INFO", "")
    if path == "/me":
        session = libauth.get_session(environ)
        assert libauth.get_session(environ) is session, "read once, then kept"
        if session is None:
            start_response("302 Found", [("Location", "/login"), ("Content-Length", "0")])
            return [b""]
        body = json.dumps(session).encode()
        start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
        return [body]
    body = b"app:" + path.encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
    return [body]


def starlette_app() -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse, PlainTextResponse, RedirectResponse
    from starlette.routing import Route

    async def me(request: Request) -> Any:
        session = request.state.session
        if session is None:
            return RedirectResponse("/login", status_code=302)
        assert libauth.get_session(request) == session
        return JSONResponse(session)

    async def other(request: Request) -> Any:
        return PlainTextResponse("app:" + request.url.path)

    return Starlette(routes=[Route("/me", me), Route("/{rest:path}", other)])


class Server:
    def __init__(self, url: str, stop: Callable[[], None], auth: libauth.Auth) -> None:
        self.url = url
        self.base_path = "/auth"
        self.stop = stop
        self.auth = auth


def start_wsgi(config: Dict[str, Any], threads: int = 8, port: Optional[int] = None) -> Server:
    import waitress.server

    auth = libauth.Auth(config)
    app = libauth.WSGIMiddleware(wsgi_app, auth)
    port = port or free_port()
    server = waitress.server.create_server(app, host="127.0.0.1", port=port, threads=threads)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for(port)

    def stop() -> None:
        server.close()

    return Server(f"http://127.0.0.1:{port}", stop, auth)


def start_asgi(config: Dict[str, Any], app: Any = None, port: Optional[int] = None) -> Server:
    import uvicorn

    auth = libauth.Auth(config)
    asgi = libauth.ASGIMiddleware(app or starlette_app(), auth)
    port = port or free_port()
    server = uvicorn.Server(uvicorn.Config(asgi, host="127.0.0.1", port=port, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_for(port)

    def stop() -> None:
        server.should_exit = True
        thread.join(5)

    return Server(f"http://127.0.0.1:{port}", stop, auth)


SERVERS = {"wsgi": start_wsgi, "asgi": start_asgi}


@pytest.fixture(params=["wsgi", "asgi"])
def kind(request: Any) -> str:
    return str(request.param)


@pytest.fixture
def serve(kind: str) -> Iterator[Callable[..., Server]]:
    started = []

    def start(config: Dict[str, Any], port: Optional[int] = None) -> Server:
        s = SERVERS[kind](config, port=port)
        started.append(s)
        return s

    yield start
    for s in started:
        s.stop()


class Browser:
    """A client with a cookie jar that does not follow redirects."""

    def __init__(self, server: Server) -> None:
        self.url = server.url
        self.base = server.base_path
        self.http = requests.Session()

    def get(self, path: str, **kw: Any) -> requests.Response:
        return self.http.get(self.url + path, allow_redirects=False, timeout=30, **kw)

    def post(self, path: str, data: Any = None, **kw: Any) -> requests.Response:
        return self.http.post(self.url + path, data=data, allow_redirects=False, timeout=30, **kw)

    def csrf(self) -> str:
        return str(self.get(f"{self.base}/csrf").json()["csrfToken"])

    def sign_in(self, username: str, password: str, **extra: str) -> requests.Response:
        token = self.csrf()
        return self.post(
            f"{self.base}/callback/credentials",
            {"csrfToken": token, "username": username, "password": password, **extra},
        )

    def session(self) -> Any:
        return self.get(f"{self.base}/session").json()

    def session_cookie(self) -> Optional[str]:
        return self.http.cookies.get("authjs.session-token")


@contextlib.contextmanager
def server_process(command: List[str], *, cwd: Path, env: Dict[str, str], probe: str = "/") -> Iterator[int]:
    """Run a server (``command``, with ``{port}`` for a free port) until the
    block ends, once it answers ``probe`` over HTTP with any status; its
    output is shown if it does not start. Yields the port."""
    port = free_port()
    proc = subprocess.Popen(
        [part.format(port=port) for part in command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.time() + 30
        while True:
            if proc.poll() is not None or time.time() > deadline:
                proc.kill()
                out = proc.communicate()[0].decode(errors="replace")
                raise AssertionError(f"{command[0]} did not start:\n{out[-3000:]}")
            try:
                requests.get(f"http://127.0.0.1:{port}{probe}", timeout=2)
                break
            except requests.RequestException:
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
