"""ASGIMiddleware against what the app and the server around it bring: a
``session`` already in the request state, and request bodies far over the
limit."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import threading
from typing import Any, Dict, Iterator, List

import pytest

import libauth
from conftest import ADA, Browser, Server, base_config, free_port, start_asgi, sync_authorize, wait_for

MAX_BODY = libauth.asgi.MAX_BODY


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
        return JSONResponse(
            {
                "session": session if session is None or isinstance(session, dict) else repr(session),
                "session_error": repr(getattr(request.state, "session_error", None)),
                "client": request.state.client,
            }
        )

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
    scope = {
        "type": "http",
        "scheme": "http",
        "path": "/me",
        "raw_path": b"/me",
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"example.test")],
        "state": {"session": AppClient()},
    }
    assert libauth.get_session(scope, auth) is None
    assert isinstance(scope["state"]["session"], AppClient), "the app's state is the app's"


def _body_scope() -> Dict[str, Any]:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/auth/callback/credentials",
        "raw_path": b"/auth/callback/credentials",
        "query_string": b"",
        "root_path": "",
        "server": ("127.0.0.1", 8000),
        "headers": [(b"host", b"127.0.0.1:8000"), (b"content-type", b"application/x-www-form-urlencoded")],
    }


def _run_body(total: int, chunk: int) -> tuple[int, int]:
    """POST a body of ``total`` bytes in ``chunk``-byte messages through the
    middleware; the status it answers and the bytes it read."""
    auth = libauth.Auth(base_config(sync_authorize, trustHost=True))

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("an auth route reached the app")

    middleware = libauth.ASGIMiddleware(app, auth)
    read = 0
    sent: List[Dict[str, Any]] = []

    async def receive() -> Dict[str, Any]:
        nonlocal read
        n = min(chunk, total - read)
        read += n
        return {"type": "http.request", "body": b"a" * n, "more_body": read < total}

    async def send(message: Dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(middleware(_body_scope(), receive, send))
    return int(sent[0]["status"]), read


@pytest.mark.parametrize("chunk", [1, 1000, 8192, 65536, MAX_BODY + 1, 1 << 20])
def test_asgi_answers_413_after_reading_at_most_one_chunk_past_the_limit(chunk: int) -> None:
    """A body over the limit is answered 413 once it passed the limit,
    whatever the size of the messages it comes in: the middleware reads no
    more than the limit plus one message, not the whole body."""
    status, read = _run_body(16 << 20, chunk)
    assert status == 413
    assert MAX_BODY < read <= MAX_BODY + chunk, read


def test_asgi_reads_a_body_at_the_limit_whole() -> None:
    status, read = _run_body(MAX_BODY, 8192)
    assert status != 413 and read == MAX_BODY


def test_asgi_413_reaches_a_client_still_sending_its_body() -> None:
    """Over uvicorn: a client that announced 64 MiB and keeps sending gets
    the 413 before it sent a quarter of a MiB, not after the whole body."""
    server = start_asgi(base_config(sync_authorize, trustHost=True))
    port = int(server.url.rsplit(":", 1)[1])
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            sock.sendall(
                f"POST /auth/callback/credentials HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
                "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 67108864\r\n\r\n".encode()
            )
            sent = 0
            try:
                for _ in range(4):  # 256 KiB: four times the limit, well under what was announced
                    sock.sendall(b"a" * 65536)
                    sent += 65536
            except OSError:
                pass  # the server answered and closed while we were sending: what it answered is read below
            sock.settimeout(10)
            head = sock.recv(4096)
        assert head.startswith(b"HTTP/1.1 413"), head[:200]
        assert sent < 67108864
    finally:
        server.stop()
