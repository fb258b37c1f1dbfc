"""Generation benchmark: continuous batching and prefix caching, each side by side in one run.

1. The same N shoppers' questions answered one after another, then all at once (the engine
   batches them continuously): aggregate generated tokens/s, p50/p95 turn latency, time to
   first token.
2. One 10-turn conversation with vLLM's prefix cache on, then off: prompt, cached and prefilled
   tokens and latency per turn.
3. Resident memory of the app process and of the engine's processes with the engine loaded.

Full chat turns through the composition root (retrieval included), the default models, the
bundled knowledge base. Prints tables and writes JSON.

    .venv/bin/python -m bench.generation [--shoppers 8] [--out FILE.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")

REPO = Path(__file__).resolve().parent.parent

QUESTIONS = [
    "How much does the return label cost?",
    "Do you deliver to Northern Ireland, and how much is it?",
    "Can I pay with Klarna?",
    "What is the warranty on backpacks?",
    "Is live chat open on Sunday?",
    "How do I wash a down jacket?",
    "Is there a student discount?",
    "Can I collect my order in Leeds?",
    "What fuel does the Emberlite stove take?",
    "Can I cancel my order after I placed it?",
    "Does the Ridgeline 35 come with a rain cover?",
    "How long does a refund to PayPal take?",
    "What is the comfort temperature of the Nightjar 500?",
    "Do you ship gas canisters to the Highlands?",
    "How do I claim on the warranty?",
    "What size boot is a 27 cm foot?",
]
CONVERSATION = [
    "Tell me about the Stormhollow 2 tent",
    "how heavy is it?",
    "does the footprint fit the Stormhollow 3 as well?",
    "what is the warranty on tents?",
    "can I return it if I pitched it once?",
    "how much is delivery to Belfast?",
    "and when would it arrive?",
    "can I pay with PayPal?",
    "how long does a PayPal refund take?",
    "how do I contact you if something goes wrong?",
]


async def one_turn(chat: Any, session: str, question: str) -> dict[str, Any]:
    from app.chat.outcome import Delta, Done

    started = time.perf_counter()
    first = 0.0
    outcome = None
    async for event in chat.turn(session, question):
        if isinstance(event, Delta) and not first:
            first = time.perf_counter() - started
        elif isinstance(event, Done):
            outcome = event.outcome
    assert outcome is not None
    return {
        "latency_s": time.perf_counter() - started,
        "ttft_s": first,
        "generated": outcome.stats.generated_tokens,
        "prompt": outcome.stats.prompt_tokens,
        "cached": outcome.stats.cached_tokens,
        "prefilled": outcome.stats.prefilled_tokens,
        "answered": outcome.answered,
        "model_text": outcome.model_text,
    }


def summarise(turns: list[dict[str, Any]], wall_s: float) -> dict[str, Any]:
    latencies = sorted(t["latency_s"] for t in turns)
    ttfts = sorted(t["ttft_s"] for t in turns)
    generated = sum(t["generated"] for t in turns)
    prefilled = [t["prefilled"] for t in turns if t.get("prefilled")]
    return {
        "turns": len(turns),
        "wall_s": round(wall_s, 2),
        "generated_tokens": generated,
        "tokens_per_s": round(generated / wall_s, 1),
        "p50_latency_s": round(statistics.median(latencies), 2),
        "p95_latency_s": round(_percentile(latencies, 95), 2),
        "p50_ttft_s": round(statistics.median(ttfts), 2),
        "p95_ttft_s": round(_percentile(ttfts, 95), 2),
        # new prompt tokens per turn that called the model (not served from the prefix cache)
        "prefilled_mean": round(statistics.mean(prefilled)) if prefilled else 0,
    }


def _percentile(ordered: list[float], pct: float) -> float:
    index = min(len(ordered) - 1, max(0, round(pct / 100 * (len(ordered) - 1))))
    return ordered[index]


def memory_gib() -> dict[str, float]:
    import psutil

    me = psutil.Process()
    children = me.children(recursive=True)
    app_rss = me.memory_info().rss
    engine_rss = sum(c.memory_info().rss for c in children if c.is_running())
    return {
        "app_process_gib": round(app_rss / 2**30, 2),
        "engine_processes_gib": round(engine_rss / 2**30, 2),
        "total_gib": round((app_rss + engine_rss) / 2**30, 2),
    }


async def engine_only(engine: Any, prompts: list[str], tokens: int) -> dict[str, Any]:
    """The engine alone, every request generating exactly ``tokens``: batch 1 vs batch N."""
    from app.engine.base import GenerationRequest

    async def one(i: int, prompt: str) -> dict[str, Any]:
        request = GenerationRequest(
            f"bench-{secrets.token_hex(4)}-{i}", prompt, max_tokens=tokens, ignore_eos=True
        )
        started = time.perf_counter()
        first, stats = 0.0, None
        async for chunk in engine.stream(request):
            if chunk.text and not first:
                first = time.perf_counter() - started
            stats = chunk.stats or stats
        return {"latency_s": time.perf_counter() - started, "ttft_s": first,
                "generated": stats.generated_tokens if stats else 0}  # fmt: skip

    started = time.perf_counter()
    sequential = [await one(i, p) for i, p in enumerate(prompts)]
    sequential_wall = time.perf_counter() - started
    started = time.perf_counter()
    concurrent = await asyncio.gather(*(one(i, p) for i, p in enumerate(prompts)))
    concurrent_wall = time.perf_counter() - started
    seq, conc = summarise(sequential, sequential_wall), summarise(list(concurrent), concurrent_wall)
    return {
        "sequential": seq,
        "concurrent": conc,
        "throughput_ratio": round(conc["tokens_per_s"] / seq["tokens_per_s"], 2),
    }


async def batching(settings: Any, shoppers: int) -> dict[str, Any]:
    from app.container import build_container

    questions = (QUESTIONS * (shoppers // len(QUESTIONS) + 1))[:shoppers]
    async with build_container(settings) as container:
        chat = container.chat
        await one_turn(chat, "warm-up", "Hello, what do you sell?")
        print(f"  {shoppers} shoppers one after another ...", flush=True)
        started = time.perf_counter()
        sequential = [await one_turn(chat, secrets.token_hex(8), q) for q in questions]
        sequential_wall = time.perf_counter() - started
        print(f"  {shoppers} shoppers at once ...", flush=True)
        started = time.perf_counter()
        concurrent = await asyncio.gather(
            *(one_turn(chat, secrets.token_hex(8), q) for q in questions)
        )
        concurrent_wall = time.perf_counter() - started
        print(f"  engine alone: {shoppers} requests of 128 tokens, one by one then at once ...")
        prompts = [chat.prompt_format.render([{"role": "user", "content": q}]) for q in questions]
        engine = await engine_only(container.engine, prompts, 128)
        print("  10-turn conversation, prefix caching on ...", flush=True)
        conversation_on = [await one_turn(chat, "conversation", q) for q in CONVERSATION]
        memory = memory_gib()
    seq, conc = summarise(sequential, sequential_wall), summarise(list(concurrent), concurrent_wall)
    return {
        "sequential": seq,
        "concurrent": conc,
        "throughput_ratio": round(conc["tokens_per_s"] / seq["tokens_per_s"], 2),
        "engine_only": engine,
        "conversation_cache_on": conversation_on,
        "memory_with_engine": memory,
    }


async def without_cache(settings: Any) -> list[dict[str, Any]]:
    from app.container import build_container

    print("  10-turn conversation, prefix caching off ...", flush=True)
    async with build_container(settings) as container:
        return [await one_turn(container.chat, "conversation", q) for q in CONVERSATION]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shoppers", type=int, default=8)
    parser.add_argument("--out", type=Path, default=REPO / "bench-results" / "generation.json")
    args = parser.parse_args()

    from app.embedding.factory import build_embedder
    from app.settings import Settings
    from ingest.pipeline import run_ingest

    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(
            knowledge_dir=REPO / "knowledge",
            data_dir=Path(scratch),
            vllm_max_num_seqs=max(16, args.shoppers),
        )
        run_ingest(settings, build_embedder(settings))
        result = asyncio.run(batching(settings, args.shoppers))
        no_cache = settings.model_copy(update={"vllm_prefix_caching": False})
        result["conversation_cache_off"] = asyncio.run(without_cache(no_cache))

    later = [t["prefilled"] for t in result["conversation_cache_on"][1:]]
    mean = sum(later) / len(later)
    off = result["conversation_cache_off"]
    result["prefill_turns_2_10"] = {
        "on_mean": round(mean, 1),
        "on_max_deviation": round(max(abs(x - mean) for x in later) / mean, 3),
        "off_first": off[1]["prefilled"],
        "off_last": off[-1]["prefilled"],
    }
    result["machine"] = {"platform": platform.platform(), "cpus": os.cpu_count()}
    result["model"] = settings.generator_model
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    report(result, args.shoppers)
    print(f"written to {args.out}")
    return 0


def report(result: dict[str, Any], shoppers: int) -> None:
    print(f"\n{shoppers} shoppers, {result['model']}")
    print(f"{'':<22}{'tokens/s':>10}{'p50 s':>8}{'p95 s':>8}{'p50 TTFT':>10}{'p95 TTFT':>10}")
    for label in ("sequential", "concurrent"):
        r = result[label]
        print(
            f"{label:<22}{r['tokens_per_s']:>10}{r['p50_latency_s']:>8}{r['p95_latency_s']:>8}"
            f"{r['p50_ttft_s']:>10}{r['p95_ttft_s']:>10}"
        )
    print(f"aggregate throughput ratio, full chat turns: {result['throughput_ratio']}x")
    engine = result["engine_only"]
    for label in ("sequential", "concurrent"):
        r = engine[label]
        print(
            f"{'engine ' + label:<22}{r['tokens_per_s']:>10}{r['p50_latency_s']:>8}"
            f"{r['p95_latency_s']:>8}{r['p50_ttft_s']:>10}{r['p95_ttft_s']:>10}"
        )
    print(
        f"aggregate throughput ratio, engine alone (128 tokens each): {engine['throughput_ratio']}x"
    )
    print(
        "\n      --------- prefix caching on ----------   -------- prefix caching off ---------"
        "\nturn  prompt cached prefilled  TTFT s  total s"
        "   prompt cached prefilled  TTFT s  total s"
    )
    on, off = result["conversation_cache_on"], result["conversation_cache_off"]
    for n, (a, b) in enumerate(zip(on, off, strict=True), start=1):
        print(
            f"{n:>4}{a['prompt']:>8}{a['cached']:>7}{a['prefilled']:>10}{a['ttft_s']:>8.2f}"
            f"{a['latency_s']:>9.2f}{b['prompt']:>9}{b['cached']:>7}{b['prefilled']:>10}"
            f"{b['ttft_s']:>8.2f}{b['latency_s']:>9.2f}"
        )
    spread = result["prefill_turns_2_10"]
    print(
        f"prefilled tokens, turns 2-10: with caching mean {spread['on_mean']:.0f}, largest "
        f"deviation {spread['on_max_deviation']:.1%}; without caching {spread['off_first']} "
        f"growing to {spread['off_last']}"
    )
    print(f"memory with the engine loaded: {result['memory_with_engine']}")


if __name__ == "__main__":
    sys.exit(main())
