"""Re-records cli/tests/import/recorded.json: rows written by a real Django
(django_source.py) and a real Better Auth (tests/better-auth/source.mjs), for the
tests that run where neither library is installed.

Usage: python record.py [POSTGRES_URL]
(the Python running it has Django 4.2, argon2-cffi and bcrypt; tests/better-auth
is installed: npm ci --prefix tests/better-auth; psql reaches PostgreSQL)
"""

import json
import os
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
BETTER_AUTH = HERE.parents[2] / "tests" / "better-auth"
pg_url = sys.argv[1] if len(sys.argv) > 1 else "postgres://postgres@127.0.0.1:5432/test"

DJANGO_KEY = "django-insecure-libauth-import-recorded"
BETTER_AUTH_SECRET = "better-auth-secret-libauth-import-recorded"

with tempfile.TemporaryDirectory() as tmp:
    db = os.path.join(tmp, "django.sqlite3")
    made = json.loads(
        subprocess.run(
            [sys.executable, str(HERE / "django_source.py"), db, DJANGO_KEY], check=True, capture_output=True, text=True
        ).stdout
    )
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    django = {
        "secret_key": DJANGO_KEY,
        "made": made,
        "ddl": [
            r[0] for r in conn.execute("SELECT sql FROM sqlite_master WHERE name IN ('auth_user', 'django_session')")
        ],
        "auth_user": [dict(r) for r in conn.execute("SELECT * FROM auth_user ORDER BY id")],
        "django_session": [dict(r) for r in conn.execute("SELECT * FROM django_session")],
    }

schema = "better_auth_record"
psql = ["psql", pg_url, "-qAtX", "-v", "ON_ERROR_STOP=1"]
subprocess.run([*psql, "-c", f"DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"], check=True)
made = json.loads(
    subprocess.run(
        ["node", str(BETTER_AUTH / "source.mjs"), pg_url, schema, BETTER_AUTH_SECRET],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
)
better_auth = {"secret": BETTER_AUTH_SECRET, "made": made}
for table in ["user", "account", "session"]:
    out = subprocess.run(
        [*psql, "-c", f'SELECT json_agg(t) FROM {schema}."{table}" t'], check=True, capture_output=True, text=True
    ).stdout
    better_auth[table] = json.loads(out)
subprocess.run([*psql, "-c", f"DROP SCHEMA {schema} CASCADE"], check=True)

(HERE / "recorded.json").write_text(json.dumps({"django": django, "better_auth": better_auth}, indent=1) + "\n")
