"""Email + password accounts from Python: the whole flow over real HTTP
(waitress and uvicorn) with mail through a real SMTP server, the server-side
steps (``Auth.password_action``) with their error classes, and the hooks
(``send_email``, ``check_password``) as Python functions."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.parse
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

import libauth
from conftest import Browser

SINK = Path(__file__).resolve().parents[3] / "core" / "tests" / "support" / "smtp_sink.py"
SECRET = "libauth-python-password-test-secret-0123456789"


class Sink:
    """The SMTP sink (aiosmtpd) as a subprocess: each received message is one JSON line."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(SINK)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self.proc.stdout is not None
        ready = self.proc.stdout.readline()
        assert ready.startswith("READY "), ready
        self.port = int(ready.split()[1])

    def next_message(self) -> Dict[str, Any]:
        assert self.proc.stdout is not None
        return json.loads(self.proc.stdout.readline())  # type: ignore[no-any-return]

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()


@pytest.fixture
def sink() -> Iterator[Sink]:
    s = Sink()
    yield s
    s.close()


def link_in(message: Dict[str, Any]) -> str:
    """The link in a message's text part (`<label>: <url>`)."""
    for line in message["text"].splitlines():
        if ": http" in line:
            return line.split(": ", 1)[1].strip()
    raise AssertionError(f"no link in {message['text']!r}")


def password_config(port: int, **extra: Any) -> Dict[str, Any]:
    provider = libauth.Password(
        server={"host": "127.0.0.1", "port": port},
        from_="Example <no-reply@example.com>",
        argon2={"memory_kib": 64, "iterations": 1},
        **extra,
    )
    return {
        "secret": SECRET,
        "trustHost": True,
        "basePath": "/auth",
        "providers": [provider],
        "adapter": {"type": "memory"},
        "session": {"strategy": "database"},
    }


def path_of(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.path}?{parts.query}"


def test_sign_up_verify_sign_in_reset_over_http_and_smtp(serve: Any, sink: Sink) -> None:
    s = serve(password_config(sink.port))
    br = Browser(s)
    res = br.post(
        "/auth/password/signup",
        {"email": "ada@example.com", "password": "correct horse", "csrfToken": br.csrf()},
    )
    assert res.status_code == 302 and "type=password" in res.headers["location"]
    mail = sink.next_message()
    assert mail["rcpt_tos"] == ["ada@example.com"]
    assert "Confirm your email address" in mail["subject"]
    res = br.get(path_of(link_in(mail)))
    assert res.status_code == 302 and "error" not in res.headers["location"]
    assert br.session()["user"]["email"] == "ada@example.com"

    # A wrong password, then a reset by mail, in a fresh browser.
    other = Browser(s)
    res = other.post(
        "/auth/callback/password",
        {"email": "ada@example.com", "password": "nope nope", "csrfToken": other.csrf()},
    )
    assert "error=CredentialsSignin" in res.headers["location"]
    other.post("/auth/password/forgot", {"email": "ADA@example.com", "csrfToken": other.csrf()})
    link = link_in(sink.next_message())
    page = other.get(path_of(link))
    assert page.status_code == 200 and 'name="token"' in page.text
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(link).query))
    res = other.post(
        "/auth/password/reset",
        {"token": query["token"], "email": query["email"], "password": "a new password", "csrfToken": other.csrf()},
    )
    assert res.status_code == 302 and "error" not in res.headers["location"]
    assert other.session()["user"]["email"] == "ada@example.com"
    assert br.session() is None, "the reset ended the first browser's session"


def test_server_side_steps_raise_the_error_classes(sink: Sink) -> None:
    auth = libauth.Auth(password_config(sink.port))
    url = "http://localhost:3000/account/signup"
    with pytest.raises(libauth.PasswordRefused) as refused:
        auth.password_action("signUp", url, [], {"email": "ada@example.com", "password": "short"})
    assert "at least 8" in str(refused.value)
    with pytest.raises(libauth.InvalidEmail):
        auth.password_action("signUp", url, [], {"email": "ada", "password": "long enough"})
    done = auth.password_action("signUp", url, [], {"email": "ada@example.com", "password": "long enough"})
    assert isinstance(done, libauth.ActionResult) and "/auth/verify-request" in done.url
    assert sink.next_message()["rcpt_tos"] == ["ada@example.com"]
    with pytest.raises(libauth.MissingCSRF):
        auth.password_action(
            "requestPasswordReset", url, [("sec-fetch-site", "cross-site")], {"email": "ada@example.com"}
        )


def test_hooks_are_python_functions(serve: Any) -> None:
    sent: List[Dict[str, Any]] = []

    async def send_email(params: Dict[str, Any]) -> None:
        sent.append(params)

    def check_password(params: Dict[str, Any]) -> Optional[str]:
        return "That one is on a breach list." if params["password"] == "password123" else None

    config = password_config(0, send_email=send_email, check_password=check_password)
    del config["providers"][0]["server"]
    s = serve(config)
    br = Browser(s)
    res = br.post(
        "/auth/password/signup",
        {"email": "bob@example.com", "password": "password123", "csrfToken": br.csrf()},
    )
    assert res.status_code == 400 and "That one is on a breach list." in res.text
    assert not sent
    br.post("/auth/password/signup", {"email": "bob@example.com", "password": "fine password", "csrfToken": br.csrf()})
    assert [(m["kind"], m["to"], m["locale"]) for m in sent] == [("verify-email", "bob@example.com", "en")]
    assert sent[0]["url"].startswith(f"{s.url}/auth/password/verify?token=")


def test_sign_in_from_server_code(sink: Sink) -> None:
    auth = libauth.Auth(password_config(sink.port, require_email_verification=False))
    url = "http://localhost:3000/login"
    auth.password_action("signUp", url, [], {"email": "cy@example.com", "password": "long enough"})
    with pytest.raises(libauth.CredentialsSignin) as wrong:
        auth.sign_in("password", url, [], {"email": "cy@example.com", "password": "not it at all"})
    assert wrong.value.code == "credentials"
    done = auth.sign_in("password", url, [], {"email": "cy@example.com", "password": "long enough"})
    assert any(c.startswith("authjs.session-token=") for c in done.cookies)
