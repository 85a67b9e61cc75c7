#!/usr/bin/env bash
# auth_get_session from C against the engine's own in-process figure, in one
# run (by hand, never in tests):
#
#   bench/c/run.sh [rounds]      (default 5)
#   bench/c/run.sh http [rounds] the example server's protected page vs its
#                                bare page over HTTP (bench/c/http.sh, its
#                                own section of bench/RESULTS.md)
#
# Without `http`: builds libauth (release) and bench/engine (release), then per round:
# bench/engine pinned to CPU 0 (its "get_session (JWT, no callbacks)" µs/op)
# and to CPUs 0,1 (its "all cores" ops/s), and bench/c/bench.c the same way
# (1 thread on CPU 0, 2 threads on CPUs 0,1), and both again for the lean
# read (`get_session_by_cookie`, `auth_get_session_by_cookie`, 1 thread).
# Writes the medians with their
# spread (min-max over the rounds) to its section of bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ "${1:-}" = http ]; then shift; exec bench/c/http.sh "$@"; fi
source scripts/lib.sh
ensure_rust
ROUNDS=${1:-5}
# bench/engine builds its engine without trustHost: trust the Host here, as
# bench.c does with `trustHost: true`.
export AUTH_TRUST_HOST=true
scripts/c-build.sh --release >/dev/null
cargo build -q --release -p libauth-bench
OUT=target/release/bench-c
cc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude bench/c/bench.c -o "$OUT" -Ltarget/release \
  -Wl,-rpath,"$PWD/target/release" -lauth -lpthread
command -v taskset >/dev/null || { echo "taskset (util-linux) is needed" >&2; exit 1; }
load_before=$(bench_load)
rust1=() rust2=() c1=() c2=() rustlean=() clean=()
for r in $(seq "$ROUNDS"); do
  rust1+=("$(taskset -c 0 target/release/libauth-bench | awk '/^get_session \(JWT, no callbacks\)/ { for (i = 1; i <= NF; i++) if ($(i) == "µs/op") print $(i-1) }')")
  rust2+=("$(taskset -c 0,1 target/release/libauth-bench | awk '/all cores/ { for (i = 1; i <= NF; i++) if ($(i) == "ops/s") print $(i-1) }')")
  c1+=("$(taskset -c 0 "$OUT" 1 | awk '{ print $(NF-1) }')")
  c2+=("$(taskset -c 0,1 "$OUT" 2 | awk '{ print $(NF-1) }')")
  rustlean+=("$(taskset -c 0 target/release/libauth-bench get_session_by_cookie | awk '/^get_session_by_cookie/ { for (i = 1; i <= NF; i++) if ($(i) == "µs/op") print $(i-1) }')")
  clean+=("$(taskset -c 0 "$OUT" lean | awk '{ print $(NF-1) }')")
  echo "round $r: rust ${rust1[-1]} µs/op, ${rust2[-1]} ops/s (2 threads); C ${c1[-1]} µs/op, ${c2[-1]} ops/s (2 threads)"
done
stats() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s\n", m, v[1], v[NR] }'; }
read -r r1 r1lo r1hi < <(stats "${rust1[@]}")
read -r k1 k1lo k1hi < <(stats "${c1[@]}")
read -r r2 r2lo r2hi < <(stats "${rust2[@]}")
read -r k2 k2lo k2hi < <(stats "${c2[@]}")
read -r rl rllo rlhi < <(stats "${rustlean[@]}")
read -r kl kllo klhi < <(stats "${clean[@]}")
ratiol=$(awk -v c="$kl" -v r="$rl" 'BEGIN { printf "%.2f", c / r }')
ratio1=$(awk -v c="$k1" -v r="$r1" 'BEGIN { printf "%.2f", c / r }')
ratio2=$(awk -v c="$k2" -v r="$r2" 'BEGIN { printf "%.2f", r / c }')
busy=""
if awk -v l="${load_before%% *}" 'BEGIN { exit !(l > 1.0) }'; then
  busy=" — machine busy (see the load average above): absolute figures are low and noisy"
fi
body=$(mktemp)
{
  echo "Release build; JWT strategy, no session hooks; median of $ROUNDS rounds, (min-max) spread; pinned with taskset."
  echo
  echo "| get_session (JWT)$busy | Rust (bench/engine) | C (bench/c) | C cost / Rust cost |"
  echo "|---|---|---|---|"
  echo "| 1 thread, µs/op (CPU 0) | $r1 ($r1lo-$r1hi) | $k1 ($k1lo-$k1hi) | ${ratio1}x |"
  echo "| 2 threads, ops/s (CPUs 0,1) | $r2 ($r2lo-$r2hi) | $k2 ($k2lo-$k2hi) | ${ratio2}x |"
  echo "| 1 thread, µs/op (CPU 0): \`get_session_by_cookie\` / \`auth_get_session_by_cookie\` | $rl ($rllo-$rlhi) | $kl ($kllo-$klhi) | ${ratiol}x |"
  echo
  echo "The C call parses the request JSON, reads the session and serializes it"
  echo "into a returned buffer; the Rust call takes a built \`AuthRequest\` and"
  echo "returns a \`Session\`. The last row: the URL and the Cookie header in,"
  echo "no request JSON (the Rust call the bindings make, and the C call that"
  echo "makes it). Target: C cost at most 1.5x the Rust cost (1.2x for the"
  echo "lean call; bench/reads/run.sh counts its instructions)."
} >"$body"
cat "$body"
write_results c "C: \`auth_get_session\` vs the Rust call" bench/c/run.sh "$load_before" "$body"
rm -f "$body"
