"""Sign-in through real providers, behind waitress (WSGI) and uvicorn (ASGI):
TikTok against the local simulator (tests/tiktok-sim), OpenID Connect
against the test OP (tests/oidc-op, oidc-provider), and email links sent by
a ``send_verification_request`` hook or through a real SMTP server
(aiosmtpd, core/tests/support/smtp_sink.py)."""

from __future__ import annotations

import asyncio
import html
import json
import re
import select
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple
from urllib.parse import parse_qs, urljoin, urlparse

import pytest
import requests

import libauth
from conftest import SECRET, Browser, Server, free_port, start_asgi, wait_for

ROOT = Path(__file__).resolve().parents[3]
TIKTOK_SIM = ROOT / "target" / "debug" / "tiktok-sim"
OIDC_OP = ROOT / "tests" / "oidc-op" / "server.mjs"
SMTP_SINK = ROOT / "core" / "tests" / "support" / "smtp_sink.py"


def follow_until(start: str, origin: str) -> str:
    """A user agent at the provider: follow its redirects (with its own
    cookies) until it sends the browser back to ``origin``."""
    agent = requests.Session()
    url = start
    for _ in range(12):
        if url.startswith(origin):
            return url
        res = agent.get(url, allow_redirects=False, timeout=15)
        assert res.status_code in (302, 303, 307), (url, res.status_code, res.text[:300])
        url = urljoin(url, res.headers["location"])
    raise AssertionError(f"the provider never sent the browser back to {origin}")


# -- TikTok (simulator) ------------------------------------------------------------


