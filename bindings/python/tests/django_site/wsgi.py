import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "django_site.settings")

from django.core.wsgi import get_wsgi_application  # noqa: E402

import libauth.django  # noqa: E402

application = get_wsgi_application()  # the routes through libauth.django.urls
wrapped = libauth.django.get_wsgi_application()  # the routes answered in front of Django
