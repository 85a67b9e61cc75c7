"""A user's database sessions from Python: ``list_sessions``,
``end_session``, ``end_other_sessions`` and ``end_all_sessions`` on sessions
stored in SQLite the way the engine stores them, with the request's cookie
marking the caller's session, and their error classes. (Sessions made by
sign-ins through the routes: core/tests/user_sessions.rs and
bindings/node/test/user-sessions.test.mjs.)"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

import libauth
from conftest import SECRET

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


def test_jwt_sessions_are_not_listed(tmp_path: Path) -> None:
    auth = libauth.Auth(config(tmp_path / "auth.db", "jwt"))
    with pytest.raises(libauth.UnsupportedStrategy):
        auth.list_sessions("ada")
    with pytest.raises(libauth.UnsupportedStrategy):
        auth.end_all_sessions("ada")
