"""The WSGI application, wrapped by libauth: every route under /auth is
answered by the engine; the rest reaches Django."""

import os

from django.core.wsgi import get_wsgi_application

import libauth

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demo.settings")

from .auth import auth  # noqa: E402

application = libauth.WSGIMiddleware(get_wsgi_application(), auth)
