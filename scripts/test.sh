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
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec .venv/bin/python -m pytest "$@"
