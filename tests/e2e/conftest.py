"""The real server, started once for this tier: `python -m app serve` on a free port."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.loadbench.systems import free_port, process, wait_ready
from tests.conftest import KNOWLEDGE

SERVER_START_S = 300.0


@dataclass
class LiveServer:
    url: str
    data_dir: Path
    first_readiness: httpx.Response
    log: Path
    shop_origin: str  # the one shop site allowed to embed the widget (tests/e2e/test_widget.py)


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Iterator[LiveServer]:
    """Starts with no index (not ready), then the ingestion job publishes one (ready)."""
    from app.settings import Settings
    from ingest.pipeline import run_ingest

    data_dir = tmp_path_factory.mktemp("live-data")
    port = free_port()
    shop_origin = f"http://127.0.0.1:{free_port()}"
    log = data_dir / "server.log"
    env = {
        **os.environ,
        "SHOPDESK_DATA_DIR": str(data_dir),
        "SHOPDESK_KNOWLEDGE_DIR": str(KNOWLEDGE),
        "SHOPDESK_INDEX_POLL_SECONDS": "0",
        "SHOPDESK_EMBED_DEVICE": "cpu",
        "SHOPDESK_WIDGET_ORIGINS": shop_origin,
        "VLLM_LOGGING_LEVEL": "WARNING",
    }
    command = [sys.executable, "-m", "app", "serve", "--port", str(port)]
    with process(command, env=env, log=log) as server:
        url = f"http://127.0.0.1:{port}"
        wait_ready(server, f"{url}/healthz", log, timeout_s=SERVER_START_S)
        first = httpx.get(f"{url}/readyz", timeout=10)
        run_ingest(
            Settings(knowledge_dir=KNOWLEDGE, data_dir=data_dir, embed_device="cpu"), embedder
        )
        wait_ready(server, f"{url}/readyz", log, timeout_s=SERVER_START_S)
        yield LiveServer(url, data_dir, first, log, shop_origin)


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's headless Chromium driven by Playwright (never a downloaded browser).

    Module-scoped: Playwright's sync API runs an event loop on the main thread while it is open,
    which would break every later test that calls ``asyncio.run``.
    """
    if not Path(CHROMIUM).exists():
        pytest.fail("chromium is missing: scripts/test.sh installs it (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


# The guarded server (small limits, Redis and PostgreSQL) of the hostile-input and load tests.
from tests.e2e.servers import guarded_server  # noqa: E402, F401
