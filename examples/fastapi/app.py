"""libauth's FastAPI example (ASGI).

AUTH_SECRET=$(openssl rand -hex 32) python app.py      # http://localhost:8000/, sign in as demo / demo or with a passkey
# or: AUTH_SECRET=… uvicorn app:application --port 8000
"""

from __future__ import annotations

import os
import sys
from html import escape
from typing import Any, Dict, List

from fastapi import FastAPI
from fastapi.responses import HTMLResponse, JSONResponse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from libauth_demo import CONFIG, page  # noqa: E402  (the examples' shared config)

import libauth  # noqa: E402
from libauth.fastapi import CurrentSession, RequiredSession  # noqa: E402


#: The shared configuration plus passkeys (WebAuthn): the Passkey provider,
#: the experimental flag, and SQLite (AUTH_DB, default ./auth.db) for users
#: and their passkeys. Sessions stay JWTs in a cookie.
def password_provider() -> List[Dict[str, Any]]:
    """Email + password accounts, when an SMTP server is named
    (AUTH_SMTP_HOST, AUTH_SMTP_PORT): sign up on /auth/password/signup, the
    verification and reset links go out by mail."""
    host = os.environ.get("AUTH_SMTP_HOST")
    if not host:
        return []
    server = {"host": host, "port": int(os.environ.get("AUTH_SMTP_PORT", "587"))}
    return [libauth.Password(server=server, from_="libauth example <no-reply@example.com>")]


PASSKEY_CONFIG = {
    **CONFIG,
    "providers": [*CONFIG["providers"], libauth.Passkey(), *password_provider()],
    "experimental": {"enableWebAuthn": True},
    "adapter": {"type": "sqlite", "path": os.environ.get("AUTH_DB", "auth.db")},
    "session": {"strategy": "jwt"},
}

app = FastAPI()


@app.get("/")
async def home(session: CurrentSession) -> HTMLResponse:
    if session:
        user = session["user"]
        return HTMLResponse(
            page(
                "libauth FastAPI example",
                f'<p id="who">Signed in as {escape(str(user.get("name") or user.get("email")))} '
                f"({escape(user.get('email') or 'no email')})</p>"
                '<p><a href="/dashboard">Dashboard</a> · <a href="/auth/signout">Sign out</a></p>',
            )
        )
    return HTMLResponse(
        page(
            "libauth FastAPI example",
            '<p id="who">Not signed in.</p><p><a id="signin" href="/auth/signin">Sign in</a> (demo / demo)</p>',
        )
    )


@app.get("/dashboard")  # no session: 303 to /auth/signin?callbackUrl=%2Fdashboard (401 for a JSON client)
async def dashboard(session: RequiredSession) -> HTMLResponse:
    name = escape(str(session["user"].get("name") or session["user"].get("email")))
    return HTMLResponse(
        page("Dashboard", f'<p id="secret">Hello {name}, this page is protected.</p><p><a href="/">Home</a></p>')
    )


@app.get("/api/me")
async def me(session: RequiredSession) -> JSONResponse:
    return JSONResponse(session)


#: What the server runs: every route under /auth is answered by libauth.
application = libauth.ASGIMiddleware(app, libauth.Auth(PASSKEY_CONFIG))

if __name__ == "__main__":
    import uvicorn

    port = int(os.environ.get("PORT", "8000"))
    print(f"FastAPI example on http://localhost:{port}/ (passkeys need localhost, not 127.0.0.1)", flush=True)
    uvicorn.run(application, host="127.0.0.1", port=port, log_level="warning")
