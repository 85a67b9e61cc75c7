#!/usr/bin/env bash
# Build the addon and the engine benchmark in release and run a benchmark
# (by hand, never in tests).
#
#   ./bench/run.sh          bench.mjs: getSession in-process, HTTP req/s vs bare
#                           routes (Express and node:http), RSS; writes
#                           results/http.md
#   ./bench/run.sh profile  profile.mjs for every HTTP row: server CPU per
#                           request split by layer; writes results/profile.md
#   ./bench/run.sh instructions
#                           instructions.mjs: instructions per request under
#                           callgrind (repeatable); writes results/instructions.md
#   ./bench/run.sh hooks    hooks.mjs: sign-ins with an authorize awaiting I/O,
#                           libauth vs Auth.js; writes results/hooks.md
#
# Each writes its section of bench/RESULTS.md (results/*.md are the
# benchmarks' own output, not committed).
#
# Servers run on CPU $SERVER_CPU (default 0), the load generator on
# $LOAD_CPU (default 1). As root, both run at nice -20, so that other work on
# the machine (builds) disturbs them less; BENCH_NICE=0 turns that off.
set -euo pipefail
cd "$(dirname "$0")"
source ../scripts/lib.sh
ensure_rust
ensure_node
command -v taskset >/dev/null || apt_install util-linux || exit 1
[ "$(nproc)" -ge 2 ] || { echo "bench: needs 2 CPUs (server and load generator on different cores)" >&2; exit 1; }
[ -d node_modules ] || npm install --no-audit --no-fund --loglevel=error
LIBAUTH_PROFILE=release LIBAUTH_OUT="$PWD/.libauth-release.node" node ../bindings/node/scripts/build.js
export LIBAUTH_NATIVE="$PWD/.libauth-release.node"
mkdir -p results
load_before=$(bench_load)
# Copy results/<name>.md into its section of bench/RESULTS.md, as written.
quote() { # name heading [mode]
  write_results "node-$1" "$2" "bench/run.sh${3:+ $3}" "$load_before" "results/$1.md"
}

case "${1:-bench}" in
  bench)
    (cd .. && cargo build -q --release -p libauth-bench)
    nice=${BENCH_NICE:--20}
    nice -n "$nice" true 2>/dev/null || nice=0
    BENCH_NICE=$nice ENGINE_BENCH="$(cd .. && pwd)/target/release/libauth-bench" nice -n "$nice" taskset -c "${LOAD_CPU:-1}" node bench.mjs
    quote http "Node: \`getSession\` and HTTP, libauth vs Auth.js"
    ;;
  profile)
    # Where a request's server CPU goes, per layer, for each HTTP row.
    nice=${BENCH_NICE:--20}
    nice -n "$nice" true 2>/dev/null || nice=0
    {
      echo "Server CPU per request split by layer (\`bench/profile.mjs\`: \`node --cpu-prof\` on the server pinned to CPU ${SERVER_CPU:-0}, autocannon on CPU ${LOAD_CPU:-1}, nice $nice, 8 s per route after a 2 s warm-up; $(date -u '+%Y-%m-%d %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg))."
      echo
      echo '```text'
      for route in "bare /bare" "libauth /auth/session" "libauth /protected" "http-bare /bare" "http-libauth /auth/session" "http-libauth /protected"; do
        # shellcheck disable=SC2086
        nice -n "$nice" taskset -c "${LOAD_CPU:-1}" node profile.mjs $route 8
      done
      echo '```'
    } > results/profile.md
    cat results/profile.md
    quote profile "Node: server CPU per request by layer" profile
    ;;
  instructions)
    command -v valgrind >/dev/null || apt_install valgrind || exit 1
    node instructions.mjs
    quote instructions "Node: instructions per request" instructions
    ;;
  hooks)
    node hooks.mjs
    quote hooks "Node: sign-ins with hooks that await I/O" hooks
    ;;
  *) echo "usage: $0 [bench|profile|instructions|hooks]" >&2; exit 1 ;;
esac
