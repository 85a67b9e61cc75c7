#!/usr/bin/env bash
# Build and start the C example on http://localhost:${PORT:-8080}/ with
# credentials sign-in (demo / demo) and TikTok sign-in against the local
# TikTok simulator (tests/tiktok-sim) unless AUTH_TIKTOK_ID /
# AUTH_TIKTOK_SECRET are set, as scripts/demo.sh does for the Express demo.
set -euo pipefail
cd "$(dirname "$0")/../.."
source scripts/lib.sh
ensure_rust
ensure_c_tools
PORT=${PORT:-8080}
export PORT
port_taken() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
if port_taken "$PORT"; then
  echo "c-server: port $PORT is in use. Stop what holds it, or run PORT=8081 $0" >&2
  exit 1
fi
if [ -z "${AUTH_SECRET:-}" ]; then
  AUTH_SECRET=$(head -c 33 /dev/urandom | base64) # sessions end when the server restarts
  export AUTH_SECRET
  echo "AUTH_SECRET not set: using a random one for this run"
fi
scripts/c-build.sh >/dev/null
make -s -C examples/c-server
if [ -z "${AUTH_TIKTOK_ID:-}" ]; then
  SIM_PORT=${TIKTOK_SIM_PORT:-8787}
  if port_taken "$SIM_PORT"; then
    echo "c-server: the TikTok simulator's port $SIM_PORT is in use; run TIKTOK_SIM_PORT=8788 $0" >&2
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
examples/c-server/c-server
