"""The ``libauth`` command as pip installs it: the console script beside
this interpreter, run from the package's own native module."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).parent / "libauth"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("AUTH_")}
    return subprocess.run([str(SCRIPT), *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60)


def test_the_console_script_is_installed() -> None:
    assert SCRIPT.exists(), "pip installs the libauth console script beside python"


def test_secret_migrate_and_doctor_from_the_console_script(tmp_path: Path) -> None:
    done = run("secret", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    secret = (tmp_path / ".env").read_text().strip().removeprefix("AUTH_SECRET=")
    assert len(secret) == 43

    done = run("migrate", "--database", "sqlite:auth.db", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["from"] == 0

    (tmp_path / "auth.json").write_text(
        json.dumps(
            {
                "secret": secret,
                "url": "https://app.example.com",
                "adapter": {"type": "sqlite", "path": "auth.db"},
                "providers": [{"builtin": "github", "clientId": "id", "clientSecret": "s"}],
            }
        )
    )
    done = run("doctor", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout
    report = json.loads(done.stdout)
    assert report["ok"] is True
    messages = {f["topic"]: f["message"] for f in report["findings"]}
    assert "https://app.example.com/auth/callback/github" in messages["providers.github"]


def test_usage_errors_exit_2_with_one_line(tmp_path: Path) -> None:
    done = run("migrate", "--bogus", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "--bogus" in done.stderr


@pytest.mark.parametrize("args", [["--help"], ["provider", "add", "--help"]])
def test_help_through_python_dash_m(tmp_path: Path, args: list) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "libauth.cli", *args], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0
    assert "Usage:" in done.stdout
