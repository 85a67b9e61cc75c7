"""The Python end of the engine's hooks.

``compile_config`` splits a config dict into the engine's JSON config and
its hooks: functions never cross as JSON; the engine names each
(``callbacks.signIn``, ``providers.<id>.authorize``, ``adapter.createUser``,
…) and asks for them by name, describing each call (positional arguments,
which are dates and errors), which ``Dispatcher`` applies.

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

from ._errors import AuthError, InvalidConfig, to_host_error

#: Where a function stood in the config, as the engine reads it.
MARKER = "$libauth.fn"

#: The event loop of the ASGI request this thread works for (set by the
#: middleware's worker threads).
_local = threading.local()


def set_loop(loop: Optional[asyncio.AbstractEventLoop]) -> None:
    _local.loop = loop


Hooks = Dict[str, Callable[..., Any]]


def compile_config(
    config: collections.abc.Mapping[str, Any], compile_native: Callable[[str], Any]
) -> Tuple[Dict[str, Any], Hooks]:
    """Split a config into the engine's JSON config and its hooks. This
    knows Python, not libauth's options: every function becomes a marker,
    and the engine says which hook each is, which are provider factories
    to call, and refuses a function where none belongs (``InvalidConfig``
    naming the option)."""
    if not isinstance(config, collections.abc.Mapping):
        raise TypeError("libauth: the configuration must be a dict")
    fns: List[Callable[..., Any]] = []
    marked = _mark(config, fns)
    while True:
        out = compile_native(json.dumps(marked, default=_json_default))
        if len(out) == 3 and isinstance(out[1], list):
            config_json, hooks, factories = out
            if not factories:
                return json.loads(config_json), {name: fns[m] for m, name in hooks}
            for m in factories:
                marked = _replace_marker(marked, m, _mark(fns[m](), fns))
        else:
            option, message, kind = out
            raise InvalidConfig(option, message, kind)


def _mark(value: Any, fns: List[Callable[..., Any]]) -> Any:
    """A JSON-ready copy of ``value`` with every function replaced by a
    marker (kept in ``fns``); an object that is not a dict (a class of
    callbacks, an adapter) contributes its public attributes."""
    if callable(value) and not isinstance(value, type):
        fns.append(value)
        return {MARKER: len(fns) - 1}
    if isinstance(value, collections.abc.Mapping):
        return {str(k): _mark(v, fns) for k, v in value.items() if v is not None or k == "adapter"}
    if isinstance(value, (list, tuple)):
        return [_mark(v, fns) for v in value]
    if value is None or isinstance(value, (str, int, float, bool, _dt.date)):
        return value
    return {n: _mark(getattr(value, n), fns) for n in dir(value) if not n.startswith("_")}


def _replace_marker(value: Any, m: int, replacement: Any) -> Any:
    if isinstance(value, dict):
        if len(value) == 1 and value.get(MARKER) == m:
            return replacement
        return {k: _replace_marker(v, m, replacement) for k, v in value.items()}
    if isinstance(value, list):
        return [_replace_marker(v, m, replacement) for v in value]
    return value


_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


def _to_datetime(value: Any) -> Any:
    if isinstance(value, str) and _ISO.match(value):
        return _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    return value


def _to_error(record: Any) -> Any:
    """The logger gets a ``libauth.AuthError`` with ``type``, ``code`` and,
    for the engine's cause chain, ``__cause__``."""
    record = record or {}
    error = AuthError(str(record.get("message") or "error"), type=str(record.get("type") or "AuthError"))
    if record.get("code"):
        error.code = record["code"]  # type: ignore[attr-defined]
    if record.get("cause"):
        error.__cause__ = Exception("\n".join(str(c) for c in record["cause"]))
    return error


