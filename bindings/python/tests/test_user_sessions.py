"""A user's database sessions from Python: ``list_sessions``,
``end_session``, ``end_other_sessions`` and ``end_all_sessions`` on sessions
stored in SQLite the way the engine stores them, with the request's cookie
marking the caller's session, and their error classes; JWT sessions ended
everywhere, across two server processes. (Sessions made by
sign-ins through the routes: core/tests/user_sessions.rs and
bindings/node/test/user-sessions.test.mjs.)"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest
import requests

import libauth
from conftest import SECRET, server_process

URL = "http://localhost:3000/account"


def config(db: Path, strategy: str = "database") -> Dict[str, Any]:
    return {
        "secret": SECRET,
        "trustHost": True,
        "adapter": {"type": "sqlite", "path": str(db)},
        "session": {"strategy": strategy},
    }


def store_sessions(db: Path, user_id: str, cookies: List[str], user_agent: str) -> None:
    """A user and one session per cookie token, as the engine writes them:
    the stored token is the SHA-256 of the cookie's."""
    now = int(time.time() * 1000)
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT OR IGNORE INTO users (id, email) VALUES (?, ?)", (user_id, f"{user_id}@example.com"))
        for i, raw in enumerate(cookies):
            conn.execute(
                "INSERT INTO sessions (session_token, user_id, expires, created_at, user_agent, ip)"
                " VALUES (?, ?, ?, ?, ?, '203.0.113.0/24')",
                (hashlib.sha256(raw.encode()).hexdigest(), user_id, now + 86_400_000, now - i, user_agent),
            )


def test_list_and_end_sessions(tmp_path: Path) -> None:
    db = tmp_path / "auth.db"
    seen: List[Dict[str, Any]] = []

    def sessions_ended(*, user_id: str, ended: int, scope: str) -> None:
        seen.append({"userId": user_id, "ended": ended, "scope": scope})

    auth = libauth.Auth({**config(db), "events": {"sessionsEnded": sessions_ended}})
    firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"
    store_sessions(db, "ada", ["laptop", "phone", "tablet"], firefox)
    store_sessions(db, "eve", ["eve"], firefox)
    laptop = "authjs.session-token=laptop"
    assert auth.get_session(URL, laptop) is not None, "the stored rows are real sessions"

    listed = auth.list_sessions("ada", URL, laptop)
    assert len(listed) == 3
    assert listed[0]["current"] is True
    assert [s["current"] for s in listed[1:]] == [False, False]
    assert listed[0]["device"] == "Firefox on Linux"
    assert listed[0]["ip"] == "203.0.113.0/24"
    assert all(s["createdAt"].endswith("Z") for s in listed)
    assert not any(s["current"] for s in auth.list_sessions("ada")), "no cookie: no current session"

    phone = next(s["id"] for s in listed[1:])
    with pytest.raises(libauth.SessionTokenError):
        auth.end_session("eve", phone)
    auth.end_session("ada", phone)
    with pytest.raises(libauth.SessionTokenError):
        auth.end_session("ada", phone)
    assert len(auth.list_sessions("ada")) == 2
    assert auth.end_other_sessions("ada", URL, laptop) == 1
    assert auth.get_session(URL, laptop) is not None
    assert auth.get_session(URL, "authjs.session-token=tablet") is None
    assert auth.end_all_sessions("ada") == 1
    assert auth.get_session(URL, laptop) is None
    assert len(auth.list_sessions("eve")) == 1
    assert [(e["scope"], e["ended"], e["userId"]) for e in seen] == [
        ("one", 1, "ada"),
        ("others", 1, "ada"),
        ("all", 1, "ada"),
    ]


def test_jwt_sessions_are_not_listed_but_end_all_at_once(tmp_path: Path) -> None:
    seen: List[Dict[str, Any]] = []

    def sessions_ended(*, user_id: str, ended: int, scope: str, before: str | None = None) -> None:
        seen.append({"userId": user_id, "ended": ended, "scope": scope, "before": before})

    auth = libauth.Auth({**config(tmp_path / "auth.db", "jwt"), "events": {"sessionsEnded": sessions_ended}})
    with pytest.raises(libauth.UnsupportedStrategy):
        auth.list_sessions("ada")
    with pytest.raises(libauth.UnsupportedStrategy):
        auth.end_other_sessions("ada", URL, "authjs.session-token=x")
    assert auth.end_all_sessions("ada") == 0, "nothing stored to count"
    assert len(seen) == 1 and seen[0]["scope"] == "all" and seen[0]["before"].endswith("Z")
    with pytest.raises(libauth.UnsupportedStrategy):
        libauth.Auth(
            {**config(tmp_path / "off.db", "jwt"), "session": {"strategy": "jwt", "revocationCheck": False}}
        ).end_all_sessions("ada")


def test_a_jwt_session_ended_on_one_server_process_ends_on_the_other(tmp_path: Path) -> None:
    """Two waitress processes on one SQLite file, JWT sessions, sign-outs
    read again after one second: "sign out everywhere" on the second ends
    the session there at once and on the first within the interval."""
    here = Path(__file__).parent
    waitress = str(Path(sys.executable).parent / "waitress-serve")
    command = [waitress, "--listen=127.0.0.1:{port}", "server_apps:wsgi_app"]
    env = {
        **os.environ,
        "PYTHONPATH": str(here),
        "LIBAUTH_TEST_SHARED_DB": str(tmp_path / "shared.db"),
        "LIBAUTH_TEST_REVOCATION_INTERVAL": "1",
    }
    with server_process(command, cwd=here, env=env) as first, server_process(command, cwd=here, env=env) as second:
        a, b = f"http://127.0.0.1:{first}", f"http://127.0.0.1:{second}"
        browser = requests.Session()
        csrf = browser.get(f"{a}/auth/csrf").json()["csrfToken"]
        res = browser.post(
            f"{a}/auth/callback/credentials",
            {"csrfToken": csrf, "username": "ada", "password": "lovelace"},
            allow_redirects=False,
        )
        assert res.status_code == 302, res.text
        assert browser.get(f"{a}/me").json()["user"]["name"] == "Ada Lovelace"
        assert browser.get(f"{b}/me").json()["user"]["name"] == "Ada Lovelace", "one session, both processes"
        stolen = requests.Session()
        stolen.cookies.update(browser.cookies)

        csrf = browser.get(f"{b}/auth/csrf").json()["csrfToken"]
        # Without the CSRF token, nothing ends.
        assert browser.post(f"{b}/auth/sessions", {"action": "endAll"}, allow_redirects=False).status_code == 302
        assert stolen.get(f"{b}/me").json() is not None
        res = browser.post(f"{b}/auth/sessions", {"action": "endAll", "csrfToken": csrf}, allow_redirects=False)
        assert res.status_code == 200, res.text
        assert stolen.get(f"{b}/me").json() is None, "ended at once where it was recorded"
        ended_at = time.monotonic()
        while stolen.get(f"{a}/me").json() is not None:
            assert time.monotonic() - ended_at < 1.5, "still signed in on the other process past the interval"
            time.sleep(0.05)
        # The ended cookie cannot act for its user on either process.
        for url in (a, b):
            token = stolen.get(f"{url}/auth/csrf").json()["csrfToken"]
            res = stolen.post(
                f"{url}/auth/sessions", {"action": "endOthers", "csrfToken": token}, allow_redirects=False
            )
            assert res.status_code == 401, res.text
