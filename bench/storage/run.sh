#!/usr/bin/env bash
# The storage floor, before and after (by hand, never in tests):
#
#   bench/storage/run.sh [OLD_REV]     # default: 09d8225, the last commit before it
#
# Builds bench/engine's `storage-floor` binary in release twice, against
# this tree's engine and against OLD_REV's (a temporary worktree, with this
# tree's benchmark file copied in: it uses the public API only), and counts
# the instructions per call of a JWT read, a database-session read on
# SQLite, and a credentials sign-in (JWT and database sessions) under
# callgrind: the difference between 1000 and 3000 calls, divided by 2000,
# three rounds each (median, min-max). Instruction counts repeat on a busy
# machine where timings do not. Writes its section of bench/RESULTS.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
source scripts/lib.sh
ensure_rust
command -v valgrind >/dev/null || apt_install valgrind || exit 1
OLD=${1:-09d8225}
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
OLD_TREE=$(mktemp -d)
trap 'git -C "$ROOT" worktree remove --force "$OLD_TREE" >/dev/null 2>&1 || true' EXIT
git worktree add -q --detach "$OLD_TREE" "$OLD"
cp bench/engine/src/bin/storage-floor.rs "$OLD_TREE/bench/engine/src/bin/"
echo "== building against $(git rev-parse --short HEAD) and $OLD (release)"
cargo build -q --release -p libauth-bench --bin storage-floor
cp "$TARGET/release/storage-floor" "$TARGET/storage-floor-new"
(cd "$OLD_TREE" && CARGO_TARGET_DIR="$TARGET/storage-old" cargo build -q --release -p libauth-bench --bin storage-floor)
cp "$TARGET/storage-old/release/storage-floor" "$TARGET/storage-floor-old"
load_before=$(bench_load)
instructions() { # binary mode calls
  valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" "$2" "$3" 2>&1 | awk '/refs:/ { gsub(",", "", $NF); print $NF }'
}
per_call() { # binary mode -> "median min max"
  local runs=() r
  for r in 1 2 3; do
    runs+=($((($(instructions "$1" "$2" 3000) - $(instructions "$1" "$2" 1000)) / 2000)))
  done
  printf '%s\n' "${runs[@]}" | sort -n | awk '{ v[NR] = $1 } END { print v[2], v[1], v[3] }'
}
body=$(mktemp)
{
  echo "Instructions per call under callgrind (valgrind $(valgrind --version | sed 's/valgrind-//')), release builds; median of 3 rounds (min-max). Before: $OLD; after: $(git rev-parse --short HEAD)."
  echo
  echo "| call | before | after | after / before |"
  echo "|---|---|---|---|"
  for mode in jwt-read db-read sign-in db-sign-in; do
    read -r old old_min old_max < <(per_call "$TARGET/storage-floor-old" "$mode")
    read -r new new_min new_max < <(per_call "$TARGET/storage-floor-new" "$mode")
    case $mode in
      jwt-read) name='`get_session`, JWT (cache off)' ;;
      db-read) name='`get_session`, database session on SQLite' ;;
      sign-in) name='credentials sign-in, JWT' ;;
      db-sign-in) name='credentials sign-in, database session on SQLite' ;;
    esac
    ratio=$(awk -v a="$new" -v b="$old" 'BEGIN { printf "%.3f", a / b }')
    echo "| $name | $old ($old_min-$old_max) | $new ($new_min-$new_max) | $ratio |"
  done
} >"$body"
cat "$body"
write_results storage "Storage floor, before and after" bench/storage/run.sh "$load_before" "$body"
rm -f "$body"
