"""libauth for Flask::

    auth = LibAuth(app, {"secret": ..., "providers": [...]})   # or LibAuth(app) with app.config["LIBAUTH"]
    @app.get("/dashboard")
    @login_required
    def dashboard(): return f"Hello {current_session['user']['name']}"

The routes under /auth are answered by ``libauth.WSGIMiddleware`` (put
around ``app.wsgi_app``); templates get ``libauth_session``."""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, Optional, TypeVar, Union, cast

from flask import Flask, current_app, redirect, request
from werkzeug.local import LocalProxy

from ._auth import Auth
from .wsgi import WSGIMiddleware, session_from_environ

Session = Dict[str, Any]
F = TypeVar("F", bound=Callable[..., Any])


class LibAuth:
    """The Flask extension: ``LibAuth(app, config_or_auth)`` or
    ``ext = LibAuth(); ext.init_app(app)``; without a config, ``app.config["LIBAUTH"]``."""

    def __init__(self, app: Optional[Flask] = None, config: Union[Auth, Dict[str, Any], None] = None) -> None:
        self._config = config
        self.auth: Optional[Auth] = None
        if app is not None:
            self.init_app(app)

    def init_app(self, app: Flask, config: Union[Auth, Dict[str, Any], None] = None) -> None:
        config = config if config is not None else self._config
        if config is None:
            config = app.config.get("LIBAUTH")
        if config is None:
            raise RuntimeError('libauth.flask: pass a config (or an Auth) or set app.config["LIBAUTH"]')
        auth = config if isinstance(config, Auth) else Auth(config)
        self.auth = auth
        app.extensions["libauth"] = auth
        app.wsgi_app = WSGIMiddleware(app.wsgi_app, auth)  # type: ignore[method-assign]
        app.context_processor(lambda: {"libauth_session": get_session()})


def _auth() -> Auth:
    auth = current_app.extensions.get("libauth")
    if auth is None:
        raise RuntimeError("libauth.flask: LibAuth(app) was not set up for this app")
    return cast(Auth, auth)


def get_session() -> Optional[Session]:
    """The session of the current request, or ``None`` (read once, then kept)."""
    return session_from_environ(request.environ, _auth())


#: The current request's session: a proxy (true when signed in; test it with
#: ``if current_session:``, never ``is None``); ``get_session()`` is the typed call.
current_session: Session = LocalProxy(get_session)  # type: ignore[assignment]


def sign_in_url() -> str:
    """The sign-in page with this request (path and query) as ``callbackUrl``."""
    here = request.script_root + request.full_path.rstrip("?")
    return _auth().sign_in_url(here)


def login_required(view: F) -> F:
    """Without a session, redirect (302) to the sign-in page with ``callbackUrl``."""

    @functools.wraps(view)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if get_session() is None:
            return redirect(sign_in_url())
        return current_app.ensure_sync(view)(*args, **kwargs)

    return cast(F, wrapper)


__all__ = ["LibAuth", "current_session", "get_session", "login_required", "sign_in_url", "Session"]
