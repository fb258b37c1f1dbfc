"""The remote engine against a real `vllm serve` process (OpenAI-compatible API, CPU)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from anyio.from_thread import BlockingPortal

from app.engine.base import GenerationRequest
from app.engine.remote import remote_engine
from app.engine.vllm_engine import cpu_flags, resolve_dtype
from app.errors import EngineUnavailableError
from app.modelstore import resolve_generator
from app.settings import Settings

SERVED_NAME = "smollm2"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def vllm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    settings = Settings()
    model = resolve_generator(settings.generator_model, settings.model_cache_dir)
    port = free_port()
    log = (tmp_path_factory.mktemp("vllm") / "server.log").open("w")
    env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "1", "VLLM_CPU_NUM_OF_RESERVED_CPU": "0"}
    server = subprocess.Popen(
        [
            sys.executable, "-m", "vllm.entrypoints.openai.api_server",
            "--model", model, "--served-model-name", SERVED_NAME,
            "--host", "127.0.0.1", "--port", str(port),
            "--enforce-eager", "--max-model-len", "2048", "--enable-prompt-tokens-details",
            "--dtype", resolve_dtype("auto", on_cpu=True, flags=cpu_flags()),
        ],
        stdout=log, stderr=subprocess.STDOUT, env=env,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 240
        while True:
            assert server.poll() is None, "vllm serve exited; see its log"
            try:
                if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert time.monotonic() < deadline, "vllm serve did not start in time"
            time.sleep(1)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def collect(portal: BlockingPortal, urls: list[str], prompt: str) -> tuple[str, Any, Any]:
    async def run() -> tuple[str, Any, Any]:
        async with remote_engine(urls, model=SERVED_NAME, probe_every_s=3600) as engine:
            text, stats = "", None
            request = GenerationRequest("t1", prompt, max_tokens=24, temperature=0.0)
            async for chunk in engine.stream(request):
                text += chunk.text
                stats = chunk.stats or stats
            return text, stats, engine.servers

    return portal.call(run)


def test_streams_from_a_live_server_failing_over_from_a_dead_one(
    portal: BlockingPortal, vllm_server: str
) -> None:
    dead = f"http://127.0.0.1:{free_port()}"
    text, stats, servers = collect(portal, [dead, vllm_server], "The capital of France is")
    assert text.strip()
    assert stats.server == vllm_server
    assert stats.prompt_tokens > 0 and stats.generated_tokens > 0
    assert dict((u, h) for u, h, _ in servers) == {dead: False, vllm_server: True}


def test_every_server_down_is_a_clear_error(portal: BlockingPortal) -> None:
    dead = [f"http://127.0.0.1:{free_port()}" for _ in range(2)]
    with pytest.raises(EngineUnavailableError, match="no generation server is reachable"):
        collect(portal, dead, "Hello")


def test_more_stop_sequences_than_the_server_takes(
    portal: BlockingPortal, vllm_server: str
) -> None:
    # vllm serve refuses more than four (400); the engine sends four and applies the rest.
    stops = ("\nA:", "\nB:", "\nC:", "\nD:", "\nE:", " Paris")

    async def run() -> tuple[str, Any]:
        async with remote_engine([vllm_server], model=SERVED_NAME, probe_every_s=3600) as engine:
            request = GenerationRequest("t2", "The capital of France is", max_tokens=24, stop=stops)
            text, stats = "", None
            async for chunk in engine.stream(request):
                text += chunk.text
                stats = chunk.stats or stats
            return text, stats

    text, stats = portal.call(run)
    assert "Paris" not in text
    assert stats.prompt_tokens > 0
