#!/usr/bin/env bash
# The C example server (examples/c-server) over HTTP: its protected page
# against its bare page, in one run (by hand, never in tests). Run through
#
#   bench/c/run.sh http [rounds]      (default 5; DURATION=5s CONNECTIONS=32)
#
# Builds libauth and the example server in release (the server into
# target/release/c-server, with the flags of examples/c-server/Makefile, so
# that the example's own debug build is left alone), starts it pinned to
# CPU $SERVER_CPU (default 0), signs in once as demo / demo with curl, and
# loads with wrk (1 thread, pinned to CPU $LOAD_CPU, default 1), sending the
# session cookie to both pages:
#   - /dashboard  the protected page: auth_get_session_by_cookie on every request
#   - /bare       the same HTML for the demo user, without reading the session
# After a warm-up, each round runs both rows, the order alternating between
# rounds. Per row: req/s, the server's CPU µs per request (utime + stime of
# the process, from /proc) and wrk's p50 / p99; medians over the rounds with
# (min-max); the ratios protected / bare are taken within each round. As
# root, the server and wrk run at nice -20 (BENCH_NICE=0 turns that off).
# Writes its section (c-http) of bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
ensure_rust
ensure_c_tools
ROUNDS=${1:-5}
DURATION=${DURATION:-5s}
CONNECTIONS=${CONNECTIONS:-32}
SERVER_CPU=${SERVER_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
command -v taskset >/dev/null || apt_install util-linux || exit 1
command -v wrk >/dev/null || apt_install wrk || exit 1
command -v curl >/dev/null || apt_install curl || exit 1
[ "$(nproc)" -ge 2 ] || { echo "bench: needs 2 CPUs (server and load generator on different cores)" >&2; exit 1; }
nice=${BENCH_NICE:--20}
nice -n "$nice" true 2>/dev/null || nice=0

pc=$(scripts/c-build.sh --release)
SERVER=target/release/c-server
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -pedantic -O2 -g -o "$SERVER" examples/c-server/server.c \
  $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs libauth libmicrohttpd libcjson) -lpthread

tmp=$(mktemp -d)
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
base=http://127.0.0.1:$port
load_before=$(bench_load)
env -u AUTH_URL -u AUTH_TIKTOK_ID -u AUTH_TIKTOK_SECRET -u TIKTOK_SIM_URL PORT="$port" \
  AUTH_SECRET="$(head -c 33 /dev/urandom | base64)" AUTH_DB="$tmp/auth.db" \
  nice -n "$nice" taskset -c "$SERVER_CPU" "$SERVER" >"$tmp/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "$base/auth/csrf" && break; sleep 0.1; done
curl -s -o /dev/null "$base/auth/csrf" || { cat "$tmp/server.log" >&2; echo "c-server did not start" >&2; exit 1; }

# Sign in once, as a browser does: csrf, then the credentials callback.
jar=$tmp/cookies
csrf=$(curl -s -c "$jar" -b "$jar" "$base/auth/csrf" | sed -E 's/.*"csrfToken":"([^"]+)".*/\1/')
curl -s -o /dev/null -c "$jar" -b "$jar" --data-urlencode "csrfToken=$csrf" -d username=demo -d password=demo \
  --data-urlencode callbackUrl=/dashboard "$base/auth/callback/credentials"
cookie=$(awk '$6 == "authjs.session-token" { print $6 "=" $7 }' "$jar")
[ -n "$cookie" ] || { echo "sign-in as demo / demo gave no session cookie" >&2; exit 1; }

# Both pages answer 200 with the same bytes for this cookie.
protected_body=$(curl -s -f -H "Cookie: $cookie" "$base/dashboard")
bare_body=$(curl -s -f -H "Cookie: $cookie" "$base/bare")
case $protected_body in *"Welcome, Demo User"*) ;; *) echo "/dashboard did not see the session: $protected_body" >&2; exit 1 ;; esac
[ "$protected_body" = "$bare_body" ] || { echo "/bare and /dashboard differ:" >&2; echo "$bare_body" >&2; exit 1; }

cpu_ticks() { sed 's/.*) //' "/proc/$server_pid/stat" | awk '{ print $12 + $13 }'; }
tck=$(getconf CLK_TCK)
# One wrk run against a page; prints "req/s cpu_us p50_ms p99_ms".
load() { # path duration
  local before after out
  before=$(cpu_ticks)
  out=$(nice -n "$nice" taskset -c "$LOAD_CPU" wrk -t1 -c"$CONNECTIONS" -d"$2" --latency -H "Cookie: $cookie" "$base$1") ||
    { echo "wrk failed on $1" >&2; return 1; }
  after=$(cpu_ticks)
  if grep -q "Non-2xx" <<<"$out"; then echo "non-2xx answers from $1:" >&2; echo "$out" >&2; return 1; fi
  awk -v cpu=$((after - before)) -v tck="$tck" '
    function ms(v) { if (v ~ /us$/) return v * 0.001; if (v ~ /ms$/) return v + 0; return v * 1000 }
    /requests in/ { n = $1 }
    /Requests\/sec:/ { rps = $2 }
    $1 == "50%" { p50 = ms($2) }
    $1 == "99%" { p99 = ms($2) }
    END { printf "%.0f %.2f %.3f %.3f\n", rps, cpu / tck * 1e6 / n, p50, p99 }' <<<"$out"
}
load /dashboard 1s >/dev/null # warm-up
load /bare 1s >/dev/null

