#!/usr/bin/env bash
# The engine alone, in-process (by hand, never in tests):
#
#   bench/engine/run.sh
#
# Builds libauth-bench in release, runs it pinned to CPU 1 (each row: 5
# rounds of ~0.4 s after a warm-up; median µs/op and the rounds' min-max),
# then counts the instructions of one get_session call under callgrind, with
# the session cache (a repeated cookie: hits) and without it (the
# difference between 1000 and 3000 calls, divided by 2000: repeatable
# whatever else the machine is doing). Honours CARGO_TARGET_DIR. Writes its section of
# bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
ensure_rust
command -v taskset >/dev/null || { echo "taskset (util-linux) is needed" >&2; exit 1; }
command -v valgrind >/dev/null || apt_install valgrind || exit 1
cargo build -q --release -p libauth-bench
BIN=${CARGO_TARGET_DIR:-target}/release/libauth-bench
load_before=$(bench_load)
out=$(taskset -c 1 "$BIN")
instructions() { # mode calls
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BIN" "$1" "$2" 2>&1 |
    awk '/refs:/ { gsub(",", "", $NF); print $NF }'
}
per_call() { # mode
  local few many
  few=$(instructions "$1" 1000)
  many=$(instructions "$1" 3000)
  echo $(((many - few) / 2000))
}
per_call=$(per_call --calls)
per_call_off=$(per_call --calls-cache-off)
per_call_first=$(per_call --calls-first-sight)
per_call_first_off=$(per_call --calls-first-sight-cache-off)
per_call_check=$(per_call --calls-sign-out-check)
per_call_check_off=$(per_call --calls-sign-out-check-off)
body=$(mktemp)
{
  echo "Release build, pinned to CPU 1; each row the median of 5 rounds (min-max)."
  echo
  echo "| operation (in-process, one thread) | µs/op | ops/s |"
  echo "|---|---|---|"
  echo "$out" | awk '/µs\/op/ {
    for (i = 1; i <= NF; i++) { if ($(i) == "ops/s") ops = $(i-1); if ($(i) == "µs/op") { us = $(i-1); spread = $(i+1) } }
    name = $0; sub(/ +[0-9]+ ops\/s.*/, "", name)
    gsub(/[()]/, "", spread)
    printf "| %s | %s (%s) | %s |\n", name, us, spread, ops }'
  echo
  echo "$out" | awk '/first sight:/ { sub(/^ *first sight: */, ""); print "The first-sight row (cache on) made " $0 ": a cookie of the 20000 read again before its entry was evicted."; print "" }'
  echo "\`get_session\` (JWT, no callbacks) executes, per call (callgrind, valgrind $(valgrind --version | sed 's/valgrind-//')):"
  echo
  echo "| instructions per \`get_session\` call | session cache on (default) | \`session.cache: false\` |"
  echo "|---|---|---|"
  echo "| the same cookie on every call | $per_call (hits) | $per_call_off |"
  echo "| a different cookie on every call (first sight) | $per_call_first (misses) | $per_call_first_off |"
  echo
  echo "With a SQLite adapter and JWT sessions, the sign-out check (\`session.revocationCheck\`, on by default there; the user's sign-out time read once, then remembered), the same cookie on every call:"
  echo
  echo "| instructions per \`get_session_view_by_cookie\` call | check on | \`revocationCheck: false\` | on / off |"
  echo "|---|---|---|---|"
  echo "| JWT + SQLite adapter | $per_call_check | $per_call_check_off | $(awk -v a="$per_call_check" -v b="$per_call_check_off" 'BEGIN { printf "%.2fx", a / b }') |"
} >"$body"
cat "$body"
write_results engine "Engine, in-process" bench/engine/run.sh "$load_before" "$body"
rm -f "$body"
