"""libauth's WSGI and ASGI middleware under the servers Python apps are
deployed on, each started in its own process on a free port and spoken to
over a raw socket: a HEAD answered by the middleware has headers and no
body, and the next request on the same keep-alive connection (pipelined)
gets its own answer; repeated ``Cookie`` headers (which a WSGI server joins
into one, with ", " or ",") are read as one."""

from __future__ import annotations

import json
import os
import socket
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Tuple

import pytest
import requests

from conftest import server_process

HERE = Path(__file__).parent
BIN = Path(sys.executable).parent

#: name -> (interface, command line). uWSGI is built from source by pip
#: (scripts/test.sh pins it); gunicorn's sync worker closes every
#: connection (no keep-alive by design), the others keep it open.
SERVERS: Dict[str, Tuple[str, List[str]]] = {
    "gunicorn-sync": (
        "wsgi",
        [str(BIN / "gunicorn"), "-k", "sync", "-w", "1", "-b", "127.0.0.1:{port}", "server_apps:wsgi_app"],
    ),
    "gunicorn-gthread": (
        "wsgi",
        [
            str(BIN / "gunicorn"),
            "-k",
            "gthread",
            "--threads",
            "4",
            "-w",
            "1",
            "-b",
            "127.0.0.1:{port}",
            "server_apps:wsgi_app",
        ],
    ),
    "gunicorn-uvicorn": (
        "asgi",
        [
            str(BIN / "gunicorn"),
            "-k",
            "uvicorn.workers.UvicornWorker",
            "-w",
            "1",
            "-b",
            "127.0.0.1:{port}",
            "server_apps:asgi_app",
        ],
    ),
    "uwsgi": (
        "wsgi",
        [
            str(BIN / "uwsgi"),
            "--http11-socket",
            "127.0.0.1:{port}",
            "--module",
            "server_apps:wsgi_app",
            "--master",
            "--processes",
            "1",
            "--threads",
            "4",
            "--die-on-term",
            "--need-app",
            "--disable-logging",
            "--lazy-apps",
        ],
    ),
    "waitress": ("wsgi", [str(BIN / "waitress-serve"), "--listen=127.0.0.1:{port}", "server_apps:wsgi_app"]),
    "uvicorn": (
        "asgi",
        [
            str(BIN / "uvicorn"),
            "--host",
            "127.0.0.1",
            "--port",
            "{port}",
            "--log-level",
            "warning",
            "server_apps:asgi_app",
        ],
    ),
    "hypercorn": ("asgi", [str(BIN / "hypercorn"), "-b", "127.0.0.1:{port}", "server_apps:asgi_app"]),
    "granian-asgi": (
        "asgi",
        [
            str(BIN / "granian"),
            "--interface",
            "asgi",
            "--host",
            "127.0.0.1",
            "--port",
            "{port}",
            "--workers",
            "1",
            "--no-ws",
            "--log-level",
            "warning",
            "server_apps:asgi_app",
        ],
    ),
    "granian-wsgi": (
        "wsgi",
        [
            str(BIN / "granian"),
            "--interface",
            "wsgi",
            "--host",
            "127.0.0.1",
            "--port",
            "{port}",
            "--workers",
            "1",
            "--log-level",
            "warning",
            "server_apps:wsgi_app",
        ],
    ),
}


class Running:
    def __init__(self, name: str, port: int) -> None:
        self.name = name
        self.port = port
        self.url = f"http://127.0.0.1:{port}"


@pytest.fixture(scope="module", params=sorted(SERVERS))
def server(request: pytest.FixtureRequest) -> Iterator[Running]:
    name = request.param
    _, command = SERVERS[name]
    if not Path(command[0]).exists():
        pytest.fail(f"{name}: {command[0]} is not installed (scripts/test.sh pins it)")
    env = {**os.environ, "PYTHONPATH": str(HERE), "PYTHONUNBUFFERED": "1"}
    with server_process(command, cwd=HERE, env=env) as port:
        yield Running(name, port)


