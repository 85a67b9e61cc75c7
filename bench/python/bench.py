"""libauth's Python benchmark (run by bench/python/run.sh, in a venv with a
release build of libauth). Writes bench/python/results.md.

1. In-process: ``Auth.get_session`` against a pure-Python decrypt of the
   same cookie with joserfc (A256CBC-HS512, ``dir``, the Auth.js key:
   HKDF-SHA256 of the secret, salt = cookie name, info "Auth.js Generated
   Encryption Key (<salt>)", 64 bytes; derived once, as libauth does), then
   ``json.loads`` of the claims. This process is pinned to one core.
2. HTTP under uvicorn (pinned to core 0) with wrk (pinned to core 1): the
   engine's ``GET /auth/session``, a protected Starlette route reading
   ``request.state.session``, and a bare Starlette route returning the same
   JSON with no middleware, in one run, rounds interleaved.

Each figure is the median of ROUNDS rounds (default 3) with the spread."""

from __future__ import annotations

import datetime as dt
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from joserfc import jwe
from joserfc.jwk import OctKey

import libauth

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE))
from apps import SECRET, make_auth  # noqa: E402

ROUNDS = int(os.environ.get("ROUNDS", "3"))
DURATION = os.environ.get("DURATION", "6s")
CONNECTIONS = int(os.environ.get("CONNECTIONS", "32"))
COOKIE = "authjs.session-token"
SERVER_CORE, CLIENT_CORE = "0", "1"


def mint(auth: libauth.Auth) -> str:
    origin = "http://127.0.0.1"
    csrf = auth.handle("GET", f"{origin}/auth/csrf", [])
    token = json.loads(csrf.body)["csrfToken"]
    cookie = "; ".join(v.split(";")[0] for k, v in csrf.headers if k.lower() == "set-cookie")
    res = auth.handle(
        "POST",
        f"{origin}/auth/callback/credentials",
        [("cookie", cookie), ("content-type", "application/x-www-form-urlencoded")],
        f"csrfToken={token}&username=ada&password=x".encode(),
    )
    return next(
        v.split(";")[0].split("=", 1)[1]
        for k, v in res.headers
        if k.lower() == "set-cookie" and v.startswith(f"{COOKIE}=")
    )


def rate(fn: Callable[[], Any], seconds: float = 2.0) -> float:
    n, start = 0, time.perf_counter()
    end = start + seconds
    while True:
        for _ in range(200):
            fn()
        n += 200
        now = time.perf_counter()
        if now >= end:
            return n / (now - start)


def summary(values: List[float]) -> Tuple[float, float, float]:
    return statistics.median(values), min(values), max(values)


