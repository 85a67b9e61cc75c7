"""Database sessions through a Python adapter object, SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import datetime as dt
import uuid
from typing import Any, Dict, Optional


from conftest import Browser, base_config


class MemoryAdapter:
    """An Auth.js adapter in Python (snake_case methods, some async)."""

    def __init__(self) -> None:
        self.users: Dict[str, Dict[str, Any]] = {}
        self.sessions: Dict[str, Dict[str, Any]] = {}
        self.accounts: Dict[Any, str] = {}
        self.calls: list = []

    async def create_user(self, user: Dict[str, Any]) -> Dict[str, Any]:
        self.users[user["id"]] = user
        return user

    def get_user(self, id: str) -> Optional[Dict[str, Any]]:
        return self.users.get(id)

    def get_user_by_email(self, email: str) -> Optional[Dict[str, Any]]:
        return next((u for u in self.users.values() if u.get("email") == email), None)

    def get_user_by_account(self, key: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        uid = self.accounts.get((key["provider"], key["providerAccountId"]))
        return self.users.get(uid) if uid else None

    def update_user(self, user: Dict[str, Any]) -> Dict[str, Any]:
        self.users[user["id"]].update(user)
        return self.users[user["id"]]

    def delete_user(self, id: str) -> None:
        self.users.pop(id, None)

    def link_account(self, account: Dict[str, Any]) -> None:
        self.accounts[(account["provider"], account["providerAccountId"])] = account["userId"]

    async def create_session(self, session: Dict[str, Any]) -> Dict[str, Any]:
        await asyncio.sleep(0.001)
        assert isinstance(session["expires"], dt.datetime), "dates arrive as datetime"
        self.calls.append("createSession")
        self.sessions[session["sessionToken"]] = session
        return session

    async def get_session_and_user(self, token: str) -> Optional[Dict[str, Any]]:
        self.calls.append("getSessionAndUser")
        session = self.sessions.get(token)
        if session is None:
            return None
        return {"session": session, "user": self.users[session["userId"]]}

    def update_session(self, session: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        current = self.sessions.get(session["sessionToken"])
        if current is None:
            return None
        current.update(session)
        return current

    def delete_session(self, token: str) -> Optional[Dict[str, Any]]:
        self.calls.append("deleteSession")
        return self.sessions.pop(token, None)


def database_flow(s: Any) -> None:
    br = Browser(s)
    assert br.sign_in("ada", "lovelace").status_code == 302
    token = br.session_cookie()
    assert token and token.count(".") == 0, "a database session token, not a JWT"
    assert br.session()["user"]["email"] == "ada@example.com"
    assert br.get("/me").json()["user"]["email"] == "ada@example.com"
    br.post("/auth/signout", {"csrfToken": br.csrf()})
    assert br.session() is None
    assert br.get("/me").status_code == 302


def authorize_into(adapter: Any) -> Any:
    def authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
        if credentials.get("username") != "ada" or credentials.get("password") != "lovelace":
            return None
        return {"id": "42", "name": "Ada Lovelace", "email": "ada@example.com"}

    return authorize


def test_python_adapter(serve: Any) -> None:
    adapter = MemoryAdapter()
    adapter.users["42"] = {"id": "42", "name": "Ada Lovelace", "email": "ada@example.com", "emailVerified": None}
    s = serve(base_config(authorize_into(adapter), adapter=adapter, session={"strategy": "database"}))
    database_flow(s)
    assert {"createSession", "getSessionAndUser", "deleteSession"} <= set(adapter.calls)


def test_sqlite_adapter(serve: Any, tmp_path: Any) -> None:
    db = tmp_path / "auth.db"
    s = serve(base_config(adapter={"type": "sqlite", "path": str(db)}, session={"strategy": "database"}))
    # Credentials sign-in with the database strategy needs the user in the store.
    _ = s.auth  # built; the engine created the schema
    import sqlite3

    con = sqlite3.connect(db)
    tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
    assert {"users", "sessions"} <= {t.lower() for t in tables}, tables
    con.close()
    br = Browser(s)
    res = br.sign_in("ada", "lovelace")
    assert res.status_code == 302
    assert br.session()["user"]["email"] == "ada@example.com"
    assert br.get("/me").json()["user"]["email"] == "ada@example.com"
    br.post("/auth/signout", {"csrfToken": br.csrf()})
    assert br.session() is None


def test_postgres_adapter(serve: Any) -> None:
    schema = "py_" + uuid.uuid4().hex[:12]
    s = serve(
        base_config(
            adapter={"type": "postgres", "url": "postgres://postgres@127.0.0.1:5432/test", "schema": schema},
            session={"strategy": "database"},
        )
    )
    try:
        br = Browser(s)
        assert br.sign_in("ada", "lovelace").status_code == 302
        assert br.session()["user"]["email"] == "ada@example.com"
        assert br.get("/me").json()["user"]["email"] == "ada@example.com"
        br.post("/auth/signout", {"csrfToken": br.csrf()})
        assert br.session() is None
    finally:
        import psycopg

        with psycopg.connect("postgresql://postgres@127.0.0.1:5432/test", autocommit=True) as con:
            con.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
