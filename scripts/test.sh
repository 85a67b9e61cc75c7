#!/usr/bin/env bash
# Run every test of libauth, in every language, on a fresh machine.
# Installs what it needs (npm packages, aiosmtpd), starts what it needs
# (PostgreSQL), and ends with
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

# A skipped test counts as failed here: this script installs and starts
# everything the tests need, so a skip means a set-up step silently failed.
node_counts() { # log -> "passed failed"
  awk '/^# pass / { p += $3 } /^# fail / { f += $3 } /^# skipped / { f += $3 } END { print p+0, f+0 }' "$1"
}

ensure_rust
ensure_node
ensure_postgres
ensure_pip_package aiosmtpd 'aiosmtpd==1.4.6'

# The OIDC tests start a real OpenID Provider (oidc-provider, from npm).
npm_install tests/oidc-op

echo "== Rust: cargo test --workspace"
# A hung test must not eat CI's 90 minutes.
timeout 1500 cargo test --workspace --all-targets 2>&1 | tee "$LOG_DIR/cargo.log"
code=${PIPESTATUS[0]}
# Doc tests run separately (--all-targets skips them).
cargo test --workspace --doc 2>&1 | tee "$LOG_DIR/cargo-doc.log"
doc_code=${PIPESTATUS[0]}
read -r p f < <(cargo_counts "$LOG_DIR/cargo.log")
read -r dp df < <(cargo_counts "$LOG_DIR/cargo-doc.log")
record "rust" $((code | doc_code)) $((p + dp)) $((f + df))

echo "== Auth.js interop: node --test tests/compat"
npm_install tests/compat
# `cargo test` leaves examples only under hashed names; build the one the
# interop tests run so target/debug/examples/session_cookie exists.
cargo build -q -p libauth-core --example session_cookie || { echo "building the session_cookie example failed" >&2; exit 1; }
(cd tests/compat && LIBAUTH_SESSION_COOKIE_CMD="$ROOT/target/debug/examples/session_cookie" node --test) 2>&1 | tee "$LOG_DIR/compat.log"
code=${PIPESTATUS[0]}
read -r p f < <(node_counts "$LOG_DIR/compat.log")
record "authjs-interop" "$code" "$p" "$f"

echo "== Node binding: node --test bindings/node/test"
ensure_chromium || true                      # the browser tests skip without it
npm_install bindings/node                     # npm ci (its install script builds the addon)
node bindings/node/scripts/build.js           # rebuild the addon if the Rust changed since
npm_install examples/express
npm_install examples/solid-start              # SolidStart 2 + Node 24 for its build
(cd examples/solid-start && npm run build --silent >"$LOG_DIR/solid-start-build.log" 2>&1) ||
  { echo "SolidStart build failed (see $LOG_DIR/solid-start-build.log)"; rm -rf examples/solid-start/.output; record "solid-start-build" 1 0 1; }
(cd bindings/node && node --test --test-concurrency=1 test/) 2>&1 | tee "$LOG_DIR/node.log"
code=${PIPESTATUS[0]}
read -r p f < <(node_counts "$LOG_DIR/node.log")
record "node" "$code" "$p" "$f"

echo
if [ ${#STEP_ERRORS[@]} -gt 0 ]; then echo "failed steps: ${STEP_ERRORS[*]}"; fi
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
