"""A minimal Django project: no database, no Django auth; libauth wraps the
WSGI application (demo/wsgi.py)."""

import os

DEBUG = os.environ.get("DJANGO_DEBUG", "1") == "1"
# Django's own signing key (unused by libauth, which reads AUTH_SECRET).
SECRET_KEY = os.environ.get("DJANGO_SECRET_KEY", "django-insecure-example-only")
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "demo.urls"
WSGI_APPLICATION = "demo.wsgi.application"  # `runserver` serves this, libauth included
INSTALLED_APPS: list = []
MIDDLEWARE: list = []
DATABASES: dict = {}
USE_TZ = True
