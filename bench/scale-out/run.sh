#!/usr/bin/env bash
# What sharing state between server processes costs (by hand, never in
# tests):
#
#   bench/scale-out/run.sh
#
# Builds bench/engine's `scale-out` binary (release) and runs it once on one
# core: the limiter's check and count on the memory store, PostgreSQL and
# Redis, and database-session reads from PostgreSQL and from Redis secondary
# storage (median µs/op of 3 rounds of ~0.3 s, and their min-max). Needs
# PostgreSQL and Redis on 127.0.0.1 (started if down, as for the tests).
# Writes its section of bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
ensure_rust
ensure_postgres
ensure_redis
command -v taskset >/dev/null || { echo "taskset (util-linux) is needed" >&2; exit 1; }
cargo build -q --release -p libauth-bench --bin scale-out
load_before=$(bench_load)
rows=$(taskset -c 1 target/release/scale-out)
busy=""
if awk -v l="${load_before%% *}" 'BEGIN { exit !(l > 1.0) }'; then
  busy=" (machine busy, see the load average: figures are high and noisy)"
fi
body=$(mktemp)
{
  echo "Release build, one thread pinned to CPU 1; PostgreSQL and Redis on the same machine (loopback TCP, no TLS)."
  echo
  echo "| operation$busy | µs/op (median) | min–max of 3 rounds |"
  echo "|---|---|---|"
  echo "$rows"
  echo
  echo "The check before a password is tried reads the two counts (no write);"
  echo "a refused password adds one to each. PostgreSQL's \`rate_limits\` table is"
  echo "UNLOGGED (no WAL flush per count). A session read from Redis secondary"
  echo "storage is a Redis read plus the user's row from PostgreSQL."
} >"$body"
cat "$body"
write_results scale-out "Scale-out: shared rate-limit stores and Redis sessions" bench/scale-out/run.sh "$load_before" "$body"
rm -f "$body"
