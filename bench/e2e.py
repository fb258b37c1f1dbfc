"""End-to-end load benchmark: simulated shoppers against shopdesk and two baselines, in one run.

Every system answers the same multi-turn conversations (drawn from the sample shop's labelled
questions) over the same HTTP/SSE chat API, one system at a time, at each concurrency level:

- shopdesk: `python -m app serve` (vLLM in process: continuous batching, prefix caching);
- naive: the same models and prompt, Hugging Face `generate` one request at a time, the whole
  history re-embedded and re-prefilled every turn (bench/loadbench/naive_server.py);
- llamacpp: the same model served by llama.cpp's server from its GGUF, behind shopdesk's pipeline.

Per level: turns/s, tokens/s, p50/p95/p99 latency, time to first token, errors, the stage
breakdown from each server's own timings and peak resident memory; ratios shopdesk ÷ baseline.
Level 1 is one shopper walking whole conversations one after another (also the prefill-by-turn
figures). Every system gets the same plan per level: the same conversations, the same window in
which turns may start, the same number of turns it must answer at least (a slow system's level
goes on until it has, up to a cap), and the same hard stop for turns still running (longer as
the level grows), so a system whose turns all end before the stop is compared with exact
figures, not lower bounds. Writes results.json, report.md and three PNG plots; installs the
`bench` extra when missing. Only loopback addresses are used; every level is bounded in turns
and seconds. ``--runs 3`` repeats the whole comparison and reports the spread of the ratios
(``--spread`` writes that report again from earlier runs' results).

    bash scripts/setup.sh && .venv/bin/python -m bench.e2e [--levels 1,4,16,64] [--runs 3]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import math
import os
import platform
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from bench.loadbench import install
from bench.loadbench.conversations import draw_conversations, load_threads
from bench.loadbench.load import LevelPlan, run_level
from bench.loadbench.systems import SYSTEMS, RunningSystem

REPO = Path(__file__).resolve().parent.parent

SETTLE_S = 2.0  # between levels: cut requests are aborted, queues drain
DOC = REPO / "docs" / "PERFORMANCE.md"
RESULTS_START, RESULTS_END = "<!-- e2e-results:start -->", "<!-- e2e-results:end -->"
SPREAD_MARKERS = ("<!-- e2e-spread:start -->", "<!-- e2e-spread:end -->")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--levels", default="1,4,16", help="concurrent shoppers per level")
    parser.add_argument("--systems", default=",".join(SYSTEMS), help="which systems, in order")
    parser.add_argument(
        "--seconds",
        type=float,
        default=12.0,
        help="no turn starts after this many seconds of a level (the same for every system)",
    )
    parser.add_argument(
        "--drain-seconds",
        type=float,
        default=25.0,
        help="turns still running this long after the window are cut ...",
    )
    parser.add_argument(
        "--drain-per-shopper",
        type=float,
        default=0.8,
        help="... or this many seconds per shopper of the level, whichever is longer",
    )
    parser.add_argument(
        "--max-turns", type=int, default=400, help="turns started per level, at most"
    )
    parser.add_argument(
        "--min-turns",
        type=int,
        default=30,
        help="turns every system answers at each level at least: after the window, turns go on "
        "starting until this many are answered (level 1: whole conversations, this many turns)",
    )
    parser.add_argument(
        "--level-cap-seconds",
        type=float,
        default=600.0,
        help="no turn of a level starts after this, whatever --min-turns asks",
    )
    parser.add_argument("--turns-per-conversation", type=int, default=6)
    parser.add_argument(
        "--runs", type=int, default=1, help="repeat the whole comparison; report the spread"
    )
    parser.add_argument(
        "--spread",
        type=Path,
        nargs="+",
        metavar="RESULTS_JSON",
        help="measure nothing: the spread of several runs' results.json",
    )
    parser.add_argument(
        "--max-num-seqs",
        type=int,
        default=0,
        help="vLLM's batch (SHOPDESK_VLLM_MAX_NUM_SEQS); 0: the largest level",
    )
    parser.add_argument("--naive-dtype", default="float32", choices=["float32", "bfloat16"])
    parser.add_argument("--llama-threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--llama-prompt-cache",
        action="store_true",
        help="turn on llama-cpp-python's RAM prompt cache (off by default)",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--out-dir", type=Path, default=REPO / "bench-results" / "e2e")
    parser.add_argument("--no-install", action="store_true", help="never pip install anything")
    parser.add_argument(
        "--report-from",
        type=Path,
        metavar="RESULTS_JSON",
        help="measure nothing: write the report and plots again from a run's results.json",
    )
    parser.add_argument(
        "--update-docs",
        action="store_true",
        help="also put the tables into docs/PERFORMANCE.md and the plots into docs/",
    )
    args = parser.parse_args(argv)
    args.levels = sorted({int(x) for x in args.levels.split(",") if x.strip()})
    args.systems = [s.strip() for s in args.systems.split(",") if s.strip()]
    unknown = set(args.systems) - set(SYSTEMS)
    if unknown or not args.systems or not args.levels or min(args.levels) < 1:
        parser.error(f"--systems from {', '.join(SYSTEMS)}; --levels positive integers")
    args.max_num_seqs = args.max_num_seqs or max(args.levels)
    return args


def build_index(data_dir: Path) -> str:
    """Ingest the bundled knowledge base into ``data_dir``: the index every system serves."""
    from app.embedding.factory import build_embedder
    from app.settings import Settings
    from ingest.pipeline import run_ingest

    settings = Settings(knowledge_dir=REPO / "knowledge", data_dir=data_dir, embed_device="cpu")
    report = run_ingest(settings, build_embedder(settings))
    return f"{report.passages} passages"


def starter(
    name: str, args: argparse.Namespace, env: dict[str, str], logs: Path
) -> Callable[[], AbstractContextManager[RunningSystem]]:
    from bench.loadbench import systems

    if name == "shopdesk":
        return lambda: systems.shopdesk(env, logs)
    if name == "naive":
        return lambda: systems.naive(env, logs, dtype=args.naive_dtype)
    from app.modelstore import GENERATORS, package_file

    gguf = package_file(GENERATORS["SmolLM2-135M-Instruct"])
    return lambda: systems.llamacpp(
        env, logs, gguf=gguf, threads=args.llama_threads, prompt_cache=args.llama_prompt_cache
    )


def drain(args: argparse.Namespace, level: int) -> float:
    """How long a level's turns may still run after its window: longer as shoppers queue."""
    return max(args.drain_seconds, level * args.drain_per_shopper)


