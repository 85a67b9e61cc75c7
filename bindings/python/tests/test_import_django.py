"""Moving in from Django without signing anyone out: a real Django
(``migrate``, ``createsuperuser``, a user signed in with Django's test
``Client``, all in SQLite) is copied by ``libauth import django`` (the
console script pip installs) into libauth's SQLite database; libauth's
engine, its session cookie named ``sessionid``, then reads the same
browser's cookie as the same user, whose id is Django's. A second import
changes nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import libauth

SCRIPT = Path(sys.executable).parent / "libauth"
SOURCE = Path(__file__).resolve().parents[3] / "cli" / "tests" / "import" / "django_source.py"
SECRET = "libauth-python-test-secret-0123456789abcdef"
KEY = "django-insecure-python-test-key"


def run(*args: str, cwd: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AUTH_", "DJANGO_"))}
    done = subprocess.run([str(SCRIPT), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_a_django_user_signed_in_stays_signed_in_under_libauth(tmp_path: Path) -> None:
    made = json.loads(
        subprocess.run(
            [sys.executable, str(SOURCE), str(tmp_path / "django.sqlite3"), KEY],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
    )
    args = ["import", "django", "--from", "django.sqlite3", "--to", "sqlite:auth.db", "--json"]
    report = run(*args, "--django-secret-key", KEY, cwd=tmp_path)
    counts = report["counts"]
    assert counts["sessions"]["written"] == 2, report
    assert counts["sessions"]["skipped"] == 1, "the anonymous session"
    assert any("inactive" in line for line in report["skipped"])
    assert made["superuser"]["cookie"] not in json.dumps(report)

    auth = libauth.Auth(
        {
            "secret": SECRET,
            "url": "http://localhost:3000",
            "adapter": {"type": "sqlite", "path": str(tmp_path / "auth.db")},
            "session": {"strategy": "database"},
            "cookies": {"sessionToken": {"name": "sessionid"}},
        }
    )
    url = "http://localhost:3000/"
    session = auth.get_session_with_identity(url, f"csrftoken=x; sessionid={made['superuser']['cookie']}")
    assert session is not None and session.identity is not None
    assert session.identity.subject == made["superuser"]["id"], "Django's id"
    assert session["user"]["email"] == "ada@example.com"
    assert session.identity.email_verified is False, "Django never proved the address"
    bob = made["users"]["bob"]
    session = auth.get_session_with_identity(url, f"sessionid={bob['cookie']}")
    assert session is not None and session.identity is not None
    assert session.identity.subject == bob["id"]
    assert auth.get_session(url, f"sessionid={made['anonymous']}") is None

    again = run(*args, cwd=tmp_path)
    assert all(c["written"] == 0 for c in again["counts"].values()), again
    assert again["counts"]["sessions"]["present"] == 2
