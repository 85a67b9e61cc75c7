"""The Python end of the engine's hooks.

``compile_config`` splits a config dict into the engine's JSON config and
its hooks: functions never cross as JSON; each becomes a hook named as the
engine names it (``callbacks.signIn``, ``events.signOut``,
``providers.<id>.authorize``, ``adapter.createUser``, ``logger.error``,
``jwt.encode``, …), and the engine asks for them by name.

``Dispatcher`` is what the engine calls (on the request's thread, holding
the GIL): it runs the hook and, for an ``async def``, schedules the
coroutine on the request's event loop (ASGI, set by the middleware for its
worker threads) with ``asyncio.run_coroutine_threadsafe``, or runs it on a
private loop (WSGI, plain threads), and waits at most until the hook's
deadline. It answers ``(0, json)``, ``(1, error json)`` or ``(2, "")`` when
the deadline passed (the coroutine is then cancelled).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime as _dt
import inspect
import json
import re
import threading
import collections.abc
from typing import Any, Callable, Dict, List, Optional, Tuple

from ._errors import AuthError, to_host_error

BUILTIN_ADAPTERS = {"sqlite", "postgres", "memory"}

#: The event loop of the ASGI request this thread works for (set by the
#: middleware's worker threads).
_local = threading.local()


def set_loop(loop: Optional[asyncio.AbstractEventLoop]) -> None:
    _local.loop = loop


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


Hooks = Dict[str, Tuple[Callable[..., Any], str]]


def compile_config(config: collections.abc.Mapping[str, Any], adapter_methods: List[str]) -> Tuple[Dict[str, Any], Hooks]:
    if not isinstance(config, collections.abc.Mapping):
        raise TypeError("libauth: the configuration must be a dict")
    hooks: Hooks = {}
    out: Dict[str, Any] = {}

    def add(name: str, fn: Callable[..., Any], kind: Optional[str] = None) -> None:
        hooks[name] = (fn, kind or name)

    for key, value in config.items():
        if value is None and key != "adapter":
            continue
        if key in ("callbacks", "events", "logger"):
            items = value.items() if isinstance(value, collections.abc.Mapping) else (
                (n, getattr(value, n)) for n in dir(value) if not n.startswith("_"))
            for name, fn in items:
                if callable(fn):
                    add(f"{key}.{name}", fn, f"logger.{name}" if key == "logger" else key)
                elif fn is not None:
                    # Data in a callbacks dict goes to the engine, which refuses what it does not know.
                    out.setdefault(key, {})[name] = fn
        elif key == "jwt":
            rest = dict(value)
            for name in ("encode", "decode"):
                fn = rest.pop(name, None)
                if callable(fn):
                    add(f"jwt.{name}", fn)
            out["jwt"] = rest
        elif key == "session":
            rest = dict(value)
            fn = rest.pop("generateSessionToken", None)
            if callable(fn):
                add("session.generateSessionToken", fn)
            out["session"] = rest
        elif key == "providers":
            out["providers"] = [_lift_provider(p, i, add) for i, p in enumerate(value or [])]
        elif key == "adapter":
            out["adapter"] = _lift_adapter(value, add, adapter_methods)
        else:
            if callable(value) and not isinstance(value, (str, bytes)):
                raise TypeError(f"libauth: option `{key}` cannot be a function")
            out[key] = value
    return out, hooks


def _lift_provider(provider: Any, index: int, add: Callable[..., None]) -> Dict[str, Any]:
    if callable(provider) and not isinstance(provider, collections.abc.Mapping):
        provider = provider()
    if not isinstance(provider, collections.abc.Mapping):
        raise TypeError(f"libauth: providers[{index}] must be a provider dict (see libauth.Credentials, libauth.OAuth, …)")
    pid = provider.get("id") or provider.get("builtin") or provider.get("type")
    out: Dict[str, Any] = {}
    for key, value in provider.items():
        if value is None:
            continue
        if callable(value):
            add(f"providers.{pid}.{key}", value, f"provider.{key}")
            if key == "authorize":
                out["authorize"] = True
            continue
        out[key] = value
    return out


def _lift_adapter(adapter: Any, add: Callable[..., None], adapter_methods: List[str]) -> Any:
    if adapter is None:
        return None
    if isinstance(adapter, collections.abc.Mapping) and adapter.get("type") in BUILTIN_ADAPTERS:
        return dict(adapter)
    count = 0
    for name in adapter_methods:
        if isinstance(adapter, collections.abc.Mapping):
            fn = adapter.get(name) or adapter.get(_snake(name))
        else:
            fn = getattr(adapter, name, None) or getattr(adapter, _snake(name), None)
        if callable(fn):
            add(f"adapter.{name}", fn, "adapter")
            count += 1
    if count == 0:
        raise TypeError(
            'libauth: `adapter` must be {"type": "sqlite" | "postgres" | "memory", …} or an object with '
            "adapter methods (create_user or createUser, get_user, …)"
        )
    return {"type": "host"}


_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")
_DATE_KEYS = ("expires", "emailVerified")


def _to_datetime(value: Any) -> Any:
    if isinstance(value, str) and _ISO.match(value):
        return _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value


def _revive_dates(value: Any) -> Any:
    """Adapters get ``datetime``s for ``expires`` and ``emailVerified``."""
    if not isinstance(value, dict):
        return value
    out = dict(value)
    for key in _DATE_KEYS:
        if key in out:
            out[key] = _to_datetime(out[key])
    return out


def _json_default(value: Any) -> Any:
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        return value.astimezone(_dt.timezone.utc).isoformat().replace("+00:00", "Z")
    if isinstance(value, _dt.date):
        return value.isoformat()
    if hasattr(value, "__dict__"):
        return {k: v for k, v in vars(value).items() if not k.startswith("_")}
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


def _invoke(fn: Callable[..., Any], kind: str, args: Any) -> Any:
    """Call a hook with the arguments Auth.js would give it."""
    if kind == "provider.authorize":
        args = args or {}
        return fn(args.get("credentials") or {}, args.get("request"))
    if kind == "provider.sendVerificationRequest":
        params = dict(args or {})
        params["expires"] = _to_datetime(params.get("expires"))
        return fn(params)
    if kind == "provider.profile":
        if isinstance(args, dict) and "profile" in args:
            return fn(args["profile"], args.get("tokens"))
        return fn(args)
    if kind == "logger.error":
        args = args or {}
        error = AuthError(str(args.get("message") or "error"), type=str(args.get("type") or "AuthError"))
        if args.get("code"):
            error.code = args["code"]  # type: ignore[attr-defined]
        if args.get("cause"):
            error.cause = args["cause"]  # type: ignore[attr-defined]
        return fn(error)
    if kind == "logger.warn":
        return fn(args.get("code"), args.get("message")) if isinstance(args, dict) else fn(args, None)
    if kind == "logger.debug":
        return fn(args.get("message"), args.get("metadata")) if isinstance(args, dict) else fn(args, None)
    if kind == "session.generateSessionToken":
        return fn()
    if kind == "adapter":
        if isinstance(args, list):
            return fn(*[_revive_dates(a) for a in args])
        return fn(_revive_dates(args))
    # callbacks.*, events.*, jwt.encode/decode: one dict, as in Auth.js.
    return fn(args)


async def _bounded(awaitable: Any, timeout: Optional[float]) -> Any:
    return await asyncio.wait_for(awaitable, timeout)


class Dispatcher:
    """The engine's hook caller for one ``Auth``."""

    def __init__(self, hooks: Hooks) -> None:
        self.hooks = hooks

    def __call__(self, name: str, args_json: str, timeout: Optional[float]) -> Tuple[int, str]:
        try:
            entry = self.hooks.get(name)
            if entry is None:
                raise AuthError(f"libauth: no function for hook {name}")
            fn, kind = entry
            result = _invoke(fn, kind, json.loads(args_json))
            if inspect.isawaitable(result):
                loop = getattr(_local, "loop", None)
                if loop is not None and loop.is_running():
                    future = asyncio.run_coroutine_threadsafe(_as_coroutine(result), loop)
                    try:
                        result = future.result(timeout)
                    except concurrent.futures.TimeoutError:
                        future.cancel()
                        return 2, ""
                else:
                    try:
                        result = asyncio.run(_bounded(result, timeout))
                    except asyncio.TimeoutError:
                        return 2, ""
            return 0, json.dumps(result, default=_json_default)
        except BaseException as e:  # noqa: BLE001 - every failure is the hook's error
            if isinstance(e, (KeyboardInterrupt, SystemExit)):
                raise
            return 1, json.dumps(to_host_error(e))


async def _as_coroutine(awaitable: Any) -> Any:
    return await awaitable
