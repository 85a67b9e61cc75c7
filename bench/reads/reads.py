"""Instructions per session read and per request, under callgrind: counts
that repeat on a shared machine, where timings do not. Run by
`bench/reads/run.sh` (which builds everything in release first); writes the
tables to stdout (markdown).

In-process (`inprocess`): one session read with the same cookie (session
cache hits, as a browser's repeated cookie), per call, for the Rust engine's
`get_session_by_cookie` and `get_session`, and from each binding: C
(`auth_get_session_by_cookie` and `auth_get_session`, buffer freed; and
`auth_session_read`, the user's name read from the handle, handle freed),
Python (`Auth.get_session`, the dict built) and Node (`await
getSession(req, config)`, the object built). Each per-call figure is the difference between
a run of 3N calls and one of N, divided by 2N (start-up cancels out); the
median over ROUNDS such pairs, with min-max.

Servers (`servers`): each server under callgrind (all threads), warmed up,
counters zeroed, then ROUNDS batches of BATCH requests on one keep-alive
connection, each batch dumped and counted on its own: the bare route and
the protected route (a session read, the same JSON or HTML out) of
Starlette/uvicorn, Flask/waitress and the C example server.
"""

from __future__ import annotations

import glob
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parents[2]
TARGET = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")).resolve()
PYTHON = os.environ.get("BENCH_PYTHON", sys.executable)
ROUNDS = int(os.environ.get("READS_ROUNDS", "3"))
BATCH = int(os.environ.get("READS_BATCH", "500"))
WARMUP = int(os.environ.get("READS_WARMUP", "500"))
SECRET = "bench-secret-bench-secret-bench-secret!"
URL = "http://localhost:3000/dashboard"


def ir_of_run(cmd: Sequence[str], env: Optional[Dict[str, str]] = None) -> int:
    """Instructions a whole program run executes (callgrind's total)."""
    out = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise RuntimeError(f"{cmd}: exit {out.returncode}\n{out.stderr[-2000:]}")
    m = re.search(r"refs:\s+([\d,]+)", out.stderr)
    if not m:
        raise RuntimeError(f"{cmd}: no count\n{out.stderr[-2000:]}")
    return int(m.group(1).replace(",", ""))


def per_call(cmd: Sequence[str], n: int, env: Optional[Dict[str, str]] = None) -> List[float]:
    """Per-call instructions of `cmd N` (N the last argument), ROUNDS times."""
    out = []
    for _ in range(ROUNDS):
        few = ir_of_run([*cmd, str(n)], env)
        many = ir_of_run([*cmd, str(3 * n)], env)
        out.append((many - few) / (2 * n))
    return out


def stats(values: List[float]) -> Tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)


def fmt(values: List[float]) -> str:
    m, lo, hi = stats(values)
    return f"{m:,.0f} ({lo:,.0f}–{hi:,.0f})"


