"""libauth.django over real HTTP: a Django project (tests/django_site:
django.contrib.auth users in SQLite, Django's CSRF middleware) under
waitress (WSGI, the routes through ``include("libauth.django.urls")``),
uvicorn (ASGI, the async view and middleware), gunicorn (WSGI, the routes
in front of Django by ``libauth.django.get_wsgi_application()``) and
hypercorn (ASGI, ``get_asgi_application()``):
``@login_required`` and ``LoginRequiredMixin`` redirect to the sign-in page,
sign-in, the page shows the Django user (created once, then found), a host
not in ALLOWED_HOSTS gets 400, HEAD has no body, sign-out."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Tuple
from urllib.parse import parse_qs, urlparse

import pytest
import requests

from conftest import server_process
from test_servers import Reader, request

HERE = Path(__file__).parent
BIN = Path(sys.executable).parent

MODES: Dict[str, Tuple[List[str], Dict[str, str]]] = {
    "wsgi-urls-waitress": (
        [str(BIN / "waitress-serve"), "--listen=127.0.0.1:{port}", "django_site.wsgi:application"],
        {},
    ),
    "asgi-urls-uvicorn": (
        [
            str(BIN / "uvicorn"),
            "--host",
            "127.0.0.1",
            "--port",
            "{port}",
            "--log-level",
            "warning",
            "django_site.asgi:application",
        ],
        {"LIBAUTH_ASYNC": "1"},
    ),
    "wsgi-wrapper-gunicorn": (
        [
            str(BIN / "gunicorn"),
            "-k",
            "gthread",
            "--threads",
            "4",
            "-w",
            "1",
            "-b",
            "127.0.0.1:{port}",
            "django_site.wsgi:wrapped",
        ],
        {},
    ),
    "asgi-wrapper-hypercorn": ([str(BIN / "hypercorn"), "-b", "127.0.0.1:{port}", "django_site.asgi:wrapped"], {}),
}
#: The same site without django.contrib.auth (no database): SessionUser.
LIGHT: Dict[str, Tuple[List[str], Dict[str, str]]] = {
    "light-wsgi-waitress": (MODES["wsgi-urls-waitress"][0], {"DJANGO_SITE_LIGHT": "1"}),
    "light-asgi-uvicorn": (MODES["asgi-urls-uvicorn"][0], {"DJANGO_SITE_LIGHT": "1", "LIBAUTH_ASYNC": "1"}),
}


class Site:
    def __init__(self, url: str, port: int) -> None:
        self.url = url
        self.port = port


@pytest.fixture(params=sorted(MODES))
def site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    yield from _site(*MODES[request.param], tmp_path)


@pytest.fixture(params=sorted(LIGHT))
def light_site(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    yield from _site(*LIGHT[request.param], tmp_path)


def _site(command: List[str], extra: Dict[str, str], tmp_path: Path, prepare: str = "") -> Iterator[Site]:
    env = {
        **os.environ,
        "PYTHONPATH": str(HERE),
        "DJANGO_SETTINGS_MODULE": "django_site.settings",
        "DJANGO_TEST_DB": str(tmp_path / "db.sqlite3"),
        "PYTHONUNBUFFERED": "1",
        **extra,
    }
    env.pop("AUTH_URL", None)
    if "DJANGO_SITE_LIGHT" not in extra:
        subprocess.run([sys.executable, "-m", "django", "migrate", "-v", "0"], cwd=HERE, env=env, check=True)
    if prepare:  # Python run against the migrated database before the server starts
        subprocess.run([sys.executable, "-m", "django", "shell", "-c", prepare], cwd=HERE, env=env, check=True)
    with server_process(command, cwd=HERE, env=env, probe="/auth/csrf") as port:
        yield Site(f"http://127.0.0.1:{port}", port)


def get(http: requests.Session, url: str, **kw: object) -> requests.Response:
    return http.get(url, allow_redirects=False, timeout=30, **kw)  # type: ignore[arg-type]


def assert_to_sign_in(res: requests.Response, path: str) -> str:
    assert res.status_code == 302, (res.status_code, res.text[:300])
    location = res.headers["location"]
    assert urlparse(location).path == "/auth/signin", location
    assert parse_qs(urlparse(location).query)["next"] == [path], location
    return location


def test_login_required_sign_in_and_the_django_user(site: Site) -> None:
    http = requests.Session()
    origin = site.url
    location = assert_to_sign_in(get(http, f"{origin}/dashboard"), "/dashboard")
    assert_to_sign_in(get(http, f"{origin}/cbv"), "/cbv")
    assert get(http, f"{origin}/whoami").json() == {"authenticated": False, "username": "", "pk": None, "session": None}
    # The sign-in page reads Django's ?next= as callbackUrl.
    page = get(http, origin + location)
    assert page.status_code == 200 and f'name="callbackUrl" value="{origin}/dashboard"' in page.text
    # Sign in (a POST through Django's CsrfViewMiddleware: the engine checks its own token).
    token = get(http, f"{origin}/auth/csrf").json()["csrfToken"]
    res = http.post(
        f"{origin}/auth/callback/credentials",
        allow_redirects=False,
        timeout=30,
        data={"csrfToken": token, "username": "ada", "password": "lovelace", "callbackUrl": f"{origin}/dashboard"},
    )
    assert res.status_code == 302 and res.headers["location"] == f"{origin}/dashboard", (res.status_code, res.text)
    cookies = res.headers.get("set-cookie", "")
    assert "authjs.session-token=" in cookies and "HttpOnly" in cookies and "SameSite=Lax" in cookies, cookies
    page = get(http, f"{origin}/dashboard")
    assert page.status_code == 200, page.text
    # A new Django user, named after the libauth identity (never after an
    # address nobody proved), with the session's address as its email.
    assert '<p id="who">Hello Ada Lovelace (libauth-' in page.text and ", #1)</p>" in page.text, page.text
    assert '<p id="session">ada@example.com</p>' in page.text
    assert get(http, f"{origin}/cbv").text == "cbv ada@example.com"
    me = get(http, f"{origin}/whoami").json()
    assert me["authenticated"] is True and me["username"].startswith("libauth-") and me["pk"] == 1
    assert me["session"]["user"]["name"] == "Ada Lovelace"
    assert get(http, f"{origin}/whoami").json()["pk"] == 1  # found, not created again
    # Sign out.
    token = get(http, f"{origin}/auth/csrf").json()["csrfToken"]
    res = http.post(f"{origin}/auth/signout", data={"csrfToken": token}, allow_redirects=False, timeout=30)
    assert res.status_code == 302
    assert_to_sign_in(get(http, f"{origin}/dashboard"), "/dashboard")


def test_only_allowed_hosts_reach_the_engine(site: Site) -> None:
    for path in ("/auth/providers", "/auth/signin", "/auth/session"):
        res = requests.get(f"{site.url}{path}", headers={"Host": "evil.example"}, allow_redirects=False, timeout=30)
        assert res.status_code == 400, (path, res.status_code, res.text[:200])
    assert requests.get(f"{site.url}/auth/providers", timeout=30).status_code == 200


def test_head_has_no_body_and_keeps_the_connection(site: Site) -> None:
    port = site.port
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        reader = Reader(sock)
        sock.sendall(request("/auth/providers", port, "HEAD"))
        status, headers, _ = reader.response(head=True)
        assert status in (200, 400), status
        sock.sendall(request("/auth/providers", port))
        status, _, body = reader.response()
        assert status == 200 and b"credentials" in body, (status, body)


def test_without_contrib_auth_the_session_user(light_site: Site) -> None:
    http = requests.Session()
    origin = light_site.url
    for path in ("/dashboard", "/api"):
        res = get(http, f"{origin}{path}")
        assert res.status_code == 302, res.status_code
        location = res.headers["location"]
        assert urlparse(location).path == "/auth/signin" and parse_qs(urlparse(location).query)["callbackUrl"] == [path]
    token = get(http, f"{origin}/auth/csrf").json()["csrfToken"]
    res = http.post(
        f"{origin}/auth/callback/credentials",
        allow_redirects=False,
        timeout=30,
        data={"csrfToken": token, "username": "ada", "password": "lovelace", "callbackUrl": "/dashboard"},
    )
    assert res.status_code == 302 and res.headers["location"] == f"{origin}/dashboard"
    assert '<p id="who">Hello Ada Lovelace (ada@example.com)</p>' in get(http, f"{origin}/dashboard").text
    assert get(http, f"{origin}/api").json() == {
        "type": "SessionUser",
        "username": "ada@example.com",
        "email": "ada@example.com",
    }


# -- D1: a session is only ever the Django user libauth created or linked for it

#: Users that exist before libauth: the superuser `admin`, a staff member
#: whose username is her address, and one more user with that address's
#: domain. Their primary keys are 1, 2 and 3.
EXISTING_USERS = """
from django.contrib.auth.models import User
User.objects.create_superuser("admin", "admin@example.com", "pw-admin")
User.objects.create_user("alice@example.com", "alice@example.com", "pw-alice", is_staff=True)
User.objects.create_user("bob", "bob@example.com", "pw-bob")
"""
EXISTING = {1: "admin", 2: "alice@example.com", 3: "bob"}

#: What an attacker types as the address and the id of a sign-up nobody
#: proves: each names an existing user one way or another.
ATTACKS = [
    ("admin", "1"),
    ("admin@example.com", "admin"),
    ("alice@example.com", "2"),
    (" ALICE@Example.com", "alice@example.com"),
    ("bob@example.com", "bob"),
    ("bob", "3"),
]


def sign_in(http: requests.Session, origin: str, **fields: str) -> None:
    token = get(http, f"{origin}/auth/csrf").json()["csrfToken"]
    res = http.post(
        f"{origin}/auth/callback/credentials",
        allow_redirects=False,
        timeout=30,
        data={"csrfToken": token, "callbackUrl": f"{origin}/whoami", **fields},
    )
    assert res.status_code == 302 and "error" not in res.headers["location"], (res.status_code, res.headers)


@pytest.fixture(params=["wsgi-urls-waitress", "asgi-urls-uvicorn"])
def site_with_users(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    command, extra = MODES[request.param]
    yield from _site(command, extra, tmp_path, prepare=EXISTING_USERS)


@pytest.fixture(params=["wsgi-urls-waitress", "asgi-urls-uvicorn"])
def site_matching_verified(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Site]:
    command, extra = MODES[request.param]
    yield from _site(command, {**extra, "LIBAUTH_MATCH_VERIFIED_EMAIL": "1"}, tmp_path, prepare=EXISTING_USERS)


def test_an_unproven_address_or_id_never_becomes_an_existing_user(site_with_users: Site) -> None:
    origin = site_with_users.url
    seen = set()
    for email, user_id in ATTACKS:
        http = requests.Session()
        sign_in(http, origin, username="mallory", password="x", email=email, id=user_id)
        me = get(http, f"{origin}/whoami").json()
        assert me["authenticated"] is True, (email, me)
        assert me["pk"] not in EXISTING and me["username"] not in EXISTING.values(), (email, user_id, me)
        seen.add(me["pk"])
        # The same libauth user comes back to the same Django user.
        assert get(http, f"{origin}/whoami").json()["pk"] == me["pk"]
    # Each libauth identity its own Django user (the id differs per attack).
    assert len(seen) == len({user_id for _, user_id in ATTACKS})


def test_a_proven_address_matches_only_when_the_site_says_so(site_with_users: Site) -> None:
    http = requests.Session()
    sign_in(http, site_with_users.url, username="owner", password="proven", email="alice@example.com")
    me = get(http, f"{site_with_users.url}/whoami").json()
    assert me["authenticated"] is True and me["pk"] not in EXISTING, me


def test_matching_by_verified_email_takes_only_proven_addresses(site_matching_verified: Site) -> None:
    origin = site_matching_verified.url
    for email, user_id in ATTACKS:
        http = requests.Session()
        sign_in(http, origin, username="mallory", password="x", email=email, id=user_id)
        me = get(http, f"{origin}/whoami").json()
        assert me["pk"] not in EXISTING, (email, me)
    # The owner of alice@example.com, proven, is Alice (whatever the case).
    http = requests.Session()
    sign_in(http, origin, username="owner", password="proven", email="Alice@Example.com")
    assert get(http, f"{origin}/whoami").json()["pk"] == 2
    # A forged cookie is no session at all.
    http = requests.Session()
    http.cookies.set("authjs.session-token", "eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2Q0JDLUhTNTEyIn0..x.y.z")
    assert get(http, f"{origin}/whoami").json()["authenticated"] is False
