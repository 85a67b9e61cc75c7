"""The protocol flows over real HTTP, behind waitress (WSGI) and uvicorn (ASGI)."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List

from conftest import Browser, base_config, sync_authorize


def test_csrf(serve: Any) -> None:
    s = serve(base_config())
    br = Browser(s)
    res = br.get("/auth/csrf")
    assert res.status_code == 200
    assert len(res.json()["csrfToken"]) == 64
    cookie = res.headers["set-cookie"]
    assert "authjs.csrf-token=" in cookie and "HttpOnly" in cookie


def test_credentials_sign_in_and_session(serve: Any) -> None:
    s = serve(base_config())
    br = Browser(s)
    res = br.sign_in("ada", "lovelace")
    assert res.status_code == 302
    assert res.headers["location"] == s.url
    assert br.session_cookie()
    session = br.session()
    assert session["user"] == {
        "name": "Ada Lovelace",
        "email": "ada@example.com",
        "image": "https://img.example/ada.png",
    }
    me = br.get("/me")
    assert me.status_code == 200 and me.json()["user"]["email"] == "ada@example.com"
    other = br.get("/elsewhere")
    assert other.text == "app:/elsewhere", "everything outside basePath reaches the app"


def test_wrong_credentials_and_credentials_signin_code(serve: Any) -> None:
    s = serve(base_config())
    br = Browser(s)
    res = br.sign_in("ada", "wrong")
    assert res.headers["location"] == f"{s.url}/auth/signin?error=CredentialsSignin&code=credentials"
    res = br.sign_in("throw", "x")
    assert res.headers["location"] == f"{s.url}/auth/signin?error=CredentialsSignin&code=invalid_login"
    assert br.session() is None


def test_session_update(serve: Any) -> None:
    seen: List[Any] = []

    def jwt(args: Dict[str, Any]) -> Dict[str, Any]:
        token = args["token"]
        if args.get("trigger") == "update" and (args.get("session") or {}).get("name"):
            token["name"] = args["session"]["name"]
            seen.append("update")
        return token  # type: ignore[no-any-return]

    s = serve(base_config(callbacks={"jwt": jwt}))
    br = Browser(s)
    br.sign_in("ada", "lovelace")
    token = br.csrf()
    res = br.post(
        "/auth/session",
        json.dumps({"csrfToken": token, "data": {"name": "Countess"}}),
        headers={"content-type": "application/json"},
    )
    assert res.status_code == 200
    assert res.json()["user"]["name"] == "Countess"
    assert br.session()["user"]["name"] == "Countess"
    assert seen == ["update"]
    res = br.post(
        "/auth/session", json.dumps({"csrfToken": "forged", "data": {}}), headers={"content-type": "application/json"}
    )
    assert res.status_code == 400


def test_sign_out(serve: Any) -> None:
    s = serve(base_config())
    br = Browser(s)
    br.sign_in("ada", "lovelace")
    res = br.post("/auth/signout", {"csrfToken": br.csrf()})
    assert res.status_code == 302
    assert br.session_cookie() is None
    assert br.session() is None
    me = br.get("/me")
    assert me.status_code == 302 and me.headers["location"] == "/login"


def test_csrf_rejection(serve: Any) -> None:
    s = serve(base_config())
    br = Browser(s)
    br.csrf()
    res = br.post("/auth/callback/credentials", {"csrfToken": "forged", "username": "ada", "password": "lovelace"})
    assert res.status_code == 302
    assert res.headers["location"] == f"{s.url}/auth/signin?error=MissingCSRF"
    assert br.session_cookie() is None
    br.sign_in("ada", "lovelace")
    res = br.post("/auth/signout", {})
    assert res.headers["location"] == f"{s.url}/auth/signin?error=MissingCSRF"
    assert br.session()["user"]["name"] == "Ada Lovelace"


def test_open_redirect_rejection(serve: Any) -> None:
    s = serve(base_config())
    for target, expected in [
        ("https://evil.example/steal", s.url),
        ("//evil.example/x", s.url),
        ("/dashboard", f"{s.url}/dashboard"),
    ]:
        br = Browser(s)
        res = br.sign_in("ada", "lovelace", callbackUrl=target)
        assert res.headers["location"] == expected, target


def test_tampered_cookie(serve: Any) -> None:
    s = serve(base_config())
    br = Browser(s)
    br.sign_in("ada", "lovelace")
    value = br.session_cookie()
    assert value
    i = len(value) // 2
    tampered = value[:i] + ("B" if value[i] == "A" else "A") + value[i + 1 :]
    br.http.cookies.set("authjs.session-token", tampered, domain="127.0.0.1", path="/")
    assert br.get("/me").status_code == 302
    res = br.get("/auth/session")
    assert res.json() is None
    assert "authjs.session-token=" in res.headers.get("set-cookie", ""), "cookie cleared"


def test_sync_hooks(serve: Any) -> None:
    seen: List[Any] = []

    def sign_in(args: Dict[str, Any]) -> bool:
        seen.append(("signIn", args["user"]["id"], args["account"]["provider"]))
        return True

    def session(args: Dict[str, Any]) -> Dict[str, Any]:
        args["session"]["user"]["role"] = "admin"
        return args["session"]  # type: ignore[no-any-return]

    def on_sign_out(message: Dict[str, Any]) -> None:
        seen.append(("events.signOut", message["token"]["email"]))

    s = serve(
        base_config(sync_authorize, callbacks={"signIn": sign_in, "session": session}, events={"signOut": on_sign_out})
    )
    br = Browser(s)
    assert br.sign_in("ada", "lovelace").status_code == 302
    assert br.session()["user"]["role"] == "admin"
    assert br.get("/me").json()["user"]["role"] == "admin", "get_session runs the session callback"
    br.post("/auth/signout", {"csrfToken": br.csrf()})
    assert seen == [("signIn", "42", "credentials"), ("events.signOut", "ada@example.com")]


def test_async_hooks(serve: Any) -> None:
    seen: List[Any] = []

    async def sign_in(args: Dict[str, Any]) -> bool:
        await asyncio.sleep(0.005)
        return args["credentials"]["username"] == "ada"

    async def jwt(args: Dict[str, Any]) -> Dict[str, Any]:
        await asyncio.sleep(0.001)
        if args.get("trigger") == "signIn":
            args["token"]["role"] = "admin"
        return args["token"]  # type: ignore[no-any-return]

    async def session(args: Dict[str, Any]) -> Dict[str, Any]:
        await asyncio.sleep(0.001)
        args["session"]["user"]["role"] = args["token"]["role"]
        return args["session"]  # type: ignore[no-any-return]

    async def redirect(args: Dict[str, Any]) -> str:
        url, base = args["url"], args["baseUrl"]
        return f"{base}{url}" if url.startswith("/") else (url if url.startswith(base) else f"{base}/safe")

    async def on_sign_in(message: Dict[str, Any]) -> None:
        await asyncio.sleep(0.002)
        seen.append(("events.signIn", message["user"]["email"]))

    s = serve(
        base_config(
            callbacks={"signIn": sign_in, "jwt": jwt, "session": session, "redirect": redirect},
            events={"signIn": on_sign_in},
        )
    )
    br = Browser(s)
    res = br.sign_in("ada", "lovelace", callbackUrl="https://elsewhere.example/")
    assert res.status_code == 302
    assert res.headers["location"] == f"{s.url}/safe", "the async redirect callback decided"
    assert br.session()["user"]["role"] == "admin"
    assert br.get("/me").json()["user"]["role"] == "admin"
    assert seen == [("events.signIn", "ada@example.com")]


def test_chunked_session_cookie(serve: Any) -> None:
    """A session too big for one cookie is split into authjs.session-token.0,
    .1, …; it reads back whole, and sign-out clears every chunk."""
    notes = "".join(f"{i:05d}" for i in range(1200))  # 6,000 characters, incompressible enough

    def jwt(args: Dict[str, Any]) -> Dict[str, Any]:
        if args.get("trigger") == "signIn":
            args["token"]["notes"] = notes
        return args["token"]  # type: ignore[no-any-return]

    def session(args: Dict[str, Any]) -> Dict[str, Any]:
        args["session"]["notes"] = args["token"]["notes"]
        return args["session"]  # type: ignore[no-any-return]

    s = serve(base_config(sync_authorize, callbacks={"jwt": jwt, "session": session}))
    br = Browser(s)
    res = br.sign_in("ada", "lovelace")
    assert res.status_code == 302
    names = sorted(c.name for c in br.http.cookies if c.name.startswith("authjs.session-token"))
    assert names[:2] == ["authjs.session-token.0", "authjs.session-token.1"], names
    assert "authjs.session-token" not in names
    for c in br.http.cookies:
        if c.name.startswith("authjs.session-token."):
            assert len(c.name) + len(c.value or "") < 4096, (c.name, len(c.value or ""))
    assert br.session()["notes"] == notes
    assert br.get("/me").json()["notes"] == notes, "get_session reads the chunks too"
    res = br.post("/auth/signout", {"csrfToken": br.csrf()})
    assert res.status_code == 302
    assert not [c.name for c in br.http.cookies if c.name.startswith("authjs.session-token")]
    assert br.session() is None
