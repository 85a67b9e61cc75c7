"""libauth's Flask example (WSGI).

    AUTH_SECRET=$(openssl rand -hex 32) python app.py      # http://127.0.0.1:5000/, sign in as demo / demo

TikTok sign-in: with AUTH_TIKTOK_ID / AUTH_TIKTOK_SECRET, against TikTok;
otherwise against the local simulator at TIKTOK_SIM_URL (default
http://127.0.0.1:8787; start it with `cargo run -p tiktok-sim -- --port 8787
--redirect-uri http://127.0.0.1:5000/auth/callback/tiktok`).
Sessions are JWTs in an encrypted cookie; no database.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Dict, Optional
from urllib.parse import quote

from flask import Flask, redirect, request
from markupsafe import escape

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

app = Flask(__name__)
app.wsgi_app = libauth.WSGIMiddleware(app.wsgi_app, auth)  # type: ignore[method-assign]


def page(title: str, body: str) -> str:
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
            f"<body><h1>{title}</h1>{body}</body></html>")


@app.get("/")
def home() -> str:
    session = libauth.get_session(request)
    if session:
        user = session["user"]
        return page("libauth Flask example",
                    f'<p id="who">Signed in as {escape(user.get("name"))} ({escape(user.get("email") or "no email")})</p>'
                    '<p><a href="/dashboard">Dashboard</a> · <a href="/auth/signout">Sign out</a></p>')
    return page("libauth Flask example",
                '<p id="who">Not signed in.</p><p><a id="signin" href="/auth/signin">Sign in</a> (demo / demo)</p>')


@app.get("/dashboard")
def dashboard() -> Any:
    session = libauth.get_session(request)
    if session is None:
        return redirect(f"/auth/signin?callbackUrl={quote(request.full_path.rstrip('?'), safe='')}")
    name = escape(session["user"].get("name"))
    return page("Dashboard", f'<p id="secret">Hello {name}, this page is protected.</p><p><a href="/">Home</a></p>')


if __name__ == "__main__":
    port = int(os.environ.get("PORT", "5000"))
    print(f"Flask example on http://127.0.0.1:{port}/", flush=True)
    app.run(host="127.0.0.1", port=port, threaded=True)
