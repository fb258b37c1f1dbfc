"""The naive baseline as the benchmark runs it: a real server process with the real models and a
real published index, driven over HTTP by the real load generator."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from bench.loadbench.conversations import Conversation
from bench.loadbench.load import LevelPlan, run_level
from bench.loadbench.memory import tree_rss
from bench.loadbench.systems import RunningSystem, base_env, naive

FOLLOW_UP = ("Tell me about the Stormhollow 2 tent", "how heavy is it?")


@pytest.fixture(scope="module")
def naive_server(
    tmp_path_factory: pytest.TempPathFactory, chat_settings: Any
) -> Iterator[RunningSystem]:
    """The naive server on the session's published index (it only reads it)."""
    env = base_env(chat_settings.data_dir, max_num_seqs=2, max_waiting=2, patience_s=120)
    env["SHOPDESK_MAX_ANSWER_TOKENS"] = "16"  # short answers: this checks behaviour, not speed
    with naive(env, tmp_path_factory.mktemp("naive-logs"), dtype="float32") as running:
        yield running


def test_two_shoppers_get_answers_one_generation_at_a_time_with_no_reuse(
    naive_server: RunningSystem,
) -> None:
    conversations = (Conversation(n, FOLLOW_UP) for n in range(1, 10))
    plan = LevelPlan(concurrency=2, max_turns=4, seconds=300, drain_seconds=300)
    run = asyncio.run(run_level(naive_server.url, plan, conversations))
    assert [t.error for t in run.turns] == [None] * 4 and all(t.finished for t in run.turns)
    for turn in run.turns:
        assert 0 < turn.generated_tokens <= 16
        assert turn.prompt_tokens > 0 and turn.cached_tokens == 0  # every prompt prefilled whole
        assert {"embed", "search", "queue", "prefill", "decode", "persist"} <= set(turn.timings)
    first = {t.shopper: t.prompt_tokens for t in run.turns if t.turn_number == 1}
    second = {t.shopper: t.prompt_tokens for t in run.turns if t.turn_number == 2}
    assert all(second[s] > first[s] for s in first)  # the history is prefilled again
    # the two opening turns arrived together: one of them waited for the other's generate
    assert max(t.timings["queue"] for t in run.turns if t.turn_number == 1) > 0


def test_it_refuses_what_shopdesk_refuses(naive_server: RunningSystem) -> None:
    url = naive_server.url
    assert (
        httpx.post(f"{url}/api/sessions/nope/messages", json={"message": "hi"}).status_code == 404
    )
    session = httpx.post(f"{url}/api/sessions").json()["session_id"]
    empty = httpx.post(f"{url}/api/sessions/{session}/messages", json={"message": "  "})
    assert empty.status_code == 422 and "empty" in empty.json()["detail"]


def test_its_memory_is_measurable(naive_server: RunningSystem) -> None:
    assert tree_rss(naive_server.pids) > 200 * 2**20  # two models loaded
    assert tree_rss([2**22 + 12345]) == 0  # a process that is gone counts nothing
