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

# Debian's Chromium for the headless browser tests (playwright-core drives it).
ensure_chromium() {
  [ -x /usr/bin/chromium ] || apt_install chromium
}
