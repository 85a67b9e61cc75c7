# Shared set-up helpers for scripts/*.sh: install what is missing, loudly.

ensure_rust() {
  if ! command -v cargo >/dev/null 2>&1 && [ -f "$HOME/.cargo/env" ]; then source "$HOME/.cargo/env"; fi
  command -v cargo >/dev/null 2>&1 || { echo "cargo not found: install Rust (https://rustup.rs)" >&2; exit 1; }
}

apt_install() {
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    [ -n "${APT_UPDATED:-}" ] || { apt-get update -qq >/dev/null; APT_UPDATED=1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
  else
    echo "missing: $* (install them with your package manager)" >&2; return 1
  fi
}

ensure_node() {
  command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 || apt_install nodejs npm || exit 1
}

# npm ci when the lockfile changed since the last install.
npm_install() { # dir
  local dir=$1 stamp="$1/node_modules/.libauth-lock"
  if [ -f "$stamp" ] && cmp -s "$dir/package-lock.json" "$stamp"; then return 0; fi
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || { echo "npm ci failed in $dir" >&2; exit 1; }
  cp "$dir/package-lock.json" "$stamp"
}

# PostgreSQL on 127.0.0.1:5432 with database `test` (trust auth), for the
# adapter tests. Start the machine's cluster when it is down: the tests
# fail rather than skip without it.
ensure_postgres() {
  if ! pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
    command -v pg_ctlcluster >/dev/null 2>&1 || apt_install postgresql || exit 1
    local version
    version=$(ls /etc/postgresql | sort -V | tail -n 1)
    echo "== starting PostgreSQL $version (cluster main)"
    pg_ctlcluster --skip-systemctl-redirect "$version" main start || { echo "could not start PostgreSQL $version" >&2; exit 1; }
    for _ in $(seq 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
    pg_isready -q -h 127.0.0.1 -p 5432 || { echo "PostgreSQL is not accepting connections on 127.0.0.1:5432" >&2; exit 1; }
  fi
  if [ -z "$(psql -h 127.0.0.1 -U postgres -d postgres -Atc "SELECT 1 FROM pg_database WHERE datname = 'test'" 2>/dev/null)" ]; then
    createdb -h 127.0.0.1 -U postgres test || { echo "could not create database test (needs trust auth for postgres on 127.0.0.1)" >&2; exit 1; }
  fi
}

# Redis on 127.0.0.1:6379, for the shared rate-limit store and secondary
# storage tests. Started without persistence (the tests' keys are
# throwaway) when it is down; installed with apt when missing. The tests
# fail rather than skip without it.
ensure_redis() {
  if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    command -v redis-server >/dev/null 2>&1 || apt_install redis-server redis-tools || exit 1
    echo "== starting Redis on 127.0.0.1:6379"
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no >/dev/null ||
      { echo "could not start redis-server" >&2; exit 1; }
    for _ in $(seq 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.2; done
    redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 || { echo "Redis is not answering on 127.0.0.1:6379" >&2; exit 1; }
  fi
}

# A Python package the tests run (e.g. aiosmtpd, the SMTP server of the
# email test), installed with pip when its module does not import.
ensure_pip_package() { # module requirement
  command -v python3 >/dev/null 2>&1 || apt_install python3 python3-pip || exit 1
  python3 -c "import $1" 2>/dev/null && return 0
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check "$2" || { echo "pip install $2 failed" >&2; exit 1; }
  python3 -c "import $1" || { echo "$2 installed but '$1' does not import" >&2; exit 1; }
}

# Debian's Chromium for the headless browser tests (playwright-core drives it),
# and a font for Chinese, Japanese and Korean (the localised pages are
# screenshotted and measured: without one, CJK text is drawn as boxes).
ensure_chromium() {
  [ -x /usr/bin/chromium ] || apt_install chromium || return 1
  fc-list :lang=ja 2>/dev/null | grep -q . || apt_install fonts-noto-cjk
}

# The C toolchain and libraries of the C ABI's tests and example: a C and
# C++ compiler, pkg-config, valgrind, libmicrohttpd and cJSON (Debian).
ensure_c_tools() {
  local missing=()
  command -v cc >/dev/null 2>&1 || missing+=(gcc)
  command -v c++ >/dev/null 2>&1 || missing+=(g++)
  command -v pkg-config >/dev/null 2>&1 || missing+=(pkg-config)
  command -v valgrind >/dev/null 2>&1 || missing+=(valgrind)
  pkg-config --exists libmicrohttpd 2>/dev/null || missing+=(libmicrohttpd-dev)
  pkg-config --exists libcjson 2>/dev/null || missing+=(libcjson-dev)
  pkg-config --exists openssl 2>/dev/null || missing+=(libssl-dev)
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
}

# bench/RESULTS.md holds the latest results of every benchmark, one section
# each between `<!-- results: <id> begin -->` and `<!-- results: <id> end -->`,
# always laid out the same way: a heading, the machine and its load, the
# results as the benchmark wrote them (tables), and the date. No figure in it
# is typed by hand: each bench script calls this with what it measured. A
# section not there yet is added at the end.
#
#   load_before=$(bench_load)      # before the benchmark runs
#   ...
#   write_results engine "Engine, in-process" bench/engine/run.sh "$load_before" "$body_file"
bench_load() { cut -d' ' -f1-3 /proc/loadavg; }

write_results() { # id heading script load_before body_file
  local id=$1 heading=$2 script=$3 load_before=$4 body=$5 root results section cpu
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  results=$root/bench/RESULTS.md
  cpu=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
  section=$(mktemp)
  {
    echo "<!-- results: $id begin -->"
    echo "## $heading"
    echo
    echo "Machine: $(nproc) CPUs (${cpu:-unknown model}), $(uname -m), Linux $(uname -r); load average $load_before before, $(bench_load) after."
    echo
    cat "$body"
    echo
    echo "Measured $(date -u '+%Y-%m-%d %H:%M') UTC by \`$script\`."
    echo "<!-- results: $id end -->"
  } >"$section"
  if grep -qxF "<!-- results: $id begin -->" "$results" && grep -qxF "<!-- results: $id end -->" "$results"; then
    awk -v begin="<!-- results: $id begin -->" -v end="<!-- results: $id end -->" -v src="$section" '
      $0 == begin { while ((getline line < src) > 0) print line; skipping = 1; next }
      $0 == end { skipping = 0; next }
      !skipping { print }' "$results" >"$results.tmp" && mv "$results.tmp" "$results"
  else
    { echo; cat "$section"; } >>"$results"
  fi
  rm -f "$section"
  echo "bench/RESULTS.md: wrote section $id"
}

# cargo-deny, built once into ~/.cargo/bin (a few minutes the first time).
ensure_cargo_deny() {
  command -v cargo-deny >/dev/null 2>&1 && return 0
  echo "== installing cargo-deny (once)"
  cargo install -q --locked cargo-deny --version 0.20.2 || { echo "could not install cargo-deny" >&2; exit 1; }
}

