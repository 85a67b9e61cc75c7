#!/usr/bin/env bash
# Regenerate core/tests/fixtures/password-hashes.json: password hashes made
# by the libraries whose users libauth accepts without a password reset
# (Python's bcrypt, Django's make_password, argon2-cffi, Better Auth's
# hashPassword), each with the password it was made from.
#
# Run by hand, never by CI (CI reads the committed JSON and needs none of
# these tools): needs python3 (with venv) and Node with npm, and network
# access to PyPI and npm. Everything is installed into a temporary
# directory that is removed afterwards.
#
#   scripts/gen-password-fixtures.sh            # writes the fixture file
#   scripts/gen-password-fixtures.sh out.json   # writes elsewhere
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
out="${1:-$root/core/tests/fixtures/password-hashes.json}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet bcrypt django argon2-cffi
(cd "$work" && npm init -y >/dev/null && npm install --silent better-auth >/dev/null)

# The passwords: ASCII, non-ASCII, one that NFKC changes (full-width
# letters), one that is 72 bytes long (bcrypt's limit).
cat >"$work/passwords.json" <<'EOF'
["correct horse battery staple", "Pässwörd-ünïcödé", "Ｐａｓｓｗｏｒｄ１", "пароль密码🔑",
 "0123456789012345678901234567890123456789012345678901234567890123456789AB"]
EOF

# Better Auth: its exported hashPassword (scrypt N=16384 r=16 p=1, 64-byte
# key, the salt's hex string as the salt, NFKC-normalised password).
cat >"$work/ba.mjs" <<'EOF'
import { readFileSync } from "node:fs";
import { hashPassword } from "better-auth/crypto";
const version = JSON.parse(readFileSync("node_modules/better-auth/package.json", "utf8")).version;
const passwords = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = [];
for (const password of passwords) {
  out.push({ format: "better-auth-scrypt", library: `better-auth ${version} hashPassword`, password, hash: await hashPassword(password) });
}
console.log(JSON.stringify(out));
EOF
(cd "$work" && node ba.mjs passwords.json) >"$work/ba.json"

cat >"$work/py.py" <<'EOF'
import importlib.metadata, json, sys
import argon2, bcrypt, django
from argon2 import low_level
from django.conf import settings

settings.configure(PASSWORD_HASHERS=["django.contrib.auth.hashers.PBKDF2PasswordHasher"])
django.setup()
from django.contrib.auth.hashers import PBKDF2PasswordHasher, make_password

passwords = json.load(open(sys.argv[1]))
ba = json.load(open(sys.argv[2]))
out = []
def add(fmt, lib, pw, h):
    out.append({"format": fmt, "library": lib, "password": pw, "hash": h})

bv = f"bcrypt {bcrypt.__version__} (Python)"
for pw in passwords:
    # Cost 4 (the least) keeps the tests fast; one at the library's default.
    add("bcrypt-2b", bv, pw, bcrypt.hashpw(pw.encode(), bcrypt.gensalt(rounds=4)).decode())
    add("bcrypt-2a", bv, pw, bcrypt.hashpw(pw.encode(), bcrypt.gensalt(rounds=4, prefix=b"2a")).decode())
add("bcrypt-2b", bv + ", default cost", passwords[0], bcrypt.hashpw(passwords[0].encode(), bcrypt.gensalt()).decode())
# $2y$ (PHP's name for the same algorithm as $2b$): Python's bcrypt makes
# no $2y$ hash but verifies one; this is a $2b$ hash relabelled, checked
# here by the library before it is written.
h = bcrypt.hashpw(passwords[1].encode(), bcrypt.gensalt(rounds=4)).decode()
y = "$2y$" + h[4:]
assert bcrypt.checkpw(passwords[1].encode(), y.encode())
add("bcrypt-2y", bv + " ($2b$ relabelled $2y$, verified by the library)", passwords[1], y)

dv = f"Django {django.get_version()}"
hasher = PBKDF2PasswordHasher()
for pw in passwords:
    # Few iterations keep the tests fast (the hash carries its count);
    # one with Django's own default through make_password.
    add("django-pbkdf2-sha256", dv + " PBKDF2PasswordHasher, 1000 iterations", pw, hasher.encode(pw, hasher.salt(), iterations=1000))
add("django-pbkdf2-sha256", dv + " make_password (default iterations)", passwords[0], make_password(passwords[0]))

av = f"argon2-cffi {importlib.metadata.version('argon2-cffi')}"
small = dict(time_cost=1, memory_cost=64, parallelism=1, hash_len=32, salt_len=16)
for pw in passwords:
    add("argon2id", av + " PasswordHasher(t=1, m=64, p=1)", pw, argon2.PasswordHasher(**small).hash(pw))
for name, t in (("argon2i", low_level.Type.I), ("argon2d", low_level.Type.D)):
    for pw in passwords[:2]:
        h = low_level.hash_secret(pw.encode(), b"somesaltsomesalt", time_cost=2, memory_cost=64, parallelism=2, hash_len=32, type=t).decode()
        add(name, av + f" low_level.hash_secret(t=2, m=64, p=2, {name})", pw, h)
# Argon2 version 0x10 (1.0), written with `v=16` and, as the first
# implementations wrote it, with no `v=` at all (which means 0x10);
# argon2-cffi verifies both before they are written.
for pw in passwords[:2]:
    h = low_level.hash_secret(pw.encode(), b"somesaltsomesalt", time_cost=1, memory_cost=64, parallelism=1, hash_len=32, type=low_level.Type.ID, version=0x10).decode()
    assert "$v=16$" in h
    bare = h.replace("$v=16$", "$", 1)
    for stored in (h, bare):
        assert low_level.verify_secret(stored.encode(), pw.encode(), low_level.Type.ID)
    add("argon2id-v16", av + " low_level.hash_secret(version=0x10)", pw, h)
    add("argon2id-v16", av + " low_level.hash_secret(version=0x10), the v=16 field removed", pw, bare)
add("argon2id", av + " PasswordHasher() defaults", passwords[0], argon2.PasswordHasher().hash(passwords[0]))

out.extend(ba)
json.dump({
    "generatedBy": "scripts/gen-password-fixtures.sh",
    "note": "Hashes made by the real libraries; each verifies with its password and with no other.",
    "hashes": out,
}, sys.stdout, ensure_ascii=False, indent=2)
print()
EOF
"$work/venv/bin/python" "$work/py.py" "$work/passwords.json" "$work/ba.json" >"$work/out.json"
mv "$work/out.json" "$out"
echo "wrote $out"
