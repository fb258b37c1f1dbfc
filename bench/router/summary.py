"""Figures of one phase from its turns, and the verdict against the one-engine figure."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from bench.router.shoppers import TurnRecord

TOLERANCE = 0.10  # the done-criterion: within ±10% of one engine


def cached_share(turns: Sequence[TurnRecord]) -> float:
    prompt = sum(t.prompt_tokens for t in turns)
    return sum(t.cached_tokens for t in turns) / prompt if prompt else 0.0


def phase_figures(turns: Sequence[TurnRecord], wall_s: float) -> dict[str, Any]:
    """Turns/s over the phase; for turns 2+ the cached share of prompt tokens and the tokens
    prefilled per turn, also by turn number."""
    later = [t for t in turns if t.turn >= 2]
    by_turn = {n: [t for t in turns if t.turn == n] for n in sorted({t.turn for t in turns})}
    return {
        "turns": len(turns),
        "wall_s": round(wall_s, 2),
        "turns_per_s": round(len(turns) / wall_s, 3) if wall_s else 0.0,
        "latency_p50_s": round(statistics.median(t.latency_s for t in turns), 3),
        "first_token_p50_s": round(statistics.median(t.first_token_s for t in turns), 3),
        "turn2plus_cached_share": round(cached_share(later), 4),
        "turn2plus_prefilled_tokens_mean": round(
            statistics.fmean(t.prefilled_tokens for t in later), 1
        )
        if later
        else 0.0,
        "turn2plus_prompt_tokens_mean": round(statistics.fmean(t.prompt_tokens for t in later), 1)
        if later
        else 0.0,
        "by_turn": {
            str(n): {
                "turns": len(group),
                "prompt_tokens_mean": round(statistics.fmean(t.prompt_tokens for t in group), 1),
                "cached_share": round(cached_share(group), 4),
            }
            for n, group in by_turn.items()
        },
    }


def verdict(one_engine: dict[str, Any], fleet: dict[str, Any]) -> dict[str, Any]:
    """How far a two-engine phase is from one engine on turn 2+ (relative), and whether that is
    within the tolerance on both the cached share and the tokens prefilled per turn."""

    def relative(key: str) -> float:
        base = one_engine[key]
        return round((fleet[key] - base) / base, 4) if base else 0.0

    share, prefilled = (
        relative("turn2plus_cached_share"),
        relative("turn2plus_prefilled_tokens_mean"),
    )
    return {
        "cached_share_vs_one_engine": share,
        "prefilled_vs_one_engine": prefilled,
        "within_10_percent": abs(share) <= TOLERANCE and abs(prefilled) <= TOLERANCE,
    }