def inprocess() -> str:
    bench = str(TARGET / "release" / "libauth-bench")
    cookie = subprocess.run([bench, "--print-cookie"], capture_output=True, text=True, check=True).stdout.strip()
    env = {"BENCH_COOKIE": cookie, "AUTH_SECRET": SECRET, "AUTH_TRUST_HOST": "true"}
    here = Path(__file__).resolve().parent
    rows: List[Tuple[str, List[float]]] = []
    #: The targets: a binding's read within this many times the engine call.
    targets = {"C `auth_get_session_by_cookie`": 1.2, "C `auth_session_read`": 1.2, "Python": 1.3, "Node `await": 1.3}
    rows.append(
        ("Rust engine `get_session_by_cookie` (the engine call)", per_call([bench, "--calls-by-cookie"], 1000, env))
    )
    rows.append(("Rust engine `get_session` (a built `AuthRequest`)", per_call([bench, "--calls"], 1000, env)))
    bench_c = str(TARGET / "release" / "bench-c")
    rows.append(
        ("C `auth_get_session_by_cookie` (+ `auth_buffer_free`)", per_call([bench_c, "calls", "lean"], 1000, env))
    )
    rows.append(
        ("C `auth_get_session` (request JSON, + `auth_buffer_free`)", per_call([bench_c, "calls", "full"], 1000, env))
    )
    rows.append(
        (
            "C `auth_session_read` (+ `auth_session_user_field` name, `auth_session_free`)",
            per_call([bench_c, "calls", "handle"], 1000, env),
        )
    )
    rows.append(
        ("Python `Auth.get_session(url, cookie)` (the dict)", per_call([PYTHON, str(here / "py_calls.py")], 2000, env))
    )
    node_env = {**env, "NODE_PATH": str(ROOT / "bindings" / "node" / "node_modules")}
    rows.append(
        (
            "Node `await getSession(req, config)` (the object)",
            per_call(["node", str(here / "node_calls.mjs")], 5000, node_env),
        )
    )
    rows.append(
        (
            "Node addon `getSessionJson` + `JSON.parse`",
            per_call(["node", str(here / "node_calls.mjs"), "json"], 5000, node_env),
        )
    )
    engine = statistics.median(rows[0][1])
    lines = [
        "| in-process session read (same cookie: cache hits) | instructions/call, median (min–max) | vs the engine call (target) |",
        "|---|---|---|",
    ]
    for name, values in rows:
        ratio = statistics.median(values) / engine
        target = next((t for prefix, t in targets.items() if name.startswith(prefix)), None)
        verdict = "" if target is None else f" (<= {target}x: {'met' if ratio <= target else '**missed**'})"
        lines.append(f"| {name} | {fmt(values)} | {ratio:.2f}x{verdict} |")
    return "\n".join(lines)


def http_get(conn: http.client.HTTPConnection, path: str, cookie: str) -> Tuple[int, bytes]:
    conn.request("GET", path, headers={"cookie": cookie})
    res = conn.getresponse()
    return res.status, res.read()


