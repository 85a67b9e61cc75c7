#!/usr/bin/env bash
# Release builds of the Node addon and the Python wheel for Linux, one target
# at a time, with OpenSSL compiled in (feature `vendored-openssl`) and, for
# glibc, a glibc 2.17 floor (zig links against 2.17's symbols):
#
#   scripts/release-build.sh                      # all four targets and the sdist
#   scripts/release-build.sh linux-x64-gnu sdist  # some of them
#   ONLY=node scripts/release-build.sh …          # only the addon (or ONLY=python)
#
# Targets: linux-x64-gnu, linux-arm64-gnu, linux-x64-musl, linux-arm64-musl;
# `sdist` is the Python source distribution. Into dist/ (LIBAUTH_DIST):
#
#   libauth.<target>.node                      the addon, stripped
#   libauth-0.1.0-cp39-abi3-<tag>.whl          manylinux2014 or musllinux_1_2
#   libauth-0.1.0.tar.gz                       the sdist
#   npm/libauth, npm/libauth-<target>          the npm packages
#                                              (bindings/node/scripts/npm-packages.js),
#   *.tgz                                      and their `npm pack` tarballs
#
# Every artifact is checked (check_binary): it fails when one needs libssl or
# libcrypto, a glibc symbol newer than 2.17, or is for another CPU. Then it
# prints each artifact's size and each build's time. Installs what it uses:
# zig, cargo-zigbuild and maturin (pip, into a venv in the cargo target
# directory) and the Rust targets (rustup). Runs by hand or in a release job;
# scripts/cross-test.sh then loads the arm64 and musl builds.
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
ensure_rust

GLIBC_FLOOR=2.17
TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
export CARGO_TARGET_DIR=$TARGET_DIR
DIST=${LIBAUTH_DIST:-$ROOT/dist}
TOOLS=$TARGET_DIR/release-tools
ONLY=${ONLY:-}
mkdir -p "$DIST" "$TARGET_DIR/release-logs"
LOGS=$TARGET_DIR/release-logs
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' bindings/python/Cargo.toml | head -n 1)

# Release binaries without symbols (cargo's `strip`), for the addon and the
# wheel alike, so both builds share compiled dependencies.
export CARGO_PROFILE_RELEASE_STRIP=symbols

ensure_tools() {
  if [ ! -x "$TOOLS/bin/maturin" ] || [ ! -x "$TOOLS/bin/cargo-zigbuild" ] || ! "$TOOLS/bin/python" -m ziglang version >/dev/null 2>&1; then
    echo "== installing zig, cargo-zigbuild and maturin into $TOOLS (pip)"
    command -v python3 >/dev/null 2>&1 || apt_install python3 python3-venv || exit 1
    python3 -m venv "$TOOLS" || { apt_install python3-venv && python3 -m venv "$TOOLS"; } || exit 1
    "$TOOLS/bin/pip" install -q --disable-pip-version-check 'ziglang==0.17.1' 'cargo-zigbuild==0.24.1' 'maturin==1.16.0' ||
      { echo "pip install of the release tools failed" >&2; exit 1; }
  fi
  # cargo-zigbuild runs `python3 -m ziglang` when no `zig` is on PATH: the venv's.
  export PATH="$TOOLS/bin:$PATH"
  # The vendored OpenSSL build runs perl and make.
  command -v perl >/dev/null 2>&1 && command -v make >/dev/null 2>&1 || apt_install perl make || exit 1
  command -v readelf >/dev/null 2>&1 || apt_install binutils || exit 1
}

triple_of() { # target -> Rust target triple
  case $1 in
    linux-x64-gnu) echo x86_64-unknown-linux-gnu ;;
    linux-arm64-gnu) echo aarch64-unknown-linux-gnu ;;
    linux-x64-musl) echo x86_64-unknown-linux-musl ;;
    linux-arm64-musl) echo aarch64-unknown-linux-musl ;;
    *) return 1 ;;
  esac
}

# Seconds per build step, and problems, for the summary.
declare -A SECONDS_OF=()
FAILED=()

