from functools import wraps
from typing import Any, Callable
from urllib.parse import quote

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.html import escape

import libauth


def session_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Without a session, send the browser to the sign-in page; with one,
    the view finds it in ``request.session_data``."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        session = libauth.get_session(request)  # read once per request (kept in request.environ)
        if session is None:
            return HttpResponseRedirect(f"/auth/signin?callbackUrl={quote(request.get_full_path(), safe='')}")
        request.session_data = session  # type: ignore[attr-defined]
        return view(request, *args, **kwargs)

    return wrapper


def page(title: str, body: str) -> HttpResponse:
    return HttpResponse(f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title></head>'
                        f"<body><h1>{title}</h1>{body}</body></html>")


def home(request: HttpRequest) -> HttpResponse:
    session = libauth.get_session(request)
    if session:
        user = session["user"]
        return page("libauth Django example",
                    f'<p id="who">Signed in as {escape(user.get("name"))} ({escape(user.get("email") or "no email")})</p>'
                    '<p><a href="/dashboard">Dashboard</a> · <a href="/auth/signout">Sign out</a></p>')
    return page("libauth Django example",
                '<p id="who">Not signed in.</p><p><a id="signin" href="/auth/signin">Sign in</a> (demo / demo)</p>')


@session_required
def dashboard(request: HttpRequest) -> HttpResponse:
    name = escape(request.session_data["user"].get("name"))  # type: ignore[attr-defined]
    return page("Dashboard", f'<p id="secret">Hello {name}, this page is protected.</p><p><a href="/">Home</a></p>')