class Reader:
    """HTTP/1.1 responses read off one socket, framed by Content-Length."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buf = b""

    def _fill(self) -> bool:
        chunk = self.sock.recv(65536)
        self.buf += chunk
        return bool(chunk)

    def response(self, head: bool = False) -> Tuple[int, Dict[str, str], bytes]:
        while b"\r\n\r\n" not in self.buf:
            if not self._fill():
                raise AssertionError(f"connection closed before a response; read {self.buf!r}")
        raw, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = raw.decode("latin-1").split("\r\n")
        assert lines[0].startswith("HTTP/1."), f"not a status line: {lines[0]!r} (a body left over?)"
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            k, _, v = line.partition(":")
            headers[k.strip().lower()] = v.strip()
        if head:
            return status, headers, b""
        if headers.get("transfer-encoding", "").lower() == "chunked":
            body = b""
            while True:
                while b"\r\n" not in self.buf:
                    assert self._fill(), "connection closed in a chunk"
                size_line, self.buf = self.buf.split(b"\r\n", 1)
                size = int(size_line.split(b";")[0], 16)
                while len(self.buf) < size + 2:
                    assert self._fill(), "connection closed in a chunk"
                body += self.buf[:size]
                self.buf = self.buf[size + 2 :]
                if size == 0:
                    return status, headers, body
        length = int(headers.get("content-length", "0"))
        while len(self.buf) < length:
            assert self._fill(), "connection closed in a body"
        body, self.buf = self.buf[:length], self.buf[length:]
        return status, headers, body

    def rest(self) -> bytes:
        """What else arrives before the server closes or goes quiet."""
        self.sock.settimeout(0.5)
        try:
            while self._fill():
                pass
        except socket.timeout:
            pass
        return self.buf


def request(path: str, port: int, method: str = "GET", extra: str = "") -> bytes:
    return f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n{extra}\r\n".encode()


#: Servers that answer requests pipelined behind one another; uWSGI's
#: http11-socket answers the first and closes (keep-alive works when each
#: request waits for the previous answer).
NO_PIPELINING = {"uwsgi"}


def _no_keep_alive(server: Running, headers: Dict[str, str], reader: Reader) -> bool:
    if headers.get("connection", "").lower() != "close":
        return False
    # No keep-alive on this server (gunicorn's sync worker, by design): no
    # body may follow the HEAD's headers before the close.
    assert server.name == "gunicorn-sync", f"{server.name} closed a keep-alive connection"
    assert reader.rest() == b"", f"{server.name} wrote a body after a HEAD: {reader.buf!r}"
    return True


def test_head_then_get_on_one_keep_alive_connection(server: Running) -> None:
    """HEAD and GET under /auth, one after the other on one keep-alive
    connection: the HEAD's answer has headers (its Content-Length that of
    the GET's body) and no body; the next GET gets its own answer."""
    port = server.port
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        reader = Reader(sock)
        for _ in range(2):
            sock.sendall(request("/auth/providers", port, "HEAD"))
            status, headers, _ = reader.response(head=True)
            assert status in (200, 400), status
            if _no_keep_alive(server, headers, reader):
                return
            sock.settimeout(0.3)
            try:
                reader._fill()
            except socket.timeout:
                pass
            sock.settimeout(10)
            assert reader.buf == b"", f"{server.name} wrote a body after a HEAD: {reader.buf!r}"
            sock.sendall(request("/auth/providers", port))
            status, _, body = reader.response()
            assert status == 200 and "credentials" in json.loads(body), body


def test_head_then_get_pipelined(server: Running) -> None:
    """A HEAD with GETs pipelined behind it: each gets its own answer (a
    HEAD body written would be read as the next status line)."""
    if server.name in NO_PIPELINING:
        return
    port = server.port
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(
            request("/auth/providers", port, "HEAD") + request("/auth/providers", port) + request("/auth/csrf", port)
        )
        reader = Reader(sock)
        status, headers, _ = reader.response(head=True)
        assert status in (200, 400), status
        if _no_keep_alive(server, headers, reader):
            return
        status, _, body = reader.response()
        assert status == 200 and "credentials" in json.loads(body), body
        status, _, body = reader.response()
        assert status == 200 and "csrfToken" in json.loads(body), body
        assert reader.rest() == b"", "nothing more on the connection"


def _sign_in(url: str) -> str:
    http = requests.Session()
    token = http.get(f"{url}/auth/csrf", timeout=10).json()["csrfToken"]
    res = http.post(
        f"{url}/auth/callback/credentials",
        allow_redirects=False,
        timeout=10,
        data={"csrfToken": token, "username": "ada", "password": "lovelace"},
    )
    assert res.status_code == 302, res.status_code
    cookie = http.cookies.get("authjs.session-token")
    assert cookie
    return str(cookie)


def _get_json(port: int, path: str, extra: str) -> object:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request(path, port, extra=extra + "Connection: close\r\n"))
        status, _, body = Reader(sock).response()
        assert status == 200, (status, body)
        return json.loads(body)


def test_repeated_cookie_headers_are_read_as_one(server: Running) -> None:
    token = _sign_in(server.url)
    port = server.port
    for cookies in (["theme=dark", f"authjs.session-token={token}"], [f"authjs.session-token={token}", "theme=dark"]):
        extra = "".join(f"Cookie: {c}\r\n" for c in cookies)
        seen = _get_json(port, "/cookie", extra)  # what the server hands the app
        me = _get_json(port, "/me", extra)
        assert isinstance(me, dict) and me["user"]["name"] == "Ada Lovelace", (server.name, seen, me)
        session = _get_json(port, "/auth/session", extra)
        assert isinstance(session, dict) and session["user"]["email"] == "ada@example.com", (server.name, seen)


def test_server_cookie_joining_is_what_the_middleware_expects(server: Running) -> None:
    """Record how each server hands over two Cookie headers (a changed
    server version that joins them some other way shows up here)."""
    seen = _get_json(server.port, "/cookie", "Cookie: a=1\r\nCookie: b=2\r\n")
    interface = SERVERS[server.name][0]
    if interface == "asgi":
        assert seen in (["a=1", "b=2"], ["a=1; b=2"]), (server.name, seen)
    else:
        assert seen in ("a=1, b=2", "a=1,b=2", "a=1; b=2", "a=1;b=2"), (server.name, seen)
    print(f"{server.name}: two Cookie headers reach the app as {seen!r}")
