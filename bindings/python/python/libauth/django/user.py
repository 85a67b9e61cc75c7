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
        identity = getattr(session, "identity", None)
        # The engine's subject when the session has one: unique per libauth
        # user, where an address (or an app-chosen id) may not be.
        self.id: Optional[str] = identity.subject if identity is not None else user.get("id")
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
        return isinstance(other, SessionUser) and (other.id, other.username) == (self.id, self.username)

    def __hash__(self) -> int:
        return hash((self.id, self.username))


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


def _identity(session: Dict[str, Any]) -> Any:
    """The engine's identity of the session (``None`` when it has none)."""
    return getattr(session, "identity", None)


def _match_verified_email() -> bool:
    from django.conf import settings

    return bool(getattr(settings, "LIBAUTH_MATCH_VERIFIED_EMAIL", False))


def _username_for(model: Any, identity: Any) -> str:
    """A username no other user has: the proven address when the model
    names users by email; else a name made from the libauth subject (never
    from an address nobody proved, which could pass for someone else's)."""
    import hashlib

    if model.USERNAME_FIELD == model.get_email_field_name():
        return str(identity.email)
    digest = hashlib.sha256(identity.subject.encode("utf-8")).hexdigest()
    return f"libauth-{digest[:24]}"


def _linked_user(model: Any, identity: Any) -> Any:
    from .models import UserLink

    link = UserLink.objects.filter(subject=identity.subject).first()
    if link is None:
        return None
    user = model._default_manager.filter(pk=link.user_pk).first()
    if user is None:  # deleted without the signal (a raw SQL delete)
        UserLink.objects.filter(pk=link.pk).delete()
    return user


def _existing_by_verified_email(model: Any, identity: Any) -> Any:
    """With ``LIBAUTH_MATCH_VERIFIED_EMAIL``: the one existing user whose
    email is the session's proven address and who is no libauth identity's
    user already (users libauth created for other sign-ups may carry the
    same address, unproven). Anything less certain matches nobody."""
    from .models import UserLink

    if not (identity.email_verified and identity.email and _match_verified_email()):
        return None
    email_field = model.get_email_field_name()
    same_address = list(model._default_manager.filter(**{f"{email_field}__iexact": identity.email})[:50])
    linked = set(
        UserLink.objects.filter(user_pk__in=[str(u.pk) for u in same_address]).values_list("user_pk", flat=True)
    )
    found = [u for u in same_address if str(u.pk) not in linked]
    return found[0] if len(found) == 1 else None


def django_user(session: Dict[str, Any]) -> Any:
    """The default mapping with ``django.contrib.auth``: the Django user
    libauth created or linked for this session's libauth user (its
    ``Identity.subject``, kept in ``libauth.django.models.UserLink``),
    created on first sign-in with no usable password.

    A pre-existing Django user is never handed to a session because an
    address matches, unless the deployer sets
    ``LIBAUTH_MATCH_VERIFIED_EMAIL = True``, and then only for an address
    the sign-in proved (an email link, the provider's verified claim), and
    only when exactly one user has it. A session without an identity (a
    cookie issued by Auth.js, or before libauth carried one) is anonymous;
    so is one whose new user cannot be created because another user already
    has its username or address."""
    from django.contrib.auth import get_user_model
    from django.db import IntegrityError, transaction

    from .models import UserLink

    identity = _identity(session)
    if identity is None or not identity.subject:
        return None
    model: Any = get_user_model()
    user = _linked_user(model, identity)
    if user is not None:
        return user
    db = model._default_manager.db
    existing = _existing_by_verified_email(model, identity)
    try:
        with transaction.atomic(using=db):
            if existing is not None:
                UserLink.objects.using(db).create(subject=identity.subject, user_pk=str(existing.pk))
                return existing
            # A model that names users by address gets only a proven one
            # as a username: an unproven one would squat its owner's.
            if model.USERNAME_FIELD == model.get_email_field_name() and not identity.email_verified:
                return None
            new = model(**{model.USERNAME_FIELD: _username_for(model, identity)})
            email_field = model.get_email_field_name()
            if identity.email and hasattr(new, email_field):
                setattr(new, email_field, identity.email)
            name = (session.get("user") or {}).get("name")
            if name and hasattr(new, "first_name"):
                new.first_name = str(name)[:150]
            new.set_unusable_password()
            new.save(using=db)
            UserLink.objects.using(db).create(subject=identity.subject, user_pk=str(new.pk))
            return new
    except IntegrityError:
        # A concurrent request linked this identity first, or another user
        # already holds the username (an address as username): never theirs.
        return _linked_user(model, identity)


def forget_deleted_user(sender: Any, instance: Any, **kwargs: Any) -> None:
    """``post_delete`` of the user model: its libauth links go too."""
    from .models import UserLink

    UserLink.objects.using(kwargs.get("using") or "default").filter(user_pk=str(instance.pk)).delete()


__all__ = ["SessionUser", "AnonymousSessionUser", "django_user", "forget_deleted_user"]