def _json_default(value: Any) -> Any:
    if isinstance(value, _dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=_dt.timezone.utc)
        # Milliseconds, as JavaScript's toISOString: one wire form everywhere.
        return value.astimezone(_dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    if isinstance(value, _dt.date):
        return value.isoformat()
    if hasattr(value, "__dict__"):
        return {k: v for k, v in vars(value).items() if not k.startswith("_")}
    raise TypeError(f"{type(value).__name__} is not JSON-serialisable")


def _update(root: Any, path: str, convert: Callable[[Any], Any]) -> None:
    *keys, last = path.split(".")
    parent = root
    for key in keys:
        parent = parent[int(key)] if isinstance(parent, list) else parent.get(key) if isinstance(parent, dict) else None
        if not isinstance(parent, (dict, list)):
            return
    if isinstance(parent, list) and int(last) < len(parent):
        parent[int(last)] = convert(parent[int(last)])
    elif isinstance(parent, dict) and last in parent:
        parent[last] = convert(parent[last])


def _apply(fn: Callable[..., Any], call: Dict[str, Any], plans: Optional[Dict[Any, Any]] = None) -> Any:
    """Call a hook as the engine describes the call (core's ``HookCall``):
    positional ``args``, the values at ``dates`` as ``datetime``, the
    records at ``errors`` as ``AuthError`` (requests stay dicts:
    ``{method, url, headers}``), and, for hooks with ``keywords``
    (callbacks, events, ``authorize``), keyword arguments in snake_case.
    Nothing here knows which hook it is."""
    args = call.get("args") or []
    for path in call.get("dates") or ():
        _update(args, path, _to_datetime)
    for path in call.get("errors") or ():
        _update(args, path, _to_error)
    keywords = call.get("keywords")
    if keywords:
        return _call_with_keywords(fn, keywords, args, {} if plans is None else plans)
    return fn(*args)


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m.group(1).lower(), name)


def _call_with_keywords(fn: Callable[..., Any], keywords: List[str], args: List[Any], plans: Dict[Any, Any]) -> Any:
    """``fn(token=..., user=None, ...)``: every parameter of the hook by its
    snake_case name, absent ones as ``None`` (and, to a ``**kwargs``, any
    other key the engine sent). A function written for the one-dict form
    (``def jwt(params)``) still gets the dict, with a DeprecationWarning."""
    if len(args) == 1 and isinstance(args[0], dict):
        values = dict(args[0])
    else:
        values = dict(zip(keywords, args))
    kwargs = {_snake(k): values.pop(k, None) for k in keywords}
    offered = frozenset(kwargs)
    if offered not in plans:
        plans[offered] = _keyword_plan(fn, offered)
    plan = plans[offered]
    if plan is None:
        if len(args) == 1 and isinstance(args[0], dict):
            _warn_one_dict(fn)
        return fn(*args)
    if plan == "all":
        for k, v in values.items():
            kwargs.setdefault(_snake(k), v)
        return fn(**kwargs)
    return fn(**{k: v for k, v in kwargs.items() if k in plan})


def _keyword_plan(fn: Callable[..., Any], offered: frozenset[str]) -> Any:
    """How ``fn`` takes keywords: ``"all"`` (it has ``**kwargs``), the set
    of names it accepts, or ``None`` when it cannot be called by keyword
    (it requires a parameter the hook does not have)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        plan: Any = None
    else:
        if any(p.kind is p.VAR_KEYWORD for p in params):
            plan = "all"
        else:
            named = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
            required = {p.name for p in params if p.default is p.empty and p.kind is not p.VAR_POSITIONAL}
            plan = frozenset(named & offered) if required <= offered and named & offered else None
    return plan


def _warn_one_dict(fn: Callable[..., Any]) -> None:
    import warnings

    name = getattr(fn, "__qualname__", repr(fn))
    warnings.warn(
        f"libauth: {name} takes the hook's arguments as one dict; hooks are now called with keyword "
        "arguments (e.g. `def jwt(*, token, user=None, account=None, trigger=None, **_)`). "
        "The one-dict form will be removed in the next release.",
        DeprecationWarning,
        stacklevel=2,
    )


async def _bounded(awaitable: Any, timeout: Optional[float]) -> Any:
    return await asyncio.wait_for(awaitable, timeout)


class Dispatcher:
    """The engine's hook caller for one ``Auth``."""

    def __init__(self, hooks: Hooks) -> None:
        self.hooks = hooks
        #: How each hook's function takes keyword arguments, worked out once.
        self.plans: Dict[str, Dict[Any, Any]] = {name: {} for name in hooks}

    def __call__(self, name: str, args_json: str, timeout: Optional[float]) -> Tuple[int, str]:
        try:
            fn = self.hooks.get(name)
            if fn is None:
                raise AuthError(f"libauth: no function for hook {name}")
            result = _apply(fn, json.loads(args_json), self.plans.get(name))
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
