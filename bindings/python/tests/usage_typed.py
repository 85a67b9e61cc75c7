"""Checked by mypy (tests/test_types.py): the package's public surface as an app uses it."""

from typing import Any, Dict, Optional

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
