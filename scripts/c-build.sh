#!/usr/bin/env bash
# Build the C library (target/<profile>/libauth.so and libauth.a) and the
# `libauth` command (target/<profile>/libauth), and write
# target/<profile>/pkgconfig/libauth.pc for it, so that
#   PKG_CONFIG_PATH=target/debug/pkgconfig pkg-config --cflags --libs libauth
# gives the flags to compile and link against the build tree (libauth.so;
# `pkg-config --variable=static_libs libauth` for libauth.a and its deps).
#   scripts/c-build.sh            debug build
#   scripts/c-build.sh --release  release build
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_rust
profile=debug
# libauth-cli: the `libauth` command (target/<profile>/libauth) beside the library.
if [ "${1:-}" = "--release" ]; then profile=release; cargo build -q --release -p libauth-ffi -p libauth-cli; else cargo build -q -p libauth-ffi -p libauth-cli; fi
ROOT=$PWD
libdir=${CARGO_TARGET_DIR:-$ROOT/target}/$profile
version=$(awk -F'"' '/^version/ { print $2; exit }' ffi/Cargo.toml)
mkdir -p "$libdir/pkgconfig"
cat >"$libdir/pkgconfig/libauth.pc" <<PC
# libauth from the build tree ($profile), written by scripts/c-build.sh.
includedir=$ROOT/include
libdir=$libdir
static_libs=\${libdir}/libauth.a -lssl -lcrypto -lpthread -ldl -lm

Name: libauth
Description: Sign-in and sessions (Auth.js v5 compatible) for C and C++ web servers
Version: $version
Cflags: -I\${includedir}
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lauth
Libs.private: -lssl -lcrypto -lpthread -ldl -lm
PC
echo "$libdir/pkgconfig/libauth.pc"
