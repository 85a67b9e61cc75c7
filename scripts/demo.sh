#!/usr/bin/env bash
# Start the libauth demo app on http://127.0.0.1:${PORT:-3000}/ (sign in as demo / demo).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_rust
if [ -z "${AUTH_SECRET:-}" ]; then
  # A fresh secret per run: sessions end when the demo restarts.
  AUTH_SECRET=$(head -c 33 /dev/urandom | base64)
  export AUTH_SECRET
  echo "AUTH_SECRET not set: using a random one for this run"
fi
exec cargo run -q -p libauth-demo