def run_system(
    running: RunningSystem, args: argparse.Namespace, threads: list[tuple[str, ...]]
) -> dict[str, Any]:
    """Warm up, then every level; level 1 is one shopper's whole conversation (prefill by turn).

    Every system gets the same plan per level (window, drain, conversations), so where a
    baseline's turns are cut at the stop and shopdesk's are not, the comparison is decided.
    """
    from bench.loadbench.memory import PeakMemory
    from bench.loadbench.summary import per_turn, summarise_level

    warm = asyncio.run(run_level(running.url, LevelPlan(1, 1, 120, 0), _pool(threads, 1, 0)))
    if any(t.error for t in warm.turns):
        raise RuntimeError(f"{running.name}: the warm-up turn failed: {warm.turns[0].error}")
    length = args.turns_per_conversation
    levels: dict[str, Any] = {}
    turns: dict[str, Any] = {}
    walked: list[Any] = []
    cap = args.level_cap_seconds
    for level in sorted({1, *args.levels}):
        if level == 1:  # the same whole conversations for every system, nothing else running
            walk = max(1, math.ceil(args.min_turns / length)) * length
            plan = LevelPlan(1, walk, cap, drain(args, 1), walk, cap)
            pool = _pool(threads, length, args.seed)
        else:
            plan = LevelPlan(
                level, args.max_turns, args.seconds, drain(args, level), args.min_turns, cap,
                steady=True,  # every shopper in flight until the last turn counted
            )  # fmt: skip
            pool = _pool(threads, length, args.seed + level)  # the same for every system
        with PeakMemory(running.pids) as memory:
            run = asyncio.run(run_level(running.url, plan, pool))
        if level == 1:
            walked = [t for t in run.turns if t.finished and t.error is None]
            if 1 not in args.levels:
                continue
        summary = summarise_level(run, peak_rss_bytes=memory.peak)
        levels[str(level)] = summary
        turns[str(level)] = [dataclasses.asdict(t) for t in run.turns]
        print(
            f"  {running.name:<9} {level:>3} shoppers: {summary['turns_answered']:>4} turns, "
            f"{summary['turns_per_s']:.2f} turns/s, p95 {summary['latency_s']['p95']} s, "
            f"{summary['errors']} errors, {summary['turns_unfinished']} cut, "
            f"peak {summary['peak_rss_gib']} GiB, {run.wall_s:.0f} s",
            flush=True,
        )
        time.sleep(SETTLE_S)
    return {
        "description": running.description,
        "started_in_s": round(running.started_in_s, 1),
        "levels": levels,
        "conversation": per_turn(walked),
        "turns": turns,
    }


