"""The load benchmark's pure parts: conversations, level figures, ratios, targets, the report."""

from __future__ import annotations

import dataclasses
import json
from itertools import islice
from pathlib import Path
from typing import Any

import pytest

from bench.loadbench import summary
from bench.loadbench.conversations import draw_conversations, load_threads
from bench.loadbench.install import bench_requirements
from bench.loadbench.load import LevelPlan, LevelRun, TurnResult, require_loopback
from bench.loadbench.report import markdown
from bench.loadbench.summary import (
    check_targets,
    percentile,
    ratios,
    summarise_level,
)
from tests.conftest import REPO


def test_threads_come_from_every_labelled_case_with_follow_ups_after_their_history() -> None:
    threads = load_threads()
    lines = (REPO / "evaluation" / "data" / "shop_questions.jsonl").read_text().splitlines()
    assert len(threads) == sum(1 for line in lines if line.strip())
    assert ("Tell me about the Stormhollow 2 tent", "how heavy is it?") in threads


def test_a_broken_question_file_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"question": "ok?", "history": []}\n{"history": []}\n')
    with pytest.raises(ValueError, match=r"q.jsonl:2"):
        load_threads(path)


def test_conversations_have_the_asked_length_keep_threads_in_order_and_are_reproducible() -> None:
    threads = [("a",), ("b1", "b2", "b3"), ("c",)]
    first = list(islice(draw_conversations(threads, turns=4, seed=3), 20))
    again = list(islice(draw_conversations(threads, turns=4, seed=3), 20))
    assert first == again
    assert [c.number for c in first] == list(range(1, 21))
    for conversation in first:
        assert len(conversation.messages) == 4
        text = " ".join(conversation.messages)
        for follow_up in ("b2", "b3"):  # a follow-up is never sent without what comes before it
            if text.startswith(follow_up):
                pytest.fail(f"{follow_up} opened a conversation")
    assert first != list(islice(draw_conversations(threads, turns=4, seed=4), 20))


def test_percentiles_interpolate_and_say_none_for_nothing() -> None:
    assert percentile([], 50) is None
    assert percentile([3.0], 99) == 3.0
    assert percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5
    assert percentile(list(map(float, range(101))), 95) == pytest.approx(95.0)


def _turn(number: int, latency: float, **fields: Any) -> TurnResult:
    return TurnResult(shopper=0, turn_number=number, started_s=0.0, latency_s=latency, **fields)


def test_a_level_counts_answers_errors_and_cut_turns_apart() -> None:
    timings = {"embed": 0.01, "search": 0.002, "queue": 0.5, "prefill": 0.3, "decode": 1.0}
    turns = [
        _turn(
            1,
            2.0,
            ttft_s=0.8,
            generated_tokens=50,
            streamed_chars=150,
            prompt_tokens=800,
            cached_tokens=100,
            timings=timings,
        ),
        _turn(
            2,
            4.0,
            ttft_s=1.2,
            generated_tokens=30,
            streamed_chars=90,
            prompt_tokens=1000,
            cached_tokens=700,
            timings=timings,
        ),
        _turn(1, 0.1, error="TurnFailed: HTTP 503: busy"),
        _turn(3, 9.0, finished=False, streamed_chars=60),
    ]
    level = summarise_level(LevelRun(LevelPlan(4, 10, 5, 5), 10.0, turns), peak_rss_bytes=3 * 2**30)
    assert (level["turns_started"], level["turns_answered"]) == (4, 2)
    assert (level["errors"], level["turns_unfinished"]) == (1, 1)
    assert level["error_examples"] == ["TurnFailed: HTTP 503: busy"]
    # the cut turn's 60 streamed characters, at the answers' 3 characters a token, are 20
    # tokens of work done within the level; the error's are not
    assert level["turns_per_s"] == 0.2 and level["tokens_per_s"] == 10.0
    assert level["latency_lower_bound"] is True  # the cut turn's 9 s is in the percentiles
    assert level["latency_s"]["p99"] == pytest.approx(8.9, abs=0.01)
    assert level["ttft_s"]["p50"] == 1.0
    assert level["stages_mean_s"]["decode"] == 1.0
    # the client waited 2 and 4 s; the server's stages cover 1.812 s of each
    assert level["stages_mean_s"]["other"] == pytest.approx(1.188)
    assert level["bottleneck"] == "other"
    assert level["peak_rss_gib"] == 3.0
    assert [(r["turn"], r["prefilled_tokens"]) for r in level["per_turn"]] == [(1, 700), (2, 300)]


