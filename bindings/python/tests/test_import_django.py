"""Moving in from Django without signing anyone out: a real Django
(``migrate``, ``createsuperuser``, a user signed in with Django's test
``Client``, all in SQLite) is copied by ``libauth import django`` (the
console script pip installs) into libauth's SQLite database; libauth's
engine, its session cookie named ``sessionid``, then reads the same
browser's cookie as the same user, whose id is Django's; and, once each
imported user is linked as docs/cli.md says, libauth's Django middleware
makes ``request.user`` that very Django user. A second import changes
nothing."""

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

# The Django app after the switch: libauth.django's middleware, the session
# cookie named as Django named it; the link step of docs/cli.md, run before
# the app answers anyone; then a request with the browser's old cookie,
# answered with request.user.
AFTER_THE_SWITCH = (
    """
import sys
import django
from django.conf import settings
from django.http import HttpResponse
from django.urls import path

db, auth_db, cookie = sys.argv[1:4]


def whoami(request):
    return HttpResponse(str(request.user.pk) if request.user.is_authenticated else "anonymous")


urlpatterns = [path("whoami", whoami)]
settings.configure(
    SECRET_KEY="unused",
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": db}},
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "django.contrib.sessions", "libauth.django"],
    MIDDLEWARE=["libauth.django.middleware.AuthenticationMiddleware"],
    ROOT_URLCONF=__name__,
    ALLOWED_HOSTS=["testserver"],
    USE_TZ=True,
    LIBAUTH={
        "secret": "%s",
        "adapter": {"type": "sqlite", "path": auth_db},
        "session": {"strategy": "database"},
        "cookies": {"sessionToken": {"name": "sessionid"}},
    },
)
django.setup()
from django.core.management import call_command
from django.test import Client

call_command("migrate", verbosity=0)

# docs/cli.md: before the app answers anyone, link each imported user to the
# Django user of the same id.
from django.contrib.auth import get_user_model
from libauth.django.models import UserLink

for pk in get_user_model().objects.filter(is_active=True).values_list("pk", flat=True):
    UserLink.objects.get_or_create(subject=str(pk), defaults={"user_pk": str(pk)})

client = Client()
client.cookies["sessionid"] = cookie
print(client.get("/whoami").content.decode())
"""
    % SECRET
)


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


def test_libauth_django_maps_the_imported_session_to_the_same_django_user_once_linked(tmp_path: Path) -> None:
    made = json.loads(
        subprocess.run(
            [sys.executable, str(SOURCE), str(tmp_path / "django.sqlite3"), KEY],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
    )
    run("import", "django", "--from", "django.sqlite3", "--to", "sqlite:auth.db", "--json", cwd=tmp_path)
    users_before = _user_count(tmp_path / "django.sqlite3")
    done = subprocess.run(
        [sys.executable, "-c", AFTER_THE_SWITCH, "django.sqlite3", "auth.db", made["superuser"]["cookie"]],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    # request.user is Ada herself, not a new Django user made for the session.
    assert done.stdout.strip() == made["superuser"]["id"]
    assert _user_count(tmp_path / "django.sqlite3") == users_before


def _user_count(db: Path) -> int:
    import sqlite3

    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM auth_user").fetchone()[0])
