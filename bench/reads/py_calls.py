"""N calls of ``Auth.get_session(url, cookie)`` with BENCH_COOKIE (the
engine bench's signed-in cookie, same secret): run by bench/reads/reads.py
under callgrind, twice (N and 3N), for instructions per call."""

import os
import sys

import libauth

auth = libauth.Auth(
    {"secret": os.environ["AUTH_SECRET"], "providers": [libauth.Credentials(authorize=lambda c, r: None)]}
)
url, cookie = "http://localhost:3000/dashboard", os.environ["BENCH_COOKIE"]
assert auth.get_session(url, cookie) is not None, "the cookie reads"
get = auth.get_session
for _ in range(int(sys.argv[1])):
    get(url, cookie)
