"""Passkeys from Python: the configuration's refusals, the options route
through the ASGI middleware, and the server-side calls (list, rename,
delete) on passkeys stored in SQLite the way the engine stores them.
(Registration and sign-in with a real authenticator run in headless
Chromium through the FastAPI example: bindings/node/test/passkeys-browser.test.mjs.)"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Dict

import pytest

import libauth
from conftest import SECRET, Browser, start_asgi


def passkey_config(db: Path, **extra: Any) -> Dict[str, Any]:
    config: Dict[str, Any] = {
        "secret": SECRET,
        "trustHost": True,
        "experimental": {"enableWebAuthn": True},
        "adapter": {"type": "sqlite", "path": str(db)},
        "providers": [libauth.Passkey()],
    }
    config.update(extra)
    return config


def store_passkey(db: Path, user_id: str, credential_id: str) -> None:
    """A user and their passkey, as the engine writes them (the schema is
    the engine's own: it migrated the file when the Auth was built)."""
    with sqlite3.connect(db) as conn:
        conn.execute("INSERT OR IGNORE INTO users (id, email) VALUES (?, ?)", (user_id, f"{user_id}@example.com"))
        conn.execute(
            "INSERT INTO accounts (user_id, type, provider, provider_account_id) VALUES (?, 'webauthn', 'passkey', ?)",
            (user_id, credential_id),
        )
        conn.execute(
            "INSERT INTO authenticators (credential_id, user_id, provider_account_id, credential_public_key, counter,"
            " credential_device_type, credential_backed_up, transports, created_at)"
            " VALUES (?, ?, ?, 'pQECAyYgASFYIA==', 0, 'multiDevice', 1, 'internal,hybrid', 1767225600000)",
            (credential_id, user_id, credential_id),
        )


def test_passkeys_need_the_experimental_flag_and_an_adapter(tmp_path: Path) -> None:
    with pytest.raises(libauth.InvalidConfig) as info:
        libauth.Auth({"secret": SECRET, "adapter": {"type": "memory"}, "providers": [libauth.Passkey()]})
    assert info.value.option == "experimental.enableWebAuthn"
    with pytest.raises(libauth.InvalidConfig) as info:
        libauth.Auth({"secret": SECRET, "experimental": {"enableWebAuthn": True}, "providers": [libauth.Passkey()]})
    assert "adapter" in str(info.value)


def test_list_rename_and_delete_keep_the_last_passkey(tmp_path: Path) -> None:
    db = tmp_path / "auth.db"
    auth = libauth.Auth(passkey_config(db))
    store_passkey(db, "ada", "Y3JlZC0x")
    store_passkey(db, "ada", "Y3JlZC0y")
    listed = auth.list_passkeys("ada")
    assert [p["id"] for p in listed] == ["Y3JlZC0x", "Y3JlZC0y"]
    assert listed[0]["transports"] == ["internal", "hybrid"] and listed[0]["backedUp"] is True
    assert "credentialPublicKey" not in listed[0]
    assert auth.rename_passkey("ada", "Y3JlZC0x", "Laptop")["name"] == "Laptop"
    with pytest.raises(libauth.WebAuthnVerificationError):
        auth.rename_passkey("eve", "Y3JlZC0x", "mine")
    auth.delete_passkey("ada", "Y3JlZC0y")
    with pytest.raises(libauth.LastSignInMethod):
        auth.delete_passkey("ada", "Y3JlZC0x")
    assert [p["id"] for p in auth.list_passkeys("ada")] == ["Y3JlZC0x"]


def test_the_options_route_through_asgi(tmp_path: Path) -> None:
    server = start_asgi(passkey_config(tmp_path / "auth.db"))
    try:
        browser = Browser(server)
        res = browser.get("/auth/webauthn-options/passkey?email=ada@example.com")
        assert res.status_code == 200
        body = res.json()
        assert body["action"] == "register"
        assert body["options"]["rp"]["id"] == "127.0.0.1"
        assert body["options"]["authenticatorSelection"]["userVerification"] == "required"
        assert "authjs.challenge" in browser.http.cookies
        # Without the CSRF token the callback refuses, whatever it carries.
        res = browser.post("/auth/callback/passkey", {"action": "register", "data": "{}"})
        assert res.status_code == 302 and "error=MissingCSRF" in res.headers["location"]
    finally:
        server.stop()
