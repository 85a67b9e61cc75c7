"""``request.user`` for a libauth session: a ``django.contrib.auth`` user
(``django_user``), or, for apps without it, an unsaved ``SessionUser``."""

from __future__ import annotations

from typing import Any, Dict, Optional


class SessionUser:
    """The session's user for an app without ``django.contrib.auth``: what
    ``@login_required``, ``request.user.is_authenticated`` and templates
    read. Unsaved: ``save()`` and ``delete()`` raise."""

    is_authenticated = True
    is_anonymous = False
    is_active = True
    is_staff = False
    is_superuser = False

    def __init__(self, session: Dict[str, Any]) -> None:
        self.session = session
        user: Dict[str, Any] = session.get("user") or {}
        self.id: Optional[str] = user.get("id")
        self.pk = self.id
        self.name: Optional[str] = user.get("name")
        self.email: Optional[str] = user.get("email")
        self.image: Optional[str] = user.get("image")
        self.username: str = self.email or self.id or self.name or ""

    def get_username(self) -> str:
        return self.username

    def get_full_name(self) -> str:
        return self.name or self.username

    def get_short_name(self) -> str:
        return self.get_full_name()

    def has_perm(self, perm: str, obj: Any = None) -> bool:
        return False

    def has_perms(self, perm_list: Any, obj: Any = None) -> bool:
        return False

    def has_module_perms(self, module: str) -> bool:
        return False

    def get_all_permissions(self, obj: Any = None) -> "set[str]":
        return set()

    def save(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("libauth.django.SessionUser is not saved in a database")

    def delete(self, *args: Any, **kwargs: Any) -> None:
        raise NotImplementedError("libauth.django.SessionUser is not saved in a database")

    def __str__(self) -> str:
        return self.get_full_name()

    def __repr__(self) -> str:
        return f"<SessionUser {self.username!r}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SessionUser) and other.username == self.username

    def __hash__(self) -> int:
        return hash(self.username)


class AnonymousSessionUser:
    """``request.user`` without a session, for an app without
    ``django.contrib.auth`` (with it, Django's ``AnonymousUser``)."""

    id = None
    pk = None
    username = ""
    name = None
    email = None
    session = None
    is_authenticated = False
    is_anonymous = True
    is_active = False
    is_staff = False
    is_superuser = False

    def get_username(self) -> str:
        return ""

    def has_perm(self, perm: str, obj: Any = None) -> bool:
        return False

    def has_perms(self, perm_list: Any, obj: Any = None) -> bool:
        return False

    def has_module_perms(self, module: str) -> bool:
        return False

    def __str__(self) -> str:
        return "AnonymousUser"


def django_user(session: Dict[str, Any]) -> Any:
    """The default mapping with ``django.contrib.auth``: the user whose
    ``USERNAME_FIELD`` is the session user's id (its email when it has no id,
    or when the model's ``USERNAME_FIELD`` is its email field), created on
    first sign-in with no usable password, its email and name filled in.
    Existing users are matched by that field alone, never by email into
    another account's username. ``None`` (anonymous) for a session whose user
    has neither."""
    from django.contrib.auth import get_user_model

    model: Any = get_user_model()
    user: Dict[str, Any] = session.get("user") or {}
    email = user.get("email")
    field = model.USERNAME_FIELD
    key = email if field == model.get_email_field_name() else (user.get("id") or email)
    if not key:
        return None
    try:
        return model._default_manager.get(**{field: key})
    except model.DoesNotExist:
        pass
    new = model(**{field: key})
    email_field = model.get_email_field_name()
    if email and email_field != field and hasattr(new, email_field):
        setattr(new, email_field, email)
    name = user.get("name")
    if name and hasattr(new, "first_name"):
        new.first_name = str(name)[:150]
    new.set_unusable_password()
    from django.db import IntegrityError, transaction

    try:
        with transaction.atomic(using=model._default_manager.db):
            new.save()
    except IntegrityError:  # created meanwhile by a concurrent request
        return model._default_manager.get(**{field: key})
    return new


__all__ = ["SessionUser", "AnonymousSessionUser", "django_user"]
