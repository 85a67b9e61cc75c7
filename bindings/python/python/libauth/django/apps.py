"""The Django app ``libauth.django`` (label ``libauth``)."""

from __future__ import annotations

from django.apps import AppConfig


class LibAuthConfig(AppConfig):
    name = "libauth.django"
    label = "libauth"
    verbose_name = "libauth"
    default = True
    default_auto_field = "django.db.models.AutoField"

    def ready(self) -> None:
        from django.apps import apps
        from django.conf import global_settings, settings

        if apps.is_installed("django.contrib.auth"):
            from django.contrib.auth import get_user_model
            from django.db.models.signals import post_delete

            from .user import forget_deleted_user

            # A deleted user's links go with it, so a primary key the
            # database hands out again never inherits a libauth identity.
            post_delete.connect(forget_deleted_user, sender=get_user_model(), dispatch_uid="libauth-user-link")

        # LOGIN_URL left at Django's default: libauth's sign-in page, so
        # @login_required and LoginRequiredMixin send the browser there.
        if settings.LOGIN_URL == global_settings.LOGIN_URL:
            from . import get_auth, sign_in_url

            settings.LOGIN_URL = sign_in_url(get_auth())


__all__ = ["LibAuthConfig"]
