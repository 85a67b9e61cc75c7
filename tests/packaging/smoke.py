"""The Python smoke test of a release wheel (scripts/cross-test.sh runs it
with an arm64 CPython under qemu-user): the installed wheel's native module
loads, signs in with credentials and reads the session back. Prints one JSON
line; exits non-zero on any failure."""

from __future__ import annotations

import json
import platform
from typing import Any, Dict, Optional

import libauth


def authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, str]]:
    if credentials.get("username") == "ada" and credentials.get("password") == "lovelace":
        return {"id": "42", "name": "Ada Lovelace"}
    return None


auth = libauth.Auth(
    {
        "secret": "release-smoke-secret-0123456789abcdefghij",
        "trustHost": True,
        "providers": [libauth.Credentials(authorize=authorize)],
    }
)
origin = "http://127.0.0.1:8000"
csrf = auth.handle("GET", origin + "/auth/csrf", [])
token = json.loads(csrf.body)["csrfToken"]
cookie = "; ".join(v.split(";")[0] for k, v in csrf.headers if k.lower() == "set-cookie")
res = auth.handle(
    "POST",
    origin + "/auth/callback/credentials",
    [("cookie", cookie), ("content-type", "application/x-www-form-urlencoded")],
    f"csrfToken={token}&username=ada&password=lovelace".encode(),
)
assert res.status == 302, res
session_cookie = "; ".join(v.split(";")[0] for k, v in res.headers if k.lower() == "set-cookie")
session = auth.get_session(origin + "/", session_cookie)
assert session is not None and session["user"]["name"] == "Ada Lovelace", session
print(
    json.dumps(
        {
            "machine": platform.machine(),
            "python": platform.python_version(),
            "module": libauth._native.__file__,
            "user": session["user"]["name"],
        }
    )
)
