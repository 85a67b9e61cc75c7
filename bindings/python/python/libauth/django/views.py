"""The view that hands a request under basePath to the engine
(``libauth.django.urls``), sync and async. The host is Django's
``request.get_host()``: one not in ``ALLOWED_HOSTS`` is Django's 400."""

from __future__ import annotations

from http.cookies import SimpleCookie
from typing import Any, List, Optional, Tuple
from urllib.parse import parse_qs, quote

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.csrf import csrf_exempt

from .._auth import Auth, Response
from . import get_auth
from ._request import request_headers


class _RawCookie:
    """A ``Set-Cookie`` value as the engine wrote it, every attribute kept."""

    __slots__ = ("value",)

    def __init__(self, value: str) -> None:
        self.value = value

    def output(self, attrs: Any = None, header: str = "Set-Cookie:") -> str:
        return f"{header} {self.value}".strip() if header else self.value


class _EngineCookies(SimpleCookie):
    """``response.cookies`` carrying the engine's ``Set-Cookie`` lines as
    they are (Django's handlers write every ``cookies.values()``), beside any
    cookie a Django middleware sets."""

    def __init__(self, raw: List[str]) -> None:
        super().__init__()
        self._raw = [_RawCookie(v) for v in raw]

    def values(self) -> Any:
        return [*self._raw, *super().values()]


def next_as_callback_url(query: str) -> Optional[str]:
    """A sign-in page query with Django's ``next`` (``@login_required``,
    ``LoginRequiredMixin``) and no ``callbackUrl``: the query with
    ``callbackUrl`` added, else ``None``."""
    params = parse_qs(query)
    if "next" not in params or "callbackUrl" in params:
        return None
    return query + "&callbackUrl=" + quote(params["next"][0], safe="")


def engine_request(request: HttpRequest, auth: Auth) -> Tuple[str, str, Any, Optional[bytes], Optional[str]]:
    """The engine's arguments for a Django request: raises ``DisallowedHost``
    (Django answers 400) for a host not in ``ALLOWED_HOSTS``."""
    if not auth.is_auth_path(request.path):
        raise Http404()
    host = request.get_host()
    method = request.method or "GET"
    url = f"{request.scheme}://{host}{request.get_full_path()}"
    if request.path == auth.base_path + "/signin":
        query = next_as_callback_url(request.META.get("QUERY_STRING", ""))
        if query is not None:
            url = url.split("?", 1)[0] + "?" + query
    body = None if method in ("GET", "HEAD") else request.body
    return method, url, request_headers(request), body, request.META.get("REMOTE_ADDR") or None


def django_response(res: Response, method: str) -> HttpResponse:
    out = HttpResponse(b"" if method == "HEAD" else res.body, status=res.status)
    cookies: List[str] = []
    for name, value in res.headers:
        if name.lower() == "set-cookie":
            cookies.append(value)
        elif name.lower() != "content-length":
            # A header the engine sends twice (other than Set-Cookie) joined, as HTTP allows.
            out.headers[name] = f"{out.headers[name]}, {value}" if name in out.headers else value
    if method == "HEAD":
        out.headers["Content-Length"] = str(len(res.body))
    out.cookies = _EngineCookies(cookies)
    return out


@csrf_exempt  # the engine checks its own CSRF token (double-submit cookie)
def auth_view(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    auth = get_auth()
    method, url, headers, body, peer = engine_request(request, auth)
    return django_response(auth.handle(method, url, headers, body, peer), method)


async def auth_view_async(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
    auth = get_auth()
    method, url, headers, body, peer = engine_request(request, auth)
    return django_response(await auth.handle_async(method, url, headers, body, peer), method)


# What @csrf_exempt sets; the decorator itself wraps an async view in a sync
# function before Django 5.0.
auth_view_async.csrf_exempt = True  # type: ignore[attr-defined]

__all__ = ["auth_view", "auth_view_async", "engine_request", "django_response", "next_as_callback_url"]
