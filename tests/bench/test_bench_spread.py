"""The spread of several runs of the comparison: per-run turns/s and ratios, read on the median."""

from __future__ import annotations

from typing import Any

from bench.loadbench.spread import markdown, spread


def _level(turns_per_s: float, answered: int, p95: float = 4.0) -> dict[str, Any]:
    return {
        "turns_per_s": turns_per_s,
        "turns_answered": answered,
        "latency_s": {"p50": p95 / 2, "p95": p95, "p99": p95},
        "latency_lower_bound": False,
    }


def _run(shopdesk: float, naive: float, answered: int, p95_met: bool) -> dict[str, Any]:
    return {
        "started_at": "2026-12-02 10:00 UTC",
        "run_seconds": 900,
        "machine": {"cpus": 2, "processor": "cpu", "memory_gib": 24},
        "systems": {
            "shopdesk": {"levels": {"16": _level(shopdesk, 60)}},
            "naive": {"levels": {"16": _level(naive, answered, p95=40.0)}},
        },
        "targets": [
            {"target": "p95 latency at 16 shoppers below naive's", "met": p95_met},
        ],
    }


def test_ratios_per_run_their_median_and_largest_deviation() -> None:
    found = spread([_run(2.0, 0.2, 31, True), _run(2.2, 0.2, 30, True), _run(2.0, 0.16, 32, False)])
    at16 = found["ratios"]["naive"]["16"]
    assert at16["turns_per_s"] == [10.0, 11.0, 12.5]
    assert at16["median"] == 11.0 and at16["deviation"] == round(1.5 / 11, 3)
    checks = {c["target"]: (c["measured"], c["met"]) for c in found["targets"]}
    assert checks["every system answers ≥ 30 turns at every level, in every run"] == (30, True)
    assert (
        checks["turns/s ratios at 16 shoppers over naive within ±10% of their median"][1] is False
    )
    assert checks["median turns/s at 16 shoppers ≥ 10× naive"] == (11.0, True)
    assert checks["p95 latency at 16 shoppers below naive's (runs meeting it)"] == ("2 of 3", True)
    targets = [c["target"] for c in found["targets"]]
    assert len(targets) == len(set(targets))  # each run lists the latency target: said once
    text = markdown(found)
    assert "| naive HF generate | 16 | 10.00× | 11.00× | 12.50× | 11.00× | ±14% |" in text
    assert "| naive HF generate | 16 | 0.20 (31) | 0.20 (30) | 0.16 (32) | 0.20 | ±20% |" in text


def test_too_few_turns_in_any_run_is_not_stable() -> None:
    found = spread([_run(2.0, 0.2, 31, True), _run(2.0, 0.2, 4, True)])
    checks = {c["target"]: c for c in found["targets"]}
    fewest = checks["every system answers ≥ 30 turns at every level, in every run"]
    assert fewest["measured"] == 4 and fewest["met"] is False
