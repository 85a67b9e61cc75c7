#!/usr/bin/env python3
"""The C example server (examples/c-server) over real HTTP: csrf,
credentials sign-in (a C authorize hook), session, sign-out, the protected
page, TikTok sign-in against the local simulator (tests/tiktok-sim), and
session cookies minted by Auth.js (tests/fixtures/authjs-session-vectors.json,
written by tests/compat/make-vectors.mjs) read by the C server.

Run by tests/c/run.sh after `make -C examples/c-server`; prints
"c-server: N passed, N failed". Starts and stops its own processes."""

import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
with open(os.path.join(ROOT, "tests", "fixtures", "authjs-session-vectors.json"), encoding="utf-8") as f:
    FIXTURE = json.load(f)
# The server's secret is the one the fixture's cookies were encrypted with, so
# that it reads them; the vectors for the plain-HTTP cookie name with that
# secret (the large one as Auth.js's cookie chunks).
SECRET = FIXTURE["vectors"][0]["secret"]
VECTORS = [v for v in FIXTURE["vectors"] if v["salt"] == "authjs.session-token" and v["secret"] == SECRET]
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print(f"FAIL {what}", file=sys.stderr)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port, proc, what):
    for _ in range(100):
        if proc.poll() is not None:
            raise SystemExit(f"{what} exited with {proc.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"{what} did not listen on {port}")


class Client:
    """HTTP without redirects, with a cookie jar (name -> value)."""

    def __init__(self, port):
        self.port, self.jar = port, {}

    def request(self, method, url, body=None, headers=None):
        u = urllib.parse.urlsplit(url if "://" in url else f"http://127.0.0.1:{self.port}{url}")
        conn = http.client.HTTPConnection(u.hostname, u.port, timeout=10)
        h = dict(headers or {})
        if u.port == self.port and self.jar:
            h["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.jar.items())
        if isinstance(body, dict):
            body = urllib.parse.urlencode(body)
            h["Content-Type"] = "application/x-www-form-urlencoded"
        path = u.path + (f"?{u.query}" if u.query else "")
        conn.request(method, path, body=body, headers=h)
        res = conn.getresponse()
        text = res.read().decode()
        if u.port == self.port:
            for k, v in res.getheaders():
                if k.lower() == "set-cookie":
                    name, _, rest = v.partition("=")
                    value = rest.split(";")[0]
                    if value and "Max-Age=0" not in v and "Expires=Thu, 01 Jan 1970" not in v:
                        self.jar[name] = value
                    else:
                        self.jar.pop(name, None)
        conn.close()
        return res.status, {k.lower(): v for k, v in res.getheaders()}, text

    def csrf(self):
        status, _, body = self.request("GET", "/auth/csrf")
        check(status == 200, f"csrf status {status}")
        return json.loads(body)["csrfToken"]


def main():
    port, sim_port = free_port(), free_port()
    procs = []
    try:
        sim = subprocess.Popen(
            [
                f"{ROOT}/target/debug/tiktok-sim",
                "--quiet",
                "--port",
                str(sim_port),
                "--redirect-uri",
                f"http://127.0.0.1:{port}/auth/callback/tiktok",
            ],
            stdout=subprocess.DEVNULL,
        )
        procs.append(sim)
        # The example keeps users and passkeys in SQLite: a throwaway file.
        db = os.path.join(tempfile.mkdtemp(prefix="libauth-c-server-"), "auth.db")
        env = dict(
            os.environ, PORT=str(port), AUTH_SECRET=SECRET, TIKTOK_SIM_URL=f"http://127.0.0.1:{sim_port}", AUTH_DB=db
        )
        env.pop("AUTH_URL", None)
        server = subprocess.Popen([f"{ROOT}/examples/c-server/c-server"], env=env, stdout=subprocess.DEVNULL)
        procs.append(server)
        wait_for(sim_port, sim, "tiktok-sim")
        wait_for(port, server, "c-server")
        run(port)
    finally:
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        check(
            procs and procs[-1].returncode == 0, f"c-server exited cleanly ({procs[-1].returncode if procs else None})"
        )
    print(f"c-server: {passed} passed, {failed} failed")
    return 1 if failed else 0


def raw_status(port, host_header):
    """The status of GET /auth/csrf sent with this Host header, as is."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(f"GET /auth/csrf HTTP/1.1\r\nHost: {host_header}\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(4096):
            data += chunk
    return int(data.split(b" ", 2)[1]) if data.startswith(b"HTTP/") else None


def run(port):
    c = Client(port)
    # A Host header that makes no absolute URL is the client's error (400),
    # which the engine reports as AUTH_INVALID_JSON, not a server error.
    for host in ["", ":8080", "@", "/x", "a b"]:
        status = raw_status(port, host)
        check(status == 400, f"Host {host!r}: status {status}, want 400")
    # Not signed in: the home page says so, the protected page redirects.
    status, _, body = c.request("GET", "/")
    check(status == 200 and "Not signed in." in body, f"home signed out: {status}")
    status, h, _ = c.request("GET", "/dashboard")
    check(status == 302 and h.get("location", "").startswith("/auth/signin?callbackUrl="), f"protected: {status} {h}")
    # The sign-in page: the credentials form and a TikTok button.
    status, _, body = c.request("GET", "/auth/signin?callbackUrl=%2Fdashboard")
    check(status == 200 and 'name="username"' in body, "sign-in page has the credentials form")
    check("/auth/signin/tiktok" in body, "sign-in page has a TikTok button")
    # csrf.
    token = c.csrf()
    check(re.fullmatch(r"[0-9a-f]{64}", token) is not None and "authjs.csrf-token" in c.jar, "csrf token and cookie")
    # A wrong password: back to the sign-in page with the C hook's code.
    status, h, _ = c.request(
        "POST", "/auth/callback/credentials", {"csrfToken": token, "username": "demo", "password": "nope"}
    )
    loc = h.get("location", "")
    check(status == 302 and "error=CredentialsSignin" in loc and "code=invalid_login" in loc, f"refused: {loc}")
    check("authjs.session-token" not in c.jar, "no session after a refusal")
    # No csrf token: refused.
    status, h, _ = c.request("POST", "/auth/callback/credentials", {"username": "demo", "password": "demo"})
    check(status == 302 and "MissingCSRF" in h.get("location", ""), f"missing csrf: {h.get('location')}")
    # Credentials sign-in.
    status, h, _ = c.request(
        "POST",
        "/auth/callback/credentials",
        {"csrfToken": token, "username": "demo", "password": "demo", "callbackUrl": "/dashboard"},
    )
    check(status == 302 and h.get("location", "").endswith("/dashboard"), f"sign-in: {status} {h.get('location')}")
    check("authjs.session-token" in c.jar, "session cookie set")
    status, _, body = c.request("GET", "/auth/session")
    check(status == 200 and json.loads(body)["user"]["name"] == "Demo User", f"session route: {body}")
    status, _, body = c.request("GET", "/")
    check("Signed in as Demo User (demo@example.com)" in body, "home shows who is signed in")
    status, _, body = c.request("GET", "/dashboard")
    check(status == 200 and "Welcome, Demo User" in body, f"protected page signed in: {status}")
    # The benchmark's bare page (bench/c/http.sh): the same bytes, no session read.
    status, _, bare = Client(port).request("GET", "/bare")
    check(status == 200 and bare == body, f"bare page is the demo user's dashboard: {status} {bare[-200:]}")
    # Several Cookie headers (a client sends one; the server joins more with "; "),
    # and a URL too long for the server's stack buffer.
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest("GET", "/dashboard")
    conn.putheader("Cookie", "theme=dark")
    conn.putheader("Cookie", "; ".join(f"{k}={v}" for k, v in c.jar.items()))
    conn.putheader("Cookie", "lang=en")
    conn.endheaders()
    res = conn.getresponse()
    several = res.read().decode()
    conn.close()
    check(res.status == 200 and several == body, f"protected page with three Cookie headers: {res.status}")
    status, _, long_url = c.request("GET", "/dashboard?q=" + "x" * 3000)
    check(status == 200 and long_url == body, f"protected page at a 3 kB URL: {status}")
    # Sign-out.
    status, h, _ = c.request("POST", "/auth/signout", {"csrfToken": c.csrf()})
    check(status == 302 and "authjs.session-token" not in c.jar, f"sign-out: {status} {c.jar.keys()}")
    status, _, body = c.request("GET", "/auth/session")
    check(status == 200 and body.strip() == "null", f"no session after sign-out: {body}")
    status, _, _ = c.request("GET", "/dashboard")
    check(status == 302, "protected again after sign-out")

    # TikTok through the simulator: POST signin -> simulator -> callback.
    t = Client(port)
    status, h, _ = t.request("POST", "/auth/signin/tiktok", {"csrfToken": t.csrf(), "callbackUrl": "/dashboard"})
    authorize = h.get("location", "")
    check(status == 302 and "/v2/auth/authorize/" in authorize, f"to TikTok: {status} {authorize}")
    status, h, _ = t.request("GET", authorize)  # the simulator's user consents at once
    callback = h.get("location", "")
    check(status == 302 and "/auth/callback/tiktok?" in callback and "code=" in callback, f"from TikTok: {callback}")
    status, h, _ = t.request("GET", callback)
    check(status == 302 and h.get("location", "").endswith("/dashboard"), f"tiktok callback: {status} {h}")
    status, _, body = t.request("GET", "/auth/session")
    session = json.loads(body) if status == 200 else None
    check(bool(session and session.get("user", {}).get("name")), f"tiktok session: {body}")
    status, _, body = t.request("GET", "/dashboard")
    check(status == 200 and "Welcome," in body, "tiktok user sees the protected page")

    # Cookies minted by Auth.js, same secret: read by the C server, which
    # gives the session the fixture says they decode to.
    check(len(VECTORS) >= 4 and any("cookieChunks" in v for v in VECTORS), f"fixture vectors: {len(VECTORS)}")
    for v in VECTORS:
        what = v["description"]
        n = Client(port)
        for cookie in v.get("cookieChunks") or [{"name": "authjs.session-token", "value": v["token"]}]:
            n.jar[cookie["name"]] = cookie["value"]
        claims = v["decoded"]
        user = {
            to: claims[claim]
            for to, claim in (("name", "name"), ("email", "email"), ("image", "picture"))
            if claim in claims
        }
        status, _, body = n.request("GET", "/auth/session")
        session = json.loads(body) if status == 200 else None
        check(
            session is not None and session.get("user") == user,
            f"C server reads the Auth.js cookie ({what}): {body[-300:]}",
        )
        status, _, body = n.request("GET", "/")
        who = f"Signed in as {esc(claims['name'])} ({esc(claims['email'])})"
        check(status == 200 and who in body, f"C server's page for the Auth.js cookie ({what}): {body[-200:]}")


def esc(text):
    """examples/c-server's HTML escape."""
    return "".join(f"&#{ord(c)};" if c in "&<>\"'" else c for c in text)


if __name__ == "__main__":
    sys.exit(main())
