#!/usr/bin/env bash
# Email + password sign-ins over HTTP, libauth's `password` provider vs
# Better Auth (by hand, never in tests):
#
#   bench/passwords/run.sh
#
# Installs this folder's npm packages (Express, undici, Better Auth,
# better-sqlite3) from its lockfile, builds the Node addon in release, runs
# Better Auth's migrations on a fresh SQLite file, then bench.mjs (see its
# header): sign-ins per second with 100 concurrent clients (server on CPU
# $SERVER_CPU, default 0; load generator on $LOAD_CPU, default 1), and the
# latency of an unknown address against a wrong password for an existing
# one. Writes its section of bench/RESULTS.md.
#
# As root, everything runs at nice -20, so that other work on the machine
# (builds) disturbs it less; BENCH_NICE=0 turns that off. ROUNDS, SECONDS,
# WARMUP, CLIENTS, TIMING_N and TIMING_WARMUP override bench.mjs's defaults.
set -euo pipefail
cd "$(dirname "$0")"
source ../../scripts/lib.sh
ensure_rust
ensure_node
command -v taskset >/dev/null || apt_install util-linux || exit 1
[ "$(nproc)" -ge 2 ] || { echo "bench: needs 2 CPUs (server and load generator on different cores)" >&2; exit 1; }
npm_install "$PWD"
LIBAUTH_PROFILE=release LIBAUTH_OUT="$PWD/.libauth-release.node" nice -n 10 node ../../bindings/node/scripts/build.js
export LIBAUTH_NATIVE="$PWD/.libauth-release.node"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node migrate.mjs "$work/better-auth.db"

nice=${BENCH_NICE:--20}
nice -n "$nice" true 2>/dev/null || nice=0
load_before=$(bench_load)
body="$work/results.md"
{
  if awk -v l="${load_before%% *}" 'BEGIN { exit !(l > 1.0) }'; then
    echo "The machine was busy (load average $load_before before the run, nice $nice): the figures are low and noisy."
    echo
  fi
  WORK="$work" SERVER_CPU="${SERVER_CPU:-0}" LOAD_CPU="${LOAD_CPU:-1}" nice -n "$nice" taskset -c "${LOAD_CPU:-1}" node bench.mjs
} >"$body"
cat "$body"
write_results node-passwords "Node: email + password sign-ins, libauth vs Better Auth" bench/passwords/run.sh "$load_before" "$body"
