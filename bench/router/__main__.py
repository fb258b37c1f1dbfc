"""Two `vllm serve` engines behind vLLM's router against one engine alone, in one run.

The same shoppers' conversations (the shop's real prompts, see bench/router/shoppers.py) are sent
four times, each phase starting with the engines' prefix caches emptied: to one engine directly,
then through vllm-router with `consistent_hash` (the app's routing key per conversation),
`cache_aware` (the prompt's prefix) and `round_robin`. Each engine is bound to its own core.
Per phase: turns/s, and for turns 2+ the cached share of prompt tokens (vLLM's
`prompt_tokens_details.cached_tokens`) and the tokens prefilled per turn, set against one engine.
Writes bench-results/router.json and router.md.

    bash scripts/setup.sh && flock /tmp/shopdesk-cpu.lock .venv/bin/python -m bench.router
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import itertools
import json
import logging
import sys
import tempfile
import time
from contextlib import AbstractAsyncContextManager, ExitStack
from pathlib import Path
from typing import Any

from app.chat.prompt_format import PromptFormat
from app.engine.remote import RemoteEngine, remote_engine, router_engine
from app.modelstore import resolve_generator
from app.settings import Settings
from bench.loadbench.conversations import draw_conversations, load_threads
from bench.router import fleet
from bench.router.shoppers import Workload, find_passages, run_phase
from bench.router.summary import phase_figures, verdict

REPO = Path(__file__).resolve().parents[2]
ONE_ENGINE = "one engine"


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m bench.router", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--shoppers", type=int, default=4, help="conversations at once")
    parser.add_argument("--conversations", type=int, default=12, help="conversations per phase")
    parser.add_argument("--turns", type=int, default=6, help="turns per conversation")
    parser.add_argument("--max-tokens", type=int, default=48, help="longest answer, in tokens")
    parser.add_argument("--cores", default="0,1", help="one CPU core (list) per engine")
    parser.add_argument("--kv-cache-gib", type=int, default=1, help="KV cache per engine")
    parser.add_argument("--seed", type=int, default=17, help="which conversations are drawn")
    parser.add_argument("--out", type=Path, default=REPO / "bench-results" / "router.json")
    args = parser.parse_args(argv)
    if min(args.shoppers, args.conversations, args.turns, args.max_tokens) < 1:
        parser.error("--shoppers, --conversations, --turns and --max-tokens must be positive")
    if args.turns < 2:
        parser.error("--turns must be at least 2: the figures are of turns 2+")
    if len(args.cores.split(",")) < 2:
        parser.error("--cores needs one entry per engine, at least two (e.g. 0,1)")
    return args


def workload(args: argparse.Namespace, settings: Settings, model: str) -> Workload:
    conversations = list(
        itertools.islice(
            draw_conversations(load_threads(), turns=args.turns, seed=args.seed),
            args.conversations,
        )
    )
    messages = [m for c in conversations for m in c.messages]
    with tempfile.TemporaryDirectory(prefix="bench-router-") as scratch:
        from bench.e2e import build_index

        print(f"indexing the bundled knowledge base: {build_index(Path(scratch))}", flush=True)
        indexed = settings.model_copy(update={"data_dir": Path(scratch), "embed_device": "cpu"})
        passages = find_passages(messages, Path(scratch), indexed)
    return Workload(
        conversations=conversations,
        passages=passages,
        prompt_format=PromptFormat(model, shop_name=settings.shop_name, canary="bench-canary"),
        shoppers=args.shoppers,
        max_tokens=args.max_tokens,
        context_tokens=settings.vllm_max_model_len,
        passage_tokens=settings.passage_tokens,
    )


def run(args: argparse.Namespace) -> dict[str, Any]:
    settings = Settings(_env_file=None)
    model = resolve_generator(settings.generator_model, settings.model_cache_dir)
    work = workload(args, settings, model)
    logs = args.out.parent / "router-logs"
    logs.mkdir(parents=True, exist_ok=True)
    phases: dict[str, Any] = {}
    with ExitStack() as stack:
        started = time.perf_counter()
        engines = fleet.start_engines(
            stack,
            model,
            args.cores.split(","),
            logs,
            kv_cache_gib=args.kv_cache_gib,
            max_model_len=settings.vllm_max_model_len,
            max_num_seqs=max(args.shoppers, 4),
        )
        print(f"{len(engines)} engines ready in {time.perf_counter() - started:.0f}s", flush=True)
        routers = {p: fleet.start_router(stack, p, engines, logs) for p in fleet.POLICIES}
        openers: dict[str, Any] = {ONE_ENGINE: lambda: _direct(engines[0])}
        openers.update({p: (lambda url=url: _routed(url)) for p, url in routers.items()})
        for name, opener in openers.items():
            fleet.reset_prefix_caches(engines)
            before = fleet.finished_requests(engines)
            turns, wall_s = asyncio.run(run_phase(opener(), work, name.replace(" ", "-")))
            figures = phase_figures(turns, wall_s)
            figures["requests_per_engine"] = fleet.split(before, fleet.finished_requests(engines))
            phases[name] = figures
            print(_line(name, figures), flush=True)
    for name, figures in phases.items():
        if name != ONE_ENGINE:
            figures["vs_one_engine"] = verdict(phases[ONE_ENGINE], figures)
    return {"phases": phases}


def _direct(url: str) -> AbstractAsyncContextManager[RemoteEngine]:
    return remote_engine([url], model=fleet.SERVED_NAME, probe_every_s=3600)


def _routed(url: str) -> AbstractAsyncContextManager[RemoteEngine]:
    return router_engine(url, model=fleet.SERVED_NAME, probe_every_s=3600)


def _line(name: str, f: dict[str, Any]) -> str:
    return (
        f"{name:16} {f['turns']:3} turns {f['turns_per_s']:6.3f} turns/s  turn 2+: cached "
        f"{f['turn2plus_cached_share']:.1%}, prefilled {f['turn2plus_prefilled_tokens_mean']:.0f}"
        f" tokens/turn  requests per engine {f['requests_per_engine']}"
    )


def markdown(report: dict[str, Any]) -> str:
    rows = [
        "| phase | requests per engine | turns | turns/s | p50 latency s | turn 2+ cached share "
        "| turn 2+ prefilled tokens/turn | vs one engine (cached, prefilled) |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, f in report["phases"].items():
        v = f.get("vs_one_engine")
        versus = (
            f"{v['cached_share_vs_one_engine']:+.1%}, {v['prefilled_vs_one_engine']:+.1%}"
            f" ({'within' if v['within_10_percent'] else 'outside'} ±10%)"
            if v
            else "(baseline)"
        )
        rows.append(
            f"| {name} | {' / '.join(map(str, f['requests_per_engine']))} | {f['turns']} "
            f"| {f['turns_per_s']:.3f} | {f['latency_p50_s']:.2f} "
            f"| {f['turn2plus_cached_share']:.1%} | {f['turn2plus_prefilled_tokens_mean']:.0f} "
            f"| {versus} |"
        )
    machine, plan = report["machine"], report["plan"]
    return (
        f"# Two engines behind vllm-router ({report['date']})\n\n"
        f"{machine['processor']}, {machine['cpus']} CPUs, {machine['memory_gib']} GiB; "
        f"`{report['command']}`\n\n"
        f"{plan['conversations']} conversations of {plan['turns']} turns, {plan['shoppers']} at "
        f"a time, answers up to {plan['max_tokens']} tokens; engines on cores {plan['cores']}, "
        "prefix caches emptied before each phase.\n\n" + "\n".join(rows) + "\n"
    )


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.WARNING)
    args = parse_args(argv)
    from bench.e2e import machine

    report = {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "command": " ".join(["python -m bench.router", *(sys.argv[1:] if argv is None else argv)]),
        "machine": machine(),
        "plan": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        **run(args),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    args.out.with_suffix(".md").write_text(markdown(report))
    print(f"wrote {args.out} and {args.out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
