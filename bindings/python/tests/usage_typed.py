"""Checked by mypy (tests/test_types.py): the package's public surface as an app uses it."""

from typing import Any, Dict, List, Optional

import libauth


def authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
    return None


auth = libauth.Auth({"secret": "s" * 32, "trustHost": True, "providers": [libauth.Credentials(authorize=authorize)]})
session: Optional[Dict[str, Any]] = auth.get_session("http://localhost/", None)
response: libauth.Response = auth.handle("GET", "http://localhost/auth/csrf", [])
status: int = response.status
wsgi = libauth.WSGIMiddleware(lambda environ, start_response: [b""], auth)
try:
    libauth.Auth({})
except libauth.InvalidConfig as e:
    option: str = e.option
    kind: str = e.type
except libauth.CredentialsSignin as e:
    code: str = e.code


async def authorize_async(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
    return None


async def asgi_app(scope: Any, receive: Any, send: Any) -> None:
    session_now: Optional[Dict[str, Any]] = libauth.get_session(scope)
    later: Optional[Dict[str, Any]] = await auth.get_session_async("http://localhost/", None)
    del session_now, later


providers = [
    libauth.Credentials(authorize=authorize_async),
    libauth.TikTok(client_id="k", client_secret="s"),
    libauth.OAuth(id="x", client_id="k", client_secret="s", authorization="https://x/a", token="https://x/t"),
    libauth.OIDC(id="corp", issuer="https://sso.example", client_id="k", client_secret="s"),
    libauth.Email(server={"host": "127.0.0.1", "port": 25}, from_="a@example.com"),
]
asgi = libauth.ASGIMiddleware(asgi_app, auth)
error: libauth.AuthError = libauth.Overloaded("busy")
error_type: str = error.type


# Hooks with keyword arguments, typed by libauth.hooks.
from libauth.hooks import JWT, Account, JwtCallback, Request, Session, SessionCallback, User  # noqa: E402


def jwt(
    *,
    token: JWT,
    user: Optional[User] = None,
    account: Optional[Account] = None,
    trigger: Optional[str] = None,
    **_: Any,
) -> JWT:
    if trigger == "signIn" and account is not None:
        token["provider"] = account.get("provider")
    return token


async def session_callback(*, session: Session, token: Optional[JWT] = None, **_: Any) -> Session:
    return session


def authorize_kw(*, credentials: Dict[str, Any], request: Request) -> Optional[Dict[str, Any]]:
    return None if request["method"] != "POST" else {"id": "1"}


typed_jwt: JwtCallback = jwt
typed_session: SessionCallback = session_callback
libauth.Auth(
    {
        "secret": "s" * 32,
        "providers": [libauth.Credentials(authorize=authorize_kw)],
        "callbacks": {"jwt": jwt, "session": session_callback},
    }
)


def my_sessions(auth: libauth.Auth, user_id: str, url: str, cookie: Optional[str]) -> int:
    """A user's database sessions, as docs/user-sessions.md shows them."""
    sessions: List[Dict[str, Any]] = auth.list_sessions(user_id, url, cookie)
    others = [s["id"] for s in sessions if not s["current"]]
    if others:
        auth.end_session(user_id, others[0])
    ended: int = auth.end_other_sessions(user_id, url, cookie)
    return ended + auth.end_all_sessions(user_id)
