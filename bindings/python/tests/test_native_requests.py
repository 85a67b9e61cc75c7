"""The native module reads what a session read needs from an ASGI scope or
a WSGI environ (``_native.scope_url_and_cookie``,
``_native.environ_url_and_cookie``) and sets up ASGIMiddleware's hookless
requests (``NativeAuth.lazy_scope``): the same answers as the Python code
(the reference, and the fallback for the shapes the native code leaves to
it, answering ``None``), on thousands of generated scopes and environs:
header names in any case, repeated and missing headers, Latin-1 bytes past
ASCII, missing or ``None`` fields, root paths, raw paths, query strings,
values of unusual types."""

from __future__ import annotations

import random
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

import libauth
from libauth import _native, asgi, wsgi
from conftest import base_config, sync_authorize

MISSING = object()

HEADER_NAMES = [b"host", b"Host", b"HOST", b"hOsT", b"cookie", b"Cookie", b"COOKIE", b"cOOkie"]
OTHER_NAMES = [b"x-host", b"hosts", b"cookies", b"set-cookie", b"accept", b"cookie2", b""]
HEADER_VALUES = [b"", b"a=1", b"b=2; c=3", b"example.com", b"127.0.0.1:8000", b"h\xe9llo", b"\xff\x80=\xe9", b" x "]


def pick(rng: random.Random, choices: List[Any]) -> Any:
    return choices[rng.randrange(len(choices))]


def put(d: Dict[str, Any], key: str, value: Any) -> None:
    if value is not MISSING:
        d[key] = value


def gen_scope(rng: random.Random, odd: bool) -> Dict[str, Any]:
    """A scope as servers send them; with ``odd``, now and then a value of a
    type no server sends (the native code leaves those to Python)."""
    headers: List[Any] = []
    for _ in range(rng.randrange(7)):
        name = pick(rng, HEADER_NAMES if rng.random() < 0.6 else OTHER_NAMES)
        pair: Any = (name, pick(rng, HEADER_VALUES))
        if rng.random() < 0.1:
            pair = list(pair)
        headers.append(pair)
    scope: Dict[str, Any] = {"type": "http"}
    put(scope, "headers", pick(rng, [headers] * 6 + [tuple(headers), MISSING, None, []]))
    put(scope, "scheme", pick(rng, ["http", "https", "ws", "", None, MISSING]))
    put(
        scope,
        "server",
        pick(rng, [("srv", 80), ("srv", 443), ("srv", 8080), ["srv", 8000], ("srv", None), ("é", 1), None, MISSING]),
    )
    put(scope, "path", pick(rng, ["/", "/p", "/auth/session", "/é/ü", "/root/x", "", None, MISSING]))
    put(scope, "root_path", pick(rng, ["", "/root", "/é", None, MISSING]))
    put(scope, "raw_path", pick(rng, [b"/p", b"/caf\xe9", b"/root/x", b"/a%20b", b"", None, MISSING, MISSING]))
    put(scope, "query_string", pick(rng, [b"", b"q=1", b"a=\xe9&b", None, MISSING]))
    if odd and rng.random() < 0.3:
        key, value = pick(
            rng,
            [
                ("headers", [(b"cookie", "a=1")]),
                ("headers", [("cookie", b"a=1")]),
                ("headers", [(b"host", b"h", b"x")]),
                ("headers", [(bytearray(b"host"), b"h")]),
                ("server", ("srv", "80")),
                ("server", ("srv", True)),
                ("server", ("srv", 80.0)),
                ("server", ("srv",)),
                ("scheme", b"http"),
                ("path", b"/p"),
                ("raw_path", "/p"),
                ("query_string", "q=1"),
                ("root_path", 0),
            ],
        )
        scope[key] = value
    return scope


def outcome(fn: Callable[[Any], Any], arg: Any) -> Tuple[str, Any]:
    try:
        return ("ok", fn(arg))
    except Exception as e:  # the same error both ways
        return ("raised", type(e))


