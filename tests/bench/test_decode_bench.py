"""The decode benchmark's schedule and its medians (the figures themselves come from a run)."""

from __future__ import annotations

from typing import Any

from bench.decode import combine, schedule


def test_rounds_alternate_their_order_and_the_cold_start_runs_once_first() -> None:
    order = schedule(["default", "compiled-cold", "compiled-warm"], 3)
    assert order == [
        "compiled-cold",
        "default", "compiled-warm",
        "compiled-warm", "default",
        "default", "compiled-warm",
    ]  # fmt: skip
    assert schedule(["default"], 0) == ["default"]


def run(wall: float, ready: float = 40.0) -> dict[str, Any]:
    phase = {"wall_s": wall, "p50_latency_s": wall / 10, "p95_latency_s": wall / 5,
             "p50_ttft_s": 0.5, "tokens_per_s": 100 / wall,
             "prefilled_mean": wall * 10}  # fmt: skip
    return {"variant": "default", "dtype": "bfloat16", "eager": True, "speculative_tokens": 0,
            "ready_s": ready, "one_shopper": phase, "all_at_once": dict(phase),
            "answers": ["a"]}  # fmt: skip


def test_a_variant_is_reported_by_its_medians_with_the_range_of_its_wall_times() -> None:
    row = combine([run(20.0, 40.0), run(30.0, 50.0), run(22.0, 45.0)])
    assert row["one_shopper"]["wall_s"] == 22.0
    assert row["one_shopper"]["wall_s_range"] == [20.0, 30.0]
    assert row["one_shopper"]["prefilled_mean"] == 220.0
    assert row["ready_s"] == 45.0
    assert len(row["runs"]) == 3 and "answers" not in row["runs"][0]
    assert row["failed_runs"] == 0


def test_failed_runs_are_counted_and_a_variant_that_never_ran_says_why() -> None:
    failed = {"variant": "ngram4", "failed": "exit 1", "log_tail": "refused"}
    assert combine([failed]) == failed
    assert combine([run(20.0), failed])["failed_runs"] == 1
