#!/usr/bin/env bash
# Set up whatever is missing, then run the test suite (the command CI runs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The browser tests drive Debian's Chromium (never a browser download).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    echo "[test] installing chromium for the browser tests"
    apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null
  else
    echo "[test] chromium is missing: sudo apt-get install chromium chromium-driver" >&2
  fi
fi
# The integration tests use the real Redis and PostgreSQL on this machine; start them if stopped.
if command -v redis-cli >/dev/null 2>&1 && ! redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  echo "[test] starting redis"
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi
if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -h 127.0.0.1 -q; then
  echo "[test] starting postgresql"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql)" main start || true
fi
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec .venv/bin/python -m pytest "$@"