def in_process() -> Dict[str, Any]:
    os.sched_setaffinity(0, {int(CLIENT_CORE)})
    auth = make_auth()
    token = mint(auth)
    url, header = "http://127.0.0.1/protected", f"{COOKIE}={token}"
    key = OctKey.import_key(
        HKDF(
            algorithm=hashes.SHA256(),
            length=64,
            salt=COOKIE.encode(),
            info=f"Auth.js Generated Encryption Key ({COOKIE})".encode(),
        ).derive(SECRET.encode())
    )

    def joserfc_read() -> Dict[str, Any]:
        claims: Dict[str, Any] = json.loads(
            jwe.decrypt_compact(token, key, algorithms=["dir", "A256CBC-HS512"]).plaintext
        )
        return claims

    def libauth_read() -> Any:
        return auth.get_session(url, header)

    assert joserfc_read()["email"] == libauth_read()["user"]["email"] == "ada@example.com"
    rounds: Dict[str, List[float]] = {"libauth": [], "joserfc": []}
    for _ in range(ROUNDS):
        rounds["libauth"].append(rate(libauth_read))
        rounds["joserfc"].append(rate(joserfc_read))
    os.sched_setaffinity(0, set(range(os.cpu_count() or 1)))
    return {"token": token, "session": libauth_read(), "rounds": rounds}


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(app: str, env: Dict[str, str]) -> Tuple[subprocess.Popen, int]:  # type: ignore[type-arg]
    port = free_port()
    proc = subprocess.Popen(
        [
            "taskset",
            "-c",
            SERVER_CORE,
            sys.executable,
            "-m",
            "uvicorn",
            f"apps:{app}",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
            "--lifespan",
            "off",
        ],
        cwd=HERE,
        env={**os.environ, **env},
    )
    for _ in range(200):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
        except urllib.error.HTTPError:
            return proc, port
        except OSError:
            time.sleep(0.05)
            continue
        return proc, port
    raise RuntimeError(f"uvicorn ({app}) did not start")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used (from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(url: str, cookie: str, server_pid: int) -> Dict[str, float]:
    cpu_before = cpu_seconds(server_pid)
    out = subprocess.run(
        [
            "taskset",
            "-c",
            CLIENT_CORE,
            "wrk",
            "-t1",
            f"-c{CONNECTIONS}",
            f"-d{DURATION}",
            "--latency",
            "-H",
            f"Cookie: {cookie}",
            url,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    if "Non-2xx" in out:
        raise RuntimeError(f"non-2xx answers from {url}:\n{out}")

    def ms(label: str) -> float:
        m = re.search(rf"^\s+{label}\s+([\d.]+)(us|ms|s)\b", out, re.M)
        assert m, out
        return float(m.group(1)) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[m.group(2)]

    cpu = cpu_seconds(server_pid) - cpu_before
    m = re.search(r"Requests/sec:\s+([\d.]+)", out)
    n = re.search(r"(\d+) requests in", out)
    assert m and n, out
    # The server's CPU per request: unlike req/s, it does not move with how
    # busy the load generator's core is.
    cpu_us = cpu * 1e6 / int(n.group(1))
    return {"rps": float(m.group(1)), "p50": ms("50%"), "p99": ms("99%"), "cpu_us": cpu_us}


def http(token: str, session: Any) -> Dict[str, List[Dict[str, float]]]:
    cookie = f"{COOKIE}={token}"
    lib, lib_port = serve("libauth_app", {"AUTH_SECRET": SECRET})
    bare, bare_port = serve("bare_app", {"BENCH_SESSION_JSON": json.dumps(session)})
    routes = {
        "bare": f"http://127.0.0.1:{bare_port}/bare",
        "session": f"http://127.0.0.1:{lib_port}/auth/session",
        "protected": f"http://127.0.0.1:{lib_port}/protected",
    }
    pids = {"bare": bare.pid, "session": lib.pid, "protected": lib.pid}
    try:
        for name, url in routes.items():  # the same JSON from all three, and a warm-up
            req = urllib.request.Request(url, headers={"Cookie": cookie})
            body = json.loads(urllib.request.urlopen(req, timeout=5).read())
            assert body["user"] == session["user"], (name, body)
            subprocess.run(
                ["wrk", "-t1", "-c8", "-d1s", "-H", f"Cookie: {cookie}", url], capture_output=True, check=True
            )
        results: Dict[str, List[Dict[str, float]]] = {name: [] for name in routes}
        for _ in range(ROUNDS):
            for name, url in routes.items():
                results[name].append(wrk(url, cookie, pids[name]))
        return results
    finally:
        for p in (lib, bare):
            p.terminate()
            p.wait(10)


def main() -> None:
    started = dt.datetime.now(dt.timezone.utc)
    load_before = os.getloadavg()
    inproc = in_process()
    web = http(inproc["token"], inproc["session"])
    load_after = os.getloadavg()

    lib, jose = summary(inproc["rounds"]["libauth"]), summary(inproc["rounds"]["joserfc"])
    ratio = lib[0] / jose[0]
    bare = summary([r["rps"] for r in web["bare"]])

    bare_cpu = summary([r["cpu_us"] for r in web["bare"]])

    def row(name: str, label: str) -> str:
        rps = summary([r["rps"] for r in web[name]])
        cpu = summary([r["cpu_us"] for r in web[name]])
        p50 = statistics.median(r["p50"] for r in web[name])
        p99 = statistics.median(r["p99"] for r in web[name])
        share = rps[0] / bare[0]
        target = "" if name == "bare" else " (target >= 80%)"
        return (
            f"| {label} | {rps[0]:,.0f} ({rps[1]:,.0f}–{rps[2]:,.0f}) | **{share:.0%}**{target} | "
            f"{cpu[0]:.0f} ({cpu[1]:.0f}–{cpu[2]:.0f}) | {bare_cpu[0] / cpu[0]:.0%} | {p50:.1f} / {p99:.1f} |"
        )

    import joserfc

    lines = [
        f"Python benchmark (`bench/python/run.sh`), {started:%Y-%m-%d %H:%M} UTC: Python {platform.python_version()}, "
        f"libauth release wheel, joserfc {joserfc.__version__}, uvicorn (1 worker) on core {SERVER_CORE}, "
        f"wrk (1 thread, {CONNECTIONS} connections, {DURATION} per round) on core {CLIENT_CORE}; "
        f"median of {ROUNDS} rounds (min–max). Load average {load_before[0]:.1f} before, {load_after[0]:.1f} after"
        + (" (other work shared the 2-core machine: the figures are lower bounds)." if load_before[0] > 1.0 else "."),
        "",
        "| in-process session read (JWT cookie) | ops/s, median (min–max) |",
        "|---|---|",
        f"| libauth `Auth.get_session` | {lib[0]:,.0f} ({lib[1]:,.0f}–{lib[2]:,.0f}) |",
        f"| joserfc `jwe.decrypt_compact` + `json.loads` | {jose[0]:,.0f} ({jose[1]:,.0f}–{jose[2]:,.0f}) |",
        f"| ratio | **{ratio:.1f}x** (target >= 10x) |",
        "",
        "The server CPU columns: the uvicorn process's CPU time per request (from /proc), and the bare route's "
        "÷ this row's (what the req/s ratio would be with the server as the only bottleneck; steadier than req/s "
        "on a shared machine).",
        "",
        "| HTTP under uvicorn | req/s, median (min–max) | vs bare | server CPU µs/req | vs bare, by CPU | p50 / p99 ms |",
        "|---|---|---|---|---|---|",
        row("bare", "bare Starlette route, same JSON"),
        row("session", "libauth `GET /auth/session`"),
        row("protected", "protected route (`request.state.session`)"),
    ]
    text = "\n".join(lines) + "\n"
    (HERE / "results.md").write_text(text)
    (HERE / "results.json").write_text(json.dumps({"in_process": inproc["rounds"], "http": web}, indent=1) + "\n")
    print(text)


if __name__ == "__main__":
    main()
