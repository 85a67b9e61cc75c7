"""The package is typed (py.typed, inline annotations, ``_native.pyi``): mypy
accepts a usage file, and the native stub names what the module has."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import libauth
from libauth import _native

HERE = Path(__file__).parent
STUB = Path(libauth.__file__).parent / "_native.pyi"


@pytest.mark.parametrize("usage", ["usage_typed", "usage_django", "usage_flask", "usage_starlette", "usage_fastapi"])
def test_mypy_accepts_the_usage_file(usage: str) -> None:
    """The package, and each framework integration as an app uses it
    (usage_<framework>.py; Django's types from django-stubs)."""
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", str(HERE / f"{usage}.py")],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_native_stub_names_equal_the_runtime() -> None:
    tree = ast.parse(STUB.read_text())
    stub = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    runtime = {n for n in dir(_native) if not n.startswith("_")}
    assert stub == runtime
    for cls in ("NativeAuth", "NativeJob"):
        node = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls)
        members = {m.name for m in node.body if isinstance(m, ast.FunctionDef)}
        assert members == {m for m in dir(getattr(_native, cls)) if not m.startswith("_")}, cls


def test_package_all_is_importable() -> None:
    for name in libauth.__all__:
        assert hasattr(libauth, name), name


def test_stubtest_finds_stubs_and_runtime_in_agreement() -> None:
    """mypy's stubtest: every name, signature and class in the package and
    in ``_native.pyi`` matches the imported runtime module."""
    out = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "libauth", "--allowlist", str(HERE / "stubtest-allowlist.txt")],
        capture_output=True,
        text=True,
        cwd=HERE.parent.parent,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success" in out.stdout
