"""``libauth.django.context_processors.session``: ``libauth_session`` in
templates (the session dict, or ``None``)."""

from __future__ import annotations

from typing import Any, Dict

from django.http import HttpRequest

from . import get_auth
from ._request import cached_session, read_session


def session(request: HttpRequest) -> Dict[str, Any]:
    found, value = cached_session(request)
    return {"libauth_session": value if found else read_session(request, get_auth())}


__all__ = ["session"]
