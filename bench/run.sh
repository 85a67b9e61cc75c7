#!/usr/bin/env bash
# Build the addon in release and run the benchmark (by hand; results go in the README).
set -euo pipefail
cd "$(dirname "$0")"
source ../scripts/lib.sh
ensure_rust
ensure_node
[ -d node_modules ] || npm install --no-audit --no-fund --loglevel=error
LIBAUTH_PROFILE=release LIBAUTH_OUT="$PWD/.libauth-release.node" node ../bindings/node/scripts/build.js
# `./bench/run.sh` runs bench.mjs; `./bench/run.sh hooks` runs hooks.mjs
# (sign-ins with an authorize that awaits I/O, libauth vs Auth.js).
LIBAUTH_NATIVE="$PWD/.libauth-release.node" node "${1:-bench}.mjs"
