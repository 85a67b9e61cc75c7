#!/usr/bin/env bash
# The C ABI's tests, from real C programs (scripts/test.sh runs this):
#   - include/auth.h matches a fresh cbindgen generation
#   - libauth.so exports only auth_* symbols
#   - the header compiles as C11 and C++17 with -Wall -Wextra -Werror -pedantic
#   - pkg-config --cflags --libs libauth (build tree) builds and runs a program
#   - the README's C example compiles and runs (under valgrind)
#   - test_auth: plain, under valgrind, and with -fsanitize=address,undefined
#   - test_threads: 8 threads x 10000 calls; smaller under valgrind and ASan
#   - the example server (examples/c-server) over HTTP (tests/c/test_server.py)
# Each line "<name>: N passed, N failed"; the last one is the total:
# "c: N passed, N failed". A missing tool is a failure, never a skip.
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${C_TEST_OUT:-$ROOT/target/c-tests}
mkdir -p "$OUT"
LIB=$ROOT/target/debug
P=0
F=0
line() { # name passed failed
  echo "$1: $2 passed, $3 failed"
  P=$((P + $2)); F=$((F + $3))
}
one() { # name exit_code
  if [ "$2" -eq 0 ]; then line "$1" 1 0; else line "$1" 0 1; fi
}
# Run a test program; its own "N passed, N failed" line, plus one failure
# when it exited non-zero without reporting one (a crash, a valgrind error).
program() { # name log command...
  local name=$1 log=$2 code p f
  shift 2
  "$@" >"$log" 2>&1
  code=$?
  read -r p f < <(awk '/: [0-9]+ passed, [0-9]+ failed$/ { p = $(NF-3); f = $(NF-1) } END { print p+0, f+0 }' "$log")
  if [ "$code" -ne 0 ]; then
    grep -E "FAIL|ERROR SUMMARY|runtime error|AddressSanitizer|LeakSanitizer|Invalid|definitely" "$log" | head -20
    [ "$f" -gt 0 ] || f=1
  fi
  line "$name" "$p" "$f"
}

cargo build -q -p libauth-ffi || { line "libauth build" 0 1; echo "c: $P passed, $F failed"; exit 1; }
scripts/c-header.sh --check >"$OUT/header.log" 2>&1
code=$?; [ "$code" -eq 0 ] || head -40 "$OUT/header.log"; one "header up to date" "$code"

# Every exported symbol is prefixed auth_.
others=$(nm -D --defined-only "$LIB/libauth.so" | awk '{ print $3 }' | grep -v '^auth_')
[ -z "$others" ] || echo "libauth.so exports symbols without the auth_ prefix: $others"
one "exports only auth_*" $([ -z "$others" ] && nm -D --defined-only "$LIB/libauth.so" | grep -q ' auth_new$'; echo $?)

CFLAGS=(-Wall -Wextra -Werror -pedantic -g -I"$ROOT/include")
LINK=(-L"$LIB" -Wl,-rpath,"$LIB" -lauth)
cc -std=c11 "${CFLAGS[@]}" tests/c/header_check.c -o "$OUT/header_c" "${LINK[@]}" && "$OUT/header_c" >/dev/null
one "header as C11" $?
c++ -std=c++17 -x c++ "${CFLAGS[@]}" tests/c/header_check.c -o "$OUT/header_cpp" "${LINK[@]}" && "$OUT/header_cpp" >/dev/null
one "header as C++17" $?
pc=$(scripts/c-build.sh) &&
  cc -std=c11 tests/c/header_check.c -o "$OUT/header_pc" $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs libauth) &&
  "$OUT/header_pc" >/dev/null
one "pkg-config libauth" $?
cc -std=c11 tests/c/header_check.c -o "$OUT/header_static" $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags libauth) \
  $(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=static_libs libauth) &&
  ! ldd "$OUT/header_static" | grep -q libauth && "$OUT/header_static" >/dev/null
one "static link (libauth.a)" $?

# The README's C example (its one ```c block), compiled with the flags above
# and run under valgrind as written: it prints the providers route's answer.
awk '/^```c$/ { on = 1; next } on && /^```$/ { exit } on' README.md >"$OUT/readme.c"
cc -std=c11 "${CFLAGS[@]}" "$OUT/readme.c" -o "$OUT/readme" "${LINK[@]}" &&
  AUTH_SECRET=readme-example-secret-0123456789abcdef valgrind -q --leak-check=full --errors-for-leak-kinds=definite \
    --error-exitcode=1 "$OUT/readme" >"$OUT/readme.log" 2>&1 && grep -q '"status":200' "$OUT/readme.log" &&
  grep -q 'signin/github' "$OUT/readme.log"
code=$?; [ "$code" -eq 0 ] || head -20 "$OUT/readme.log"; one "README's C example" "$code"

TFLAGS=(-std=c11 -Wall -Wextra -Werror -g -I"$ROOT/include")
TLIBS=("${LINK[@]}" -lcjson -lpthread)
for t in test_auth test_threads; do
  cc "${TFLAGS[@]}" tests/c/$t.c -o "$OUT/$t" "${TLIBS[@]}" || line "$t (build)" 0 1
  cc "${TFLAGS[@]}" -fsanitize=address,undefined -fno-omit-frame-pointer tests/c/$t.c -o "$OUT/$t-asan" "${TLIBS[@]}" ||
    line "$t-asan (build)" 0 1
done
command -v valgrind >/dev/null || line "valgrind (missing)" 0 1
VALGRIND=(valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=1)
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
program test_auth "$OUT/test_auth.log" "$OUT/test_auth"
program "test_auth (valgrind)" "$OUT/test_auth-valgrind.log" "${VALGRIND[@]}" "$OUT/test_auth"
program "test_auth (asan+ubsan)" "$OUT/test_auth-asan.log" "$OUT/test_auth-asan"
program "test_threads (8 x 10000)" "$OUT/test_threads.log" "$OUT/test_threads" 8 10000
program "test_threads (valgrind, 4 x 100)" "$OUT/test_threads-valgrind.log" "${VALGRIND[@]}" "$OUT/test_threads" 4 100
program "test_threads (asan+ubsan, 8 x 500)" "$OUT/test_threads-asan.log" "$OUT/test_threads-asan" 8 500

# The example server over HTTP (tests/c/test_server.py), with the TikTok
# simulator; the Auth.js cookies it must read are in tests/fixtures.
if make -s -C examples/c-server >"$OUT/c-server-build.log" 2>&1 && cargo build -q -p tiktok-sim; then
  program "c-server (HTTP)" "$OUT/c-server.log" python3 tests/c/test_server.py
else
  cat "$OUT/c-server-build.log"; line "c-server (build)" 0 1
fi
echo "c: $P passed, $F failed"
[ "$F" -eq 0 ]