def _pool(threads: list[tuple[str, ...]], turns: int, seed: int) -> Iterator[Any]:
    return draw_conversations(threads, turns=turns, seed=seed)


def machine() -> dict[str, Any]:
    import psutil

    model = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [
            ln.split(":", 1)[1].strip()
            for ln in cpuinfo.read_text().splitlines()
            if ln.startswith("model name")
        ]
        model = names[0] if names else model
    return {
        "platform": platform.platform(),
        "processor": model,
        "cpus": os.cpu_count(),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "python": platform.python_version(),
    }


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.report_from:
        return report_again(args.report_from, update=args.update_docs)
    if args.spread:
        return spread_again(args.spread, args.out_dir, update=args.update_docs)
    command = shlex.join([".venv/bin/python", "-m", "bench.e2e", *(argv or sys.argv[1:])])
    if args.runs > 1:
        return repeated(args, command)
    return compare(args, command)


def compare(args: argparse.Namespace, command: str) -> int:
    """One whole comparison: every system, every level; results into ``args.out_dir``."""
    started = time.perf_counter()
    problem = None if args.no_install else install.ensure_bench_packages()
    missing = install.missing_modules()
    if core := [m for m in missing if m in install.CORE_MODULES]:
        print(
            f"bench.e2e: {', '.join(core)} missing: {problem or 'pip install -e .[bench]'}",
            file=sys.stderr,
        )
        return 2
    skipped: dict[str, str] = {}
    if missing and "llamacpp" in args.systems:  # the peer alone needs llama.cpp
        skipped["llamacpp"] = problem or f"not installed: {', '.join(missing)}"
        print(f"bench.e2e: skipping llamacpp: {skipped['llamacpp']}", file=sys.stderr)
    names = [n for n in args.systems if n not in skipped]
    from bench.loadbench import plots, report, summary, systems

    args.out_dir.mkdir(parents=True, exist_ok=True)
    threads = load_threads()
    results: dict[str, Any] = {
        "command": command,
        "started_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "plan": {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(args).items()},
        "skipped": skipped,
        "systems": {},
    }
    with tempfile.TemporaryDirectory(prefix="shopdesk-bench-") as scratch:
        print(f"indexing the bundled knowledge base: {build_index(Path(scratch))}", flush=True)
        longest = max(args.level_cap_seconds, args.seconds) + drain(args, max(args.levels))
        patience = longest + 60
        env = systems.base_env(
            Path(scratch),
            max_num_seqs=args.max_num_seqs,
            max_waiting=max(args.levels),
            patience_s=patience,
        )
        for name in names:
            print(f"starting {name} ...", flush=True)
            try:
                with starter(name, args, env, args.out_dir / "logs")() as running:
                    print(f"  ready in {running.started_in_s:.0f} s: {running.description}")
                    results["systems"][name] = run_system(running, args, threads)
            except RuntimeError as exc:  # a system that fails is reported; the others still run
                print(f"bench.e2e: {name} failed: {exc}", file=sys.stderr)
                skipped[name] = f"failed: {str(exc)[-1500:]}"
    results["run_seconds"] = round(time.perf_counter() - started)  # installing included
    text, pictures = finish(results, args.out_dir, summary, report, plots)
    if args.update_docs:
        print(f"updated {update_docs(text, pictures)} and copied the plots into docs/")
    return 1 if skipped else 0  # a comparison with a system missing is not the comparison


