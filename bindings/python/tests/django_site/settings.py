"""A Django project for tests/test_django.py: django.contrib.auth users in
SQLite (DJANGO_TEST_DB), Django's CSRF middleware, libauth's middleware,
and the routes through ``include("libauth.django.urls")`` (async view when
LIBAUTH_ASYNC=1)."""

import os
from typing import Any, Dict, Optional

import libauth


def authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
    if credentials.get("username") == "ada" and credentials.get("password") == "lovelace":
        return {"id": "42", "name": "Ada Lovelace", "email": "ada@example.com"}
    # For the identity tests: an attacker who signs up with any id and any
    # address, never proven ...
    if credentials.get("username") == "mallory":
        return {"id": credentials.get("id") or "mallory", "name": "Mallory", "email": credentials.get("email")}
    # ... and an app that proved the address itself and says so.
    if credentials.get("username") == "owner" and credentials.get("password") == "proven":
        email = credentials.get("email")
        return {"id": f"owner:{email}", "name": "Owner", "email": email, "emailVerified": True}
    return None


DEBUG = False
SECRET_KEY = "django-test-only"
ALLOWED_HOSTS = ["127.0.0.1"]
ROOT_URLCONF = "django_site.urls"
INSTALLED_APPS = ["django.contrib.auth", "django.contrib.contenttypes", "libauth.django"]
MIDDLEWARE = [
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "libauth.django.middleware.AuthenticationMiddleware",
]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.environ.get("DJANGO_TEST_DB", ":memory:")}}
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "OPTIONS": {
            "context_processors": [
                "django.contrib.auth.context_processors.auth",
                "libauth.django.context_processors.session",
            ]
        },
    }
]
LIBAUTH = {
    "secret": "libauth-python-test-secret-0123456789abcdef",
    "trustHost": True,
    "providers": [libauth.Credentials(authorize=authorize)],
}
LIBAUTH_ASYNC = os.environ.get("LIBAUTH_ASYNC") == "1"
LIBAUTH_MATCH_VERIFIED_EMAIL = os.environ.get("LIBAUTH_MATCH_VERIFIED_EMAIL") == "1"
if os.environ.get("DJANGO_SITE_LIGHT") == "1":  # no django.contrib.auth, no database: SessionUser
    INSTALLED_APPS = ["libauth.django"]
    DATABASES = {}
    ROOT_URLCONF = "django_site.urls_light"
    TEMPLATES[0]["OPTIONS"]["context_processors"] = ["libauth.django.context_processors.session"]
USE_TZ = True
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"
LOGGING = {
    "version": 1,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "loggers": {"django.request": {"handlers": ["console"], "level": "ERROR"}},
}
