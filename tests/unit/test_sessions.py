"""The in-process store and the resident turn vectors (Redis is tested in integration)."""

from __future__ import annotations

import asyncio

import numpy as np

from app.retrieval.query_encoder import QueryEncoder
from app.sessions.base import Turn
from app.sessions.memory import MemorySessionStore
from app.sessions.turn_vectors import TurnVectorCache


def test_turns_are_kept_in_order_and_one_writer_at_a_time() -> None:
    async def scenario() -> list[str]:
        store = MemorySessionStore(ttl_s=60)
        order: list[str] = []

        async def tab(name: str) -> None:
            async with store.exclusive("s"):
                order.append(f"{name} in")
                await asyncio.sleep(0.01)
                await store.append("s", Turn(name, "ok"))
                order.append(f"{name} out")

        await asyncio.gather(tab("a"), tab("b"))
        assert [t.question for t in await store.turns("s")] == ["a", "b"]
        assert await store.turns("other") == []
        return order

    assert asyncio.run(scenario()) == ["a in", "a out", "b in", "b out"]


def test_a_turn_keeps_what_the_shopper_read_apart_from_what_the_model_said() -> None:
    turn = Turn(
        "tent?", "It weighs 2 kg [1].", ("p#1",), 12.5, shown="It weighs 2 kg [1].\n> Weight: 2 kg"
    )
    assert Turn.from_json(turn.to_json()) == turn
    # saved before turns had ``shown``: the shopper read the answer itself
    old = Turn.from_json(
        '{"question": "tent?", "answer": "Yes [1].", "passage_ids": ["p#1"], "at": 3.0}'
    )
    assert old == Turn("tent?", "Yes [1].", ("p#1",), 3.0, shown="Yes [1].")


def test_evicted_vectors_are_read_back_from_the_store_not_lost() -> None:
    async def scenario() -> None:
        store = MemorySessionStore(ttl_s=60)
        cache = TurnVectorCache(store, capacity=2)
        vectors = [np.full(4, i, dtype=np.float32) for i in range(3)]
        for i, vector in enumerate(vectors):
            await cache.put("s", i, vector)
        assert len(cache) == 2  # turn 0 was evicted from the device
        got = await cache.get("s", [0, 1, 2])
        assert [float(t[0]) for t in got] == [0.0, 1.0, 2.0]
        assert cache.stats.spilled_reads == 1 and cache.stats.resident_hits == 2

    asyncio.run(scenario())


def test_blend_weights_the_most_recent_turn_most() -> None:
    async def scenario() -> None:
        cache = TurnVectorCache(MemorySessionStore(ttl_s=60), capacity=10)
        current = np.array([1, 0, 0], dtype=np.float32)
        old, recent = np.array([0, 1, 0], np.float32), np.array([0, 0, 1], np.float32)
        await cache.put("s", 0, old)
        await cache.put("s", 1, recent)
        blended = cache.blend(current, await cache.get("s", [0, 1]), (0.6, 0.3))
        assert np.isclose(np.linalg.norm(blended), 1.0)
        assert blended[0] > blended[2] > blended[1] > 0

    asyncio.run(scenario())


class CountingEmbedder:
    model_id, dimension = "counting", 2

    def __init__(self) -> None:
        self.calls: list[int] = []

    def count_tokens(self, texts: list[str]) -> list[int]:
        return [1 for _ in texts]

    def embed(self, texts: list[str], *, progress: bool = False) -> np.ndarray:
        self.calls.append(len(texts))
        return np.array([[len(t), 1] for t in texts], dtype=np.float32)


def test_concurrent_queries_share_one_encoder_call() -> None:
    embedder = CountingEmbedder()

    async def scenario() -> list[np.ndarray]:
        encoder = QueryEncoder(embedder, max_batch=16, max_wait_ms=50)  # type: ignore[arg-type]
        try:
            return await asyncio.gather(*(encoder.encode("x" * n) for n in range(1, 9)))
        finally:
            await encoder.close()

    vectors = asyncio.run(scenario())
    assert [int(v[0]) for v in vectors] == list(range(1, 9))  # each caller got its own vector
    assert embedder.calls == [8]


def test_a_session_remembers_the_page_it_was_opened_on() -> None:
    async def scenario() -> tuple[str | None, str | None]:
        store = MemorySessionStore(ttl_s=60)
        await store.set_page("s", "FH-TNT-7020")
        return await store.page("s"), await store.page("other")

    assert asyncio.run(scenario()) == ("FH-TNT-7020", None)
