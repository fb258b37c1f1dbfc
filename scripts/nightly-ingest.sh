#!/usr/bin/env bash
# Nightly re-ingest: re-embeds only what changed and publishes atomically; the running service
# follows the new version by itself. Exit codes are those of `python -m ingest` (see README).
set -uo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
mkdir -p var/log
log="var/log/ingest-$(date -u +%Y%m%dT%H%M%SZ).log"
.venv/bin/python -m ingest --quiet "$@" >"$log" 2>&1
code=$?
# keep a month of logs
find var/log -name 'ingest-*.log' -mtime +30 -delete 2>/dev/null
tail -n 30 "$log"
exit $code
