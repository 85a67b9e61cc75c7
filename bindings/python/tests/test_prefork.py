"""Pre-fork servers with an app whose ``Auth`` was built and used before the
fork (``gunicorn --preload``; uWSGI's default, without ``lazy-apps``): 48
concurrent browsers sign in and read their sessions through 4 worker
processes, on PostgreSQL and on SQLite, and every one succeeds. The engine
opens fresh connections in each worker; before, 0 of 48 sign-ins succeeded
under ``gunicorn --preload`` with PostgreSQL."""

from __future__ import annotations

import concurrent.futures
import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any, Dict, Iterator, List

import psycopg
import pytest
import requests

from conftest import server_process

HERE = Path(__file__).parent
BIN = Path(sys.executable).parent
PG = "postgres://postgres@127.0.0.1:5432/test"

SERVERS = {
    "gunicorn --preload": [
        str(BIN / "gunicorn"),
        "--preload",
        "-k",
        "gthread",
        "-w",
        "4",
        "--threads",
        "4",
        "-b",
        "127.0.0.1:{port}",
        "prefork_app:wsgi_app",
    ],
    "uwsgi (pre-fork)": [
        str(BIN / "uwsgi"),
        "--http11-socket",
        "127.0.0.1:{port}",
        "--module",
        "prefork_app:wsgi_app",
        "--master",
        "--processes",
        "4",
        "--threads",
        "4",
        "--die-on-term",
        "--need-app",
        "--disable-logging",
    ],
}


def sign_in_and_read(url: str, n: int) -> bool:
    s = requests.Session()
    csrf = s.get(f"{url}/auth/csrf", timeout=30).json()["csrfToken"]
    res = s.post(
        f"{url}/auth/callback/credentials",
        data={"csrfToken": csrf, "username": f"user{n}"},
        allow_redirects=False,
        timeout=30,
    )
    if res.status_code != 302:
        return False
    me = s.get(f"{url}/me", timeout=30).json()
    return bool(me) and me["user"]["email"] == f"user{n}@example.com"


@pytest.fixture(params=["postgres", "sqlite"])
def adapter(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Dict[str, Any]]:
    if request.param == "sqlite":
        yield {"type": "sqlite", "path": str(tmp_path / "auth.db")}
        return
    schema = "py_prefork_" + uuid.uuid4().hex[:10]
    try:
        yield {"type": "postgres", "url": PG, "schema": schema, "poolSize": 4}
    finally:
        with psycopg.connect(PG.replace("postgres://", "postgresql://"), autocommit=True) as con:
            con.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


@pytest.mark.parametrize("server", sorted(SERVERS))
def test_forty_eight_sign_ins_through_four_forked_workers(server: str, adapter: Dict[str, Any]) -> None:
    command = SERVERS[server]
    assert Path(command[0]).exists(), f"{command[0]} is not installed (scripts/test.sh pins it)"
    env = {**os.environ, "PYTHONPATH": str(HERE), "LIBAUTH_PREFORK_ADAPTER": json.dumps(adapter)}
    with server_process(command, cwd=HERE, env=env) as port:
        url = f"http://127.0.0.1:{port}"
        with concurrent.futures.ThreadPoolExecutor(48) as pool:
            results: List[bool] = list(pool.map(lambda n: sign_in_and_read(url, n), range(48)))
    assert sum(results) == 48, f"{server} on {adapter['type']}: {sum(results)} of 48 signed in"