def test_a_turn_without_the_engines_split_is_timed_by_the_apps_clock() -> None:
    cut_short = _turn(1, 4.0, timings={"embed": 0.1, "first_token": 1.0, "generate": 3.5})
    level = summarise_level(LevelRun(LevelPlan(1, 1, 5, 5), 4.0, [cut_short]), peak_rss_bytes=0)
    stages = level["stages_mean_s"]
    assert (stages["prefill"], stages["decode"]) == (1.0, 2.5)
    assert stages["other"] == pytest.approx(0.4)


def _level(turns_per_s: float, p95: float, errors: int = 0, cut: bool = False) -> dict[str, Any]:
    spread = {"p50": p95 / 2, "p95": p95, "p99": p95}
    return {
        "turns_per_s": turns_per_s,
        "tokens_per_s": turns_per_s * 50,
        "latency_s": spread,
        "latency_lower_bound": cut,
        "ttft_s": spread,
        "errors": errors,
    }


def test_ratios_are_shopdesk_over_baseline_and_none_when_undefined() -> None:
    r = ratios(_level(4.0, 2.0), _level(0.5, 8.0))
    assert r["turns_per_s"] == 8.0 and r["p95_latency"] == 0.25
    assert ratios(_level(4.0, 2.0), _level(0.0, 8.0))["turns_per_s"] is None


def test_targets_report_each_comparison_and_errors() -> None:
    levels = {
        "shopdesk": {1: _level(0.5, 2.0), 4: _level(3.0, 2.0), 16: _level(5.0, 4.0)},
        "naive": {4: _level(0.4, 10.0), 16: _level(0.4, 40.0)},
        "llamacpp": {1: _level(0.3, 3.0), 4: _level(2.0, 1.5), 16: _level(1.5, 8.0, errors=2)},
    }
    checks = {c["target"]: c["met"] for c in check_targets(levels)}
    assert checks["turns/s at 16 shoppers ≥ 10× naive"] is True  # 12.5×
    assert checks["turns/s at 16 shoppers ≥ 4× llamacpp"] is False  # 3.3×
    # one shopper: shopdesk's p50 (1.0 s) and p95 (2.0 s) against the peer's 1.5 s and 3.0 s
    assert checks["p50 latency at 1 shopper ≤ llamacpp's"] is True
    assert checks["p95 latency at 1 shopper ≤ llamacpp's"] is True
    assert checks["p95 latency at 4 shoppers below llamacpp's"] is False
    assert checks["p95 latency at 16 shoppers below naive's"] is True
    assert checks["no errors (llamacpp)"] is False and checks["no errors (shopdesk)"] is True


@pytest.mark.parametrize(
    ("mine", "theirs", "verdict"),
    [
        ((50.0, False), (40.0, True), None),  # their true p95 may be above 50 or not
        ((30.0, False), (40.0, True), True),  # exact 30 under a bound of at least 40
        ((40.0, True), (40.0, True), None),  # both cut at the same stop: nothing decided
        ((40.0, True), (30.0, False), False),  # at least 40 against exactly 30
        ((20.0, True), (30.0, False), None),
        ((20.0, False), (30.0, False), True),
    ],
)
def test_a_p95_cut_at_the_stop_decides_only_what_it_bounds(
    mine: tuple[float, bool], theirs: tuple[float, bool], verdict: bool | None
) -> None:
    levels = {
        "shopdesk": {64: _level(1.0, mine[0], cut=mine[1])},
        "naive": {64: _level(0.1, theirs[0], cut=theirs[1])},
    }
    checks = {c["target"]: c["met"] for c in check_targets(levels)}
    assert checks["p95 latency at 64 shoppers below naive's"] is verdict


