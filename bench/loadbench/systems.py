"""The three systems under test, each started as real processes on loopback ports and stopped.

- ``shopdesk``: `python -m app serve` with its in-process vLLM engine (continuous batching,
  prefix caching, micro-batched query embeddings).
- ``naive``: `bench.loadbench.naive_server`, the same parts run one request at a time with
  Hugging Face ``generate``.
- ``llamacpp``: the same model served by llama.cpp's server (llama-cpp-python, reading the GGUF
  directly), behind the same shopdesk pipeline (`SHOPDESK_ENGINE=remote`).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
SYSTEMS = ("shopdesk", "naive", "llamacpp")
START_TIMEOUT_S = 420.0


@dataclass(frozen=True)
class RunningSystem:
    name: str
    url: str
    pids: tuple[int, ...]  # the roots of its process trees (for memory)
    description: str
    started_in_s: float


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def process(
    command: list[str], *, env: Mapping[str, str], log: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """A child process writing to ``log``; terminated (then killed) however the block ends."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("w") as sink:
        child = subprocess.Popen(
            command, cwd=REPO, env=dict(env), stdout=sink, stderr=subprocess.STDOUT
        )
    try:
        yield child
    finally:
        child.terminate()
        try:
            child.wait(timeout=60)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait(timeout=30)


def wait_ready(child: subprocess.Popen[bytes], url: str, log: Path, *, timeout_s: float) -> None:
    """Poll ``url`` until it answers 200; fail with the log's tail if the process exits first."""
    deadline = time.monotonic() + timeout_s
    while True:
        if child.poll() is not None:
            raise RuntimeError(f"{child.args!r} exited ({child.returncode}):\n{_tail(log)}")
        try:
            if httpx.get(url, timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} was not ready within {timeout_s:.0f}s:\n{_tail(log)}")
        time.sleep(1)


def _tail(log: Path) -> str:
    return log.read_text(errors="replace")[-3000:] if log.exists() else "(no log)"


def _serve_app(env: Mapping[str, str], log: Path, stack: ExitStack) -> tuple[str, int]:
    port = free_port()
    child = stack.enter_context(
        process([sys.executable, "-m", "app", "serve", "--port", str(port)], env=env, log=log)
    )
    url = f"http://127.0.0.1:{port}"
    wait_ready(child, f"{url}/readyz", log, timeout_s=START_TIMEOUT_S)
    return url, child.pid


@contextmanager
def shopdesk(env: Mapping[str, str], log_dir: Path) -> Iterator[RunningSystem]:
    started = time.perf_counter()
    with ExitStack() as stack:
        url, pid = _serve_app(env, log_dir / "shopdesk.log", stack)
        description = (
            f"shopdesk (vLLM in process, max {env.get('SHOPDESK_VLLM_MAX_NUM_SEQS')} seqs)"
        )
        yield RunningSystem("shopdesk", url, (pid,), description, time.perf_counter() - started)


@contextmanager
def naive(env: Mapping[str, str], log_dir: Path, *, dtype: str) -> Iterator[RunningSystem]:
    started = time.perf_counter()
    port = free_port()
    log = log_dir / "naive.log"
    command = [
        sys.executable,
        "-m",
        "bench.loadbench.naive_server",
        "--port",
        str(port),
        "--dtype",
        dtype,
    ]
    with process(command, env=env, log=log) as child:
        url = f"http://127.0.0.1:{port}"
        wait_ready(child, f"{url}/readyz", log, timeout_s=START_TIMEOUT_S)
        description = f"naive pipeline (Hugging Face generate, {dtype}, one request at a time)"
        yield RunningSystem("naive", url, (child.pid,), description, time.perf_counter() - started)


@contextmanager
def llamacpp(
    env: Mapping[str, str], log_dir: Path, *, gguf: Path, threads: int, prompt_cache: bool
) -> Iterator[RunningSystem]:
    """llama.cpp's server on the GGUF, and shopdesk with the remote engine pointed at it."""
    started = time.perf_counter()
    port = free_port()
    log = log_dir / "llamacpp-server.log"
    options = {
        "--model": str(gguf),
        "--host": "127.0.0.1",
        "--port": str(port),
        "--n_ctx": env.get("SHOPDESK_VLLM_MAX_MODEL_LEN", "4096"),
        "--n_threads": str(threads),
        "--n_threads_batch": str(threads),
        "--interrupt_requests": "False",  # by default a new request cuts the streaming answer
        "--cache": str(prompt_cache),
        "--verbose": "False",
    }
    command = [sys.executable, "-m", "bench.loadbench.llama_server"]
    command += [part for option in options.items() for part in option]
    with ExitStack() as stack:
        server = stack.enter_context(process(command, env=env, log=log))
        peer = f"http://127.0.0.1:{port}"
        wait_ready(server, f"{peer}/v1/models", log, timeout_s=START_TIMEOUT_S)
        app_env = {
            **env,
            "SHOPDESK_ENGINE": "remote",
            "SHOPDESK_REMOTE_URLS": json.dumps([peer]),
            # the tokenizer is read from the converted folder; llama.cpp serves its one model
            "SHOPDESK_REMOTE_MODEL": env.get(
                "SHOPDESK_GENERATOR_MODEL", "packaged:SmolLM2-135M-Instruct"
            ),
            "SHOPDESK_REMOTE_TIMEOUT_S": "900",
        }
        url, pid = _serve_app(app_env, log_dir / "llamacpp-app.log", stack)
        description = (
            f"llama.cpp server ({gguf.name}, {threads} threads, prompt cache "
            f"{'on' if prompt_cache else 'off'}) behind the shopdesk pipeline"
        )
        yield RunningSystem(
            "llamacpp", url, (server.pid, pid), description, time.perf_counter() - started
        )


def base_env(
    data_dir: Path, *, max_num_seqs: int, max_waiting: int, patience_s: float
) -> dict[str, str]:
    """The environment every system starts with: the same index, models and limits.

    ``SHOPDESK_*`` variables already set win over these defaults (a GPU, Redis, PostgreSQL),
    except the data folder, which holds the index built for this run.
    """
    defaults = {
        "HF_HUB_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "VLLM_LOGGING_LEVEL": "WARNING",
        "SHOPDESK_EMBED_DEVICE": "cpu",
        "SHOPDESK_VLLM_MAX_NUM_SEQS": str(max_num_seqs),
        # Every simulated shopper comes from 127.0.0.1: per-address limits would throttle them
        # as one client. Admission lets the engine's batch answer at once and queues the rest.
        "SHOPDESK_CLIENT_TURNS_PER_MINUTE": "0",
        "SHOPDESK_CLIENT_REQUESTS_PER_MINUTE": "0",
        "SHOPDESK_MAX_TURNS_IN_FLIGHT": str(max_num_seqs),
        "SHOPDESK_MAX_TURNS_WAITING": str(max_waiting),
        "SHOPDESK_TURN_QUEUE_TIMEOUT_S": str(patience_s),
        # A turn is cut by the level's hard stop, not by the service's own answer timeout.
        "SHOPDESK_GENERATION_TIMEOUT_S": str(patience_s),
    }
    return {
        **defaults,
        **os.environ,
        "SHOPDESK_DATA_DIR": str(data_dir),
        "SHOPDESK_KNOWLEDGE_DIR": str(REPO / "knowledge"),
    }
