"""Errors, configuration, deadlines, the GIL, admission, and session-cookie
interop with the engine's own encoder."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

import libauth
from conftest import SECRET, Browser, base_config, start_asgi, sync_authorize

ROOT = Path(__file__).resolve().parents[3]
SESSION_COOKIE = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "debug" / "examples" / "session_cookie"


def mint_cookie(payload: str, secret: str = SECRET) -> str:
    """A session token the engine minted (the session_cookie example), for ``payload``."""
    out = subprocess.run(
        [str(SESSION_COOKIE), "encode", "--secret", secret, "--salt", "authjs.session-token", "--payload", payload],
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


def test_invalid_config_names_the_option() -> None:
    with pytest.raises(libauth.InvalidConfig) as info:
        libauth.Auth({"secret": SECRET, "trustHost": True, "providers": [], "sesion": {}})
    assert isinstance(info.value, ValueError) and isinstance(info.value, libauth.AuthError)
    assert info.value.option == "sesion"
    assert info.value.type == "Configuration"


def test_missing_secret_has_its_type(monkeypatch: Any) -> None:
    monkeypatch.delenv("AUTH_SECRET", raising=False)
    with pytest.raises(libauth.InvalidConfig) as info:
        libauth.Auth({"providers": [libauth.Credentials(authorize=sync_authorize)]})
    assert info.value.type == "MissingSecret"
    assert info.value.option == "secret"


def test_misspelt_hook_is_refused() -> None:
    with pytest.raises(libauth.InvalidConfig) as info:
        libauth.Auth(base_config(callbacks={"sesion": lambda a: a}))
    assert info.value.option == "callbacks.sesion"


def test_error_classes_match_the_engine() -> None:
    assert set(libauth.ERROR_TYPES) == {
        cls.type for cls in vars(libauth).values() if isinstance(cls, type) and issubclass(cls, libauth.AuthError)
    } - {"AuthError"}
    e = libauth.CredentialsSignin(code="nope")
    assert e.type == "CredentialsSignin" and e.code == "nope"
    assert issubclass(libauth.Overloaded, libauth.AuthError)


def test_overloaded_admission() -> None:
    """Past hooks.maxInFlight a hooked session read raises Overloaded (and a route answers 503)."""
    release = threading.Event()
    entered = threading.Event()

    def session(args: Dict[str, Any]) -> Dict[str, Any]:
        entered.set()
        release.wait(10)
        return args["session"]  # type: ignore[no-any-return]

    auth = libauth.Auth(base_config(callbacks={"session": session}, hooks={"maxInFlight": 1}))
    url = "http://127.0.0.1/auth/session"
    token = mint_cookie(json.dumps({"name": "Ada", "email": "ada@example.com", "sub": "42"}))
    cookie = f"authjs.session-token={token}"
    t = threading.Thread(target=auth.get_session, args=(url, cookie))
    t.start()
    assert entered.wait(10)
    with pytest.raises(libauth.Overloaded):
        auth.get_session(url, cookie)
    res = auth.handle("GET", url, [("cookie", cookie)])
    assert res.status == 503 and dict(res.headers).get("retry-after") == "1"
    release.set()
    t.join()
    assert auth.get_session(url, cookie)["user"]["email"] == "ada@example.com"  # type: ignore[index]


def test_hanging_async_hook_ends_at_its_deadline_while_others_proceed() -> None:
    """ASGI: a signIn callback that never returns costs its request the
    deadline (then AccessDenied); other sign-ins and session reads through
    async hooks go on meanwhile."""

    async def sign_in(args: Dict[str, Any]) -> bool:
        if args["credentials"]["username"] == "hang":
            await asyncio.sleep(3600)
        return True

    async def session(args: Dict[str, Any]) -> Dict[str, Any]:
        await asyncio.sleep(0.001)
        return args["session"]  # type: ignore[no-any-return]

    def authorize(credentials: Dict[str, Any], request: Any) -> Dict[str, Any]:
        return {"id": "1", "name": credentials["username"], "email": f"{credentials['username']}@example.com"}

    s = start_asgi(
        base_config(
            authorize, callbacks={"signIn": sign_in, "session": session}, hooks={"timeouts": {"callbacks.signIn": 1.5}}
        )
    )
    try:
        result: Dict[str, Any] = {}

        def hang() -> None:
            started = time.monotonic()
            res = Browser(s).sign_in("hang", "x")
            result["elapsed"] = time.monotonic() - started
            result["location"] = res.headers.get("location")

        t = threading.Thread(target=hang)
        t.start()
        time.sleep(0.2)
        started = time.monotonic()
        for i in range(5):
            br = Browser(s)
            assert br.sign_in(f"user{i}", "x").status_code == 302
            assert br.session()["user"]["email"] == f"user{i}@example.com"
        others = time.monotonic() - started
        t.join(10)
        assert others < 1.2, f"other requests waited for the hanging hook ({others:.2f}s)"
        assert 1.4 <= result["elapsed"] < 5, result
        assert result["location"] == f"{s.url}/auth/error?error=AccessDenied"
    finally:
        s.stop()


def test_gil_is_released_while_the_engine_works() -> None:
    """Independent of free cores: with a 1 s switch interval, a spinning
    Python thread gets the GIL only when the thread holding it lets it go.
    During session reads it runs (each read releases the GIL); during calls
    that keep the GIL (the control) it never does. The timing side, N
    threads against one, is the PostgreSQL test below."""
    import sys

    auth = libauth.Auth(base_config())
    token = mint_cookie(json.dumps({"name": "Ada", "email": "ada@example.com", "sub": "42"}))
    cookie = f"authjs.session-token={token}"
    url = "http://127.0.0.1/"
    assert auth.get_session(url, cookie)["user"]["email"] == "ada@example.com"  # type: ignore[index]

    def keeps_the_gil() -> None:
        sum(range(300))

    def spun_during(call: Any, calls: int) -> int:
        stop = False
        count = 0

        def spinner() -> None:
            nonlocal count
            while not stop:
                count += 1

        interval = sys.getswitchinterval()
        sys.setswitchinterval(1.0)
        t = threading.Thread(target=spinner)
        try:
            t.start()
            time.sleep(0.05)  # the spinner takes the GIL; this thread has it back at the next forced switch
            before = count
            for _ in range(calls):
                call()
                if count != before:
                    break
            return count - before
        finally:
            stop = True
            t.join()
            sys.setswitchinterval(interval)

    assert spun_during(keeps_the_gil, 2000) == 0, "the control: no switch while the GIL is kept"
    spun = spun_during(lambda: auth.get_session(url, cookie), 2000)
    assert spun > 0, "no other Python thread ran during 2,000 session reads: the GIL was held"


def test_interop_engine_minted_cookie_is_read_by_python(kind: str, serve: Any) -> None:
    token = mint_cookie(json.dumps({"name": "Grace", "email": "grace@example.com", "sub": "7"}))
    s = serve(base_config())
    br = Browser(s)
    br.http.cookies.set("authjs.session-token", token, domain="127.0.0.1", path="/")
    assert br.session()["user"]["email"] == "grace@example.com"
    assert br.get("/me").json()["user"]["name"] == "Grace"


def test_interop_python_minted_cookie_is_read_by_the_engine(serve: Any) -> None:
    s = serve(base_config())
    br = Browser(s)
    br.sign_in("ada", "lovelace")
    token = br.session_cookie()
    out = subprocess.run(
        [str(SESSION_COOKIE), "decode", "--secret", SECRET, "--salt", "authjs.session-token", "--token", str(token)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    claims = json.loads(out.stdout)
    assert claims["email"] == "ada@example.com" and claims["sub"] == "42"


def test_hook_errors_cross_with_their_type() -> None:
    logged: List[Any] = []

    def authorize(credentials: Dict[str, Any], request: Any) -> Any:
        raise RuntimeError("database down")

    def error(e: libauth.AuthError) -> None:
        logged.append((type(e).__name__, e.type))

    auth = libauth.Auth(base_config(authorize, logger={"error": error}))
    csrf = auth.handle("GET", "http://127.0.0.1/auth/csrf", [])
    token = json.loads(csrf.body)["csrfToken"]
    cookie = "; ".join(c.split(";")[0] for k, c in csrf.headers if k.lower() == "set-cookie")
    body = f"csrfToken={token}&username=a&password=b".encode()
    res = auth.handle(
        "POST",
        "http://127.0.0.1/auth/callback/credentials",
        [("cookie", cookie), ("content-type", "application/x-www-form-urlencoded")],
        body,
    )
    assert res.status == 302
    assert "error=Configuration" in dict(res.headers)["location"] or "error=" in dict(res.headers)["location"]
    assert logged and logged[0][0] == "AuthError"


def test_asgi_saturation_answers_503_with_retry_after_over_http() -> None:
    """Under uvicorn: with hooks.maxInFlight requests waiting on an async
    hook, the next request that needs one is answered 503 with Retry-After
    at once, and the waiting ones are served when their hook returns."""
    import requests

    async def session(args: Dict[str, Any]) -> Dict[str, Any]:
        await asyncio.sleep(1.5)
        return args["session"]  # type: ignore[no-any-return]

    s = start_asgi(base_config(sync_authorize, callbacks={"session": session}, hooks={"maxInFlight": 2}))
    try:
        br = Browser(s)
        assert br.sign_in("ada", "lovelace").status_code == 302
        cookies = br.http.cookies.get_dict()
        results: List[Any] = []

        def slow() -> None:
            results.append(requests.get(f"{s.url}/auth/session", cookies=cookies, timeout=30).status_code)

        ts = [threading.Thread(target=slow) for _ in range(2)]
        for t in ts:
            t.start()
        time.sleep(0.4)
        started = time.monotonic()
        res = requests.get(f"{s.url}/auth/session", cookies=cookies, timeout=30)
        assert res.status_code == 503 and res.headers.get("retry-after") == "1", (res.status_code, res.headers)
        assert time.monotonic() - started < 0.5, "refused at once, not queued"
        for t in ts:
            t.join(10)
        assert results == [200, 200]
        assert (
            requests.get(f"{s.url}/auth/session", cookies=cookies, timeout=30).json()["user"]["name"] == "Ada Lovelace"
        )
    finally:
        s.stop()


def test_gil_is_released_while_the_engine_waits_on_the_database() -> None:
    """Independent of free cores: four threads read a session while another
    process holds a lock on the PostgreSQL sessions table for a second. If
    the engine held the GIL while it waits, the four reads would take turns
    (about 4 s in all) and this thread could run no Python meanwhile; they
    overlap (about 1 s) and this thread keeps counting."""
    import sys
    import uuid

    import psycopg

    dsn = "postgresql://postgres@127.0.0.1:5432/test"
    schema = "py_gil_" + uuid.uuid4().hex[:10]
    auth = libauth.Auth(
        base_config(
            sync_authorize,
            adapter={"type": "postgres", "url": dsn, "schema": schema, "poolSize": 8},
            session={"strategy": "database"},
        )
    )
    locker = None
    try:
        origin = "http://127.0.0.1"
        csrf = auth.handle("GET", f"{origin}/auth/csrf", [])
        token = json.loads(csrf.body)["csrfToken"]
        cookie = "; ".join(v.split(";")[0] for k, v in csrf.headers if k.lower() == "set-cookie")
        res = auth.handle(
            "POST",
            f"{origin}/auth/callback/credentials",
            [("cookie", cookie), ("content-type", "application/x-www-form-urlencoded")],
            f"csrfToken={token}&username=ada&password=lovelace".encode(),
        )
        session_cookie = next(
            v.split(";")[0]
            for k, v in res.headers
            if k.lower() == "set-cookie" and v.startswith("authjs.session-token=")
        )
        url = f"{origin}/"
        assert auth.get_session(url, session_cookie)["user"]["email"] == "ada@example.com"  # type: ignore[index]

        def count_for(seconds: float) -> int:
            n, end = 0, time.perf_counter() + seconds
            while time.perf_counter() < end:
                n += 1
            return n

        alone = count_for(0.3)
        hold = 1.0
        locker = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import sys, time, psycopg\n"
                f"con = psycopg.connect({dsn!r})\n"
                f"con.execute('LOCK TABLE {schema}.sessions IN ACCESS EXCLUSIVE MODE')\n"
                "print('locked', flush=True)\n"
                f"time.sleep({hold})\n"
                "con.rollback()\n",
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert locker.stdout is not None and locker.stdout.readline().strip() == "locked"
        results: List[Any] = []
        started = time.perf_counter()
        threads = [
            threading.Thread(target=lambda: results.append(auth.get_session(url, session_cookie))) for _ in range(4)
        ]
        for t in threads:
            t.start()
        time.sleep(0.05)
        during = count_for(0.3)  # the readers are waiting on the lock now
        for t in threads:
            t.join(30)
        elapsed = time.perf_counter() - started
        assert locker.wait(10) == 0
        assert len(results) == 4 and all(r and r["user"]["email"] == "ada@example.com" for r in results)
        print(
            f"4 reads behind a {hold}s lock took {elapsed:.2f}s; this thread counted {during} "
            f"(alone: {alone}) meanwhile"
        )
        assert elapsed < 2.5 * hold, f"the reads took turns: {elapsed:.2f}s"
        assert during > 0.3 * alone, f"this thread was starved while the engine waited ({during} vs {alone})"
    finally:
        if locker is not None and locker.poll() is None:
            locker.kill()
        with psycopg.connect(dsn, autocommit=True) as con:
            con.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")


@pytest.mark.parametrize(
    "provider, option, kind",
    [
        (
            lambda: libauth.TikTok(client_id="k", client_secret="s", scopes="user.info.basic"),
            "providers[1]",
            "Configuration",
        ),
        (lambda: libauth.OIDC(id="corp", client_id="k", client_secret="s"), "providers[1].issuer", "Configuration"),
        (lambda: libauth.Email(send_verification_request=print), "adapter", "MissingAdapter"),
    ],
)
def test_provider_helpers_refused_options_are_named(provider: Any, option: str, kind: str) -> None:
    with pytest.raises(libauth.InvalidConfig) as info:
        libauth.Auth(base_config(sync_authorize, providers=[libauth.Credentials(authorize=sync_authorize), provider()]))
    assert info.value.option == option and info.value.type == kind, str(info.value)
    assert f"`{option}`" in str(info.value)


def test_asgi_scope_with_the_cookie_split_over_several_headers_reads_the_session() -> None:
    """HTTP/2 lets a client split Cookie into several headers; ASGI servers
    pass them on as they came. The session read joins them, as a server
    must (RFC 9113 §8.2.3)."""
    auth = libauth.Auth(base_config(sync_authorize))
    token = mint_cookie(json.dumps({"name": "Split", "email": "split@example.com", "sub": "9"}))

    def scope(*cookies: bytes) -> Dict[str, Any]:
        headers = [(b"host", b"example.test")] + [(b"cookie", c) for c in cookies]
        return {
            "type": "http",
            "scheme": "http",
            "path": "/me",
            "raw_path": b"/me",
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "libauth.auth": auth,
        }

    whole = scope(b"theme=dark; authjs.session-token=" + token.encode())
    split = scope(b"theme=dark", b"authjs.session-token=" + token.encode(), b"lang=en")
    for s in (whole, split):
        session = libauth.get_session(s)
        assert session is not None and session["user"]["name"] == "Split"
    assert libauth.get_session(scope(b"theme=dark")) is None


def test_passkey_helper_spells_auth_js_options() -> None:
    get_user_info = print
    assert libauth.Passkey() == {"type": "webauthn", "id": "passkey", "name": "Passkey"}
    assert libauth.Passkey(
        relaying_party={"id": "example.com", "name": "Example", "origin": "https://example.com"},
        enable_conditional_ui=True,
        user_verification="required",
        timeout=60_000,
        get_user_info=get_user_info,
        id="key",
    ) == {
        "type": "webauthn",
        "id": "key",
        "name": "Passkey",
        "relayingParty": {"id": "example.com", "name": "Example", "origin": "https://example.com"},
        "enableConditionalUI": True,
        "userVerification": "required",
        "timeout": 60_000,
        "getUserInfo": get_user_info,
    }
    # camelCase passes through unchanged, as for the other helpers.
    assert libauth.Passkey(enableConditionalUI=False)["enableConditionalUI"] is False