def test_native_scope_reading_is_the_python_reference() -> None:
    rng = random.Random(35)
    native_answered = 0
    for i in range(6000):
        scope = gen_scope(rng, odd=i % 2 == 1)
        want = outcome(asgi._scope_url_and_cookie, dict(scope))
        native = _native.scope_url_and_cookie(dict(scope))
        if native is not None:
            native_answered += 1
            assert ("ok", native) == want, scope
        # The public function: the native answer, else the reference's.
        assert outcome(asgi.scope_url_and_cookie, dict(scope)) == want, scope
    assert native_answered > 4000, native_answered


def test_native_scope_reading_of_a_plain_request() -> None:
    scope = {
        "type": "http",
        "scheme": "https",
        "server": ("127.0.0.1", 8000),
        "root_path": "/app",
        "path": "/app/p",
        "raw_path": b"/p%C3%A9",
        "query_string": b"q=\xe9",
        "headers": [(b"Cookie", b"a=1"), (b"HOST", b"ex\xe9mple.com"), (b"host", b"no"), (b"cookie", b"b=\xff")],
    }
    assert _native.scope_url_and_cookie(scope) == ("https://exémple.com/app/p%C3%A9?q=é", "a=1; b=ÿ")
    assert _native.scope_url_and_cookie({"type": "http"}) == ("http://localhost/", None)
    # Not a dict, or a dict subclass: left to Python.
    assert _native.scope_url_and_cookie([]) is None
    assert _native.scope_url_and_cookie(type("D", (dict,), {})(scope)) is None


def gen_environ(rng: random.Random, odd: bool) -> Dict[str, Any]:
    environ: Dict[str, Any] = {"SERVER_NAME": "server.example"}
    put(environ, "wsgi.url_scheme", pick(rng, ["http", "https"] * 5 + [MISSING]))
    put(environ, "SERVER_PORT", pick(rng, ["80", "443", "8080"]))
    put(environ, "HTTP_HOST", pick(rng, ["127.0.0.1:8000", "example.com", "hé.example", "", MISSING]))
    pieces = ["", "/", "/a", "/auth/session", "/x;y=1,z", "/é", "/a b", "/%41", "/~u/-_.", "//", "a", "/a/", None]
    put(environ, "SCRIPT_NAME", pick(rng, ["", "/app", "/a b", "/é", "/x;y", None, MISSING]))
    put(environ, "PATH_INFO", pick(rng, pieces + [MISSING]))
    put(environ, "QUERY_STRING", pick(rng, ["", "a=1", "x=%20&y", "é=ü", None, MISSING]))
    cookies = ["a=1", "a=1; b=2", "é=ü; a=1", "a=1, b=2", "a=1,b=2", "a=x,y", "", None, MISSING]
    put(environ, "HTTP_COOKIE", pick(rng, cookies))
    if odd and rng.random() < 0.3:
        key, value = pick(
            rng,
            [
                ("HTTP_HOST", b"example.com"),
                ("PATH_INFO", b"/p"),
                ("SCRIPT_NAME", 1),
                ("QUERY_STRING", b"q"),
                ("HTTP_COOKIE", b"a=1"),
                ("wsgi.url_scheme", None),
            ],
        )
        environ[key] = value
    return environ


def environ_reference(environ: Dict[str, Any]) -> Tuple[str, Optional[str]]:
    return (wsgi.environ_url(environ), wsgi.environ_cookie(environ))


def test_native_environ_reading_is_the_python_reference() -> None:
    rng = random.Random(36)
    native_answered = 0
    for i in range(6000):
        environ = gen_environ(rng, odd=i % 2 == 1)
        want = outcome(environ_reference, dict(environ))
        native = _native.environ_url_and_cookie(dict(environ))
        if native is not None:
            native_answered += 1
            assert ("ok", native) == want, environ
    assert native_answered > 600, native_answered


def test_native_environ_reading_hands_back_the_cookie_itself() -> None:
    cookie = "authjs.session-token=" + "x" * 500
    environ = {"wsgi.url_scheme": "http", "HTTP_HOST": "h", "PATH_INFO": "/p", "HTTP_COOKIE": cookie}
    found = _native.environ_url_and_cookie(environ)
    assert found is not None and found[0] == "http://h/p" and found[1] is cookie
    assert _native.environ_url_and_cookie({**environ, "HTTP_COOKIE": "a=1, b=2"}) is None