timed() { # label log command...
  local label=$1 log=$2 start
  shift 2
  start=$(date +%s)
  echo "== $label (log: $log)"
  if nice -n 10 "$@" >"$log" 2>&1; then
    SECONDS_OF[$label]=$(($(date +%s) - start))
    echo "   done in ${SECONDS_OF[$label]} s"
  else
    SECONDS_OF[$label]="failed after $(($(date +%s) - start))"
    tail -n 30 "$log"
    FAILED+=("$label")
    return 1
  fi
}

# The checks every release binary passes: no OpenSSL library in NEEDED (it is
# compiled in), the CPU of its target, and for glibc no symbol version above
# the floor; for musl no glibc symbol at all. readelf reads any CPU's ELF.
check_binary() { # file target
  local file=$1 target=$2 machine needed glibc bad=0
  machine=$(readelf -h "$file" | sed -n 's/^ *Machine: *//p')
  case $target in
    linux-x64-*) [ "$machine" = "Advanced Micro Devices X86-64" ] || { echo "   $file: machine '$machine', not x86-64" >&2; bad=1; } ;;
    linux-arm64-*) [ "$machine" = "AArch64" ] || { echo "   $file: machine '$machine', not AArch64" >&2; bad=1; } ;;
  esac
  needed=$(readelf -d "$file" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
  if grep -qE 'libssl|libcrypto' <<<"$needed"; then
    echo "   $file: links the system OpenSSL (NEEDED: $needed)" >&2
    bad=1
  fi
  glibc=$(readelf --dyn-syms -W "$file" | grep -oE 'GLIBC_[0-9]+(\.[0-9]+)*' | sed 's/GLIBC_//' | sort -uV | tail -n 1)
  case $target in
    *-gnu)
      if [ -n "$glibc" ] && [ "$(printf '%s\n%s\n' "$glibc" "$GLIBC_FLOOR" | sort -V | tail -n 1)" != "$GLIBC_FLOOR" ]; then
        echo "   $file: needs GLIBC_$glibc, above the $GLIBC_FLOOR floor" >&2
        bad=1
      fi ;;
    *-musl)
      if [ -n "$glibc" ]; then echo "   $file: a musl build with glibc symbols (GLIBC_$glibc)" >&2; bad=1; fi ;;
  esac
  echo "   check $(basename "$file"): $machine; NEEDED: ${needed:-none}; newest glibc symbol: ${glibc:-none}; $([ $bad = 0 ] && echo ok || echo FAILED)"
  return $bad
}

# The module inside a wheel, extracted to check it.
wheel_module() { # wheel dir
  python3 - "$1" "$2" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    names = [n for n in z.namelist() if n.endswith(".so")]
    assert len(names) == 1, names
    print(z.extract(names[0], sys.argv[2]))
EOF
}

ROWS=()
row() { ROWS+=("$(printf '| %s | %s | %s | %s |' "$@")"); }
size_of() { local b; b=$(stat -c %s "$1"); echo "$(awk -v b="$b" 'BEGIN { printf "%.1f MB", b / 1e6 }') ($b bytes)"; }

