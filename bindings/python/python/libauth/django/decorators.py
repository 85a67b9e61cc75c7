"""``login_required`` for views (sync or ``async def``), also for apps
without ``django.contrib.auth`` (whose own decorator needs it): without a
session, a redirect to ``settings.LOGIN_URL`` (libauth's sign-in page) with
this request as ``callbackUrl``."""

from __future__ import annotations

import functools
from typing import Any, Callable, TypeVar, cast
from urllib.parse import quote

from asgiref.sync import iscoroutinefunction
from django.http import HttpRequest, HttpResponseRedirect

F = TypeVar("F", bound=Callable[..., Any])


def _to_sign_in(request: HttpRequest) -> HttpResponseRedirect:
    from django.conf import settings

    return HttpResponseRedirect(f"{settings.LOGIN_URL}?callbackUrl={quote(request.get_full_path(), safe='')}")


def login_required(view: F) -> F:
    if iscoroutinefunction(view):

        @functools.wraps(view)
        async def async_wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
            if not request.user.is_authenticated:
                return _to_sign_in(request)
            return await view(request, *args, **kwargs)

        return cast(F, async_wrapper)

    @functools.wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        if not request.user.is_authenticated:
            return _to_sign_in(request)
        return view(request, *args, **kwargs)

    return cast(F, wrapper)


__all__ = ["login_required"]
