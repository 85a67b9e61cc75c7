#!/usr/bin/env bash
# What verifying a passkey sign-in costs, libauth vs @simplewebauthn/server
# (by hand, never in tests):
#
#   bench/passkeys/run.sh
#
# Builds the Node addon in release, runs bench.mjs once on one core (a
# software authenticator signs every assertion before the timing starts;
# see its header) and writes its section of bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
source ../scripts/lib.sh
ensure_rust
ensure_node
command -v taskset >/dev/null || apt_install util-linux || exit 1
[ -d node_modules/@simplewebauthn/server ] || npm install --no-audit --no-fund --loglevel=error
LIBAUTH_PROFILE=release LIBAUTH_OUT="$PWD/.libauth-release.node" node ../bindings/node/scripts/build.js
cargo build -q --release -p libauth-bench --bin passkey_verify
export LIBAUTH_NATIVE="$PWD/.libauth-release.node"
load_before=$(bench_load)
busy=""
if awk -v l="${load_before%% *}" 'BEGIN { exit !(l > 1.0) }'; then
  busy="The machine was busy (load average $load_before): the figures are high and noisy. "
fi
body=$(mktemp)
{
  [ -z "$busy" ] || { echo "$busy"; echo; }
  echo "Release addon, Node $(node --version); one process pinned to CPU ${BENCH_CPU:-1}; the same ES256 (P-256) passkey and the same signed assertions for both."
  echo
  taskset -c "${BENCH_CPU:-1}" node passkeys/bench.mjs
  echo
  echo "The engine alone, in-process (Rust, same core, same machine, same run):"
  echo
  echo "| passkey sign-in, ES256, in the engine (1000 per round) | µs/op, median of 5 (min–max) | ops/s |"
  echo "|---|---|---|"
  taskset -c "${BENCH_CPU:-1}" ../target/release/passkey_verify 2>/dev/null
  echo
  echo "libauth's row is a whole sign-in request through the Node binding (a Web"
  echo "\`Request\` in, a \`Response\` out), of which the verification is a part;"
  echo "@simplewebauthn/server's is the verification alone (Auth.js adds its own"
  echo "request handling, cookies and adapter calls around it). The CSRF row is the"
  echo "binding's and engine's cost for a request that does almost nothing."
} >"$body"
cat "$body"
write_results passkeys "Passkeys: verifying a sign-in, libauth vs @simplewebauthn/server" bench/passkeys/run.sh "$load_before" "$body"
rm -f "$body"
