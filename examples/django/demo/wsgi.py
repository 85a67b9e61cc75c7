"""The WSGI application (`runserver`, gunicorn): Django's, with libauth's
routes under /auth served by `libauth.django.urls` (demo/urls.py)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demo.settings")
application = get_wsgi_application()