def finish(
    results: dict[str, Any], out_dir: Path, summary: Any, report: Any, plots: Any
) -> tuple[str, list[Path]]:
    """Ratios, targets, prefill by turn; write JSON, Markdown and plots; print the tables."""
    systems = results["systems"]
    by_level = {n: {int(k): v for k, v in s["levels"].items()} for n, s in systems.items()}
    mine = by_level.get("shopdesk", {})
    results["ratios"] = {
        baseline: {str(c): summary.ratios(mine[c], theirs[c]) for c in mine if c in theirs}
        for baseline, theirs in by_level.items()
        if baseline != "shopdesk" and mine
    }
    results["targets"] = summary.check_targets(by_level)
    results["prefill_by_turn"] = {name: s["conversation"] for name, s in systems.items()}
    (out_dir / "results.json").write_text(json.dumps(results, indent=2))
    text = report.markdown(results)
    (out_dir / "report.md").write_text(text)
    pictures = plots.all_plots(results, out_dir)
    print("\n" + text)
    print(
        f"results in {out_dir}: results.json, report.md, "
        f"{', '.join(p.name for p in pictures)}, logs/"
    )
    return text, pictures


def repeated(args: argparse.Namespace, command: str) -> int:
    """The whole comparison ``args.runs`` times, each into out_dir/run-N, then their spread."""
    paths, failed = [], 0
    for number in range(1, args.runs + 1):
        out = args.out_dir / f"run-{number}"
        print(f"run {number} of {args.runs} into {out}", flush=True)
        once = argparse.Namespace(**{**vars(args), "out_dir": out, "update_docs": False})
        failed |= compare(once, f"{command} (run {number} of {args.runs})")
        paths.append(out / "results.json")
    return spread_again(paths, args.out_dir, update=args.update_docs) or failed


def spread_again(paths: list[Path], out_dir: Path, *, update: bool) -> int:
    """The spread of several runs' figures: turns/s and the ratios per run, their median."""
    from bench.loadbench import spread

    runs = [json.loads(p.read_text()) for p in paths if p.exists()]
    if len(runs) < 2:
        print(f"bench.e2e: --spread needs two runs' results at least, found {len(runs)}")
        return 2
    found = spread.spread(runs)
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "spread.json").write_text(json.dumps(found, indent=2))
    text = spread.markdown(found)
    (out_dir / "spread.md").write_text(text)
    print("\n" + text)
    if update:
        print(f"updated {update_docs(text, [], markers=SPREAD_MARKERS)}")
    return 0


def report_again(path: Path, *, update: bool) -> int:
    """The report, plots (and docs) of an earlier run, its figures computed again from its turns."""
    from bench.loadbench import plots, report, summary

    results = json.loads(path.read_text())
    for system in results["systems"].values():
        summary.summarise_again(system)
    text, pictures = finish(results, path.parent, summary, report, plots)
    if update:
        print(f"updated {update_docs(text, pictures)} and copied the plots into docs/")
    return 0


def update_docs(
    text: str,
    pictures: list[Path],
    doc: Path = DOC,
    markers: tuple[str, str] = (RESULTS_START, RESULTS_END),
) -> Path:
    """Replace the figures between the markers of ``doc`` with this run's tables."""
    start, end = markers
    content = doc.read_text(encoding="utf-8")
    if start not in content or end not in content:
        raise SystemExit(f"bench.e2e: {doc} lacks the {start} ... {end} markers")
    before, rest = content.split(start, 1)
    after = rest.split(end, 1)[1]
    tables = text.split("\n", 1)[1].replace("\n## ", "\n#### ").strip()  # below the doc's heading
    doc.write_text(f"{before}{start}\n{tables}\n{end}{after}", encoding="utf-8")
    for picture in pictures:
        shutil.copy(picture, doc.parent / picture.name)
    return doc


if __name__ == "__main__":
    sys.exit(main())
