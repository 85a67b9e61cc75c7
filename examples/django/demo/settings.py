"""A minimal Django project on libauth: no database; request.user is the
session's user (libauth.django.SessionUser)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
from libauth_demo import CONFIG  # noqa: E402  (the examples' shared config)

DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "django-insecure-example-only")  # Django's; libauth reads AUTH_SECRET
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]  # libauth's routes answer these hosts only
ROOT_URLCONF = "demo.urls"
WSGI_APPLICATION = "demo.wsgi.application"
INSTALLED_APPS = ["django.contrib.auth", "django.contrib.contenttypes", "libauth.django"]
MIDDLEWARE = ["libauth.django.middleware.AuthenticationMiddleware"]  # request.user from the session
LIBAUTH = CONFIG  # the config libauth.Auth takes
LIBAUTH_GET_USER = "libauth.django.SessionUser"  # no database: the session's user, unsaved
# LOGIN_URL: libauth's sign-in page (/auth/signin), set by the app.
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "APP_DIRS": False,
        "DIRS": [os.path.join(os.path.dirname(__file__), "templates")],
        "OPTIONS": {"context_processors": ["django.contrib.auth.context_processors.auth"]},
    }
]
DATABASES: dict = {}
USE_TZ = True
