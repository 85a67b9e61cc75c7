"""Pythonic hooks: callbacks, events and ``authorize`` are called with
keyword arguments in snake_case (absent ones as ``None``); the one-dict form
still works, with a DeprecationWarning."""

from __future__ import annotations

import json
import warnings
from typing import Any, Dict, List, Optional

import libauth
from conftest import ADA, SECRET, Browser


def test_keyword_hooks_over_http(serve: Any) -> None:
    seen: List[Dict[str, Any]] = []

    def authorize(*, credentials: Dict[str, Any], request: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        assert request["method"] == "POST" and request["url"].endswith("/auth/callback/credentials")
        ok = credentials.get("username") == "ada" and credentials.get("password") == "lovelace"
        return dict(ADA) if ok else None

    def sign_in(
        *, user: Dict[str, Any], account: Any = None, profile: Any = None, email: Any = None, credentials: Any = None
    ) -> bool:
        seen.append({"signIn": user["email"], "profile": profile, "email": email})
        return True

    def jwt(
        *, token: Dict[str, Any], user: Any = None, trigger: Optional[str] = None, is_new_user: Any = None, **_: Any
    ) -> Dict[str, Any]:
        if trigger == "signIn":
            token["role"] = "admin"
        return token

    async def session(*, session: Dict[str, Any], token: Dict[str, Any], **_: Any) -> Dict[str, Any]:
        session["role"] = token.get("role")
        return session

    def on_sign_in(*, user: Dict[str, Any], is_new_user: Optional[bool] = None, **_: Any) -> None:
        seen.append({"event": user["email"], "is_new_user": is_new_user})

    config = {
        "secret": SECRET,
        "basePath": "/auth",
        "providers": [libauth.Credentials(credentials={"username": {}, "password": {}}, authorize=authorize)],
        "callbacks": {"signIn": sign_in, "jwt": jwt, "session": session},
        "events": {"signIn": on_sign_in},
    }
    s = serve(config)
    br = Browser(s)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        assert br.sign_in("ada", "wrong").status_code == 302
        assert br.sign_in("ada", "lovelace").status_code == 302
        session_json = br.get("/auth/session").json()
    assert session_json["user"]["email"] == ADA["email"]
    assert session_json["role"] == "admin"
    assert {"signIn": ADA["email"], "profile": None, "email": None} in seen
    assert [e for e in seen if "event" in e] == [{"event": ADA["email"], "is_new_user": None}]


def test_the_one_dict_form_still_works_with_a_deprecation_warning() -> None:
    def jwt(params: Dict[str, Any]) -> Dict[str, Any]:
        token = dict(params["token"])
        token["old_form"] = True
        return token

    def session(params: Dict[str, Any]) -> Dict[str, Any]:
        out = dict(params["session"])
        out["old_form"] = params["token"].get("old_form")
        return out

    def authorize(credentials: Dict[str, Any], request: Any) -> Any:
        return dict(ADA) if credentials.get("username") == "ada" else None

    auth = libauth.Auth(
        {
            "secret": SECRET,
            "trustHost": True,
            "providers": [libauth.Credentials(credentials={"username": {}}, authorize=authorize)],
            "callbacks": {"jwt": jwt, "session": session},
        }
    )
    origin = "http://localhost:3000"
    res = auth.handle("GET", f"{origin}/auth/csrf", [])
    csrf_cookie = next(v for k, v in res.headers if k == "set-cookie").split(";")[0]
    token = json.loads(res.body)["csrfToken"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = auth.handle(
            "POST",
            f"{origin}/auth/callback/credentials",
            [("content-type", "application/x-www-form-urlencoded"), ("cookie", csrf_cookie)],
            f"csrfToken={token}&username=ada".encode(),
        )
        assert res.status == 302
        session_cookie = next(v for k, v in res.headers if k == "set-cookie" and "session-token" in v).split(";")[0]
        session = auth.get_session(f"{origin}/me", session_cookie)
    assert session is not None and session["old_form"] is True
    messages = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert any("jwt takes the hook's arguments as one dict" in m for m in messages), messages


def test_provider_options_are_snake_case_at_every_level() -> None:
    provider = libauth.OAuth(
        id="corp",
        client_id="x",
        client_secret="y",
        authorization={
            "url": "https://idp.example/authorize",
            "params": {"access_type": "offline", "prompt": "consent"},
        },
        token={"url": "https://idp.example/token"},
        userinfo="https://idp.example/userinfo",
        allow_dangerous_email_account_linking=True,
        client={"token_endpoint_auth_method": "client_secret_post"},
        style={"brand_color": "#123456", "logo": "data:,"},
    )
    assert provider["clientId"] == "x" and provider["allowDangerousEmailAccountLinking"] is True
    assert provider["authorization"]["params"] == {"access_type": "offline", "prompt": "consent"}, "params are data"
    assert provider["client"] == {"token_endpoint_auth_method": "client_secret_post"}
    assert provider["style"] == {"brandColor": "#123456", "logo": "data:,"}, "nested options in camelCase"
    email = libauth.Email(server={"host": "smtp.example", "port": 587}, from_="a@example.com", max_age=600)
    assert email["from"] == "a@example.com" and email["maxAge"] == 600
    # The engine accepts what the helpers build.
    libauth.Auth({"secret": SECRET, "providers": [provider]})
