"""What a user reads when ``libauth._native`` (the compiled module) does not
import: what was expected, what was found, and how to build it from source.
The Node package says the same (``bindings/node/lib/loader.js``).

Nothing here imports the native module."""

from __future__ import annotations

import platform
import re
import sys
import sysconfig
from typing import Dict, Optional

#: The platforms with a wheel on PyPI (all ``cp39-abi3``).
WHEELS = (
    "manylinux2014_x86_64 (Linux x86-64, glibc 2.17 or newer)",
    "manylinux2014_aarch64 (Linux arm64, glibc 2.17 or newer)",
    "musllinux_1_2_x86_64 (Linux x86-64, musl)",
    "musllinux_1_2_aarch64 (Linux arm64, musl)",
)

BUILD_FROM_SOURCE = (
    "reinstall with `pip install --force-reinstall --no-cache-dir libauth`: where no wheel fits, pip builds "
    "the source distribution (needs Rust, a C compiler and OpenSSL's headers, or "
    'MATURIN_PEP517_ARGS="--features vendored-openssl" with perl and make to compile OpenSSL in); '
    "or from a checkout of the libauth repository, `pip install ./bindings/python`"
)


def detect_host() -> Dict[str, Optional[str]]:
    """This interpreter's platform: os, cpu, C library (and version), Python."""
    libc, version = platform.libc_ver()
    if sys.platform.startswith("linux"):
        if libc == "glibc":
            c = f"glibc {version}"
        elif _musl_loader():
            c = "musl"
        else:
            c = "C library not recognised (neither glibc nor musl)"
    else:
        c = None
    free_threaded = bool(sysconfig.get_config_var("Py_GIL_DISABLED"))
    python = (
        f"{platform.python_implementation()} {platform.python_version()}{' free-threaded' if free_threaded else ''}"
    )
    return {
        "os": sys.platform,
        "cpu": platform.machine(),
        "libc": c,
        "glibc": version if libc == "glibc" else None,
        "python": python,
        "implementation": sys.implementation.name,
        "free_threaded": "yes" if free_threaded else None,
    }


def _musl_loader() -> bool:
    try:
        from pathlib import Path

        return any(Path("/lib").glob("ld-musl-*.so.1"))
    except OSError:
        return False


def describe(host: Dict[str, Optional[str]]) -> str:
    parts = [f"{host['os']} {host['cpu']}"]
    if host.get("libc"):
        parts.append(str(host["libc"]))
    parts.append(str(host["python"]))
    return ", ".join(parts)


def explain(message: str, host: Dict[str, Optional[str]]) -> Optional[str]:
    """A sentence on why the module did not load, from the import error's text."""
    if host.get("implementation") != "cpython" or host.get("free_threaded"):
        return (
            "the wheels are for CPython's stable ABI (abi3), which this interpreter does not load; "
            "install from the source distribution"
        )
    glibc = re.search(r"GLIBC_([0-9.]+)'? not found", message)
    if glibc:
        have = f"glibc {host['glibc']}" if host.get("glibc") else "an older C library"
        return f"it needs glibc {glibc.group(1)} or newer and this system has {have}"
    if re.search(r"libssl|libcrypto", message):
        return "it was built against the system's OpenSSL, which is not here (release wheels have OpenSSL inside)"
    if re.search(r"libc\.musl|ld-musl|Error relocating|symbol not found", message, re.I):
        return f"it was built for another C library than this system's ({describe(host)})"
    if re.search(
        r"cannot open shared object file: No such file or directory|wrong ELF class|invalid ELF header|"
        r"file too short|Exec format error|not a mach-o file|incompatible architecture|not a valid Win32 application",
        message,
        re.I,
    ):
        return (
            f"the file is not a module for this CPU and C library ({describe(host)}): "
            "it was built for another platform, or is damaged"
        )
    if "No module named" in message or "cannot import name '_native'" in message:
        return "the package is installed without its compiled module (a copy of the Python sources only?)"
    return None


def native_import_error(error: ImportError, host: Optional[Dict[str, Optional[str]]] = None) -> ImportError:
    """The ImportError to raise (``from error``) when ``libauth._native`` does not import."""
    host = host or detect_host()
    why = explain(str(error), host)
    lines = [
        f"libauth: the native module libauth._native does not load: {error}",
        f"  expected: CPython 3.9 or newer (cp39-abi3) with one of the wheels {'; '.join(WHEELS)}; "
        "elsewhere, an install built from the source distribution",
        f"  found: {describe(host)}",
    ]
    if why:
        lines.append(f"  likely: {why}")
    lines.append(f"  way out: {BUILD_FROM_SOURCE}")
    return ImportError("\n".join(lines), name="libauth._native")
