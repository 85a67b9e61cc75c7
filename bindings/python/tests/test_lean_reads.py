"""``Auth.get_session`` crosses into the engine once with the URL and the
``Cookie`` header (borrowed, no request built): its answer is the engine's
own answer to ``GET /auth/session`` for the same cookie (no renewal due),
byte for byte once serialized as the engine serializes it, on the inline
path and through a session callback, sync and async, for valid, tampered,
cut, rotated-out, chunked and garbage cookies, and for database sessions.
(Expired cookies and any mix: core's property test, on the same read path.)"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Dict, List, Optional

import pytest

import libauth
from conftest import SECRET, base_config, sync_authorize
from test_engine import mint_cookie

URL = "http://127.0.0.1:8000/dashboard"
SESSION_URL = "http://127.0.0.1:8000/auth/session"


def route(auth: libauth.Auth, cookie: Optional[str]) -> str:
    headers = [] if cookie is None else [("cookie", cookie)]
    res = auth.handle("GET", SESSION_URL, headers)
    assert res.status == 200
    return res.body.decode()


def as_engine_json(session: Optional[Dict[str, Any]]) -> str:
    """The dict as the engine writes JSON: no spaces, key order kept."""
    return json.dumps(session, separators=(",", ":"), ensure_ascii=False)


def tampered(cookie: str, at: int) -> str:
    name, value = cookie.split("=", 1)
    i = at % len(value)
    return f"{name}={value[:i]}{'B' if value[i] == 'A' else 'A'}{value[i + 1 :]}"


def cookies() -> List[Optional[str]]:
    ada = "authjs.session-token=" + mint_cookie(json.dumps({"name": "Ada", "email": "ada@example.com", "sub": "42"}))
    big = mint_cookie(json.dumps({"name": "Big", "email": "big@example.com", "sub": "9", "picture": "p" * 6000}))
    chunked = "; ".join(f"authjs.session-token.{i}={big[j : j + 3900]}" for i, j in enumerate(range(0, len(big), 3900)))
    rotated = "authjs.session-token=" + mint_cookie(
        json.dumps({"name": "Old", "sub": "1"}), secret="libauth-python-old-secret-0123456789abcdef"
    )
    return [
        ada,
        f'theme=dark; {ada}; a="1"',
        chunked,
        rotated,
        ada[:-3],
        *(tampered(ada, at) for at in (25, 80, 200)),
        "authjs.session-token=eyJhbGciOiJkaXIi.x.y.z.w",
        "authjs.session-token=",
        "",
        None,
    ]


def jwt_engine(with_callback: bool) -> libauth.Auth:
    extra: Dict[str, Any] = {"session": {"updateAge": 3600}}
    if with_callback:

        def session(*, session: Dict[str, Any], **_: Any) -> Dict[str, Any]:
            return {**session, "role": "reader"}

        extra["callbacks"] = {"session": session}
    return libauth.Auth(base_config(authorize=sync_authorize, **extra))


@pytest.mark.parametrize("with_callback", [False, True], ids=["inline", "session-callback"])
def test_get_session_answers_what_the_session_route_answers(with_callback: bool) -> None:
    auth = jwt_engine(with_callback)
    assert auth.session_is_hookless is not with_callback
    read_some = False
    for cookie in cookies():
        want = route(auth, cookie)
        got = as_engine_json(auth.get_session(URL, cookie))
        assert got == want, cookie
        with_identity = auth.get_session_with_identity(URL, cookie)
        assert as_engine_json(with_identity) == want
        assert as_engine_json(asyncio.run(auth.get_session_async(URL, cookie))) == want
        read_some |= want != "null"
    assert read_some, "some cookies are sessions"


def test_a_shared_session_is_a_new_dict_on_every_read() -> None:
    """Later reads of a cached cookie copy one kept dict: each read gets its
    own dict (and its own ``user`` dict), so what a caller changes in its
    copy never shows in the next read."""
    auth = jwt_engine(with_callback=False)
    for cookie in cookies():
        want = route(auth, cookie)
        reads = [auth.get_session(URL, cookie) for _ in range(4)]
        for read in reads:
            assert as_engine_json(read) == want, cookie
        if want == "null":
            continue
        first = reads[1]
        assert first is not None and reads[2] is not None
        assert first is not reads[2] and first["user"] is not reads[2]["user"]
        first["user"]["name"] = "Mallory"
        first["user"]["role"] = "admin"
        first["expires"] = "never"
        del first["user"]
        assert as_engine_json(auth.get_session(URL, cookie)) == want, "a changed copy leaves the next read alone"
        assert as_engine_json(auth.get_session_with_identity(URL, cookie)) == want


def test_a_signed_in_sessions_amr_list_is_each_reads_own() -> None:
    """A session libauth signed in carries ``amr`` (a list): each read gets
    its own list, so appending to one read's never shows in the next."""
    auth = jwt_engine(with_callback=False)
    origin = "http://127.0.0.1:8000"
    csrf = auth.handle("GET", origin + "/auth/csrf", [])
    token = json.loads(csrf.body)["csrfToken"]
    jar = "; ".join(v.split(";")[0] for k, v in csrf.headers if k.lower() == "set-cookie")
    res = auth.handle(
        "POST",
        origin + "/auth/callback/credentials",
        [("cookie", jar), ("content-type", "application/x-www-form-urlencoded")],
        f"csrfToken={token}&username=ada&password=lovelace".encode(),
    )
    assert res.status == 302, res
    cookie = "; ".join(v.split(";")[0] for k, v in res.headers if k.lower() == "set-cookie")
    want = route(auth, cookie)
    assert '"amr":["pwd"]' in want, want
    for _ in range(3):
        for read in (auth.get_session(URL, cookie), auth.get_session_with_identity(URL, cookie)):
            assert read is not None and as_engine_json(read) == want
            read["amr"].append("otp")
            read["user"]["name"] = "Mallory"


