"""Many servers, one state, from Python: a WSGI server (waitress) and an ASGI
server (uvicorn), each with its own engine, behind one client that
alternates between them, sharing one PostgreSQL (users) and one Redis (rate
limits, sessions through secondaryStorage). Together they admit exactly
`max` failed passwords; a sign-in on one is a session on the other, and a
sign-out on the other ends it for the first. Then the same across languages:
an Express server process (bindings/node/test/scale-out-server.mjs) and
the ASGI server.

Needs PostgreSQL and Redis on 127.0.0.1 (scripts/test.sh starts both) and
the Node addon (built by scripts/test.sh before this step)."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from pathlib import Path
from typing import Any, Dict, Iterator, Tuple

import pytest

from conftest import SECRET, Browser, Server, base_config, start_asgi, start_wsgi

PG = "postgres://postgres@127.0.0.1:5432/test"
REDIS = "redis://127.0.0.1:6379"


NODE = Path(__file__).parents[2] / "node"


def shared_state(schema: str) -> Dict[str, Any]:
    """The options every server gets: one schema, one Redis key prefix."""
    redis = {"type": "redis", "url": REDIS, "keyPrefix": f"libauth-pytest:{schema}:"}
    return {
        "secret": SECRET,
        "adapter": {"type": "postgres", "url": PG, "schema": schema},
        "session": {"strategy": "database"},
        "secondaryStorage": redis,
        "rateLimit": {"credentials": {"window": 600, "max": 3}, "store": redis},
    }


def drop_schema(schema: str) -> None:
    import psycopg

    with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", autocommit=True) as con:
        con.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@pytest.fixture
def two_servers() -> Iterator[Tuple[Server, Server]]:
    schema = "py_" + uuid.uuid4().hex[:12]
    config = base_config(**shared_state(schema))
    wsgi, asgi = start_wsgi(config), start_asgi(config)
    try:
        yield wsgi, asgi
    finally:
        wsgi.stop()
        asgi.stop()
        drop_schema(schema)


@pytest.fixture
def express_and_asgi() -> Iterator[Tuple[Server, Server]]:
    """An Express server process (any username signs in with "secret")
    and an ASGI server (ada / lovelace), on one state."""
    assert (NODE / "libauth.node").exists(), (
        "the Node addon is not built (npm ci in bindings/node; scripts/test.sh does)"
    )
    schema = "py_" + uuid.uuid4().hex[:12]
    state = shared_state(schema)
    env = {**os.environ, "LIBAUTH_SCALE_OUT_CONFIG": json.dumps({**state, "trustHost": True})}
    node = subprocess.Popen(
        ["node", str(NODE / "test" / "scale-out-server.mjs")], cwd=NODE, env=env, stdout=subprocess.PIPE, text=True
    )
    try:
        assert node.stdout is not None
        line = node.stdout.readline()
        assert line.startswith("listening "), f"the Express server did not start: {line!r}"
        # No Python engine behind it: Browser needs only its URL.
        express = Server(f"http://127.0.0.1:{line.split()[1]}", lambda: None, None)  # type: ignore[arg-type]
        asgi = start_asgi(base_config(**state))
        try:
            yield express, asgi
        finally:
            asgi.stop()
    finally:
        node.kill()
        node.wait(10)
        drop_schema(schema)


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


def test_express_and_asgi_share_limits_and_sessions(express_and_asgi: Any) -> None:
    express, asgi = express_and_asgi
    attacker = Browser(express)
    statuses = [on(attacker, (express, asgi)[i % 2]).sign_in("mallory", "guess").status_code for i in range(6)]
    assert statuses == [302, 302, 302, 429, 429, 429], "one count for both languages"
    # Signed in by Express (user "grace" stored in PostgreSQL, the session
    # in Redis), read and signed out by Python, gone for Express.
    browser = Browser(express)
    assert browser.sign_in("grace", "secret").status_code == 302
    assert on(browser, asgi).session()["user"]["email"] == "grace@example.com"
    on(browser, asgi).post("/auth/signout", {"csrfToken": browser.csrf()})
    assert browser.session_cookie() is None
    assert on(browser, express).session() is None
