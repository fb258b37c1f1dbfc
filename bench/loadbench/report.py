"""The comparison as Markdown tables (for people and docs) from the results JSON's data."""

from __future__ import annotations

from typing import Any

from .summary import STAGES

NAMES = {"shopdesk": "shopdesk", "naive": "naive HF generate", "llamacpp": "llama.cpp peer"}


def _num(value: Any, digits: int = 2) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:,.{digits}f}"
    return f"{value:,}"


def _latency(level: dict[str, Any], pct: str) -> str:
    text = _num(level["latency_s"][pct])
    return f"≥ {text}" if level["latency_lower_bound"] else text


def throughput_table(results: dict[str, Any]) -> list[str]:
    lines = [
        "| system | shoppers | turns answered | turns/s | tokens/s | p50 s | p95 s | p99 s "
        "| TTFT p50 s | TTFT p95 s | errors | cut at stop | peak RSS GiB |",
        "| --- |" + " ---: |" * 12,
    ]
    for name, system in results["systems"].items():
        for level in system["levels"].values():
            lines.append(
                f"| {NAMES.get(name, name)} | {level['concurrency']} | {level['turns_answered']} "
                f"| {_num(level['turns_per_s'])} | {_num(level['tokens_per_s'], 1)} "
                f"| {_latency(level, 'p50')} | {_latency(level, 'p95')} | {_latency(level, 'p99')} "
                f"| {_num(level['ttft_s']['p50'])} | {_num(level['ttft_s']['p95'])} "
                f"| {level['errors']} | {level['turns_unfinished']} "
                f"| {_num(level['peak_rss_gib'])} |"
            )
    return lines


def ratio_table(results: dict[str, Any]) -> list[str]:
    lines = [
        "| shopdesk ÷ | shoppers | turns/s | tokens/s | p50 latency | p95 latency | p50 TTFT |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for baseline, by_level in results["ratios"].items():
        for level, r in by_level.items():
            lines.append(
                f"| {NAMES.get(baseline, baseline)} | {level} | {_num(r['turns_per_s'])}× "
                f"| {_num(r['tokens_per_s'])}× | {_num(r['p50_latency'])}× "
                f"| {_num(r['p95_latency'])}× | {_num(r['p50_ttft'])}× |"
            )
    return lines


def stage_table(results: dict[str, Any]) -> list[str]:
    header = " | ".join(f"{s} s" for s in STAGES)
    lines = [
        f"| system | shoppers | {header} | bottleneck |",
        "| --- | ---: |" + " ---: |" * len(STAGES) + " --- |",
    ]
    for name, system in results["systems"].items():
        for level in system["levels"].values():
            stages = " | ".join(_num(level["stages_mean_s"].get(s), 3) for s in STAGES)
            lines.append(
                f"| {NAMES.get(name, name)} | {level['concurrency']} | {stages} "
                f"| {level['bottleneck'] or '–'} |"
            )
    return lines


def prefill_table(results: dict[str, Any]) -> list[str]:
    """Prefilled tokens and prefill time by turn number, over one shopper's whole conversations."""
    turns = sorted({row["turn"] for s in results["prefill_by_turn"].values() for row in s})
    if not turns:
        return []
    lines = [
        "| prefilled tokens (prefill s) | " + " | ".join(f"turn {t}" for t in turns) + " |",
        "| --- |" + " ---: |" * len(turns),
    ]
    for name, rows in results["prefill_by_turn"].items():
        by_turn = {row["turn"]: row for row in rows}
        cells = [
            f"{_num(by_turn[t]['prefilled_tokens'], 0)} ({by_turn[t]['prefill_s']:.2f})"
            if t in by_turn
            else "–"
            for t in turns
        ]
        lines.append(f"| {NAMES.get(name, name)} | " + " | ".join(cells) + " |")
    return lines


VERDICTS = {True: "met", False: "**not met**", None: "**undecided** (both cut at the stop)"}


def target_lines(results: dict[str, Any]) -> list[str]:
    return [
        f"- {VERDICTS[check['met']]}: {check['target']} (measured {_num(check['measured'])})"
        for check in results["targets"]
    ]


def markdown(results: dict[str, Any]) -> str:
    machine = results["machine"]
    parts = [
        "# End-to-end load benchmark",
        "",
        f"`{results['command']}` on {results['started_at']}: {machine['cpus']} CPUs "
        f"({machine['processor']}), {machine['memory_gib']} GiB, {machine['platform']}; "
        f"levels {', '.join(map(str, results['plan']['levels']))}; "
        f"{results['plan']['turns_per_conversation']} turns per conversation; the whole run "
        f"took {results.get('run_seconds', '?')} s.",
        "",
        *[
            f"- **{NAMES.get(n, n)}**: {s['description']} (ready in {s['started_in_s']:.0f} s)"
            for n, s in results["systems"].items()
        ],
        *[
            f"- **{NAMES.get(n, n)}**: not measured, {reason.splitlines()[0]}"
            for n, reason in results.get("skipped", {}).items()
        ],
        "",
        "## Throughput and latency",
        "",
        *throughput_table(results),
        "",
        "A latency marked ≥ includes turns cut at the level's hard stop, counted at the time "
        "they had run: the true figure is at least that. Tokens/s counts what cut turns had "
        "streamed by the stop as well as the answered turns' tokens. Level 1 is one shopper "
        "walking whole conversations, one after another. After its window a level keeps "
        f"every shopper busy until {results['plan'].get('min_turns', 0)} turns are answered "
        "(or its cap) and ends at that answer: the turns still running then are the ones cut "
        "at the stop, left out of the latency.",
        "",
        "## Ratios (shopdesk ÷ baseline)",
        "",
        *ratio_table(results),
        "",
        "## Where the time goes (mean seconds per turn, from each server's own timings)",
        "",
        *stage_table(results),
        "",
        "## Prefill by turn number (level 1: mean over its conversations, the same for every "
        "system)",
        "",
        *prefill_table(results),
        "",
        "## Targets",
        "",
        *target_lines(results),
        "",
    ]
    return "\n".join(parts)
