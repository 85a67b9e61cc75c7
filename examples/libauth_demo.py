"""The libauth configuration the Python examples share (flask/, fastapi/,
django/): credentials sign-in (demo / demo) and TikTok (against TikTok with
AUTH_TIKTOK_ID / AUTH_TIKTOK_SECRET, else the local simulator at
TIKTOK_SIM_URL, default http://127.0.0.1:8787). Sessions are JWTs in an
encrypted cookie; no database."""

from __future__ import annotations

import os
from typing import Any, Dict, Optional

import libauth


async def authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
    # A hook may be a plain function or `async def` (awaited on the server's loop under ASGI).
    if credentials.get("username") == "demo" and credentials.get("password") == "demo":
        return {"id": "1", "name": "Demo User", "email": "demo@example.com"}
    return None  # the sign-in page shows "CredentialsSignin"


def tiktok() -> Dict[str, Any]:
    if os.environ.get("AUTH_TIKTOK_ID"):
        return libauth.TikTok()  # AUTH_TIKTOK_ID / AUTH_TIKTOK_SECRET
    sim = os.environ.get("TIKTOK_SIM_URL", "http://127.0.0.1:8787")
    return libauth.TikTok(
        client_id="sim-client-key",
        client_secret="sim-client-secret",
        authorization={"url": f"{sim}/v2/auth/authorize/"},
        token=f"{sim}/v2/oauth/token/",
        userinfo=f"{sim}/v2/user/info/",
    )


CONFIG: Dict[str, Any] = {
    "secret": os.environ.get("AUTH_SECRET"),
    "trustHost": True,  # local development: the browser's Host is trusted; deploy with AUTH_URL instead
    "providers": [
        libauth.Credentials(
            credentials={
                "username": {"label": "Username", "placeholder": "demo"},
                "password": {"label": "Password", "type": "password"},
            },
            authorize=authorize,
        ),
        tiktok(),
    ],
}


def page(title: str, body: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
        f"<body><h1>{title}</h1>{body}</body></html>"
    )
