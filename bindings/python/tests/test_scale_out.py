"""Many servers, one state, from Python: a WSGI server (waitress) and an ASGI
server (uvicorn), each with its own engine, behind one client that
alternates between them, sharing one PostgreSQL (users) and one Redis (rate
limits, sessions through secondaryStorage). Together they admit exactly
`max` failed passwords; a sign-in on one is a session on the other, and a
sign-out on the other ends it for the first.

Needs PostgreSQL and Redis on 127.0.0.1 (scripts/test.sh starts both)."""

from __future__ import annotations

import uuid
from typing import Any, Iterator, Tuple

import pytest

from conftest import Browser, Server, base_config, start_asgi, start_wsgi

PG = "postgres://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379"


@pytest.fixture
def two_servers() -> Iterator[Tuple[Server, Server]]:
    schema = "py_" + uuid.uuid4().hex[:12]
    redis = {"type": "redis", "url": REDIS, "keyPrefix": f"libauth-pytest:{schema}:"}
    config = base_config(
        adapter={"type": "postgres", "url": PG, "schema": schema},
        session={"strategy": "database"},
        secondaryStorage=redis,
        rateLimit={"credentials": {"window": 600, "max": 3}, "store": redis},
    )
    wsgi, asgi = start_wsgi(config), start_asgi(config)
    try:
        yield wsgi, asgi
    finally:
        wsgi.stop()
        asgi.stop()
        import psycopg

        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", autocommit=True) as con:
            con.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def on(browser: Browser, server: Server) -> Browser:
    """The same browser (cookies and all) talking to `server`."""
    browser.url = server.url
    return browser


def test_two_servers_admit_exactly_max_failed_passwords_together(two_servers: Any) -> None:
    wsgi, asgi = two_servers
    attacker = Browser(wsgi)
    statuses = [on(attacker, (wsgi, asgi)[i % 2]).sign_in("ada", "guess").status_code for i in range(8)]
    assert statuses == [302, 302, 302, 429, 429, 429, 429, 429]
    # Past the limit the right password is not even tried, on either.
    assert on(attacker, wsgi).sign_in("ada", "lovelace").status_code == 429
    assert on(attacker, asgi).sign_in("ada", "lovelace").status_code == 429


def test_sign_in_on_one_server_sign_out_on_the_other(two_servers: Any) -> None:
    wsgi, asgi = two_servers
    browser = Browser(wsgi)
    assert browser.sign_in("ada", "lovelace").status_code == 302
    token = browser.session_cookie()
    assert token
    assert on(browser, asgi).session()["user"]["email"] == "ada@example.com"
    on(browser, asgi).post("/auth/signout", {"csrfToken": browser.csrf()})
    assert browser.session_cookie() is None
    assert on(browser, wsgi).session() is None
    # The old cookie finds nothing on either server.
    browser.http.cookies.set("authjs.session-token", token)
    assert on(browser, wsgi).session() is None
    assert on(browser, asgi).session() is None
