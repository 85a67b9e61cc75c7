"""``AuthenticationMiddleware``: ``request.user`` from the libauth session.

Put it in ``MIDDLEWARE`` (after Django's own ``AuthenticationMiddleware``, if
that is there too: this one sets ``request.user`` last). Sync and async:
under ASGI the session is read without blocking the event loop and a
database user is looked up through ``sync_to_async``."""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Optional, Union

from asgiref.sync import iscoroutinefunction, markcoroutinefunction, sync_to_async
from django.http import HttpRequest, HttpResponse
from django.utils.functional import SimpleLazyObject

from . import get_auth, get_user_function
from ..wsgi import AUTH_KEY
from ._request import read_session, read_session_async, store_auth
from .user import AnonymousSessionUser

GetResponse = Callable[[HttpRequest], Union[HttpResponse, Awaitable[HttpResponse]]]


def _anonymous() -> Any:
    from django.apps import apps

    if apps.is_installed("django.contrib.auth"):
        from django.contrib.auth.models import AnonymousUser

        return AnonymousUser()
    return AnonymousSessionUser()


def user_for(session: Optional[dict]) -> Any:  # type: ignore[type-arg]
    """``request.user`` for a session (``None``: anonymous)."""
    user = get_user_function()(session) if session is not None else None
    return user if user is not None else _anonymous()


class AuthenticationMiddleware:
    sync_capable = True
    async_capable = True

    def __init__(self, get_response: GetResponse) -> None:
        self.get_response = get_response
        self.auth = get_auth()
        self.is_async = iscoroutinefunction(get_response)
        if self.is_async:
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> Any:
        if self.is_async:
            return self.__acall__(request)
        auth = self.auth
        request.META.setdefault(AUTH_KEY, auth)  # libauth.get_session(request) finds it
        request.user = SimpleLazyObject(lambda: user_for(read_session(request, auth)))  # type: ignore[assignment]
        return self.get_response(request)

    async def __acall__(self, request: HttpRequest) -> HttpResponse:
        store_auth(request, self.auth)
        session = await read_session_async(request, self.auth)
        user = await sync_to_async(user_for)(session) if session is not None else _anonymous()
        request.user = user

        async def auser() -> Any:
            return user

        request.auser = auser  # type: ignore[attr-defined]
        return await self.get_response(request)  # type: ignore[no-any-return,misc]


__all__ = ["AuthenticationMiddleware", "user_for"]
