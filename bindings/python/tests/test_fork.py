"""Fork safety: an ``Auth`` built and used in a parent (as ``gunicorn
--preload`` and uWSGI's default pre-fork mode do) works in every forked
child, on PostgreSQL and on SQLite: the engine opens fresh connections in a
child and never uses the parent's."""

from __future__ import annotations

import concurrent.futures
import json
import multiprocessing
import uuid
from typing import Any, Dict, List, Tuple

import psycopg
import libauth
from conftest import ADA, SECRET

ORIGIN = "http://127.0.0.1:8000"
PG = "postgres://postgres@127.0.0.1:5432/test"


def authorize(credentials: Dict[str, Any], request: Any) -> Any:
    return {**ADA, "id": credentials["username"], "email": f"{credentials['username']}@example.com"}


def config(adapter: Dict[str, Any]) -> Dict[str, Any]:
    return {
        "secret": SECRET,
        "trustHost": True,
        "adapter": adapter,
        "session": {"strategy": "database"},
        "providers": [libauth.Credentials(credentials={"username": {}}, authorize=authorize)],
        "rateLimit": False,
    }


def sign_in_and_read(auth: libauth.Auth, username: str) -> bool:
    """One browser: csrf, credentials sign-in, then three session reads."""
    res = auth.handle("GET", f"{ORIGIN}/auth/csrf", [])
    csrf_cookie = next(v for k, v in res.headers if k == "set-cookie").split(";")[0]
    token = json.loads(res.body)["csrfToken"]
    res = auth.handle(
        "POST",
        f"{ORIGIN}/auth/callback/credentials",
        [("content-type", "application/x-www-form-urlencoded"), ("cookie", csrf_cookie)],
        f"csrfToken={token}&username={username}".encode(),
        "127.0.0.1",
    )
    cookies = [v.split(";")[0] for k, v in res.headers if k == "set-cookie" and "session-token=" in v]
    if res.status != 302 or not cookies:
        return False
    return all(
        (auth.get_session(f"{ORIGIN}/me", cookies[0]) or {}).get("user", {}).get("email") == f"{username}@example.com"
        for _ in range(3)
    )


def child(auth: libauth.Auth, n: int) -> Tuple[int, int]:
    """In a forked child: 8 concurrent browsers, on threads."""
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda i: sign_in_and_read(auth, f"user-{n}-{i}"), range(8)))
    return sum(results), len(results)


# The forked children inherit `auth` through fork, not pickling: a module global.
AUTH: Any = None


def child_of_global(n: int) -> Tuple[int, int]:
    return child(AUTH, n)


def run_forked_global(auth: libauth.Auth) -> List[Tuple[int, int]]:
    global AUTH
    AUTH = auth
    assert sign_in_and_read(auth, "parent")
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(4) as pool:
        results = pool.map(child_of_global, range(4), chunksize=1)
    assert sign_in_and_read(auth, "parent-after")
    return results


def test_forked_children_sign_in_on_postgres() -> None:
    schema = "py_fork_" + uuid.uuid4().hex[:10]
    try:
        auth = libauth.Auth(config({"type": "postgres", "url": PG, "schema": schema, "poolSize": 4}))
        results = run_forked_global(auth)
        assert results == [(8, 8)] * 4, results
        with psycopg.connect(PG.replace("postgres://", "postgresql://"), autocommit=True) as con:
            users = con.execute(f'SELECT count(*) FROM "{schema}".users').fetchone()
        assert users is not None and users[0] == 4 * 8 + 2
    finally:
        with psycopg.connect(PG.replace("postgres://", "postgresql://"), autocommit=True) as con:
            con.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def test_forked_children_sign_in_on_sqlite(tmp_path: Any) -> None:
    auth = libauth.Auth(config({"type": "sqlite", "path": str(tmp_path / "auth.db")}))
    results = run_forked_global(auth)
    assert results == [(8, 8)] * 4, results
