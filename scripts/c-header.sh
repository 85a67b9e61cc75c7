#!/usr/bin/env bash
# Generate include/auth.h from ffi/src with the pinned cbindgen (installed
# with `cargo install --locked` when missing or of another version).
#   scripts/c-header.sh          write include/auth.h
#   scripts/c-header.sh --check  fail (exit 1, with the diff) when the
#                                committed header differs from a fresh one
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_rust
CBINDGEN_VERSION=0.29.0
if [ "$(cbindgen --version 2>/dev/null)" != "cbindgen $CBINDGEN_VERSION" ]; then
  echo "== installing cbindgen $CBINDGEN_VERSION"
  cargo install -q cbindgen --version "$CBINDGEN_VERSION" --locked
fi
fresh=$(mktemp)
trap 'rm -f "$fresh"' EXIT
cbindgen --quiet --config ffi/cbindgen.toml --crate libauth-ffi --output "$fresh" ffi
if [ "${1:-}" = "--check" ]; then
  if diff -u include/auth.h "$fresh"; then
    echo "include/auth.h is up to date"
  else
    echo "include/auth.h differs from a fresh generation: run scripts/c-header.sh and commit it" >&2
    exit 1
  fi
else
  cp "$fresh" include/auth.h
  echo "wrote include/auth.h"
fi
