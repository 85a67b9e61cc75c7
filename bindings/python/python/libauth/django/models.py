"""Which Django user each libauth user is: the link the default
``request.user`` mapping (``libauth.django.user.django_user``) keeps, so a
session is only ever handed a Django user that libauth created or linked
for that very libauth user, never one that merely shares an address."""

from __future__ import annotations

from typing import Any

from django.db import models


class UserLink(models.Model):
    """One libauth identity (``Identity.subject``) -> one Django user.

    ``user_pk`` is the Django user's primary key as text, without a foreign
    key, so the app works without ``django.contrib.auth`` too; a deleted
    Django user takes its links with it (a ``post_delete`` handler, see
    ``apps.py``), so a reused primary key never inherits one."""

    subject: "models.CharField[Any, Any]" = models.CharField(max_length=512, unique=True)
    user_pk: "models.CharField[Any, Any]" = models.CharField(max_length=255, db_index=True)
    created: "models.DateTimeField[Any, Any]" = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "libauth"
        db_table = "libauth_user_link"
        verbose_name = "libauth user link"

    def __str__(self) -> str:
        return f"{self.subject} -> {self.user_pk}"


__all__ = ["UserLink"]
