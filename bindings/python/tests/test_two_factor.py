"""A user's TOTP second factor from Python, with codes made by an independent
implementation (pyotp): turn it on, check codes and recovery codes, each
once, turn it off; the error class and the events; the two-step sign-in
over HTTP. (Every backend and two engines at once:
core/tests/two_factor.rs.)"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pyotp
import pytest

import libauth
from conftest import SECRET, Browser, base_config, start_wsgi


def test_totp_with_codes_from_pyotp(tmp_path: Path) -> None:
    db = tmp_path / "auth.db"
    seen: List[Tuple[str, Dict[str, Any]]] = []
    events = {
        "twoFactorEnabled": lambda *, user_id: seen.append(("enabled", {"user_id": user_id})),
        "recoveryCodeUsed": lambda *, user_id, left: seen.append(("recovery", {"left": left})),
        "twoFactorDisabled": lambda *, user_id: seen.append(("disabled", {"user_id": user_id})),
    }
    auth = libauth.Auth(
        {
            "secret": SECRET,
            "adapter": {"type": "sqlite", "path": str(db)},
            "twoFactor": {"issuer": "Example"},
            "events": events,
        }
    )
    auth.two_factor_status("nobody")  # opens (and migrates) the database
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT INTO users (id, email) VALUES ('ada', 'ada@example.com')")

    enrolment = auth.begin_totp("ada", "ada@example.com")
    assert enrolment["uri"].startswith("otpauth://totp/Example:ada%40example.com?")
    assert "<svg" in enrolment["qrSvg"]
    app = pyotp.TOTP(enrolment["secret"])
    assert pyotp.parse_uri(enrolment["uri"]).secret == enrolment["secret"]
    with pytest.raises(libauth.TwoFactorError):
        auth.confirm_totp("ada", "not a code")

    first = app.now()
    recovery = auth.confirm_totp("ada", first)
    assert len(recovery) == 10
    assert auth.two_factor_status("ada")["enabled"] is True
    with pytest.raises(libauth.TwoFactorError):
        auth.verify_second_factor("ada", first)  # spent turning it on
    after = app.at(time.time() + 30)
    assert auth.verify_second_factor("ada", after) == "totp"
    with pytest.raises(libauth.TwoFactorError):
        auth.verify_second_factor("ada", after)
    assert auth.verify_second_factor("ada", recovery[0]) == "recoveryCode"
    with pytest.raises(libauth.TwoFactorError):
        auth.verify_second_factor("ada", recovery[0])
    with pytest.raises(libauth.TwoFactorError):
        auth.begin_totp("ada", "ada@example.com")
    auth.disable_totp("ada", recovery[1])
    assert auth.two_factor_status("ada") == {
        "enabled": False,
        "pending": False,
        "enabledAt": None,
        "recoveryCodesLeft": 0,
    }
    assert [kind for kind, _ in seen] == ["enabled", "recovery", "recovery", "disabled"]
    assert seen[1][1] == {"left": 9}


def test_sign_in_in_two_steps_over_http_with_pyotp_codes(tmp_path: Path) -> None:
    """A stored user with TOTP on signs in through a WSGI server: the
    credentials give no session but the code page; pyotp's code finishes
    the sign-in."""
    db = tmp_path / "auth.db"
    server = start_wsgi(
        base_config(
            trustHost=True,
            adapter={"type": "sqlite", "path": str(db)},
            session={"strategy": "database"},
        )
    )
    try:
        first = Browser(server)
        assert first.sign_in("ada", "lovelace").status_code == 302
        assert first.session()["user"]["name"] == "Ada Lovelace"
        with sqlite3.connect(db) as conn:
            (user_id,) = conn.execute("SELECT id FROM users").fetchone()
        app = pyotp.TOTP(server.auth.begin_totp(user_id, "ada")["secret"])
        server.auth.confirm_totp(user_id, app.now())

        second = Browser(server)
        res = second.sign_in("ada", "lovelace")
        assert res.status_code == 302 and res.headers["location"].endswith("/auth/two-factor"), res.headers
        assert second.session() is None, "no session after the first factor"
        page = second.get("/auth/two-factor")
        assert page.status_code == 200 and 'name="code"' in page.text
        token = second.csrf()
        res = second.post("/auth/two-factor", {"code": "000000", "csrfToken": token})
        assert res.status_code == 400
        res = second.post("/auth/two-factor", {"code": app.at(time.time() + 30), "csrfToken": token})
        assert res.status_code == 302, res.text
        assert second.session()["user"]["name"] == "Ada Lovelace"
        # How each signed in: credentials then a code; credentials alone
        # (before TOTP was on).
        assert second.session()["amr"] == ["pwd", "otp"]
        assert first.session()["amr"] == ["pwd"]
    finally:
        server.stop()


def test_the_account_page_turns_totp_on_and_a_trusted_browser_skips_the_code(tmp_path: Path) -> None:
    """Through a WSGI server: TOTP set up on the built-in account page
    (its key read off the page, pyotp's code), ten recovery codes shown;
    then a sign-in with "trust this browser" ticked, after which that
    browser signs in with the credentials alone, until the user's sessions
    are ended everywhere."""
    db = tmp_path / "auth.db"
    server = start_wsgi(
        base_config(trustHost=True, adapter={"type": "sqlite", "path": str(db)}, session={"strategy": "database"})
    )
    try:
        laptop = Browser(server)
        assert laptop.sign_in("ada", "lovelace").status_code == 302
        page = laptop.get("/auth/account")
        assert page.status_code == 200 and "Two-factor authentication" in page.text
        res = laptop.post("/auth/two-factor/setup", {"csrfToken": laptop.csrf(), "code": ""})
        assert res.status_code == 200 and "data:image/svg+xml;base64," in res.text
        key = res.text.split("<figcaption>")[1].split("<code>")[1].split("</code>")[0]
        app = pyotp.TOTP(key)
        res = laptop.post("/auth/two-factor/setup", {"csrfToken": laptop.csrf(), "code": app.at(time.time() - 30)})
        assert res.status_code == 200
        assert res.text.count("<li><code>") == 10, "ten recovery codes, shown once"

        phone = Browser(server)
        res = phone.sign_in("ada", "lovelace")
        assert res.headers["location"].endswith("/auth/two-factor")
        token = phone.csrf()
        res = phone.post("/auth/two-factor", {"code": app.now(), "trust": "on", "csrfToken": token})
        assert res.status_code == 302, res.text
        assert phone.session()["amr"] == ["pwd", "otp"]
        # Trusted: the credentials alone, in this browser.
        phone.http.cookies.set("authjs.session-token", None)
        res = phone.sign_in("ada", "lovelace")
        assert not res.headers["location"].endswith("/auth/two-factor"), res.headers
        assert phone.session()["amr"] == ["pwd"]
        # Every session ended: the trusted browser is asked again.
        with sqlite3.connect(db) as conn:
            (user_id,) = conn.execute("SELECT id FROM users").fetchone()
        server.auth.end_all_sessions(user_id)
        res = phone.sign_in("ada", "lovelace")
        assert res.headers["location"].endswith("/auth/two-factor")
    finally:
        server.stop()
