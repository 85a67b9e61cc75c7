"""libauth for Django: ``INSTALLED_APPS += ["libauth.django"]``, the
middleware ``libauth.django.middleware.AuthenticationMiddleware`` (sets
``request.user`` from the libauth session), the routes through
``path("auth/", include("libauth.django.urls"))`` (or
``libauth.django.get_wsgi_application()`` / ``get_asgi_application()``),
and ``LIBAUTH = {...}`` in settings: the config dict ``libauth.Auth`` takes.

Settings:

- ``LIBAUTH``: the engine's configuration (``secret``, ``providers``, …).
- ``LIBAUTH_GET_USER``: the dotted path of ``f(session) -> user | None``,
  mapping a libauth session to ``request.user``. Default: with
  ``django.contrib.auth`` installed, the user whose ``USERNAME_FIELD`` is the
  session user's id (or email, when it has no id, or when the user model's
  ``USERNAME_FIELD`` is its email field), created (without a usable
  password) on first sign-in; without it, an unsaved ``SessionUser``.
- ``LIBAUTH_ASYNC``: ``True`` under ASGI: ``libauth.django.urls`` then
  serves the engine's routes from an ``async`` view.
- ``LOGIN_URL``: left at Django's default, it becomes libauth's sign-in page
  (``/auth/signin``), and Django's ``?next=`` is read as ``callbackUrl``.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, Optional

from .._auth import Auth
from ..asgi import ASGIApp
from ..wsgi import WSGIApp
from .decorators import login_required
from .user import AnonymousSessionUser, SessionUser

Session = Dict[str, Any]

_lock = threading.Lock()
_auth: Optional[Auth] = None


def get_auth() -> Auth:
    """The ``libauth.Auth`` built from ``settings.LIBAUTH`` (once per process)."""
    global _auth
    if _auth is None:
        with _lock:
            if _auth is None:
                from django.conf import settings
                from django.core.exceptions import ImproperlyConfigured

                config = getattr(settings, "LIBAUTH", None)
                if config is None:
                    raise ImproperlyConfigured(
                        "libauth.django: set LIBAUTH = {...} (libauth.Auth's config) in settings"
                    )
                _auth = Auth(config)
    return _auth


def sign_in_url(auth: Optional[Auth] = None) -> str:
    """libauth's sign-in page: ``<basePath>/signin`` (``/auth/signin``)."""
    return (auth or get_auth()).base_path + "/signin"


def get_wsgi_application() -> WSGIApp:
    """Django's WSGI application with the engine's routes in front of it
    (for hosts in ``ALLOWED_HOSTS``; other hosts get Django's 400)."""
    from .handlers import wsgi_application

    return wsgi_application()


def get_asgi_application() -> ASGIApp:
    """Django's ASGI application with the engine's routes in front of it
    (for hosts in ``ALLOWED_HOSTS``; other hosts get Django's 400)."""
    from .handlers import asgi_application

    return asgi_application()


def get_user_function() -> Callable[[Session], Any]:
    """The session -> user mapping named by ``LIBAUTH_GET_USER`` (or the default)."""
    from django.conf import settings
    from django.utils.module_loading import import_string

    name = getattr(settings, "LIBAUTH_GET_USER", None)
    if name:
        return import_string(name)  # type: ignore[no-any-return]
    from django.apps import apps

    if apps.is_installed("django.contrib.auth"):
        from .user import django_user

        return django_user
    return SessionUser


__all__ = [
    "get_auth",
    "sign_in_url",
    "get_wsgi_application",
    "get_asgi_application",
    "get_user_function",
    "SessionUser",
    "AnonymousSessionUser",
    "Session",
    "login_required",
]
