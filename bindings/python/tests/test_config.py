"""``libauth.Auth`` from a dict using every top-level option, each seen to
take effect over HTTP (waitress), and the lazy session read of both
middlewares."""

from __future__ import annotations

import asyncio
import datetime as dt
import re
from email.utils import parsedate_to_datetime
from typing import Any, Dict, List

import libauth
from conftest import SECRET, Browser, start_asgi, start_wsgi, sync_authorize

OLD_SECRET = "libauth-python-previous-secret-0123456789"


def every_option(log: List[Any]) -> Dict[str, Any]:
    def jwt(args: Dict[str, Any]) -> Dict[str, Any]:
        log.append("callbacks.jwt")
        return args["token"]  # type: ignore[no-any-return]

    async def on_sign_in(message: Dict[str, Any]) -> None:
        await asyncio.sleep(0)
        log.append("events.signIn")

    def warn(code: Any, message: Any) -> None:
        log.append(("logger.warn", code))

    return {
        "secret": [SECRET, OLD_SECRET],  # the first encrypts; every one decrypts
        "trustHost": True,
        "basePath": "/auth",
        "url": None,  # None is "not set"
        "useSecureCookies": False,
        "debug": False,
        "redirectProxyUrl": None,
        "experimental": {"enableWebAuthn": False},
        "providers": [libauth.Credentials(authorize=sync_authorize)],
        "adapter": None,
        "session": {"strategy": "jwt", "maxAge": 3600, "updateAge": 600},
        "jwt": {"maxAge": 3600},
        "cookies": {"sessionToken": {"name": "app.session", "options": {"sameSite": "strict", "path": "/"}}},
        "pages": {
            "signIn": "/login",
            "error": "/oops",
            "signOut": "/bye",
            "verifyRequest": "/check-mail",
            "newUser": "/welcome",
        },
        "theme": {
            "colorScheme": "dark",
            "brandColor": "#123456",
            "logo": "https://img.example/logo.png",
            "buttonText": "#ffffff",
        },
        "callbacks": {"jwt": jwt},
        "events": {"signIn": on_sign_in},
        "logger": {"warn": warn},
        "hooks": {"timeout": 5, "timeouts": {"callbacks.jwt": 2}, "maxInFlight": 7},
    }


def test_every_option_takes_effect() -> None:
    log: List[Any] = []
    s = start_wsgi(every_option(log))
    try:
        assert s.auth.max_in_flight == 7 and s.auth.base_path == "/auth"
        br = Browser(s)
        res = br.get("/auth/signin")
        assert res.status_code == 302 and res.headers["location"].startswith(f"{s.url}/login"), "pages.signIn"
        res = br.get("/auth/error?error=Configuration")
        assert res.status_code == 302 and res.headers["location"].startswith(f"{s.url}/oops"), "pages.error"
        res = br.sign_in("ada", "lovelace")
        assert res.status_code == 302
        cookie = next(c for c in res.raw.headers.getlist("set-cookie") if c.startswith("app.session="))
        expires = parsedate_to_datetime(re.search(r"Expires=([^;]+)", cookie).group(1))  # type: ignore[union-attr]
        left = (expires - dt.datetime.now(dt.timezone.utc)).total_seconds()
        assert 3500 < left <= 3601, f"session.maxAge: expires in {left:.0f}s"
        assert "SameSite=Strict" in cookie and "Secure" not in cookie, cookie
        assert br.http.cookies.get("authjs.session-token") is None, "cookies.sessionToken.name"
        session = br.get("/auth/session").json()
        assert session["user"]["email"] == "ada@example.com"
        assert br.get("/me").json()["user"]["email"] == "ada@example.com"
        assert "callbacks.jwt" in log and "events.signIn" in log
    finally:
        s.stop()


def test_a_cookie_under_a_previous_secret_still_reads() -> None:
    """``secret`` as a list: rotate by putting the new secret first."""
    old = start_wsgi(
        {
            "secret": OLD_SECRET,
            "basePath": "/auth",
            "trustHost": True,
            "providers": [libauth.Credentials(authorize=sync_authorize)],
        }
    )
    try:
        br = Browser(old)
        br.sign_in("ada", "lovelace")
        token = br.session_cookie()
    finally:
        old.stop()
    s = start_wsgi(
        {
            "secret": [SECRET, OLD_SECRET],
            "basePath": "/auth",
            "trustHost": True,
            "providers": [libauth.Credentials(authorize=sync_authorize)],
        }
    )
    try:
        br = Browser(s)
        br.http.cookies.set("authjs.session-token", str(token), domain="127.0.0.1", path="/")
        assert br.get("/me").json()["user"]["email"] == "ada@example.com"
    finally:
        s.stop()


def test_sessions_are_read_lazily() -> None:
    """Neither middleware reads the session of a request whose app does not
    ask for it; asked twice, it is read once."""
    reads: List[str] = []
    for start in (start_wsgi, start_asgi):
        s = start(
            {
                "secret": SECRET,
                "basePath": "/auth",
                "trustHost": True,
                "providers": [libauth.Credentials(authorize=sync_authorize)],
            }
        )
        try:
            # The middlewares read the session with its identity.
            real = s.auth.get_session_with_identity

            def counting(url: str, cookie: Any = None, _real: Any = real) -> Any:
                reads.append(url)
                return _real(url, cookie)

            s.auth.get_session_with_identity = counting  # type: ignore[method-assign]
            br = Browser(s)
            br.sign_in("ada", "lovelace")
            reads.clear()
            assert br.get("/elsewhere").text == "app:/elsewhere"
            assert reads == [], f"{start.__name__}: read without being asked"
            assert br.get("/me").json()["user"]["email"] == "ada@example.com"  # the app reads it twice
            assert len(reads) == 1, f"{start.__name__}: {reads}"
        finally:
            s.stop()
