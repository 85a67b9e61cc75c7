"""libauth's Flask example (WSGI).

AUTH_SECRET=$(openssl rand -hex 32) python app.py      # http://127.0.0.1:5000/, sign in as demo / demo
"""

from __future__ import annotations

import os
import sys

from flask import Flask, render_template_string

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from libauth_demo import CONFIG, page  # noqa: E402  (the examples' shared config)

from libauth.flask import LibAuth, current_session, login_required  # noqa: E402

app = Flask(__name__)
LibAuth(app, CONFIG)  # /auth/signin, /auth/session, /auth/callback/tiktok, … ; libauth_session in templates

HOME = page(
    "libauth Flask example",
    """{% if libauth_session %}
<p id="who">Signed in as {{ libauth_session.user.name }} ({{ libauth_session.user.email or "no email" }})</p>
<p><a href="/dashboard">Dashboard</a> · <a href="/auth/signout">Sign out</a></p>{% else %}
<p id="who">Not signed in.</p><p><a id="signin" href="/auth/signin">Sign in</a> (demo / demo)</p>{% endif %}""",
)


@app.get("/")
def home() -> str:
    return render_template_string(HOME)


@app.get("/dashboard")
@login_required  # no session: 302 to /auth/signin?callbackUrl=%2Fdashboard
def dashboard() -> str:
    return render_template_string(
        page("Dashboard", '<p id="secret">Hello {{ name }}, this page is protected.</p><p><a href="/">Home</a></p>'),
        name=current_session["user"]["name"],
    )


if __name__ == "__main__":
    port = int(os.environ.get("PORT", "5000"))
    print(f"Flask example on http://127.0.0.1:{port}/", flush=True)
    app.run(host="127.0.0.1", port=port, threaded=True)