@pytest.fixture(scope="module")
def auth() -> libauth.Auth:
    made = libauth.Auth(base_config(authorize=sync_authorize))
    assert made.session_is_hookless
    return made


def python_set_up(scope: Dict[str, Any], auth: libauth.Auth) -> Optional[bool]:
    """What ASGIMiddleware did in Python for a hookless configuration."""
    if auth.is_auth_path(asgi.scope_path(scope)):
        return False
    scope["state"] = asgi._lazy_state(scope, auth)
    return True


class StateDict(dict):  # type: ignore[type-arg]
    pass


def test_native_lazy_scope_is_the_python_set_up(auth: libauth.Auth) -> None:
    rng = random.Random(37)
    native_answered = 0
    for i in range(3000):
        scope = gen_scope(rng, odd=i % 2 == 1)
        put(scope, "path", pick(rng, ["/auth", "/auth/", "/auth/session", "/authx", "/p", "/", None, MISSING]))
        put(scope, "root_path", pick(rng, ["", "/auth", "/root", None, MISSING]))
        state = pick(
            rng,
            [
                {},
                {"client": 1},
                {"session": "the app's", "session_error": 2, "x": 3},
                StateDict(session=1, y=2),
                StateDict(),
                None,
                MISSING,
            ],
        )
        put(scope, "state", state)
        mine, theirs = dict(scope), dict(scope)
        got = auth._native.lazy_scope(mine, auth)
        if got is None:
            assert mine == scope, "left as it was"
            continue
        native_answered += 1
        assert got == python_set_up(theirs, auth), scope
        if got:
            assert type(mine["state"]) is asgi._LazyState and mine["state"] == theirs["state"]
            assert mine["state"]._scope is mine and mine["state"]._auth is auth
            assert state is MISSING or state is None or mine["state"] is not state
        assert mine.keys() == theirs.keys()
    assert native_answered > 2000, native_answered
    # Odd shapes: left to Python, untouched.
    for odd in ({"path": b"/p"}, {"path": "/p", "state": [("a", 1)]}, {"root_path": 1}):
        assert auth._native.lazy_scope(dict(odd), auth) is None
    assert auth._native.lazy_scope(StateDict(path="/p"), auth) is None


def test_a_lazy_state_reads_once_and_lets_go_of_the_scope(auth: libauth.Auth) -> None:
    scope: Dict[str, Any] = {"type": "http", "path": "/p", "headers": [(b"host", b"h")], "state": {"a": 1}}
    assert auth._native.lazy_scope(scope, auth) is True
    state = scope["state"]
    assert state["a"] == 1 and "session" not in state
    assert state["session"] is None and scope[asgi.SESSION_KEY] is None
    assert state._scope is None and state._request == ("http://h/p", None)
    del state["session"]
    assert state["session"] is None
    with pytest.raises(KeyError):
        state["other"]


def test_a_shared_session_with_identity_is_a_new_dict_on_every_read() -> None:
    """``get_session_with_identity`` copies the kept dict of a cached
    cookie as ``get_session`` does: each read its own dict (and ``user``),
    the identity beside it."""
    import json

    from test_engine import mint_cookie

    auth = libauth.Auth(base_config(authorize=sync_authorize))
    cookie = "authjs.session-token=" + mint_cookie(
        json.dumps(
            {
                "name": "Ada",
                "email": "ada@example.com",
                "sub": "42",
                "libauth": {"sub": "u42", "email": "ada@example.com", "emailVerified": True},
            }
        )
    )
    url = "http://127.0.0.1:8000/p"
    plain = auth.get_session(url, cookie)
    assert plain is not None
    reads = [auth.get_session_with_identity(url, cookie) for _ in range(3)]
    for read in reads:
        assert isinstance(read, libauth.SessionWithIdentity) and read == plain
        assert list(read) == list(plain)
    first, second = reads[1], reads[2]
    assert first is not None and second is not None
    assert first is not second and first["user"] is not second["user"]
    assert first.identity == second.identity == libauth.Identity("u42", "ada@example.com", True)
    first["user"]["name"] = "Mallory"
    del first["expires"]
    assert auth.get_session_with_identity(url, cookie) == plain
