"""Security review 2 over real HTTP, behind waitress (WSGI) and uvicorn
(ASGI): a Host header that smuggles a path is a 400, never a route."""

from __future__ import annotations

import socket
from typing import Any, List, Tuple
from urllib.parse import urlsplit

from conftest import base_config


def raw_status(url: str, path: str, headers: List[Tuple[str, str]]) -> int:
    """One raw HTTP/1.1 request (clients refuse these Host values): its status."""
    parts = urlsplit(url)
    lines = [f"GET {path} HTTP/1.1", *(f"{k}: {v}" for k, v in headers), "connection: close", "", ""]
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall("\r\n".join(lines).encode("latin-1"))
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    return int(data.split(b" ", 2)[1])


def test_a_host_that_is_not_a_plain_host_and_port_is_a_bad_request(serve: Any) -> None:
    s = serve(base_config(trustHost=True))
    host = urlsplit(s.url).netloc
    for value in (
        host + "\\auth\\callback\\credentials?code=c&state=s&y=",
        host + "/auth/callback/credentials?code=c&state=s&y=",
        "user@" + host,
        host + ":99999",
    ):
        assert raw_status(s.url, "/auth/session", [("host", value)]) == 400, value
    assert raw_status(s.url, "/auth/session", [("host", host)]) == 200