def sign_in(port: int, username: str, password: str) -> str:
    """Sign in through the server's own /auth routes; the session cookie."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request("GET", "/auth/csrf")
    res = conn.getresponse()
    token = json.loads(res.read())["csrfToken"]
    jar = "; ".join(v.split(";", 1)[0] for k, v in res.getheaders() if k.lower() == "set-cookie")
    body = urllib.parse.urlencode({"csrfToken": token, "username": username, "password": password})
    conn.request(
        "POST",
        "/auth/callback/credentials",
        body=body,
        headers={"content-type": "application/x-www-form-urlencoded", "cookie": jar},
    )
    res = conn.getresponse()
    res.read()
    for k, v in res.getheaders():
        if k.lower() == "set-cookie" and v.startswith("authjs.session-token="):
            return v.split(";", 1)[0]
    raise RuntimeError(f"sign-in on {port}: {res.status}")


def wait_ready(port: int, path: str, proc: subprocess.Popen) -> None:
    for _ in range(600):
        if proc.poll() is not None:
            raise RuntimeError(f"server on {port} exited ({proc.returncode})")
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            c.request("GET", path)
            c.getresponse().read()
            return
        except OSError:
            time.sleep(0.5)
    raise RuntimeError(f"server on {port} did not start")


def count_server(cmd: List[str], env: Dict[str, str], port: int, path: str, cookie: str, expect: bytes) -> List[float]:
    """Instructions per request of `path` on a server run under callgrind."""
    with tempfile.TemporaryDirectory() as d:
        proc = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={d}/cg.out", *cmd],
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_ready(port, path, proc)
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            status, body = http_get(conn, path, cookie)
            if status != 200 or expect not in body:
                raise RuntimeError(f"{cmd} {path}: {status} {body[:200]!r}")

            def control(*args: str) -> None:
                subprocess.run(["callgrind_control", *args, str(proc.pid)], capture_output=True, check=True)

            control("-i", "on")
            for _ in range(WARMUP):
                http_get(conn, path, cookie)
            control("-z")
            out = []
            for _ in range(ROUNDS):
                before = set(glob.glob(f"{d}/cg.out*"))
                for _ in range(BATCH):
                    status, _ = http_get(conn, path, cookie)
                    if status != 200:
                        raise RuntimeError(f"{path}: {status}")
                control("-d")
                total = 0
                for f in set(glob.glob(f"{d}/cg.out*")) - before:
                    for line in open(f, encoding="utf-8", errors="replace"):
                        m = re.match(r"(?:summary|totals):\s+(\d+)", line)
                        if m:
                            total += int(m.group(1))
                            break
                out.append(total / BATCH)
            return out
        finally:
            proc.kill()
            proc.wait()


def servers() -> str:
    here = Path(__file__).resolve().parent
    env = {"AUTH_SECRET": SECRET, "AUTH_TRUST_HOST": "true", "PYTHONPATH": str(here)}
    lines = [
        "| server | route | instructions/request, median (min–max) | bare ÷ this (target) |",
        "|---|---|---|---|",
    ]
    kinds = []
    # Python: sign in through a plain (not valgrind) libauth server first, for the cookie and the JSON.
    py_servers = {
        "Starlette/uvicorn": (
            lambda app, port: [
                PYTHON,
                "-m",
                "uvicorn",
                "--app-dir",
                str(here),
                f"apps:{app}",
                "--port",
                str(port),
                "--no-access-log",
                "--log-level",
                "warning",
            ],
            "starlette",
        ),
        "Flask/waitress": (
            lambda app, port: [
                PYTHON,
                "-m",
                "waitress",
                "--listen",
                f"127.0.0.1:{port}",
                "--threads",
                "1",
                f"apps:{app}",
            ],
            "flask",
        ),
    }
    for name, (command, prefix) in py_servers.items():
        port = 4511
        plain = subprocess.Popen(
            command(f"{prefix}_libauth", port),
            env={**os.environ, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            wait_ready(port, "/auth/csrf", plain)
            cookie = sign_in(port, "u", "p")
            conn = http.client.HTTPConnection("127.0.0.1", port)
            status, session = http_get(conn, "/protected", cookie)
            assert status == 200 and b"bench@example.com" in session, (status, session)
        finally:
            plain.kill()
            plain.wait()
        env_rows = {**env, "BENCH_SESSION_JSON": session.decode()}
        bare = count_server(command(f"{prefix}_bare", 4512), env_rows, 4512, "/bare", cookie, b"bench@example.com")
        protected = count_server(
            command(f"{prefix}_libauth", 4513), env_rows, 4513, "/protected", cookie, b"bench@example.com"
        )
        kinds.append((name, bare, protected, 0.95))
    # The C example server: /bare (no session read) and /dashboard.
    c_server = str(TARGET / "release" / "c-server")
    with tempfile.TemporaryDirectory() as d:
        c_env = {"AUTH_SECRET": SECRET, "AUTH_DB": f"{d}/auth.db", "PORT": "4514"}
        plain = subprocess.Popen(
            [c_server], env={**os.environ, **c_env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        try:
            wait_ready(4514, "/auth/csrf", plain)
            cookie = sign_in(4514, "demo", "demo")
        finally:
            plain.kill()
            plain.wait()
        bare = count_server([c_server], {**c_env, "PORT": "4515"}, 4515, "/bare", cookie, b"Welcome")
        protected = count_server([c_server], {**c_env, "PORT": "4516"}, 4516, "/dashboard", cookie, b"Welcome")
        kinds.append(("C example (libmicrohttpd)", bare, protected, 0.9))
    for name, bare, protected, target in kinds:
        ratio = statistics.median(bare) / statistics.median(protected)
        met = "met" if ratio >= target else "**missed**"
        lines.append(f"| {name} | bare | {fmt(bare)} | 1.00 |")
        lines.append(
            f"| {name} | protected (session read) | {fmt(protected)} | **{ratio:.2f}x** (>= {target}x: {met}) |"
        )
    lines.append("")
    lines.append(
        "The Flask/waitress counts move by a few percent from one run to the next (waitress's main thread"
        " polls its sockets, and how often it wakes follows the client's timing); the others repeat within"
        " a fraction of a percent."
    )
    return "\n".join(lines)


if __name__ == "__main__":
    what = sys.argv[1] if len(sys.argv) > 1 else "all"
    if what in ("all", "inprocess"):
        print(inprocess())
        print()
    if what in ("all", "servers"):
        print(servers())
