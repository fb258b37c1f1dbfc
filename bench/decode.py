"""Decode-lever benchmark: dtype, early stop, n-gram speculation, compiled mode, side by side.

Each variant starts the in-process vLLM engine in its own process (the composition root, the
bundled knowledge base, the default answer policy and checks), asks the same questions one shopper
at a time and then all at once, and reports start-up time, turn latency, throughput and whether
its shown answers equal the first variant's. The variants, each the defaults but for one lever:

- ``default``: the shipped settings (``auto`` dtype, eager, answers ended after 2 sentences in a
  row failed the checks);
- ``bfloat16`` / ``float32``: the weights' dtype set explicitly (the one ``auto`` picks on this
  CPU is left out of the default list: it is ``default``);
- ``no-early-stop``: the answer generated to its end whatever the checks drop;
- ``ngram4``: prompt-lookup speculative decoding proposing 4 tokens a step;
- ``all-passages``: the verified policy's model given every retrieved passage, not only those
  of the shop's lines it shows (``SHOPDESK_GENERATION_PASSAGES=retrieved``);
- ``compiled-cold`` then ``compiled-warm``: compiled (non-eager) mode with an empty compile cache,
  then started again on the cache the first start wrote;
- ``compiled-ngram4``: both levers at once, on the warm cache (after ``compiled-cold``).

Throughput is compared by wall time over the same questions (an answer ended early reports no
generated-token count). A shared machine's speed drifts during a run (two runs of the same
variants on one 2-vCPU machine put the same default 19 s and 29 s apart), so ``--rounds N`` runs
every variant N times, the order reversed every other round, and reports each figure's median
with its range; ``compiled-cold`` runs once, first (it needs the empty compile cache).

    flock /tmp/shopdesk-cpu.lock .venv/bin/python -m bench.decode [--questions 16] [--rounds 3]

Writes bench-results/decode.json (with the machine and its CPU flags).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("VLLM_LOGGING_LEVEL", "WARNING")

from bench.generation import QUESTIONS, one_turn, summarise

REPO = Path(__file__).resolve().parent.parent
VARIANTS = (
    "default",
    "bfloat16",
    "float32",
    "no-early-stop",
    "ngram4",
    "all-passages",
    "compiled-cold",
    "compiled-warm",
    "compiled-ngram4",
)


def variant_settings(variant: str, data_dir: Path) -> dict[str, Any]:
    """The settings one variant changes (the rest are the defaults)."""
    eager = not variant.startswith("compiled")
    return {
        "knowledge_dir": REPO / "knowledge",
        "data_dir": data_dir,
        "vllm_dtype": variant if variant in ("bfloat16", "float32") else "auto",
        "vllm_enforce_eager": eager,
        "vllm_speculative_tokens": 4 if variant.endswith("ngram4") else 0,
        "vllm_max_num_seqs": 16,
        "answer_stop_after_dropped": 0 if variant == "no-early-stop" else 2,
        "generation_passages": "retrieved" if variant == "all-passages" else "evidence",
    }


async def _turn(chat: Any, question: str) -> dict[str, Any]:
    """One shopper's turn in a conversation of its own, timed as the generation bench does."""
    return await one_turn(chat, secrets.token_hex(8), question)


