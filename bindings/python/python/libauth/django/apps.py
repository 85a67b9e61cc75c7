"""The Django app ``libauth.django`` (label ``libauth``)."""

from __future__ import annotations

from django.apps import AppConfig


class LibAuthConfig(AppConfig):
    name = "libauth.django"
    label = "libauth"
    verbose_name = "libauth"
    default = True

    def ready(self) -> None:
        from django.conf import global_settings, settings

        # LOGIN_URL left at Django's default: libauth's sign-in page, so
        # @login_required and LoginRequiredMixin send the browser there.
        if settings.LOGIN_URL == global_settings.LOGIN_URL:
            from . import get_auth, sign_in_url

            settings.LOGIN_URL = sign_in_url(get_auth())


__all__ = ["LibAuthConfig"]
