#!/usr/bin/env bash
# Set up whatever is missing, ingest the bundled knowledge base, and start shopdesk.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/python -m ingest || [ $? -eq 3 ]   # 3: published, but some files were skipped
exec .venv/bin/python -m app serve --host "${SHOPDESK_HOST:-127.0.0.1}" --port "${SHOPDESK_PORT:-8000}"
