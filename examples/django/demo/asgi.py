"""The ASGI application (`uvicorn demo.asgi:application`): Django's, with
libauth's routes under /auth answered in front of it on the event loop (for
hosts in ALLOWED_HOSTS)."""

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "demo.settings")

from libauth.django import get_asgi_application  # noqa: E402

application = get_asgi_application()