@pytest.fixture
def tiktok_sim(kind: str) -> Iterator[Dict[str, Any]]:
    assert TIKTOK_SIM.exists(), "target/debug/tiktok-sim is not built (cargo build -p tiktok-sim)"
    sim_port, app_port = free_port(), free_port()
    origin = f"http://127.0.0.1:{app_port}"
    proc = subprocess.Popen(
        [str(TIKTOK_SIM), "--quiet", "--port", str(sim_port), "--redirect-uri", f"{origin}/auth/callback/tiktok"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    try:
        wait_for(sim_port)
        yield {"url": f"http://127.0.0.1:{sim_port}", "app_port": app_port, "origin": origin}
    finally:
        proc.kill()
        proc.wait()


def test_tiktok_sign_in_against_the_simulator(kind: str, serve: Any, tiktok_sim: Dict[str, Any]) -> None:
    sim = tiktok_sim["url"]
    seen: Dict[str, Any] = {}

    async def jwt(args: Dict[str, Any]) -> Dict[str, Any]:
        token = args["token"]
        if args.get("trigger") == "signIn":
            seen["account"] = args["account"]
            token["openId"] = args["profile"]["data"]["user"]["open_id"]
        return token  # type: ignore[no-any-return]

    def session(args: Dict[str, Any]) -> Dict[str, Any]:
        args["session"]["user"]["openId"] = args["token"].get("openId")
        return args["session"]  # type: ignore[no-any-return]

    config = {
        "secret": SECRET,
        "basePath": "/auth",
        "providers": [
            libauth.TikTok(
                client_id="sim-client-key",
                client_secret="sim-client-secret",
                authorization={"url": f"{sim}/v2/auth/authorize/"},
                token=f"{sim}/v2/oauth/token/",
                userinfo=f"{sim}/v2/user/info/",
            )
        ],
        "callbacks": {"jwt": jwt, "session": session},
    }
    s: Server = serve(config, port=tiktok_sim["app_port"])
    origin = tiktok_sim["origin"]
    br = Browser(s)
    res = br.post("/auth/signin/tiktok", {"csrfToken": br.csrf(), "callbackUrl": "/after"})
    assert res.status_code == 302
    authorize = res.headers["location"]
    q = parse_qs(urlparse(authorize).query)
    assert authorize.startswith(f"{sim}/v2/auth/authorize/")
    assert q["client_key"] == ["sim-client-key"] and q["redirect_uri"] == [f"{origin}/auth/callback/tiktok"]
    back = follow_until(authorize, origin)
    res = br.get(back[len(origin) :])
    assert res.status_code == 302 and res.headers["location"] == f"{origin}/after"
    session = br.session()
    assert session["user"]["name"] and session["user"]["openId"], session
    assert seen["account"]["provider"] == "tiktok" and seen["account"]["type"] == "oauth"
    assert br.get("/me").json()["user"]["openId"] == session["user"]["openId"]

    # A refusal at TikTok ends on the sign-in page with no session.
    other = Browser(s)
    res = other.post("/auth/signin/tiktok", {"csrfToken": other.csrf()})
    denied = follow_until(res.headers["location"] + "&sim_action=deny", origin)
    res = other.get(denied[len(origin) :])
    assert res.status_code == 302 and "/auth/signin?error=OAuthCallbackError" in res.headers["location"]
    assert other.session() is None


# -- OpenID Connect (tests/oidc-op) ------------------------------------------------


def start_op(origin: str) -> "Tuple[subprocess.Popen[str], Dict[str, Any]]":
    """Start tests/oidc-op and read its ready line. Node has been seen (once
    in a few dozen starts, on a busy machine) to hang at start-up before
    listening; such a start is killed and retried."""
    for _ in range(3):
        proc = subprocess.Popen(
            [
                "node",
                str(OIDC_OP),
                "--port",
                "0",
                "--exit-on-stdin-close",
                "--redirect-uri",
                f"{origin}/auth/callback/oidc",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 20)
        if ready:
            line = proc.stdout.readline()
            if line:
                return proc, json.loads(line)
        proc.kill()
        proc.wait()
    raise AssertionError("the OpenID Provider (tests/oidc-op) did not start in three tries")


@pytest.fixture
def oidc_op() -> Iterator[Dict[str, Any]]:
    assert (OIDC_OP.parent / "node_modules" / "oidc-provider").exists(), (
        "oidc-provider is not installed: npm ci --prefix tests/oidc-op (scripts/test.sh does)"
    )
    app_port = free_port()
    origin = f"http://127.0.0.1:{app_port}"
    proc, ready = start_op(origin)
    try:
        yield {"issuer": ready["issuer"], "app_port": app_port, "origin": origin}
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_oidc_sign_in_against_a_real_op(serve: Any, oidc_op: Dict[str, Any]) -> None:
    accounts: List[Dict[str, Any]] = []

    def jwt(args: Dict[str, Any]) -> Dict[str, Any]:
        if args.get("trigger") == "signIn":
            accounts.append({"account": args["account"], "profile": args["profile"]})
        return args["token"]  # type: ignore[no-any-return]

    issuer, origin = oidc_op["issuer"], oidc_op["origin"]
    config = {
        "secret": SECRET,
        "basePath": "/auth",
        "providers": [
            libauth.OIDC(
                id="oidc", name="Test OP", issuer=issuer, client_id="libauth-test", client_secret="libauth-test-secret"
            )
        ],
        "callbacks": {"jwt": jwt},
    }
    s: Server = serve(config, port=oidc_op["app_port"])
    br = Browser(s)
    res = br.post("/auth/signin/oidc", {"csrfToken": br.csrf(), "callbackUrl": "/home"})
    authorize = res.headers["location"]
    q = parse_qs(urlparse(authorize).query)
    assert authorize.startswith(issuer)
    assert {"nonce", "state", "code_challenge"} <= set(q) and q["scope"] == ["openid profile email"]
    back = follow_until(authorize, origin)
    res = br.get(back[len(origin) :])
    assert res.status_code == 302 and res.headers["location"] == f"{origin}/home", res.headers.get("location")
    session = br.session()
    assert session["user"]["email"] == "test@example.com" and session["user"]["name"] == "Test User"
    assert br.get("/me").json()["user"]["email"] == "test@example.com"
    (seen,) = accounts
    assert seen["account"]["type"] == "oidc" and seen["account"]["providerAccountId"] == "user-123"
    assert seen["profile"]["iss"] == issuer and isinstance(seen["account"]["id_token"], str)


def test_generic_oauth_provider_with_a_python_profile_function(serve: Any, oidc_op: Dict[str, Any]) -> None:
    """``libauth.OAuth`` with explicit endpoints (the same OP, as a plain
    OAuth 2 server) and an async ``profile(profile, tokens)`` that maps the
    user-info response."""
    seen: Dict[str, Any] = {}

    async def profile(info: Dict[str, Any], tokens: Dict[str, Any]) -> Dict[str, Any]:
        await asyncio.sleep(0)
        seen["profile"], seen["tokens"] = info, tokens
        return {"id": info["sub"], "name": info["preferred_username"], "email": info["email"], "image": None}

    issuer, origin = oidc_op["issuer"], oidc_op["origin"]
    config = {
        "secret": SECRET,
        "basePath": "/auth",
        "providers": [
            libauth.OAuth(
                id="oidc",
                name="Plain OAuth",
                client_id="libauth-test",
                client_secret="libauth-test-secret",
                authorization={"url": f"{issuer}/auth", "params": {"scope": "openid profile email"}},
                token=f"{issuer}/token",
                userinfo=f"{issuer}/me",
                profile=profile,
            )
        ],
    }
    s: Server = serve(config, port=oidc_op["app_port"])
    br = Browser(s)
    res = br.post("/auth/signin/oidc", {"csrfToken": br.csrf(), "callbackUrl": "/home"})
    authorize = res.headers["location"]
    assert authorize.startswith(f"{issuer}/auth?")
    back = follow_until(authorize, origin)
    res = br.get(back[len(origin) :])
    assert res.status_code == 302 and res.headers["location"] == f"{origin}/home", res.headers.get("location")
    session = br.session()
    assert session["user"]["name"] == "testuser" and session["user"]["email"] == "test@example.com"
    assert seen["profile"]["sub"] == "user-123" and seen["tokens"]["access_token"]


# -- email --------------------------------------------------------------------------


def request_link(br: Browser, email: str, callback_url: str = "/inbox") -> requests.Response:
    return br.post("/auth/signin/email", {"csrfToken": br.csrf(), "email": email, "callbackUrl": callback_url})


def follow_link(s: Server, br: Browser, link: str, email: str) -> None:
    assert link.startswith(f"{s.url}/auth/callback/email?"), link
    res = br.get(link[len(s.url) :])
    assert res.status_code == 302 and res.headers["location"] == f"{s.url}/inbox"
    assert br.session()["user"]["email"] == email
    assert br.get("/me").json()["user"]["email"] == email
    other = Browser(s)
    res = other.get(link[len(s.url) :])
    assert res.headers["location"] == f"{s.url}/auth/error?error=Verification", "a link works once"
    assert other.session_cookie() is None


@pytest.mark.parametrize("hook", ["sync", "async"])
def test_email_sign_in_through_send_verification_request(serve: Any, hook: str) -> None:
    sent: List[Dict[str, Any]] = []

    def send(params: Dict[str, Any]) -> None:
        sent.append(params)

    async def send_async(params: Dict[str, Any]) -> None:
        await asyncio.sleep(0.001)
        sent.append(params)

    config = {
        "secret": SECRET,
        "basePath": "/auth",
        "adapter": {"type": "memory"},
        "providers": [libauth.Email(send_verification_request=send if hook == "sync" else send_async)],
    }
    s: Server = serve(config)
    br = Browser(s)
    res = request_link(br, "grace@example.com")
    assert res.headers["location"] == f"{s.url}/auth/verify-request?provider=email&type=email"
    (params,) = sent
    assert params["identifier"] == "grace@example.com"
    assert params["expires"] is not None and params["expires"].tzinfo is not None, "expires is a datetime"
    follow_link(s, br, params["url"], "grace@example.com")


@pytest.fixture
def smtp_sink() -> Iterator[Any]:
    proc = subprocess.Popen([sys.executable, str(SMTP_SINK)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdin is not None
    line = proc.stdout.readline()
    match = re.match(r"^READY (\d+)$", line.strip())
    assert match, f"the SMTP sink did not start (is aiosmtpd installed?): {line!r}"
    proc.port = int(match.group(1))  # type: ignore[attr-defined]
    try:
        yield proc
    finally:
        proc.stdin.close()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_email_sign_in_through_smtp(serve: Any, smtp_sink: Any) -> None:
    config = {
        "secret": SECRET,
        "basePath": "/auth",
        "adapter": {"type": "memory"},
        "providers": [
            libauth.Email(server={"host": "127.0.0.1", "port": smtp_sink.port}, from_="Example <no-reply@example.com>")
        ],
    }
    s: Server = serve(config)
    br = Browser(s)
    res = request_link(br, "grace@example.com")
    assert res.headers["location"] == f"{s.url}/auth/verify-request?provider=email&type=email"
    message = json.loads(smtp_sink.stdout.readline())
    assert message["rcpt_tos"] == ["grace@example.com"]
    assert message["from"] == "Example <no-reply@example.com>"
    assert message["subject"] == f"Sign in to {urlparse(s.url).netloc}"
    link = html.unescape(re.search(r'href="([^"]*)"', message["html"]).group(1))  # type: ignore[union-attr]
    assert link in message["text"].splitlines()
    follow_link(s, br, link, "grace@example.com")


def tiktok_database_config(sim: str, db: str) -> Dict[str, Any]:
    """TikTok against the simulator, users and database sessions in SQLite
    at ``db``, the session showing the user's id."""
    return {
        "secret": SECRET,
        "basePath": "/auth",
        "adapter": {"type": "sqlite", "path": db},
        "session": {"strategy": "database"},
        "providers": [
            libauth.TikTok(
                client_id="sim-client-key",
                client_secret="sim-client-secret",
                authorization={"url": f"{sim}/v2/auth/authorize/"},
                token=f"{sim}/v2/oauth/token/",
                userinfo=f"{sim}/v2/user/info/",
            )
        ],
        "callbacks": {
            "session": lambda *, session, user=None, **_: {**session, "user": {**session["user"], "id": user["id"]}}
        },
    }


def sign_in_with_tiktok(config: Dict[str, Any], tiktok_sim: Dict[str, Any]) -> str:
    """Sign in once with TikTok through a server of ``config``; the user's id."""
    s: Server = start_asgi(config, port=tiktok_sim["app_port"])
    try:
        origin = tiktok_sim["origin"]
        br = Browser(s)
        res = br.post("/auth/signin/tiktok", {"csrfToken": br.csrf()})
        back = follow_until(res.headers["location"], origin)
        assert br.get(back[len(origin) :]).status_code == 302
        return str(br.session()["user"]["id"])
    finally:
        s.stop()


def test_get_access_token_refreshes_once_and_types_a_revoked_token(tiktok_sim: Dict[str, Any], tmp_path: Any) -> None:
    """Database sessions: the stored TikTok account's token is refreshed once
    for 16 concurrent threads (TikTok rotates refresh tokens, so a second
    refresh would be refused); a refresh token spent elsewhere is
    ``RefreshTokenRevoked``."""
    import concurrent.futures
    import urllib.parse
    import urllib.request

    sim = tiktok_sim["url"]
    config = tiktok_database_config(sim, str(tmp_path / "auth.db"))
    user_id = sign_in_with_tiktok(config, tiktok_sim)

    auth = libauth.Auth(config)
    fresh = auth.get_access_token(user_id, "tiktok")
    assert fresh is not None and fresh["accessToken"].startswith("act.")
    assert auth.get_access_token("nobody", "tiktok") is None

    # A skew the stored token is inside and a new one is outside: due once.
    import time

    time.sleep(2)
    remaining = fresh["expiresAt"] - int(time.time())
    due = libauth.Auth({**config, "tokenRefresh": {"skew": remaining + 1}})
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        tokens = list(pool.map(lambda _: due.get_access_token(user_id, "tiktok"), range(16)))
    assert all(t is not None and t["accessToken"] == tokens[0]["accessToken"] for t in tokens), "one refresh, shared"  # type: ignore[index]
    assert tokens[0]["accessToken"] != fresh["accessToken"]  # type: ignore[index]
    assert due.get_access_token(user_id, "tiktok") == tokens[0], "fresh now: not refreshed again"

    # Spend the stored refresh token elsewhere, as a leaked copy would.
    import sqlite3

    with sqlite3.connect(str(tmp_path / "auth.db")) as db:
        (refresh,) = db.execute("SELECT refresh_token FROM accounts WHERE provider = 'tiktok'").fetchone()
    body = urllib.parse.urlencode(
        {
            "client_key": "sim-client-key",
            "client_secret": "sim-client-secret",
            "grant_type": "refresh_token",
            "refresh_token": refresh,
        }
    ).encode()
    with urllib.request.urlopen(urllib.request.Request(f"{sim}/v2/oauth/token/", data=body)) as spent:
        assert spent.status == 200
    always_due = libauth.Auth({**config, "tokenRefresh": {"skew": 10**9}})
    with pytest.raises(libauth.RefreshTokenRevoked):
        always_due.get_access_token(user_id, "tiktok")


def test_python_sqlite3_on_the_same_file_does_not_hide_a_refresh(tiktok_sim: Dict[str, Any], tmp_path: Any) -> None:
    """Issue 36: this process's own SQLite (the ``sqlite3`` module, as Django
    uses it) opening and closing the engine's database file used to delete
    the WAL under the engine's connection (POSIX locks do not conflict within
    one process), so the refreshed tokens were committed where no other
    process could read them, and another process then spent the rotated-out
    refresh token. After 50 concurrent calls, another process reads the new
    tokens at once, and its own calls (with a skew that makes them due
    again) make one more refresh, with no error."""
    import concurrent.futures
    import contextlib
    import sqlite3
    import urllib.request

    sim = tiktok_sim["url"]
    db = str(tmp_path / "auth.db")

    def sim_config(patch: Dict[str, Any]) -> None:
        req = urllib.request.Request(
            f"{sim}/__sim/config", data=json.dumps(patch).encode(), headers={"content-type": "application/json"}
        )
        urllib.request.urlopen(req).read()

    sim_config({"access_ttl_secs": 30})  # due at once (the skew is 60 s)
    config = {**tiktok_database_config(sim, db), "rateLimit": {"store": {"type": "database"}}}
    user_id = sign_in_with_tiktok(config, tiktok_sim)

    def python_reads() -> None:
        with contextlib.closing(sqlite3.connect(db)) as conn:
            conn.execute("SELECT count(*) FROM accounts").fetchall()

    read_elsewhere = "import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute(sys.argv[2]).fetchone()[0])"

    def stored_access_token() -> str:
        sql = "SELECT access_token FROM accounts WHERE provider = 'tiktok'"
        return subprocess.run(
            [sys.executable, "-c", read_elsewhere, db, sql], capture_output=True, text=True, check=True
        ).stdout.strip()

    auth = libauth.Auth(config)
    python_reads()
    sim_config({"access_ttl_secs": 90})  # fresh here (60 s skew), due below (120 s)
    with concurrent.futures.ThreadPoolExecutor(50) as pool:
        first = list(pool.map(lambda _: auth.get_access_token(user_id, "tiktok"), range(50)))
    assert all(t is not None and t["accessToken"] == first[0]["accessToken"] for t in first)  # type: ignore[index]
    python_reads()
    assert stored_access_token() == first[0]["accessToken"], "the refresh, seen by another process"  # type: ignore[index]

    # Another process, while this engine lives, finds the token due again.
    sim_config({"access_ttl_secs": 3600})
    other = f"""
import concurrent.futures, json, sys
import libauth
config = json.loads(sys.argv[1])
config["providers"] = [libauth.TikTok(**config["providers"][0])]
auth = libauth.Auth(config)
with concurrent.futures.ThreadPoolExecutor(20) as pool:
    tokens = list(pool.map(lambda _: auth.get_access_token({user_id!r}, "tiktok")["accessToken"], range(20)))
print(json.dumps(tokens))
"""
    plain = {k: v for k, v in config.items() if k not in ("providers", "callbacks")}
    plain["tokenRefresh"] = {"skew": 120}
    plain["providers"] = [
        {
            "client_id": "sim-client-key",
            "client_secret": "sim-client-secret",
            "authorization": {"url": f"{sim}/v2/auth/authorize/"},
            "token": f"{sim}/v2/oauth/token/",
            "userinfo": f"{sim}/v2/user/info/",
        }
    ]
    done = subprocess.run([sys.executable, "-c", other, json.dumps(plain)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    second = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(set(second)) == 1 and second[0] != first[0]["accessToken"], second  # type: ignore[index]
    state = requests.get(f"{sim}/__sim/state", timeout=5).json()
    assert state["refresh_tokens"] == 3, "one refresh request per spent refresh token"
    assert stored_access_token() == second[0]