rps_p=() rps_b=() cpu_p=() cpu_b=() p50_p=() p50_b=() p99_p=() p99_b=() ratio=() ratio_cpu=()
for r in $(seq "$ROUNDS"); do
  if [ $((r % 2)) -eq 1 ]; then order="dashboard bare"; else order="bare dashboard"; fi
  for page in $order; do
    figures=$(load "/$page" "$DURATION")
    read -r rps cpu p50 p99 <<<"$figures"
    if [ "$page" = dashboard ]; then
      rps_p+=("$rps") cpu_p+=("$cpu") p50_p+=("$p50") p99_p+=("$p99")
    else
      rps_b+=("$rps") cpu_b+=("$cpu") p50_b+=("$p50") p99_b+=("$p99")
    fi
  done
  ratio+=("$(awk -v p="${rps_p[-1]}" -v b="${rps_b[-1]}" 'BEGIN { printf "%.3f", p / b }')")
  ratio_cpu+=("$(awk -v p="${cpu_p[-1]}" -v b="${cpu_b[-1]}" 'BEGIN { printf "%.3f", b / p }')")
  echo "round $r: /dashboard ${rps_p[-1]} req/s, ${cpu_p[-1]} µs CPU/req; /bare ${rps_b[-1]} req/s, ${cpu_b[-1]} µs CPU/req; protected/bare ${ratio[-1]}x (by CPU ${ratio_cpu[-1]}x)"
done

# "median min max" of the arguments.
stats() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%s %s %s\n", m, v[1], v[NR] }'; }
# A table row: req/s and CPU as median (min-max), the latencies' medians.
row() { # label rps cpu p50 p99 (each "v1 v2 ..." over the rounds) vs vs_cpu
  local r c p50 p99
  r=$(stats $2) c=$(stats $3) p50=$(stats $4) p99=$(stats $5)
  awk -v label="$1" -v r="$r" -v c="$c" -v p50="${p50%% *}" -v p99="${p99%% *}" -v vs="$6" -v vsc="$7" '
    function commas(x, s) {
      s = sprintf("%.0f", x)
      while (match(s, /[0-9][0-9][0-9][0-9](,|$)/)) s = substr(s, 1, RSTART) "," substr(s, RSTART + 1)
      return s
    }
    BEGIN {
      split(r, rv, " "); split(c, cv, " ")
      printf "| %s | %s (%s–%s) | %s | %.1f (%.1f–%.1f) | %s | %.2f / %.2f |\n", label, commas(rv[1]), commas(rv[2]),
        commas(rv[3]), vs, cv[1], cv[2], cv[3], vsc, p50, p99
    }'
}
# The ratios' "median min max", two decimals each.
read -r q qlo qhi < <(stats "${ratio[@]}" | awk '{ printf "%.2f %.2f %.2f\n", $1, $2, $3 }')
read -r qc qclo qchi < <(stats "${ratio_cpu[@]}" | awk '{ printf "%.2f %.2f %.2f\n", $1, $2, $3 }')
busy=""
if awk -v l="${load_before%% *}" 'BEGIN { exit !(l > 1.0) }'; then
  busy=" Other work shared the machine (see the load average above): the figures are lower bounds and noisy."
fi
body=$tmp/results.md
{
  echo "examples/c-server (libmicrohttpd, thread pool of 4) built in release against libauth (release), JWT sessions, pinned to CPU $SERVER_CPU; wrk (1 thread, $CONNECTIONS connections, $DURATION per row and round) on CPU $LOAD_CPU; nice $nice; $ROUNDS rounds, rows alternating; median (min–max). Both pages get the same request with the same session cookie and answer the same bytes.$busy"
  echo
  echo "| C example server | req/s | vs bare (per round) | server CPU µs/req | vs bare, by CPU | p50 / p99 ms |"
  echo "|---|---|---|---|---|---|"
  row "bare page \`/bare\` (no session read)" "${rps_b[*]}" "${cpu_b[*]}" "${p50_b[*]}" "${p99_b[*]}" "1.00x" "1.00x"
  row "protected page \`/dashboard\` (\`auth_get_session_by_cookie\`)" "${rps_p[*]}" "${cpu_p[*]}" "${p50_p[*]}" "${p99_p[*]}" \
    "**${q}x** ($qlo–$qhi; target >= 0.9x)" "${qc}x ($qclo–$qchi)"
  echo
  echo "\"vs bare, by CPU\" is the bare page's server CPU per request ÷ the protected page's: what the req/s"
  echo "ratio would be with the server as the only bottleneck, steadier than req/s on a shared machine."
} >"$body"
cat "$body"
write_results c-http "C: the example server's protected page vs its bare page" "bench/c/run.sh http" "$load_before" "$body"