def test_lists_and_dicts_in_odd_claims_are_copied_too() -> None:
    """A token whose claims hold a list (or a dict in it) as the picture:
    every container of the shared session is copied for each read."""
    auth = jwt_engine(with_callback=False)
    payload = {"name": "Odd", "email": "odd@example.com", "sub": "7", "picture": [1, {"k": [2]}]}
    cookie = "authjs.session-token=" + mint_cookie(json.dumps(payload))
    want = route(auth, cookie)
    assert '"image":[1,{"k":[2]}]' in want, want
    for _ in range(3):
        session = auth.get_session(URL, cookie)
        assert session is not None and as_engine_json(session) == want
        session["user"]["image"].append("x")
        session["user"]["image"][1]["k"].append("y")


def test_past_the_bound_of_kept_dicts_every_read_is_still_its_own_session() -> None:
    """More signed-in cookies than the binding keeps dicts for (1,024):
    the kept dicts are dropped and built again, and every read still
    answers its own cookie's session."""

    def authorize(credentials: Dict[str, Any], request: Any) -> Optional[Dict[str, Any]]:
        name = credentials.get("username", "")
        return {"id": name, "name": name, "email": f"{name}@example.com"}

    auth = libauth.Auth(base_config(authorize=authorize, session={"cache": {"maxEntries": 4096}}))
    csrf = auth.handle("GET", "http://127.0.0.1:8000/auth/csrf", [])
    jar = "; ".join(v.split(";", 1)[0] for k, v in csrf.headers if k.lower() == "set-cookie")
    token = json.loads(csrf.body)["csrfToken"]
    cookies = []
    for i in range(1100):
        signed = auth.handle(
            "POST",
            "http://127.0.0.1:8000/auth/callback/credentials",
            [("content-type", "application/x-www-form-urlencoded"), ("cookie", jar)],
            f"csrfToken={token}&username=u{i}&password=p".encode(),
        )
        cookies.append(
            next(v.split(";", 1)[0] for k, v in signed.headers if k.lower() == "set-cookie" and "session-token=" in v)
        )
    for _ in range(3):
        for i, cookie in enumerate(cookies):
            session = auth.get_session(URL, cookie)
            assert session is not None and session["user"]["name"] == f"u{i}", i
            session["user"]["name"] = "changed"


