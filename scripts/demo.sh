#!/usr/bin/env bash
# Start the libauth demo: the Express example (examples/express) on
# http://localhost:${PORT:-3000}/ (passkeys need a name, not 127.0.0.1) with credentials sign-in (demo / demo) and
# TikTok sign-in against the local TikTok simulator (tests/tiktok-sim) unless
# AUTH_TIKTOK_ID / AUTH_TIKTOK_SECRET are set; database sessions in SQLite
# (examples/express/auth.db).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_rust
ensure_node
PORT=${PORT:-3000}
export PORT

# Refuse to start beside another server on our ports: the browser would
# talk to the old instance (with another secret) and nothing would work.
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if port_taken "$PORT"; then
  echo "demo: port $PORT is in use (an earlier demo still running?). Stop it, or run PORT=3001 ./scripts/demo.sh" >&2
  exit 1
fi
if [ -z "${AUTH_SECRET:-}" ]; then
  # A fresh secret per run: sessions end when the demo restarts.
  AUTH_SECRET=$(head -c 33 /dev/urandom | base64)
  export AUTH_SECRET
  echo "AUTH_SECRET not set: using a random one for this run"
fi
npm_install examples/express          # builds the addon (bindings/node) with cargo
if [ -z "${AUTH_TIKTOK_ID:-}" ]; then
  SIM_PORT=${TIKTOK_SIM_PORT:-8787}
  if port_taken "$SIM_PORT"; then
    echo "demo: the TikTok simulator's port $SIM_PORT is in use. Stop what holds it, or run TIKTOK_SIM_PORT=8788 ./scripts/demo.sh" >&2
    exit 1
  fi
  cargo build -q -p tiktok-sim
  target/debug/tiktok-sim --quiet --port "$SIM_PORT" \
    --redirect-uri "http://127.0.0.1:$PORT/auth/callback/tiktok" \
    --redirect-uri "http://localhost:$PORT/auth/callback/tiktok" &
  SIM_PID=$!
  trap 'kill $SIM_PID 2>/dev/null' EXIT
  export TIKTOK_SIM_URL="http://127.0.0.1:$SIM_PORT"
  echo "TikTok simulator on $TIKTOK_SIM_URL (sign in with TikTok uses its test user)"
fi
cd examples/express
node server.js
