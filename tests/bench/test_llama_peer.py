"""The remote engine against llama.cpp's server, the benchmark's peer: a real server on the
packaged GGUF. It has no /health and streams no token counts; the engine copes with both.

Needs the `bench` extra (llama-cpp-python, compiled once); skipped without it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal

from app.engine.base import GenerationRequest
from app.engine.remote import remote_engine
from app.modelstore import GENERATORS, package_file
from bench.loadbench.systems import free_port, process, wait_ready

pytest.importorskip("llama_cpp.server", reason="the bench extra: pip install -e '.[bench]'")


@pytest.fixture(scope="module")
def llama_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("llama") / "server.log"
    gguf = package_file(GENERATORS["SmolLM2-135M-Instruct"])
    command = [sys.executable, "-m", "bench.loadbench.llama_server", "--model", str(gguf),
               "--host", "127.0.0.1", "--port", str(port), "--n_ctx", "2048",
               "--interrupt_requests", "False", "--verbose", "False"]  # fmt: skip
    with process(command, env=os.environ, log=log) as child:
        url = f"http://127.0.0.1:{port}"
        wait_ready(child, f"{url}/v1/models", log, timeout_s=120)
        yield url


def stream(portal: BlockingPortal, url: str, prompt: str) -> tuple[str, Any, bool]:
    async def run() -> tuple[str, Any, bool]:
        async with remote_engine([url], model="smollm2", probe_every_s=3600) as engine:
            healthy = await engine.healthy()  # probed at start: /health 404, /v1/models 200
            text, stats = "", None
            request = GenerationRequest("p1", prompt, max_tokens=12, temperature=0.0)
            async for chunk in engine.stream(request):
                text += chunk.text
                stats = chunk.stats or stats
            return text, stats, healthy

    return portal.call(run)


def test_llama_cpp_serves_the_remote_engine(portal: BlockingPortal, llama_server: str) -> None:
    prompt = "<|im_start|>user\nWhat is a tent?<|im_end|>\n<|im_start|>assistant\n"
    text, stats, healthy = stream(portal, llama_server, prompt)
    assert healthy
    assert text.strip()
    assert 0 < stats.generated_tokens <= 12  # counted from the stream: no usage is sent
    assert stats.first_token_s > 0 and stats.server == llama_server


def test_the_peer_runs_without_amx_weight_buffers() -> None:
    """The launcher's one change to llama.cpp: extra (AMX) weight buffers off, all else default."""
    import llama_cpp.llama_cpp as bindings

    from bench.loadbench import llama_server as launcher

    params = launcher._params_without_extra_buffers()
    assert params.use_extra_bufts is False
    assert bindings.llama_model_default_params().use_extra_bufts is True  # not patched here
