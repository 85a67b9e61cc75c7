"""The examples (examples/flask, examples/fastapi, examples/django), each
started as its README says on a free port, driven over HTTP: credentials
and TikTok (the simulator) sign-in, the session page, the protected page
that redirects without a session; the FastAPI one also in headless
Chromium."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, Iterator, List
from urllib.parse import parse_qs, urlparse

import pytest
import requests

from conftest import free_port, wait_for
from test_providers import TIKTOK_SIM, follow_until

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
EXAMPLES = ROOT / "examples"
SECRET = "example-test-secret-0123456789abcdefghij"

COMMANDS: Dict[str, List[str]] = {
    "flask": [sys.executable, "app.py"],
    "fastapi": [sys.executable, "app.py"],
    "django": [sys.executable, "manage.py", "runserver", "127.0.0.1:{port}", "--noreload"],
    "django-asgi": [
        sys.executable,
        "-m",
        "uvicorn",
        "demo.asgi:application",
        "--host",
        "127.0.0.1",
        "--port",
        "{port}",
        "--log-level",
        "warning",
    ],
}
#: The directory each runs in (django-asgi: the Django example under uvicorn).
DIRS = {"django-asgi": "django"}


class Example:
    def __init__(self, name: str, origin: str, proc: "subprocess.Popen[str]") -> None:
        self.name = name
        self.origin = origin
        self.proc = proc


@pytest.fixture
def example(request: Any, tmp_path: Path) -> Iterator[Example]:
    name = request.param
    assert TIKTOK_SIM.exists(), "target/debug/tiktok-sim is not built (cargo build -p tiktok-sim)"
    port, sim_port = free_port(), free_port()
    origin = f"http://127.0.0.1:{port}"
    sim = subprocess.Popen(
        [str(TIKTOK_SIM), "--quiet", "--port", str(sim_port), "--redirect-uri", f"{origin}/auth/callback/tiktok"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
    )
    env = {
        **os.environ,
        "PORT": str(port),
        "AUTH_SECRET": SECRET,
        "TIKTOK_SIM_URL": f"http://127.0.0.1:{sim_port}",
        "PYTHONUNBUFFERED": "1",
        # The FastAPI example keeps users and passkeys in SQLite: a throwaway file.
        "AUTH_DB": str(tmp_path / "auth.db"),
    }
    env.pop("AUTH_TIKTOK_ID", None)
    env.pop("AUTH_TRUST_HOST", None)  # the example's own trustHost must do
    command = [part.format(port=port) for part in COMMANDS[name]]
    proc = subprocess.Popen(
        command,
        cwd=EXAMPLES / DIRS.get(name, name),
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        wait_for(sim_port)
        try:
            wait_for(port)
        except RuntimeError:
            proc.kill()
            raise AssertionError(f"{name} example did not start:\n{proc.communicate()[0]}") from None
        yield Example(name, origin, proc)
    finally:
        for p in (proc, sim):
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


ALL = pytest.mark.parametrize("example", ["flask", "fastapi", "django", "django-asgi"], indirect=True)


def get(http: requests.Session, url: str) -> requests.Response:
    return http.get(url, allow_redirects=False, timeout=30)


def csrf(http: requests.Session, origin: str) -> str:
    return str(get(http, f"{origin}/auth/csrf").json()["csrfToken"])


def assert_protected(http: requests.Session, origin: str) -> None:
    res = get(http, f"{origin}/dashboard")
    assert res.status_code in (302, 303, 307), res.status_code
    location = res.headers["location"]
    assert urlparse(location).path == "/auth/signin", location
    query = parse_qs(urlparse(location).query)
    # Django's @login_required sends ?next=, which libauth.django reads as callbackUrl.
    assert query.get("callbackUrl", query.get("next")) == ["/dashboard"], location
    if "next" in query:
        page = get(http, f"{origin}{location}").text
        assert f'name="callbackUrl" value="{origin}/dashboard"' in page, page
    assert "Not signed in." in get(http, f"{origin}/").text


@ALL
def test_example_credentials_sign_in(example: Example) -> None:
    origin = example.origin
    http = requests.Session()
    assert_protected(http, origin)
    assert "Sign in with Credentials" in get(http, f"{origin}/auth/signin").text
    res = http.post(
        f"{origin}/auth/callback/credentials",
        allow_redirects=False,
        timeout=30,
        data={"csrfToken": csrf(http, origin), "username": "demo", "password": "nope"},
    )
    assert "error=CredentialsSignin" in res.headers["location"]
    res = http.post(
        f"{origin}/auth/callback/credentials",
        allow_redirects=False,
        timeout=30,
        data={"csrfToken": csrf(http, origin), "username": "demo", "password": "demo", "callbackUrl": "/dashboard"},
    )
    assert res.status_code == 302 and res.headers["location"] == f"{origin}/dashboard"
    page = get(http, f"{origin}/dashboard")
    assert page.status_code == 200
    assert '<p id="secret">Hello Demo User, this page is protected.</p>' in page.text
    assert "Signed in as Demo User (demo@example.com)" in get(http, f"{origin}/").text
    assert get(http, f"{origin}/auth/session").json()["user"]["name"] == "Demo User"
    if example.name == "fastapi":  # the require_session dependency on a JSON route
        assert get(http, f"{origin}/api/me").json()["user"]["email"] == "demo@example.com"
        assert get(requests.Session(), f"{origin}/api/me").status_code == 303
        res = requests.get(f"{origin}/api/me", headers={"Accept": "application/json"}, timeout=30)
        assert res.status_code == 401, res.status_code
    if example.name.startswith("django"):  # an async view reading the session
        assert get(http, f"{origin}/api/me").json()["session"]["user"]["email"] == "demo@example.com"
    res = http.post(f"{origin}/auth/signout", data={"csrfToken": csrf(http, origin)}, allow_redirects=False, timeout=30)
    assert res.status_code == 302
    assert_protected(http, origin)


@ALL
def test_example_tiktok_sign_in(example: Example) -> None:
    origin = example.origin
    http = requests.Session()
    res = http.post(
        f"{origin}/auth/signin/tiktok",
        allow_redirects=False,
        timeout=30,
        data={"csrfToken": csrf(http, origin), "callbackUrl": "/dashboard"},
    )
    assert res.status_code == 302
    back = follow_until(res.headers["location"], origin)
    res = get(http, back)
    assert res.status_code == 302 and res.headers["location"] == f"{origin}/dashboard"
    page = get(http, f"{origin}/dashboard")
    assert re.search(r'<p id="secret">Hello [^<]+, this page is protected\.</p>', page.text), page.text
    name = get(http, f"{origin}/auth/session").json()["user"]["name"]
    assert name and f"Signed in as {name}" in get(http, f"{origin}/").text


@pytest.mark.parametrize("example", ["fastapi", "django"], indirect=True)
def test_example_in_headless_chromium(example: Example) -> None:
    """FastAPI's ``require_session`` and Django's own ``@login_required``
    (LOGIN_URL at libauth's sign-in page) in a real browser."""
    assert Path("/usr/bin/chromium").exists(), "Debian chromium is not installed (scripts/test.sh installs it)"
    assert (ROOT / "bindings" / "node" / "node_modules" / "playwright-core").exists(), (
        "playwright-core is not installed (npm ci in bindings/node; scripts/test.sh does)"
    )
    out = subprocess.run(
        ["node", str(HERE / "browser_example.mjs"), example.origin], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stdout + out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    # FastAPI names the way back `callbackUrl`, Django `next` (read as one).
    assert re.match(rf"{re.escape(example.origin)}/auth/signin\?(callbackUrl|next)=", seen["redirectedTo"]), seen
    assert seen["credentialsSecret"] == "Hello Demo User, this page is protected."
    assert seen["who"] == "Signed in as Demo User (demo@example.com)"
    assert seen["afterSignOut"] == "Not signed in."
    assert re.fullmatch(r"Hello .+, this page is protected\.", seen["tiktokSecret"]), seen
