"""Figures of one level's turns, and shopdesk's ratios to each baseline: plain functions of data."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from statistics import fmean
from typing import Any

from .load import LevelPlan, LevelRun, TurnResult

# The servers' own stage timings, in pipeline order ("record": the transcript row), and "other":
# what the client waited beyond them (HTTP and streaming, the session lock and history, prompt
# assembly, waiting for admission).
SERVER_STAGES = ("embed", "search", "queue", "prefill", "decode", "persist", "record")
STAGES = (*SERVER_STAGES, "other")


def percentile(values: Sequence[float], pct: float) -> float | None:
    """Linear interpolation between the closest ranks; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * pct / 100
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _spread(values: Sequence[float]) -> dict[str, float | None]:
    return {f"p{p}": _round(percentile(values, p)) for p in (50, 95, 99)}


def _round(value: float | None, digits: int = 3) -> float | None:
    return None if value is None else round(value, digits)


def summarise_level(run: LevelRun, *, peak_rss_bytes: int) -> dict[str, Any]:
    """Throughput, latency, time to first token, errors, stage means and memory of one level.

    Latency percentiles include turns cut at the level's hard stop, at the time they had run:
    those figures are then lower bounds (``latency_lower_bound``). A steady level that answered
    its turns cuts the ones still running when the last is answered: they are left out of its
    latency (they were cut because enough were answered, not because they were slow).
    """
    answered = [t for t in run.turns if t.finished and t.error is None]
    cut = [t for t in run.turns if not t.finished]
    plan = run.plan
    timed = answered if plan.steady and len(answered) >= plan.min_turns > 0 else answered + cut
    errors = [t for t in run.turns if t.error is not None]
    generated = tokens_done(answered, cut)
    stages = {s: _mean_of(answered, s) for s in STAGES}
    wall = max(run.wall_s, 1e-9)
    return {
        "concurrency": run.plan.concurrency,
        "steady": plan.steady,
        "min_turns": plan.min_turns,
        "turns_started": len(run.turns),
        "turns_answered": len(answered),
        "turns_unfinished": len(cut),
        "errors": len(errors),
        "error_examples": sorted({t.error for t in errors if t.error})[:3],
        "wall_s": round(run.wall_s, 2),
        "turns_per_s": round(len(answered) / wall, 3),
        "tokens_per_s": round(generated / wall, 1),
        "generated_tokens": generated,
        "latency_s": _spread([t.latency_s for t in timed]),
        "latency_lower_bound": len(timed) > len(answered),
        "ttft_s": _spread([t.ttft_s for t in answered if t.ttft_s is not None]),
        "stages_mean_s": stages,
        "bottleneck": bottleneck(stages),
        "peak_rss_gib": round(peak_rss_bytes / 2**30, 2),
        "per_turn": per_turn(answered),
    }


def tokens_done(answered: Sequence[TurnResult], cut: Sequence[TurnResult]) -> int:
    """Tokens generated within the level: the answers' own counts and what the cut turns had
    streamed by the stop, so a system is not flattered by finishing only its short answers.

    Servers stream text, not tokens (and some in pieces of several tokens): a cut turn's tokens
    are its streamed characters at the characters per token of the level's answered turns.
    """
    counted = [t for t in answered if t.generated_tokens and t.streamed_chars]
    chars_per_token = (
        sum(t.streamed_chars for t in counted) / sum(t.generated_tokens for t in counted)
        if counted
        else 4.0
    )
    partial = sum(t.streamed_chars for t in cut) / chars_per_token
    return sum(t.generated_tokens for t in answered) + round(partial)


def stages_of(turn: TurnResult) -> dict[str, float]:
    """The server's stage times of one turn; where the engine's own split is missing (an answer
    the output guard cut short stops the stream before its statistics), the app's clock gives
    prefill (to the first text) and decode (the rest of the generation)."""
    stages = {s: turn.timings.get(s, 0.0) for s in SERVER_STAGES}
    first, whole = turn.timings.get("first_token"), turn.timings.get("generate")
    if first is not None and whole is not None and not stages["prefill"] + stages["decode"]:
        stages["prefill"], stages["decode"] = first, max(0.0, whole - first)
    return stages


def _mean_of(turns: Sequence[TurnResult], stage: str) -> float | None:
    if not turns:
        return None
    if stage == "other":
        rest = [t.latency_s - sum(stages_of(t).values()) for t in turns]
        return _round(fmean(max(0.0, r) for r in rest))
    return _round(fmean(stages_of(t)[stage] for t in turns))


def bottleneck(stages: dict[str, float | None]) -> str | None:
    """The stage the average turn spent longest in."""
    timed = {s: v for s, v in stages.items() if v}
    return max(timed, key=lambda s: timed[s]) if timed else None


