"""The load generator against a scripted stand-in of the chat API, served on a loopback port.

The stand-in isolates the generator (SSE parsing, sessions, bounds, errors, the hard stop); the
real services are driven by tests/bench/test_bench_naive.py and the slow end-to-end run.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import uvicorn
from fastapi import FastAPI, HTTPException
from fastapi.responses import StreamingResponse
from pydantic import BaseModel

from bench.loadbench.conversations import Conversation
from bench.loadbench.load import LevelPlan, run_level


class Message(BaseModel):
    message: str


def stand_in(received: list[tuple[str, str]]) -> FastAPI:
    app = FastAPI()

    @app.post("/api/sessions", status_code=201)
    async def start() -> dict[str, str]:
        return {"session_id": uuid.uuid4().hex}

    @app.post("/api/sessions/{session}/messages")
    async def ask(session: str, body: Message) -> StreamingResponse:
        received.append((session, body.message))
        if body.message == "busy":
            raise HTTPException(503, detail="busy")
        turn = sum(1 for s, _ in received if s == session)

        async def events() -> AsyncIterator[str]:
            if body.message == "slow":
                await asyncio.sleep(30)
            if body.message == "boom":
                yield 'event: error\ndata: {"detail": "engine down"}\n\n'
                return
            for text in ("Hi", " there"):
                yield f"event: delta\ndata: {json.dumps({'text': text})}\n\n"
            done = {
                "timings": {"prefill": 0.1 * turn, "decode": 0.2},
                "tokens": {"prompt": 100 * turn, "cached": 10, "generated": 2},
            }
            if body.message == "apology":
                done["failure"] = "engine_timeout"
            yield f"event: done\ndata: {json.dumps(done)}\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    return app


@pytest.fixture(scope="module")
def api() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    received: list[tuple[str, str]] = []
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(stand_in(received), port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "the stand-in did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", received
    server.should_exit = True
    thread.join(timeout=10)


def conversations(*messages: tuple[str, ...]) -> Iterator[Conversation]:
    return (Conversation(n, m) for n, m in enumerate(itertools.cycle(messages), start=1))


def test_shoppers_walk_their_conversations_each_in_one_session(
    api: tuple[str, list[tuple[str, str]]],
) -> None:
    url, received = api
    received.clear()
    plan = LevelPlan(concurrency=2, max_turns=6, seconds=30, drain_seconds=5)
    run = asyncio.run(run_level(url, plan, conversations(("a", "b", "c"))))
    assert len(run.turns) == 6 and all(t.finished and t.error is None for t in run.turns)
    assert sorted(t.turn_number for t in run.turns) == [1, 1, 2, 2, 3, 3]
    sessions: dict[str, list[str]] = {}
    for session, message in received:
        sessions.setdefault(session, []).append(message)
    assert sorted(sessions.values()) == [["a", "b", "c"], ["a", "b", "c"]]
    third = next(t for t in run.turns if t.turn_number == 3)
    assert third.prompt_tokens == 300 and third.cached_tokens == 10 and third.generated_tokens == 2
    assert third.timings == {"prefill": pytest.approx(0.3), "decode": 0.2}
    assert all(t.ttft_s is not None and 0 < t.ttft_s <= t.latency_s for t in run.turns)


def test_failures_are_counted_and_the_next_turn_starts_a_new_conversation(
    api: tuple[str, list[tuple[str, str]]],
) -> None:
    url, received = api
    received.clear()
    plan = LevelPlan(concurrency=1, max_turns=7, seconds=30, drain_seconds=5)
    run = asyncio.run(
        run_level(url, plan, conversations(("a", "boom", "x"), ("busy",), ("apology",)))
    )
    errors = [t.error for t in run.turns if t.error]
    assert any("engine down" in e for e in errors)
    assert any("HTTP 503" in e for e in errors)
    assert any("engine_timeout" in e for e in errors)
    assert "x" not in [m for _, m in received]  # "boom" ended its conversation
    assert [t.turn_number for t in run.turns] == [1, 2, 1, 1, 1, 2, 1]


def test_turns_still_running_at_the_hard_stop_are_cut_and_kept(
    api: tuple[str, list[tuple[str, str]]],
) -> None:
    url, _ = api
    plan = LevelPlan(concurrency=3, max_turns=50, seconds=0.5, drain_seconds=0.5)
    run = asyncio.run(run_level(url, plan, conversations(("slow",))))
    assert len(run.turns) == 3 and not any(t.finished for t in run.turns)
    # cut at the stop (1 s in), long before the stand-in would have answered (30 s)
    assert all(t.error is None and 0.9 <= t.latency_s < 30 for t in run.turns)


def test_a_level_goes_on_past_its_window_until_enough_turns_are_answered(
    api: tuple[str, list[tuple[str, str]]],
) -> None:
    """A slow system still answers ``min_turns`` turns: after the window, turns start only
    while fewer are answered or running, and the level ends once they are answered."""
    url, _ = api
    plan = LevelPlan(concurrency=2, max_turns=50, seconds=0, drain_seconds=5, min_turns=5)
    run = asyncio.run(run_level(url, plan, conversations(("a", "b", "c"))))
    answered = [t for t in run.turns if t.finished and t.error is None]
    assert len(answered) >= 5 and len(run.turns) <= 6  # never more than one extra in flight
    assert all(t.finished for t in run.turns)


def test_the_cap_ends_a_level_that_cannot_reach_its_turns(
    api: tuple[str, list[tuple[str, str]]],
) -> None:
    url, _ = api
    plan = LevelPlan(
        concurrency=1, max_turns=50, seconds=0, drain_seconds=0.5, min_turns=10, cap_seconds=0.5
    )
    run = asyncio.run(run_level(url, plan, conversations(("slow",))))
    assert len(run.turns) == 1 and not run.turns[0].finished
    assert run.wall_s < 5  # cut at the cap and its drain, not after the slow answer's 30 s


def test_a_steady_level_keeps_every_shopper_busy_until_its_turns_are_answered(
    api: tuple[str, list[tuple[str, str]]],
) -> None:
    """After the window a steady level goes on starting turns on every shopper until
    ``min_turns`` are answered, and ends at that answer, cutting the turns still running."""
    url, _ = api
    plan = LevelPlan(
        concurrency=3, max_turns=50, seconds=0, drain_seconds=5, min_turns=7, steady=True
    )
    run = asyncio.run(run_level(url, plan, conversations(("a", "b", "c"))))
    answered = [t for t in run.turns if t.finished and t.error is None]
    assert len(answered) >= 7
    # every shopper started a turn after the seventh answer began: none went idle before
    assert {t.shopper for t in run.turns} == {0, 1, 2}
    assert len(run.turns) >= len(answered)
    assert run.wall_s < 5  # ended at the answer, not after the drain
