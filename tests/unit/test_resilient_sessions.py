"""The session store's fallbacks, isolated: the in-process store stands in for Redis and is
made unreachable on demand (the real Redis is stopped and restarted in test_faults.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

import numpy as np

from app.chat.turn import AnswerParts, EvidenceRecord, FinishedTurn, PassageRecord
from app.errors import SessionStoreUnavailableError, TranscriptsUnavailableError
from app.sessions.base import Turn
from app.sessions.memory import MemorySessionStore
from app.sessions.resilient import ResilientSessionStore

NO_PARTS = None  # a turn recorded without parts, as before answers had them


class Unplugged(MemorySessionStore):
    """The in-process store, unreachable while ``down`` (as Redis raises when it is)."""

    def __init__(self) -> None:
        super().__init__(ttl_s=600)
        self.down = False

    def _check(self) -> None:
        if self.down:
            raise SessionStoreUnavailableError("Redis is unreachable: connection refused")

    async def turns(self, session_id: str) -> list[Turn]:
        self._check()
        return await super().turns(session_id)

    async def append(self, session_id: str, turn: Turn) -> int:
        self._check()
        return await super().append(session_id, turn)

    @asynccontextmanager
    async def exclusive(self, session_id: str) -> AsyncIterator[None]:
        self._check()
        async with super().exclusive(session_id):
            yield

    async def save_vector(self, session_id: str, index: int, vector: np.ndarray) -> None:
        self._check()
        await super().save_vector(session_id, index, vector)

    async def load_vectors(self, session_id: str, indices: list[int]) -> dict[int, np.ndarray]:
        self._check()
        return await super().load_vectors(session_id, indices)

    async def set_page(self, session_id: str, product: str) -> None:
        self._check()
        await super().set_page(session_id, product)

    async def page(self, session_id: str) -> str | None:
        self._check()
        return await super().page(session_id)


class Transcripts:
    """Recorded turns by session, as the transcript database would return them."""

    def __init__(self) -> None:
        self.turns: dict[str, list[FinishedTurn]] = {}
        self.down = False

    async def session_turns(self, session_id: str) -> list[FinishedTurn]:
        if self.down:
            raise TranscriptsUnavailableError("the transcript database is unreachable")
        return list(self.turns.get(session_id, []))

    def record(
        self,
        session_id: str,
        question: str,
        *,
        age: timedelta = timedelta(),
        parts: AnswerParts | None = NO_PARTS,
    ) -> None:
        turns = self.turns.setdefault(session_id, [])
        turns.append(
            FinishedTurn(
                session_id=session_id,
                turn_index=len(turns),
                question=question,
                answer=f"answer to {question}",
                answered=True,
                groundedness=0.9,
                engine="vllm",
                model="m",
                index_version="v1",
                timings={},
                prompt_tokens=1,
                cached_tokens=0,
                generated_tokens=1,
                passages=(PassageRecord("p#1", "P", "p.md", "/p", 0.8, True),),
                created_at=datetime.now(UTC) - age,
                parts=parts,
            )
        )


def stores() -> tuple[Unplugged, Transcripts, ResilientSessionStore]:
    redis, transcripts = Unplugged(), Transcripts()
    return (
        redis,
        transcripts,
        ResilientSessionStore(redis, recorded=transcripts.session_turns, ttl_s=600),
    )


def test_with_redis_down_turns_go_on_from_the_transcripts() -> None:
    async def scenario() -> None:
        redis, transcripts, store = stores()
        for q in ("tent?", "how heavy?"):
            await store.append("s", Turn(q, f"answer to {q}"))
            transcripts.record("s", q)
        redis.down = True
        async with store.exclusive("s"):
            history = await store.turns("s")
            assert [t.question for t in history] == ["tent?", "how heavy?"]
            assert history[0].passage_ids == ("p#1",)
            assert await store.append("s", Turn("in blue?", "yes")) == 2  # its turn index
            await store.save_vector("s", 2, np.ones(4, np.float32))
            assert await store.load_vectors("s", [0, 1]) == {}
        assert dict(store.stats.fallbacks) == {
            "lock": 1,
            "turns": 1,
            "append": 1,
            "save_vector": 1,
            "load_vectors": 1,
        }

    asyncio.run(scenario())


def test_a_session_redis_lost_is_refilled_from_the_transcripts() -> None:
    async def scenario() -> None:
        redis, transcripts, store = stores()
        for q in ("tent?", "how heavy?"):
            await store.append("s", Turn(q, "a"))
            transcripts.record("s", q)
        await redis.close()  # a restart without persistence: everything forgotten
        # reading the history outside a turn shows it but leaves the writing to the turn
        assert [t.question for t in await store.turns("s")] == ["tent?", "how heavy?"]
        assert await redis.turns("s") == []
        async with store.exclusive("s"):
            assert [t.question for t in await store.turns("s")] == ["tent?", "how heavy?"]
            assert await store.append("s", Turn("in blue?", "a")) == 2
        assert [t.question for t in await redis.turns("s")] == ["tent?", "how heavy?", "in blue?"]
        assert store.stats.restored == 1

    asyncio.run(scenario())


def test_turns_redis_missed_while_unreachable_are_added_back() -> None:
    async def scenario() -> None:
        redis, transcripts, store = stores()
        await store.append("s", Turn("one", "a"))
        transcripts.record("s", "one")
        redis.down = True
        await store.turns("s")
        await store.append("s", Turn("two", "a"))
        transcripts.record("s", "two")
        redis.down = False  # Redis kept its data but never saw turn two
        async with store.exclusive("s"):
            assert [t.question for t in await store.turns("s")] == ["one", "two"]
        assert [t.question for t in await redis.turns("s")] == ["one", "two"]

    asyncio.run(scenario())


def test_restored_turns_give_later_prompts_only_the_models_words() -> None:
    async def scenario() -> None:
        redis, transcripts, store = stores()
        said = AnswerParts(
            model_text="It weighs 2 kg [1].", evidence=(EvidenceRecord(1, "Weight: 2 kg", 0.8),)
        )
        declined = AnswerParts(note="I can't find that on our pages.")
        transcripts.record("s", "how heavy?", parts=said)
        transcripts.record("s", "and the tent?", parts=declined)
        transcripts.record("s", "in blue?")  # recorded before answers had parts
        redis.down = True
        history = await store.turns("s")
        assert [t.answer for t in history] == ["It weighs 2 kg [1].", "", "answer to in blue?"]
        assert [t.shown for t in history] == [
            "answer to how heavy?",
            "answer to and the tent?",
            "answer to in blue?",
        ]

    asyncio.run(scenario())


def test_an_expired_session_is_not_brought_back() -> None:
    async def scenario() -> None:
        _, transcripts, store = stores()
        transcripts.record("s", "long ago", age=timedelta(hours=2))
        assert await store.turns("s") == []

    asyncio.run(scenario())


def test_with_both_stores_down_a_turn_still_goes_on_without_history() -> None:
    async def scenario() -> None:
        redis, transcripts, store = stores()
        transcripts.record("s", "one")
        redis.down = transcripts.down = True
        assert await store.turns("s") == []

    asyncio.run(scenario())


def test_the_local_lock_keeps_two_tabs_in_order_while_redis_is_down() -> None:
    async def scenario() -> list[str]:
        redis, _, store = stores()
        redis.down = True
        order: list[str] = []

        async def tab(name: str) -> None:
            async with store.exclusive("s"):
                order.append(f"{name} in")
                await asyncio.sleep(0.01)
                order.append(f"{name} out")

        await asyncio.gather(tab("a"), tab("b"))
        return order

    assert asyncio.run(scenario()) == ["a in", "a out", "b in", "b out"]


def test_the_page_a_session_opened_on_is_kept_and_an_outage_forgets_it_quietly() -> None:
    async def scenario() -> tuple[str | None, str | None, dict[str, int]]:
        redis = Unplugged()
        store = ResilientSessionStore(redis, recorded=Transcripts(), ttl_s=600)
        await store.set_page("s", "FH-TNT-7020")
        kept = await store.page("s")
        redis.down = True
        await store.set_page("t", "FH-TNT-7090")  # no error: each message still gives its page
        lost = await store.page("s")
        return kept, lost, dict(store.stats.fallbacks)

    kept, lost, fallbacks = asyncio.run(scenario())
    assert kept == "FH-TNT-7020" and lost is None
    assert fallbacks == {"set_page": 1, "page": 1}