def per_turn(turns: Sequence[TurnResult]) -> list[dict[str, Any]]:
    """Mean prefill time, prompt and prefilled (not from a cache) tokens by turn number.

    Token means cover only the turns whose server reported tokens (``token_count`` of them).
    """
    by_number: dict[int, list[TurnResult]] = defaultdict(list)
    for turn in turns:
        if turn.generated_tokens and "prefill" in turn.timings:  # answers the engine generated
            by_number[turn.turn_number].append(turn)
    rows = []
    for number, group in sorted(by_number.items()):
        counted = [t for t in group if t.prompt_tokens]
        rows.append(
            {
                "turn": number,
                "count": len(group),
                "prefill_s": round(fmean(t.timings["prefill"] for t in group), 3),
                "token_count": len(counted),
                "prompt_tokens": _mean([t.prompt_tokens for t in counted]),
                "prefilled_tokens": _mean([t.prompt_tokens - t.cached_tokens for t in counted]),
            }
        )
    return rows


def _mean(values: Sequence[float]) -> float | None:
    return round(fmean(values), 1) if values else None


def summarise_again(system: dict[str, Any]) -> None:
    """Recompute a system's figures in place from the turns its run recorded (same run, new
    reading: after a change to how figures are computed)."""
    recorded = system["turns"]
    walk = [TurnResult(**t) for t in recorded.get("conversation", recorded.get("1", []))]
    system["conversation"] = per_turn([t for t in walk if t.finished and t.error is None])
    for level, old in system["levels"].items():
        plan = LevelPlan(old["concurrency"], 0, 0, 0, old.get("min_turns", 0),
                         steady=old.get("steady", False))  # fmt: skip
        run = LevelRun(plan, old["wall_s"], [TurnResult(**t) for t in recorded[level]])
        system["levels"][level] = summarise_level(
            run, peak_rss_bytes=round(old["peak_rss_gib"] * 2**30)
        )


def ratios(mine: dict[str, Any], theirs: dict[str, Any]) -> dict[str, float | None]:
    """shopdesk ÷ baseline at one level: above 1 is better for throughput, below 1 for latency."""

    def divide(a: float | None, b: float | None) -> float | None:
        return round(a / b, 2) if a is not None and b else None

    return {
        "turns_per_s": divide(mine["turns_per_s"], theirs["turns_per_s"]),
        "tokens_per_s": divide(mine["tokens_per_s"], theirs["tokens_per_s"]),
        "p50_latency": divide(mine["latency_s"]["p50"], theirs["latency_s"]["p50"]),
        "p95_latency": divide(mine["latency_s"]["p95"], theirs["latency_s"]["p95"]),
        "p50_ttft": divide(mine["ttft_s"]["p50"], theirs["ttft_s"]["p50"]),
    }


def p95_below(mine: dict[str, Any], theirs: dict[str, Any]) -> bool | None:
    """Whether ``mine`` has the lower p95 latency; None when the cut turns leave it open.

    A level's p95 that includes turns cut at the stop is only a lower bound: shopdesk's exact
    p95 under a baseline's lower bound is lower, but two lower bounds decide nothing.
    """
    a, b = mine["latency_s"]["p95"], theirs["latency_s"]["p95"]
    if a is None or b is None:
        return None
    if not mine["latency_lower_bound"]:
        return a < b if not theirs["latency_lower_bound"] else (a < b or None)
    return False if not theirs["latency_lower_bound"] and b <= a else None


# shopdesk's turns/s at 16 shoppers over each baseline's, at least (issue 17)
TURNS_PER_S_TARGETS = {"naive": 10.0, "llamacpp": 4.0}


def check_targets(levels: dict[str, dict[int, dict[str, Any]]]) -> list[dict[str, Any]]:
    """The issue's targets, each with what was measured and whether it was met."""
    mine = levels.get("shopdesk", {})
    checks: list[dict[str, Any]] = []
    for baseline, factor in TURNS_PER_S_TARGETS.items():
        theirs = levels.get(baseline, {})
        if baseline == "llamacpp" and 1 in mine and 1 in theirs:  # one shopper: the peer's pace
            for pct in ("p50", "p95"):
                a, b = mine[1]["latency_s"][pct], theirs[1]["latency_s"][pct]
                checks.append(
                    {
                        "target": f"{pct} latency at 1 shopper ≤ {baseline}'s",
                        "measured": ratios(mine[1], theirs[1])[f"{pct}_latency"],
                        "met": None if a is None or b is None else a <= b,
                    }
                )
        if 16 in mine and 16 in theirs:
            ratio = ratios(mine[16], theirs[16])["turns_per_s"]
            checks.append(
                {
                    "target": f"turns/s at 16 shoppers ≥ {factor:g}× {baseline}",
                    "measured": ratio,
                    "met": ratio is not None and ratio >= factor,
                }
            )
        for level in sorted(c for c in mine if c >= 4 and c in theirs):
            checks.append(
                {
                    "target": f"p95 latency at {level} shoppers below {baseline}'s",
                    "measured": ratios(mine[level], theirs[level])["p95_latency"],
                    "met": p95_below(mine[level], theirs[level]),
                }
            )
    for system, by_level in levels.items():
        errors = sum(level["errors"] for level in by_level.values())
        checks.append({"target": f"no errors ({system})", "measured": errors, "met": errors == 0})
    return checks
