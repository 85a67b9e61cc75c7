"""Checked by mypy --strict (tests/test_types.py): libauth.django as a Django project uses it."""

from __future__ import annotations

from typing import Any, Dict, Optional

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.urls import include, path

import libauth
from libauth.django import (
    SessionUser,
    get_asgi_application,
    get_auth,
    get_wsgi_application,
    login_required as la_login_required,
    sign_in_url,
)
from libauth.django.middleware import AuthenticationMiddleware


def to_user(session: Dict[str, Any]) -> Optional[SessionUser]:  # LIBAUTH_GET_USER = "app.to_user"
    return SessionUser(session) if session.get("user") else None


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    session: Optional[Dict[str, Any]] = libauth.get_session(request)
    return HttpResponse(f"Hello {request.user}, {session}")


urlpatterns = [path("dashboard", dashboard), path("auth/", include("libauth.django.urls"))]
middleware = AuthenticationMiddleware
auth: libauth.Auth = get_auth()
url: str = sign_in_url(auth)
wsgi = get_wsgi_application()
asgi = get_asgi_application()


@la_login_required
async def api(request: HttpRequest) -> HttpResponse:
    return HttpResponse(str(request.user))
