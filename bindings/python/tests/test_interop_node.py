"""Interop with the Node binding (bindings/node, built by scripts/test.sh
before this step): a session cookie minted by Node is read by Python behind
both middlewares, and one minted by Python is read by Node."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from conftest import SECRET, Browser, base_config

HERE = Path(__file__).parent
ADDON = HERE.parents[1] / "node" / "libauth.node"


def node(*args: str) -> Any:
    assert ADDON.exists(), "the Node addon is not built (npm ci in bindings/node; scripts/test.sh does)"
    out = subprocess.run(["node", str(HERE / "node_interop.mjs"), *args], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_a_cookie_minted_by_node_is_read_by_python(serve: Any) -> None:
    s = serve(base_config())
    minted = node("mint", SECRET, s.url)
    pairs = [c.split(";")[0].split("=", 1) for c in minted["cookies"]]
    token = dict(pairs)["authjs.session-token"]
    br = Browser(s)
    br.http.cookies.set("authjs.session-token", token, domain="127.0.0.1", path="/")
    session = br.session()
    assert session["user"] == {"name": "Grace Hopper", "email": "grace@example.com"}
    assert br.get("/me").json()["user"]["name"] == "Grace Hopper"


def test_a_cookie_minted_by_python_is_read_by_node(serve: Any) -> None:
    s = serve(base_config())
    br = Browser(s)
    assert br.sign_in("ada", "lovelace").status_code == 302
    token = br.session_cookie()
    session = node("read", SECRET, s.url, f"authjs.session-token={token}")
    assert session["user"]["email"] == "ada@example.com" and session["user"]["name"] == "Ada Lovelace"
    tampered = node("read", SECRET, s.url, f"authjs.session-token={token}x")
    assert tampered is None
