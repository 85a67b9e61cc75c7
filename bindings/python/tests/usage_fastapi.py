"""Checked by mypy --strict (tests/test_types.py): libauth.fastapi as a FastAPI app uses it."""

from __future__ import annotations

from typing import Any, Dict, Optional

from fastapi import Depends, FastAPI

import libauth
from libauth.fastapi import CurrentSession, RequiredSession, current_session, require_session

app = FastAPI()


@app.get("/")
async def home(session: CurrentSession) -> Dict[str, Any]:
    return {"signed_in": session is not None}


@app.get("/me")
async def me(session: RequiredSession) -> Dict[str, Any]:
    return session


@app.get("/plain")
async def plain(
    session: Optional[Dict[str, Any]] = Depends(current_session), required: Dict[str, Any] = Depends(require_session)
) -> str:
    return str(session) + str(required["user"])


application = libauth.ASGIMiddleware(app, libauth.Auth({"providers": []}))
