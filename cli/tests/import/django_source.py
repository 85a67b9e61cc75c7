"""A real Django 4.2 database for `libauth import django`'s tests.

Usage: python django_source.py DB_PATH SECRET_KEY

Runs Django's own `migrate` on a SQLite file, `createsuperuser --noinput`
(DJANGO_SUPERUSER_PASSWORD), adds users with each kind of password Django
writes, signs users in with Django's test Client (real sessions in
`django_session`, the `sessionid` cookie), and prints JSON: the cookies, the
passwords and the ids.
"""

import json
import os
import sys

import django
from django.conf import settings

db_path, secret_key = sys.argv[1], sys.argv[2]
hashers = ["django.contrib.auth.hashers.PBKDF2PasswordHasher"]
for name, module in [("Argon2PasswordHasher", "argon2"), ("BCryptPasswordHasher", "bcrypt")]:
    try:
        __import__(module)
        hashers.append(f"django.contrib.auth.hashers.{name}")
    except ImportError:
        pass
hashers += [
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.MD5PasswordHasher",
]
settings.configure(
    SECRET_KEY=secret_key,
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": db_path}},
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "django.contrib.sessions"],
    MIDDLEWARE=[],
    ROOT_URLCONF=__name__,
    USE_TZ=True,
    PASSWORD_HASHERS=hashers,
    ALLOWED_HOSTS=["testserver"],
)
urlpatterns: list = []
django.setup()

from django.contrib.auth.hashers import make_password  # noqa: E402
from django.contrib.auth.models import User  # noqa: E402
from django.contrib.sessions.backends.db import SessionStore  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test import Client  # noqa: E402

call_command("migrate", verbosity=0)
os.environ["DJANGO_SUPERUSER_PASSWORD"] = "correct horse battery staple"
call_command("createsuperuser", interactive=False, username="ada", email="ada@example.com", verbosity=0)
admin = User.objects.get(username="ada")
admin.first_name, admin.last_name = "Ada", "Lovelace"
admin.save()

out = {"superuser": {"id": str(admin.pk), "password": "correct horse battery staple"}, "users": {}}


def user(username: str, email: str, password: str, hasher: str, active: bool = True) -> User:
    u = User.objects.create(username=username, email=email, is_active=active)
    u.password = make_password(password, hasher=hasher) if password else make_password(None)
    u.save()
    out["users"][username] = {"id": str(u.pk), "password": password, "stored": u.password}
    return u


user("bob", "", "bob's pbkdf2 pw", "pbkdf2_sha256")
if "django.contrib.auth.hashers.Argon2PasswordHasher" in hashers:
    user("carol", "carol@example.com", "carol's argon2 pw", "argon2")
if "django.contrib.auth.hashers.BCryptPasswordHasher" in hashers:
    user("dan", "dan@example.com", "dan's bcrypt pw", "bcrypt")
# A format libauth does not verify (bcrypt_sha256 needs the bcrypt package).
has_bcrypt = "django.contrib.auth.hashers.BCryptPasswordHasher" in hashers
user("erin", "erin@example.com", "erin's other pw", "bcrypt_sha256" if has_bcrypt else "md5")
user("frank", "frank@example.com", "", "pbkdf2_sha256")  # unusable
user("gone", "gone@example.com", "gone's pw", "pbkdf2_sha256", active=False)

# Signed in the way Django signs in: authenticate, then login's session.
client = Client()
assert client.login(username="ada", password="correct horse battery staple")
out["superuser"]["cookie"] = client.cookies["sessionid"].value
# A session with a long payload, which Django stores zlib-compressed.
bob = Client()
assert bob.login(username="bob", password="bob's pbkdf2 pw")
session = bob.session
session["cart"] = ["the same item"] * 200
session.save()
out["users"]["bob"]["cookie"] = bob.cookies["sessionid"].value
compressed = SessionStore(session_key=out["users"]["bob"]["cookie"])
out["users"]["bob"]["compressed"] = compressed.encode(compressed.load()).startswith(".")
# An anonymous session (no _auth_user_id).
anonymous = SessionStore()
anonymous["language"] = "fr"
anonymous.create()
out["anonymous"] = anonymous.session_key
json.dump(out, sys.stdout)
