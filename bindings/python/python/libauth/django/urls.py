"""``path("auth/", include("libauth.django.urls"))``: the engine's routes
(the prefix is the config's basePath, ``/auth`` by default). With
``LIBAUTH_ASYNC = True`` (ASGI) the view is ``async``."""

from __future__ import annotations

from django.conf import settings
from django.urls import re_path

from .views import auth_view, auth_view_async

app_name = "libauth"

urlpatterns = [
    re_path(r"^.*$", auth_view_async if getattr(settings, "LIBAUTH_ASYNC", False) else auth_view, name="auth"),  # type: ignore[arg-type]
]

__all__ = ["urlpatterns", "app_name"]
