"""When ``libauth._native`` (the compiled module) does not import, the
ImportError says what was expected, what was found and the way out, as the
Node package does. Each case imports a copy of the package's Python sources
in a subprocess, without the compiled module or with a broken one."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SOURCES = Path(__file__).parent.parent / "python" / "libauth"
# Loaded from its file: importing it as libauth._loading would run the
# package's __init__, which imports the compiled module.
_spec = importlib.util.spec_from_file_location("libauth_loading", SOURCES / "_loading.py")
assert _spec and _spec.loader
_loading = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_loading)

SCRIPT = r"""
import sys
sys.path.insert(0, sys.argv[1])
try:
    import libauth
except ImportError as e:
    assert isinstance(e.__cause__, ImportError), repr(e.__cause__)
    print(e)
else:
    print("imported", libauth.__file__)
"""


def import_copy(tmp_path: Path, native: bytes | None) -> str:
    copy = tmp_path / "libauth"
    shutil.copytree(SOURCES, copy, ignore=shutil.ignore_patterns("_native*.so", "_native*.pyd", "__pycache__"))
    if native is not None:
        (copy / "_native.abi3.so").write_bytes(native)
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    return run.stdout


def test_no_compiled_module(tmp_path: Path) -> None:
    out = import_copy(tmp_path, None)
    assert out.startswith("libauth: the native module libauth._native does not load:"), out
    assert "expected: CPython 3.9 or newer (cp39-abi3)" in out
    for tag in ("manylinux2014_x86_64", "manylinux2014_aarch64", "musllinux_1_2_x86_64", "musllinux_1_2_aarch64"):
        assert tag in out
    assert f"found: {sys.platform} " in out
    assert "pip install --force-reinstall --no-cache-dir libauth" in out
    assert "pip install ./bindings/python" in out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="an ELF loader's message")
def test_a_compiled_module_that_does_not_load(tmp_path: Path) -> None:
    out = import_copy(tmp_path, b"not an ELF file")
    assert "does not load:" in out
    assert "invalid ELF header" in out or "file too short" in out, "the loader's message is passed on"
    assert "likely: the file is not a module for this CPU and C library" in out
    assert "way out:" in out


def test_explanations() -> None:
    gnu = {
        "os": "linux",
        "cpu": "aarch64",
        "libc": "glibc 2.31",
        "glibc": "2.31",
        "python": "CPython 3.9.2",
        "implementation": "cpython",
        "free_threaded": None,
    }
    assert (
        _loading.explain("/x/_native.abi3.so: version `GLIBC_2.34' not found (required by …)", gnu)
        == "it needs glibc 2.34 or newer and this system has glibc 2.31"
    )
    assert "system's OpenSSL" in (
        _loading.explain("libssl.so.3: cannot open shared object file: No such file or directory", gnu) or ""
    )
    assert "another platform" in (_loading.explain("/x/_native.abi3.so: wrong ELF class: ELFCLASS32", gnu) or "")
    assert "abi3" in (_loading.explain("anything", {**gnu, "free_threaded": "yes"}) or "")
    assert _loading.explain("something else entirely", gnu) is None
    error = _loading.native_import_error(ImportError("boom"), gnu)
    assert error.name == "libauth._native"
    assert "found: linux aarch64, glibc 2.31, CPython 3.9.2" in str(error)