def test_the_report_names_each_system_level_and_marks_lower_bounds() -> None:
    run = LevelRun(
        LevelPlan(2, 10, 5, 5),
        5.0,
        [
            _turn(1, 2.0, ttft_s=0.5, prompt_tokens=10, generated_tokens=5),
            _turn(1, 6.0, finished=False),
        ],
    )
    level = summarise_level(run, peak_rss_bytes=2**30)
    results = {
        "command": "bench",
        "started_at": "now",
        "machine": {"cpus": 2, "processor": "cpu", "memory_gib": 24, "platform": "linux"},
        "plan": {"levels": [2], "turns_per_conversation": 6},
        "systems": {
            "shopdesk": {"description": "d", "started_in_s": 1.0, "levels": {"2": level}},
            "naive": {"description": "n", "started_in_s": 1.0, "levels": {"2": level}},
        },
        "ratios": {"naive": {"2": ratios(level, level)}},
        "targets": check_targets({"shopdesk": {2: level}, "naive": {2: level}}),
        "prefill_by_turn": {"shopdesk": level["per_turn"], "naive": level["per_turn"]},
    }
    text = markdown(json.loads(json.dumps(results)))
    assert "| shopdesk | 2 | 1 |" in text and "| naive HF generate | 2 | 1 |" in text
    assert "≥ 5.80" in text  # p95 includes the cut turn: a lower bound
    assert "| naive HF generate | 2 | 1.00× |" in text


def test_the_load_generator_refuses_anything_but_loopback() -> None:
    assert require_loopback("http://127.0.0.1:8000/") == "http://127.0.0.1:8000"
    assert require_loopback("http://localhost:1") == "http://localhost:1"
    for url in ("http://10.0.0.2:8000", "http://example.com", "http://192.168.1.5"):
        with pytest.raises(ValueError, match="loopback"):
            require_loopback(url)


def test_the_bench_extra_lists_the_peer_and_plotting() -> None:
    names = " ".join(bench_requirements())
    assert "llama-cpp-python[server]" in names and "matplotlib" in names and "psutil" in names


def test_a_recorded_run_summarised_again_gives_the_same_figures() -> None:
    turns = [
        _turn(1, 2.0, ttft_s=0.5, generated_tokens=9, prompt_tokens=90,
              timings={"prefill": 0.2, "decode": 1.0}),
        _turn(2, 3.0, ttft_s=0.7, generated_tokens=8, prompt_tokens=120, cached_tokens=80,
              timings={"prefill": 0.1, "decode": 1.5}),
        _turn(1, 5.0, finished=False),
    ]  # fmt: skip
    level = summarise_level(LevelRun(LevelPlan(2, 9, 5, 5), 6.0, turns), peak_rss_bytes=2**31)
    recorded = [dataclasses.asdict(t) for t in turns]
    system = {"levels": {"2": level}, "turns": {"conversation": recorded[:2], "2": recorded}}
    system = json.loads(json.dumps(system))
    summary.summarise_again(system)
    assert system["levels"]["2"] == json.loads(json.dumps(level))
    assert [row["turn"] for row in system["conversation"]] == [1, 2]


def test_a_steady_level_times_its_answered_turns_and_not_those_cut_at_its_end() -> None:
    answered = [TurnResult(0, 1, 0.0, 2.0), TurnResult(1, 1, 0.0, 3.0)]
    cut = [TurnResult(0, 2, 2.0, 0.5, finished=False)]
    steady = LevelPlan(2, 10, 0, 5, min_turns=2, steady=True)
    level = summarise_level(LevelRun(steady, 3.0, answered + cut), peak_rss_bytes=0)
    assert level["latency_s"]["p50"] == 2.5 and not level["latency_lower_bound"]
    assert level["turns_unfinished"] == 1 and level["turns_per_s"] == pytest.approx(0.667)
    assert (level["steady"], level["min_turns"]) == (True, 2)
    windowed = summarise_level(
        LevelRun(LevelPlan(2, 10, 0, 5, min_turns=2), 3.0, answered + cut), peak_rss_bytes=0
    )
    assert windowed["latency_lower_bound"]  # the cut turn counts, at the time it had run