def test_database_sessions_read_the_same_both_ways() -> None:
    auth = libauth.Auth(
        base_config(authorize=sync_authorize, adapter={"type": "memory"}, session={"strategy": "database"})
    )
    csrf = auth.handle("GET", "http://127.0.0.1:8000/auth/csrf", [])
    jar = "; ".join(v.split(";", 1)[0] for k, v in csrf.headers if k.lower() == "set-cookie")
    token = json.loads(csrf.body)["csrfToken"]
    signed = auth.handle(
        "POST",
        "http://127.0.0.1:8000/auth/callback/credentials",
        [("content-type", "application/x-www-form-urlencoded"), ("cookie", jar)],
        f"csrfToken={token}&username=ada&password=lovelace".encode(),
    )
    session_cookie = next(
        v.split(";", 1)[0] for k, v in signed.headers if k.lower() == "set-cookie" and "session-token=" in v
    )
    for cookie in (session_cookie, "authjs.session-token=00000000-0000-4000-8000-000000000000", None):
        want = route(auth, cookie)
        assert as_engine_json(auth.get_session(URL, cookie)) == want
    assert "Ada Lovelace" in route(auth, session_cookie)


def test_text_that_is_not_a_str_is_a_type_error() -> None:
    auth = jwt_engine(False)
    with pytest.raises(TypeError):
        auth.get_session(b"http://x/", None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        auth.get_session(URL, 42)  # type: ignore[arg-type]
    # Lone surrogates cannot be UTF-8: refused, never a crash.
    with pytest.raises((UnicodeEncodeError, ValueError, TypeError)):
        auth.get_session(URL, "authjs.session-token=\ud800")
    assert auth.get_session(URL, "é=ü; authjs.session-token=x") is None
    assert SECRET


def test_the_wsgi_url_is_wsgirefs_request_uri() -> None:
    """``environ_url`` builds plain URLs itself: the same text as
    ``wsgiref.util.request_uri`` for any mix of scheme, host, script name,
    path and query, plain or needing percent-encoding."""
    import random
    from wsgiref.util import request_uri

    from libauth.wsgi import environ_url

    rng = random.Random(7)
    pieces = ["", "/", "/a", "/auth/session", "/x;y=1,z", "/é", "/a b", "/%41", "/a?b", "/~u/-_.", "//", "a", "/a/"]
    for _ in range(3000):
        environ: Dict[str, Any] = {
            "wsgi.url_scheme": rng.choice(["http", "https"]),
            "SERVER_NAME": "server.example",
            "SERVER_PORT": rng.choice(["80", "443", "8080"]),
        }
        if rng.random() < 0.8:
            environ["HTTP_HOST"] = rng.choice(["127.0.0.1:8000", "example.com", ""])
        for key in ("SCRIPT_NAME", "PATH_INFO", "QUERY_STRING"):
            if rng.random() < 0.8:
                environ[key] = rng.choice(pieces) if key != "QUERY_STRING" else rng.choice(["", "a=1", "x=%20&y"])
        assert environ_url(environ) == request_uri(environ, include_query=True), environ


def test_asgi_headers_in_any_case_give_the_url_and_cookie() -> None:
    from libauth.asgi import scope_url_and_cookie

    for host, cookie in ((b"host", b"cookie"), (b"Host", b"Cookie"), (b"HOST", b"COOKIE"), (b"hOsT", b"cOOkie")):
        scope: Dict[str, Any] = {
            "type": "http",
            "scheme": "https",
            "path": "/p",
            "query_string": b"q=1",
            "headers": [
                (b"x-host", b"no"),
                (host, b"example.com"),
                (cookie, b"a=1"),
                (b"cookies", b"no"),
                (cookie, b"b=2"),
            ],
        }
        assert scope_url_and_cookie(scope) == ("https://example.com/p?q=1", "a=1; b=2")
