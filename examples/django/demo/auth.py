"""The libauth configuration: credentials (demo / demo) and TikTok."""

import os
import sys
from typing import Any, Dict, Optional

import libauth


def authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
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


try:
    auth = libauth.Auth({
        "secret": os.environ.get("AUTH_SECRET"),
        "trustHost": True,  # local development: the browser's Host is trusted; deploy with AUTH_URL instead
        "providers": [
            libauth.Credentials(
                credentials={"username": {"label": "Username", "placeholder": "demo"},
                             "password": {"label": "Password", "type": "password"}},
                authorize=authorize,
            ),
            tiktok(),
        ],
    })
except libauth.InvalidConfig as e:
    sys.exit(str(e))  # one line naming the option, e.g. "libauth: invalid option `secret`: …"
