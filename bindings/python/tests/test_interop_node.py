"""Interop with Auth.js and the Node binding.

Auth.js -> Python: session cookies minted by Auth.js itself (``encode`` from
``@auth/core/jwt``), read from ``tests/fixtures/authjs-session-vectors.json``
(written by ``tests/compat/make-vectors.mjs``), are read by Python behind both
middlewares and give the session the fixture says they decode to. This
direction needs no Node: the cookies are in the fixture.

Python -> Node: a cookie minted by Python is read by the Node binding
(``node_interop.mjs``). A cookie minted at run time cannot be in a fixture,
so this one test still needs ``node`` and the Node addon
(``bindings/node/libauth.node``, built by ``npm ci`` in bindings/node;
scripts/test.sh builds it before this step)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest
from conftest import SECRET, Browser, base_config

HERE = Path(__file__).parent
ROOT = HERE.parents[2]
ADDON = ROOT / "bindings" / "node" / "libauth.node"
FIXTURE = ROOT / "tests" / "fixtures" / "authjs-session-vectors.json"

# The vectors for the cookie name a plain-HTTP site uses (the test servers
# are on http://127.0.0.1); the large one comes as Auth.js's cookie chunks.
VECTORS: List[Dict[str, Any]] = [
    v for v in json.loads(FIXTURE.read_text(encoding="utf-8"))["vectors"] if v["salt"] == "authjs.session-token"
]


def node(*args: str) -> Any:
    assert ADDON.exists(), "the Node addon is not built (npm ci in bindings/node; scripts/test.sh does)"
    out = subprocess.run(["node", str(HERE / "node_interop.mjs"), *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def session_user(decoded: Dict[str, Any]) -> Dict[str, Any]:
    """Auth.js's session user: ``name``, ``email`` and ``image`` from the
    token's ``name``, ``email`` and ``picture``, each only when present."""
    return {
        to: decoded[claim]
        for to, claim in (("name", "name"), ("email", "email"), ("image", "picture"))
        if claim in decoded
    }


def test_the_fixture_has_vectors() -> None:
    assert len(VECTORS) >= 6 and any("cookieChunks" in v for v in VECTORS)


@pytest.mark.parametrize("vector", VECTORS, ids=lambda v: str(v["description"]).split(" [")[0][:40])
def test_a_cookie_minted_by_authjs_is_read_by_python(serve: Any, vector: Dict[str, Any]) -> None:
    s = serve(base_config(secret=vector["secret"]))
    br = Browser(s)
    cookies = vector.get("cookieChunks") or [{"name": "authjs.session-token", "value": vector["token"]}]
    for cookie in cookies:
        br.http.cookies.set(cookie["name"], cookie["value"], domain="127.0.0.1", path="/")
    session = br.session()
    assert session["user"] == session_user(vector["decoded"])
    assert br.get("/me").json()["user"] == session["user"]


def test_a_cookie_minted_by_python_is_read_by_node(serve: Any) -> None:
    s = serve(base_config())
    br = Browser(s)
    assert br.sign_in("ada", "lovelace").status_code == 302
    token = br.session_cookie()
    session = node("read", SECRET, s.url, f"authjs.session-token={token}")
    assert session["user"]["email"] == "ada@example.com" and session["user"]["name"] == "Ada Lovelace"
    tampered = node("read", SECRET, s.url, f"authjs.session-token={token}x")
    assert tampered is None