async def run_variant(variant: str, data_dir: Path, cache_dir: Path, questions: int) -> dict:
    """One variant, in this process: start, warm up, one at a time, all at once."""
    from app.container import build_container
    from app.engine.vllm_engine import cpu_flags, resolve_dtype
    from app.settings import Settings

    # the run's own compile cache (the generator's converted folder stays where it is)
    os.environ["VLLM_CACHE_ROOT"] = str(cache_dir)
    settings = Settings(**variant_settings(variant, data_dir))
    asked = (QUESTIONS * (questions // len(QUESTIONS) + 1))[:questions]
    started = time.perf_counter()
    async with build_container(settings) as container:
        ready_s = time.perf_counter() - started
        chat = container.chat
        await _turn(chat, "Hello, what do you sell?")
        started = time.perf_counter()
        one_by_one = [await _turn(chat, q) for q in asked]
        one_by_one_wall = time.perf_counter() - started
        started = time.perf_counter()
        at_once = await asyncio.gather(*(_turn(chat, q) for q in asked))
        at_once_wall = time.perf_counter() - started
    return {
        "variant": variant,
        "dtype": resolve_dtype(settings.vllm_dtype, on_cpu=True, flags=cpu_flags()),
        "eager": settings.vllm_enforce_eager,
        "speculative_tokens": settings.vllm_speculative_tokens,
        "ready_s": round(ready_s, 1),
        "one_shopper": summarise(one_by_one, one_by_one_wall),
        "all_at_once": summarise(list(at_once), at_once_wall),
        "answers": [t["model_text"] for t in one_by_one],
    }


def _child(variant: str, data_dir: Path, cache_dir: Path, questions: int) -> dict[str, Any]:
    """Run one variant in a fresh process (each engine owns the cores while it runs)."""
    command = [
        sys.executable, "-m", "bench.decode", "--one", variant,
        "--data-dir", str(data_dir), "--cache-dir", str(cache_dir),
        "--questions", str(questions),
    ]  # fmt: skip
    print(f"  {variant} ...", flush=True)
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line.removeprefix("RESULT "))
    tail = (done.stdout + done.stderr)[-2000:]
    return {"variant": variant, "failed": f"exit {done.returncode}", "log_tail": tail}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--variants", help="comma-separated (default: all but the dtype auto picks)"
    )
    parser.add_argument("--questions", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=1, help="runs of each variant (medians)")
    parser.add_argument("--out", type=Path, default=REPO / "bench-results" / "decode.json")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--data-dir", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--cache-dir", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        result = asyncio.run(run_variant(args.one, args.data_dir, args.cache_dir, args.questions))
        print("RESULT " + json.dumps(result), flush=True)
        return 0

    from app.embedding.factory import build_embedder
    from app.engine.vllm_engine import cpu_flags, resolve_dtype
    from app.settings import Settings
    from ingest.pipeline import run_ingest

    auto = resolve_dtype("auto", on_cpu=True, flags=cpu_flags())
    chosen = args.variants or ",".join(v for v in VARIANTS if v != auto)
    variants = [v for v in chosen.split(",") if v]
    unknown = set(variants) - set(VARIANTS)
    if unknown:
        parser.error(f"unknown variants {sorted(unknown)}; choose from {', '.join(VARIANTS)}")
    with tempfile.TemporaryDirectory() as scratch:
        data_dir, cache_dir = Path(scratch) / "data", Path(scratch) / "compile-cache"
        settings = Settings(knowledge_dir=REPO / "knowledge", data_dir=data_dir)
        run_ingest(settings, build_embedder(settings))
        runs: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
        for variant in schedule(variants, args.rounds):
            runs[variant].append(_child(variant, data_dir, cache_dir, args.questions))
    results = [combine(variant_runs) for variant_runs in runs.values()]
    baseline = next((r for r in results if "answers" in r), None)
    for result in results:
        if baseline is not None and "answers" in result:
            same = sum(a == b for a, b in zip(result["answers"], baseline["answers"], strict=True))
            result["answers_equal_to_first"] = f"{same} of {len(result['answers'])}"
    flags = cpu_flags() or frozenset()
    out = {
        "questions": args.questions,
        "rounds": args.rounds,
        "machine": {
            "platform": platform.platform(),
            "processor": _cpu_model(),
            "cpus": os.cpu_count(),
            "bf16_flags": sorted(flags & {"avx512_bf16", "amx_bf16", "avx512f", "amx_tile"}),
        },
        "model": settings.generator_model,
        "variants": results,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(out, indent=2))
    report(out)
    print(f"written to {args.out}")
    return 0


def schedule(variants: list[str], rounds: int) -> list[str]:
    """Every variant once a round, the order reversed every other round, so that a machine
    getting faster or slower during the run favours none; ``compiled-cold`` once, first."""
    order = [v for v in variants if v == "compiled-cold"]
    rest = [v for v in variants if v != "compiled-cold"]
    for round_ in range(max(rounds, 1)):
        order += rest if round_ % 2 == 0 else rest[::-1]
    return order


_FIGURES = (
    "wall_s", "p50_latency_s", "p95_latency_s", "p50_ttft_s", "tokens_per_s", "prefilled_mean",
)  # fmt: skip


def combine(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One variant's runs as one row: each figure's median, the wall times' range, every run."""
    done = [r for r in runs if "failed" not in r]
    if not done:
        return runs[0]
    row = {key: done[0][key] for key in ("variant", "dtype", "eager", "speculative_tokens")}
    row["ready_s"] = round(statistics.median(r["ready_s"] for r in done), 1)
    for phase in ("one_shopper", "all_at_once"):
        row[phase] = {
            name: round(statistics.median(r[phase][name] for r in done), 2) for name in _FIGURES
        }
        walls = [r[phase]["wall_s"] for r in done]
        row[phase]["wall_s_range"] = [min(walls), max(walls)]
    row["answers"] = done[0]["answers"]
    row["runs"] = [{k: v for k, v in r.items() if k != "answers"} for r in done]
    row["failed_runs"] = len(runs) - len(done)
    return row


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor()


def report(out: dict[str, Any]) -> None:
    machine = out["machine"]
    print(
        f"\n{out['questions']} questions, {machine['processor']}, {machine['cpus']} CPUs, "
        f"bfloat16 flags: {', '.join(machine['bf16_flags']) or 'none'}"
    )
    print(f"medians of {out['rounds']} round(s); wall time ranges in brackets")
    print(
        f"{'variant':<16}{'dtype':>9}{'ready s':>9}{'1: wall s':>22}{'p50 s':>7}{'p95 s':>7}"
        f"{'all: wall s':>22}{'p50 s':>7}{'p95 s':>7}{'prefilled':>11}  answers = first"
    )
    for r in out["variants"]:
        if "failed" in r:
            print(f"{r['variant']:<15} failed: {r['failed']}")
            continue
        one, many = r["one_shopper"], r["all_at_once"]
        one_wall = f"{one['wall_s']} [{one['wall_s_range'][0]}-{one['wall_s_range'][1]}]"
        many_wall = f"{many['wall_s']} [{many['wall_s_range'][0]}-{many['wall_s_range'][1]}]"
        print(
            f"{r['variant']:<16}{r['dtype']:>9}{r['ready_s']:>9}{one_wall:>22}"
            f"{one['p50_latency_s']:>7}{one['p95_latency_s']:>7}{many_wall:>22}"
            f"{many['p50_latency_s']:>7}{many['p95_latency_s']:>7}{one['prefilled_mean']:>11}"
            f"  {r['answers_equal_to_first']}"
        )


if __name__ == "__main__":
    sys.exit(main())
