#!/usr/bin/env bash
# Set up whatever is missing, ingest the bundled knowledge base, and start shopdesk, with the
# sample shop site (examples/shop-site) on a second port embedding the widget from it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
.venv/bin/python -m ingest || [ $? -eq 3 ]   # 3: published, but some files were skipped

host="${SHOPDESK_HOST:-127.0.0.1}"
app_url="http://$host:${SHOPDESK_PORT:-8000}"
shop_url="http://$host:${SHOPDESK_SHOP_PORT:-8001}"
# The sample shop's pages name the assistant as http://127.0.0.1:8000; serve a copy naming this one.
rm -rf var/shop-site && mkdir -p var/log && cp -r examples/shop-site var/shop-site
grep -rl 'http://127.0.0.1:8000' var/shop-site | xargs sed -i "s#http://127.0.0.1:8000#$app_url#g"
.venv/bin/python -m http.server "${SHOPDESK_SHOP_PORT:-8001}" --bind "$host" \
  --directory var/shop-site >var/log/shop-site.log 2>&1 &
shop_pid=$!
trap 'kill "$shop_pid" 2>/dev/null || true' EXIT
# The sample shop may embed the widget (set SHOPDESK_WIDGET_ORIGINS yourself to allow other sites).
export SHOPDESK_WIDGET_ORIGINS="${SHOPDESK_WIDGET_ORIGINS:-$shop_url}"
echo "[demo] shopdesk (Gradio page, /staff, /api): $app_url/"
echo "[demo] sample shop embedding the widget:     $shop_url/   (ready once shopdesk is)"
.venv/bin/python -m app serve --host "$host" --port "${SHOPDESK_PORT:-8000}"
