#!/usr/bin/env bash
# Regenerate core/tests/fixtures/totp-pyotp.json: TOTP codes made by an
# independent implementation (Python's pyotp), which core/tests/two_factor.rs
# checks libauth accepts (and refuses a step later or earlier than allowed).
#   scripts/gen-totp-fixtures.sh   (needs python3; installs pyotp in a venv)
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$(mktemp -d)
trap 'rm -rf "$venv"' EXIT
python3 -m venv "$venv"
"$venv/bin/pip" install -q 'pyotp==2.9.0'
"$venv/bin/python" - <<'PY' > core/tests/fixtures/totp-pyotp.json
import hashlib, json, pyotp
cases = []
for digest, digits, interval in [("sha1", 6, 30), ("sha1", 8, 30), ("sha256", 6, 30), ("sha512", 8, 60), ("sha1", 6, 15)]:
    for _ in range(4):
        secret = pyotp.random_base32(32)
        totp = pyotp.TOTP(secret, digits=digits, interval=interval, digest=getattr(hashlib, digest))
        for t in [59, 1111111109, 1700000000, 2000000000]:
            cases.append({"secret": secret, "digest": digest, "digits": digits, "interval": interval,
                          "time": t, "code": totp.at(t)})
print(json.dumps({"generatedBy": f"pyotp {pyotp.__version__ if hasattr(pyotp, '__version__') else '2.9.0'} (scripts/gen-totp-fixtures.sh)",
                  "cases": cases}, indent=1))
PY
echo "wrote core/tests/fixtures/totp-pyotp.json"
