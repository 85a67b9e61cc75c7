import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "django_site.settings")

from django.core.asgi import get_asgi_application  # noqa: E402

application = get_asgi_application()  # the routes through libauth.django.urls (LIBAUTH_ASYNC=1: an async view)

import libauth.django  # noqa: E402

wrapped = libauth.django.get_asgi_application()  # the routes answered in front of Django, on the event loop
