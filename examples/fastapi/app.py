"""libauth's FastAPI example (ASGI).

    AUTH_SECRET=$(openssl rand -hex 32) python app.py      # http://127.0.0.1:8000/, sign in as demo / demo
    # or: AUTH_SECRET=… uvicorn app:application --port 8000

TikTok sign-in: with AUTH_TIKTOK_ID / AUTH_TIKTOK_SECRET, against TikTok;
otherwise against the local simulator at TIKTOK_SIM_URL (default
http://127.0.0.1:8787; start it with `cargo run -p tiktok-sim -- --port 8787
--redirect-uri http://127.0.0.1:8000/auth/callback/tiktok`).
Sessions are JWTs in an encrypted cookie; no database.
"""

from __future__ import annotations

import asyncio
import os
import sys
from html import escape
from typing import Any, Dict, Optional
from urllib.parse import quote

from fastapi import Depends, FastAPI, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse

import libauth


async def authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
    await asyncio.sleep(0)  # an async hook: awaited on the server's event loop
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

app = FastAPI()


# -- the dependencies -------------------------------------------------------------

class SignInRequired(Exception):
    def __init__(self, path: str) -> None:
        self.path = path


def get_session(request: Request) -> Optional[Dict[str, Any]]:
    """The session, or None (set by ASGIMiddleware, read on first use)."""
    return request.state.session  # type: ignore[no-any-return]


def require_session(request: Request) -> Dict[str, Any]:
    """The session; without one, the browser is sent to the sign-in page."""
    session = request.state.session
    if session is None:
        path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        raise SignInRequired(path)
    return session  # type: ignore[no-any-return]


@app.exception_handler(SignInRequired)
async def to_sign_in(request: Request, exc: SignInRequired) -> RedirectResponse:
    return RedirectResponse(f"/auth/signin?callbackUrl={quote(exc.path, safe='')}", status_code=303)


# -- the pages --------------------------------------------------------------------

def page(title: str, body: str) -> HTMLResponse:
    return HTMLResponse(f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
                        f"<body><h1>{title}</h1>{body}</body></html>")


@app.get("/")
async def home(session: Optional[Dict[str, Any]] = Depends(get_session)) -> HTMLResponse:
    if session:
        user = session["user"]
        return page("libauth FastAPI example",
                    f'<p id="who">Signed in as {escape(str(user.get("name")))} ({escape(user.get("email") or "no email")})</p>'
                    '<p><a href="/dashboard">Dashboard</a> · <a href="/auth/signout">Sign out</a></p>')
    return page("libauth FastAPI example",
                '<p id="who">Not signed in.</p><p><a id="signin" href="/auth/signin">Sign in</a> (demo / demo)</p>')


@app.get("/dashboard")
async def dashboard(session: Dict[str, Any] = Depends(require_session)) -> HTMLResponse:
    name = escape(str(session["user"].get("name")))
    return page("Dashboard", f'<p id="secret">Hello {name}, this page is protected.</p><p><a href="/">Home</a></p>')


@app.get("/api/me")
async def me(session: Dict[str, Any] = Depends(require_session)) -> JSONResponse:
    return JSONResponse(session)


#: What the server runs: every route under /auth is answered by libauth.
application = libauth.ASGIMiddleware(app, auth)

if __name__ == "__main__":
    import uvicorn

    port = int(os.environ.get("PORT", "8000"))
    print(f"FastAPI example on http://127.0.0.1:{port}/", flush=True)
    uvicorn.run(application, host="127.0.0.1", port=port, log_level="warning")
