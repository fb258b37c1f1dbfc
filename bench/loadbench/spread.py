"""How far several runs of the same comparison agree: turns/s and shopdesk's ratios per run.

One run's ratio rests on the turns its levels answered; the issue's condition for a stable
comparison is at least 30 answered turns per system and level, and the turns/s ratios at 16
shoppers of three runs within ±10% of their median. The targets are read on the median.
"""

from __future__ import annotations

from statistics import median
from typing import Any

from .report import NAMES, VERDICTS, _num
from .summary import TURNS_PER_S_TARGETS

STABLE_WITHIN = 0.10  # each run's ratio within this share of the runs' median
STABLE_TURNS = 30  # answered turns per system and level, in every run


def _deviation(values: list[float]) -> float | None:
    """The largest distance of a value from the values' median, as a share of the median."""
    middle = median(values)
    return round(max(abs(v - middle) for v in values) / middle, 3) if middle else None


def spread(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Per system and level: turns answered and turns/s in each run; per baseline and level:
    shopdesk's turns/s ratio in each run, its median and largest deviation; the targets on the
    medians."""
    systems = [n for n in runs[0]["systems"] if all(n in r["systems"] for r in runs)]
    levels = sorted(
        {int(k) for r in runs for s in r["systems"].values() for k in s["levels"]},
    )
    turns: dict[str, dict[str, Any]] = {}
    for name in systems:
        for level in levels:
            found = [r["systems"][name]["levels"].get(str(level)) for r in runs]
            if any(f is None for f in found):
                continue
            rates = [f["turns_per_s"] for f in found]
            turns.setdefault(name, {})[str(level)] = {
                "turns_answered": [f["turns_answered"] for f in found],
                "turns_per_s": rates,
                "median": round(median(rates), 3),
                "deviation": _deviation(rates),
                "p50_latency_s": [f["latency_s"]["p50"] for f in found],
                "p95_latency_s": [f["latency_s"]["p95"] for f in found],
                "p95_lower_bound": [f["latency_lower_bound"] for f in found],
            }
    ratios: dict[str, dict[str, Any]] = {}
    for baseline in (n for n in systems if n != "shopdesk"):
        for shoppers, theirs in turns.get(baseline, {}).items():
            mine = turns.get("shopdesk", {}).get(shoppers)
            if mine is None:
                continue
            each = [
                round(a / b, 2) if b else None
                for a, b in zip(mine["turns_per_s"], theirs["turns_per_s"], strict=True)
            ]
            known = [r for r in each if r is not None]
            ratios.setdefault(baseline, {})[shoppers] = {
                "turns_per_s": each,
                "median": round(median(known), 2) if known else None,
                "deviation": _deviation(known) if known else None,
            }
    return {
        "runs": [
            {"started_at": r["started_at"], "run_seconds": r.get("run_seconds")} for r in runs
        ],
        "machine": runs[0]["machine"],
        "turns": turns,
        "ratios": ratios,
        "targets": _targets(runs, turns, ratios),
    }


def _targets(
    runs: list[dict[str, Any]], turns: dict[str, Any], ratios: dict[str, Any]
) -> list[dict[str, Any]]:
    checks: list[dict[str, Any]] = []
    fewest = min(
        (
            min(level["turns_answered"])
            for by_level in turns.values()
            for level in by_level.values()
        ),
        default=0,
    )
    checks.append(
        {
            "target": f"every system answers ≥ {STABLE_TURNS} turns at every level, in every run",
            "measured": fewest,
            "met": fewest >= STABLE_TURNS,
        }
    )
    for baseline, factor in TURNS_PER_S_TARGETS.items():
        at16 = ratios.get(baseline, {}).get("16")
        if at16 is None or at16["median"] is None:
            continue
        checks.append(
            {
                "target": f"turns/s ratios at 16 shoppers over {baseline} within "
                f"±{STABLE_WITHIN:.0%} of their median",
                "measured": at16["deviation"],
                "met": at16["deviation"] is not None and at16["deviation"] <= STABLE_WITHIN,
            }
        )
        checks.append(
            {
                "target": f"median turns/s at 16 shoppers ≥ {factor:g}× {baseline}",
                "measured": at16["median"],
                "met": at16["median"] >= factor,
            }
        )
    # latency targets: the median of each run's verdict is what holds in most runs
    for check in (c for r in runs for c in r.get("targets", ()) if "latency" in c["target"]):
        named = f"{check['target']} (runs meeting it)"
        if any(c["target"] == named for c in checks):
            continue  # every run lists it: once
        verdicts = [
            next((c["met"] for c in r.get("targets", ()) if c["target"] == check["target"]), None)
            for r in runs
        ]
        met = sum(v is True for v in verdicts)
        checks.append(
            {
                "target": named,
                "measured": f"{met} of {len(runs)}",
                "met": met * 2 > len(runs),
            }
        )
    return checks


def markdown(found: dict[str, Any]) -> str:
    machine = found["machine"]
    runs = found["runs"]
    turns = [
        (NAMES.get(name, name), level, [f"{_num(r)} ({n})" for r, n in zip(
            row["turns_per_s"], row["turns_answered"], strict=True)], _num(row["median"]),
         row["deviation"])
        for name, by_level in found["turns"].items()
        for level, row in by_level.items()
    ]  # fmt: skip
    ratios = [
        (NAMES.get(name, name), level, [f"{_num(r)}×" for r in row["turns_per_s"]],
         f"{_num(row['median'])}×", row["deviation"])
        for name, by_level in found["ratios"].items()
        for level, row in by_level.items()
    ]  # fmt: skip
    lines = [
        "# Spread over runs",
        "",
        f"{len(runs)} runs of the comparison ({', '.join(r['started_at'] for r in runs)}) on "
        f"{machine['cpus']} CPUs ({machine['processor']}), {machine['memory_gib']} GiB.",
        "",
        "## Turns/s per run (turns answered)",
        "",
        *_table("system", len(runs), turns),
        "",
        "## shopdesk's turns/s ratio per run",
        "",
        *_table("shopdesk ÷", len(runs), ratios),
        "",
        "## Targets (on the median)",
        "",
        *(
            f"- {VERDICTS[c['met']]}: {c['target']} (measured {_measured(c['measured'])})"
            for c in found["targets"]
        ),
    ]
    return "\n".join([*lines, ""])


_Row = tuple[str, str, list[str], str, float | None]  # name, shoppers, per run, median, deviation


def _table(first: str, count: int, rows: list[_Row]) -> list[str]:
    heads = " | ".join(f"run {i}" for i in range(1, count + 1))
    return [
        f"| {first} | shoppers | {heads} | median | largest deviation |",
        "| --- | ---: |" + " ---: |" * (count + 2),
        *(
            f"| {name} | {level} | {' | '.join(cells)} | {middle} | {_pct(deviation)} |"
            for name, level, cells, middle, deviation in rows
        ),
    ]


def _measured(value: Any) -> str:
    return value if isinstance(value, str) else _num(value)


def _pct(value: float | None) -> str:
    return "–" if value is None else f"±{value:.0%}"