build_target() { # target
  local t=$1 triple rustflags="" compat zigtriple
  triple=$(triple_of "$t") || { echo "unknown target $t" >&2; FAILED+=("$t"); return 1; }
  if ! rustup target list --installed 2>/dev/null | grep -qx "$triple"; then
    rustup target add "$triple" >/dev/null 2>&1 ||
      { echo "rustup target add $triple failed (offline?): skipping $t" >&2; FAILED+=("$t: no Rust target"); return 1; }
  fi
  case $t in
    *-gnu) zigtriple=$triple.$GLIBC_FLOOR; compat=manylinux2014 ;;
    # Node and CPython load addons with dlopen: a musl addon links libc
    # dynamically (Rust's musl targets default to a static C runtime).
    *-musl) zigtriple=$triple; compat=musllinux_1_2; rustflags="-C target-feature=-crt-static" ;;
  esac

  if [ "$ONLY" != python ]; then
    if RUSTFLAGS=$rustflags timed "node $t" "$LOGS/node-$t.log" \
      cargo zigbuild --release --locked -p libauth-node --features vendored-openssl --target "$zigtriple"; then
      local addon=$DIST/libauth.$t.node
      cp "$TARGET_DIR/$triple/release/liblibauth_node.so" "$addon"
      check_binary "$addon" "$t" || FAILED+=("check $addon")
      row "$(basename "$addon")" "$(size_of "$addon")" "—" "${SECONDS_OF[node $t]} s"
    fi
  fi
  if [ "$ONLY" != node ]; then
    local before
    before=$(ls "$DIST"/*.whl 2>/dev/null)
    # Always an explicit tag: without one, or with `pypi` alone, maturin can
    # tag a musl wheel manylinux (and overwrite the glibc one).
    if RUSTFLAGS=$rustflags timed "wheel $t" "$LOGS/wheel-$t.log" \
      maturin build --release --locked --zig --target "$triple" --compatibility "$compat" \
      --features vendored-openssl -m bindings/python/Cargo.toml --out "$DIST"; then
      local wheel tmp module
      wheel=$(sed -n 's/.*Built wheel.* to \(.*\.whl\).*/\1/p' "$LOGS/wheel-$t.log" | tail -n 1)
      [ -f "$wheel" ] || wheel=$(comm -13 <(echo "$before") <(ls "$DIST"/*.whl) | tail -n 1)
      case $(basename "$wheel") in
        *-cp39-abi3-*"${compat/manylinux2014/manylinux2014_}"*) ;;
        *) echo "   $wheel: not the expected cp39-abi3 $compat wheel" >&2; FAILED+=("tag of $wheel") ;;
      esac
      tmp=$(mktemp -d)
      module=$(wheel_module "$wheel" "$tmp")
      check_binary "$module" "$t" || FAILED+=("check $wheel")
      row "$(basename "$wheel")" "$(size_of "$wheel")" "$(size_of "$module")" "${SECONDS_OF[wheel $t]} s"
      rm -rf "$tmp"
    fi
  fi
}

ensure_tools
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(linux-x64-gnu linux-arm64-gnu linux-x64-musl linux-arm64-musl sdist)
for t in "${targets[@]}"; do
  if [ "$t" = sdist ]; then
    [ "$ONLY" = node ] && continue
    if timed "sdist" "$LOGS/sdist.log" maturin sdist -m bindings/python/Cargo.toml --out "$DIST"; then
      row "libauth-$VERSION.tar.gz" "$(size_of "$DIST/libauth-$VERSION.tar.gz")" "—" "${SECONDS_OF[sdist]} s"
    fi
  else
    build_target "$t"
  fi
done

# The npm packages: the root and one per addon built (now or before).
if [ "$ONLY" != python ]; then
  ensure_node
  addons=()
  for f in "$DIST"/libauth.linux-*.node; do
    [ -f "$f" ] || continue
    t=${f##*/libauth.}
    addons+=("${t%.node}=$f")
  done
  if node bindings/node/scripts/npm-packages.js "$DIST/npm" "${addons[@]}" >"$LOGS/npm.log" 2>&1; then
    for dir in "$DIST"/npm/*/; do
      (cd "$dir" && npm pack --pack-destination "$DIST" --loglevel=error >/dev/null) || FAILED+=("npm pack $dir")
    done
    echo "== npm packages in $DIST/npm: $(cd "$DIST/npm" && echo *)"
  else
    cat "$LOGS/npm.log"
    FAILED+=("npm packages")
  fi
fi

echo
echo "| artifact | size (stripped) | module inside | build time |"
echo "|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
echo "(build times on $(nproc) CPUs, under nice; a build after another one reuses its compiled dependencies)"
if [ ${#FAILED[@]} -gt 0 ]; then
  echo "FAILED: ${FAILED[*]}" >&2
  exit 1
fi
echo "release-build: all artifacts built and checked"
