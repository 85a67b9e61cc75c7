"""Checked by mypy --strict (tests/test_types.py): libauth.flask as a Flask app uses it."""

from __future__ import annotations

from typing import Any, Dict, Optional

from flask import Flask

import libauth
from libauth.flask import LibAuth, current_session, get_session, login_required

app = Flask(__name__)
ext = LibAuth(app, {"providers": [libauth.Credentials(authorize=lambda c, r: None)]})
later = LibAuth()
later.init_app(Flask("other"), libauth.Auth({"providers": []}))
engine: Optional[libauth.Auth] = ext.auth


@app.get("/")
@login_required
def home() -> str:
    session: Optional[Dict[str, Any]] = get_session()
    name: Any = current_session["user"]["name"]
    return f"Hello {name} {session}"
