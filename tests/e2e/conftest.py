"""The real server, started once for this tier: `python -m app serve` on a free port."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import KNOWLEDGE, REPO


@dataclass
class LiveServer:
    url: str
    data_dir: Path
    first_readiness: httpx.Response
    log: Path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="session")
def live_server(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Iterator[LiveServer]:
    """Starts with no index (not ready), then the ingestion job publishes one (ready)."""
    from app.settings import Settings
    from ingest.pipeline import run_ingest

    data_dir = tmp_path_factory.mktemp("live-data")
    port = _free_port()
    log = data_dir / "server.log"
    env = {
        **os.environ,
        "SHOPDESK_DATA_DIR": str(data_dir),
        "SHOPDESK_KNOWLEDGE_DIR": str(KNOWLEDGE),
        "SHOPDESK_INDEX_POLL_SECONDS": "0",
        "SHOPDESK_EMBED_DEVICE": "cpu",
        "VLLM_LOGGING_LEVEL": "WARNING",
    }
    with log.open("w") as sink:
        server = subprocess.Popen(
            [sys.executable, "-m", "app", "serve", "--port", str(port)],
            cwd=REPO, env=env, stdout=sink, stderr=subprocess.STDOUT,
        )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        _wait(server, f"{url}/healthz", log)
        first = httpx.get(f"{url}/readyz", timeout=10)
        run_ingest(
            Settings(knowledge_dir=KNOWLEDGE, data_dir=data_dir, embed_device="cpu"), embedder
        )
        _wait(server, f"{url}/readyz", log)
        yield LiveServer(url, data_dir, first, log)
    finally:
        server.terminate()
        try:
            server.wait(timeout=60)
        except subprocess.TimeoutExpired:
            server.kill()


def _wait(server: subprocess.Popen[bytes], url: str, log: Path, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if server.poll() is not None:
            raise AssertionError(f"the server exited:\n{log.read_text()[-3000:]}")
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise AssertionError(f"{url} not ready in {timeout}s:\n{log.read_text()[-3000:]}")
        time.sleep(1)


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
