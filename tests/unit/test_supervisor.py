"""The engine supervisor, isolated with stand-in engines (the real vLLM engine is stalled and
killed in tests/integration/test_faults.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import pytest

from app.engine.base import GenerationChunk, GenerationRequest, GenerationStats
from app.engine.supervisor import supervised_engine
from app.errors import EngineTimeoutError, EngineUnavailableError

REQUEST = GenerationRequest("r1", "Hello")


class StandIn:
    """An engine that answers, stalls after its first piece, or has died."""

    def __init__(self, name: str, *, behaviour: str = "answer") -> None:
        self.name = name
        self.behaviour = behaviour
        self.closed = False
        self.aborted = 0

    @property
    def description(self) -> str:
        return self.name

    async def healthy(self) -> bool:
        return self.behaviour != "dead"

    async def stream(self, request: GenerationRequest) -> AsyncIterator[GenerationChunk]:
        if self.behaviour == "dead":
            raise EngineUnavailableError("the vLLM engine stopped: EngineDeadError")
        if self.behaviour == "bad request":
            raise ValueError("prompt too long")
        yield GenerationChunk("Hi")
        try:
            if self.behaviour == "stall":
                await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.aborted += 1  # what vLLM does on cancellation: abort the request
            raise
        yield GenerationChunk(" there", GenerationStats(generated_tokens=2))


def starter(engines: list[StandIn]):  # type: ignore[no-untyped-def]
    started: list[StandIn] = []

    @asynccontextmanager
    async def start() -> AsyncIterator[StandIn]:
        engine = engines[len(started)]
        started.append(engine)
        try:
            yield engine
        finally:
            engine.closed = True

    return start, started


async def collect(engine, request: GenerationRequest = REQUEST) -> str:  # type: ignore[no-untyped-def]
    return "".join([c.text async for c in engine.stream(request)])


def test_an_answer_past_the_time_limit_is_abandoned_and_aborted() -> None:
    async def scenario() -> None:
        stalled = StandIn("a", behaviour="stall")
        start, _ = starter([stalled])
        async with supervised_engine(start, timeout_s=0.2, restart=True) as engine:
            with pytest.raises(EngineTimeoutError, match=r"within 0\.2s"):
                await collect(engine)
            assert stalled.aborted == 1
            assert engine.stats.timeouts == 1 and engine.stats.restarts == 0
            stalled.behaviour = "answer"
            assert await collect(engine) == "Hi there"
        assert stalled.closed

    asyncio.run(scenario())


def test_a_dead_engine_is_replaced_and_turns_meanwhile_fail_fast() -> None:
    async def scenario() -> None:
        first, second = StandIn("first"), StandIn("second")
        start, started = starter([first, second])
        async with supervised_engine(start, timeout_s=5, restart=True, watch_s=3600) as engine:
            assert await collect(engine) == "Hi there"
            first.behaviour = "dead"
            with pytest.raises(EngineUnavailableError, match="stopped"):
                await collect(engine)
            assert engine.stats.restarting
            with pytest.raises(EngineUnavailableError, match="restarting"):
                await collect(engine)
            while engine.stats.restarting:
                await asyncio.sleep(0.01)
            assert first.closed and started == [first, second]
            assert engine.description == "second" and engine.stats.restarts == 1
            assert await collect(engine) == "Hi there"
        assert second.closed

    asyncio.run(scenario())


def test_the_watcher_replaces_an_engine_that_died_while_idle() -> None:
    async def scenario() -> None:
        first, second = StandIn("first"), StandIn("second")
        start, _ = starter([first, second])
        async with supervised_engine(start, timeout_s=5, restart=True, watch_s=0.05) as engine:
            first.behaviour = "dead"
            while engine.stats.restarts == 0:
                await asyncio.sleep(0.01)
            assert await engine.healthy() and engine.description == "second"

    asyncio.run(scenario())


def test_a_bad_request_to_a_healthy_engine_is_not_a_crash() -> None:
    async def scenario() -> None:
        engine_a = StandIn("a", behaviour="bad request")
        start, started = starter([engine_a])
        async with supervised_engine(start, timeout_s=5, restart=True) as engine:
            with pytest.raises(ValueError, match="prompt too long"):
                await collect(engine)
            assert engine.stats.failures == 0 and started == [engine_a]

    asyncio.run(scenario())


def test_without_restarts_a_failure_is_only_reported() -> None:
    async def scenario() -> None:
        remote = StandIn("remote", behaviour="dead")
        start, started = starter([remote])
        async with supervised_engine(start, timeout_s=5, restart=False) as engine:
            with pytest.raises(EngineUnavailableError):
                await collect(engine)
            assert not engine.stats.restarting and started == [remote]
            assert engine.stats.failures == 1

    asyncio.run(scenario())
