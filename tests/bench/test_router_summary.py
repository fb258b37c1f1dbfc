"""The router benchmark's figures and verdict (bench/router/summary.py), on hand-made turns."""

from __future__ import annotations

import pytest

from bench.router.shoppers import TurnRecord
from bench.router.summary import phase_figures, verdict


def turn(number: int, prompt: int, cached: int) -> TurnRecord:
    return TurnRecord(1, number, prompt, cached, latency_s=1.0, first_token_s=0.2)


def test_only_turns_two_and_later_count_for_the_cache_figures() -> None:
    turns = [turn(1, 1000, 0), turn(2, 1000, 600), turn(3, 1200, 900)]
    figures = phase_figures(turns, wall_s=6.0)
    assert figures["turns_per_s"] == 0.5
    assert figures["turn2plus_cached_share"] == pytest.approx(1500 / 2200, abs=1e-4)
    assert figures["turn2plus_prefilled_tokens_mean"] == 350.0
    assert figures["by_turn"]["1"]["cached_share"] == 0.0


def test_the_verdict_is_relative_to_one_engine_on_both_figures() -> None:
    one = phase_figures([turn(1, 1000, 0), turn(2, 1000, 600)], wall_s=2.0)
    near = phase_figures([turn(1, 1000, 0), turn(2, 1000, 580)], wall_s=1.0)
    lost = phase_figures([turn(1, 1000, 0), turn(2, 1000, 150)], wall_s=1.0)
    assert verdict(one, near)["within_10_percent"] is True
    # 3.3% fewer cached tokens, but 5% more to prefill: both are inside the tolerance
    assert verdict(one, near)["prefilled_vs_one_engine"] == pytest.approx(0.05)
    lost_verdict = verdict(one, lost)
    assert lost_verdict["within_10_percent"] is False
    assert lost_verdict["cached_share_vs_one_engine"] == pytest.approx(-0.75)
