"""Faults injected against the real services: the turn is answered (or refused with a clear
message), no transcript is lost or stored twice, and the published index keeps serving.

Each test prints one line, ``FAULT <case>: sent=… answered=… refused=… lost=…``, for the
reliability report (run with ``-s`` to see them). The one slow case (an in-process engine
killed and restarted: about three minutes on two CPU cores) runs, under the vLLM lock, with
``.venv/bin/python -m pytest -m slow -s tests/integration/test_faults.py``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import AsyncExitStack
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal
from fastapi import Response
from sqlalchemy import func, select

from app.api.chat_routes import FeedbackIn, _events, rate
from app.api.ops_routes import readyz
from app.chat.conversations import ConversationService, Recorded
from app.chat.outcome import ENGINE_FAILED, Delta
from app.chat.service import ChatService
from app.chat.turn import FinishedTurn
from app.container import _session_store, transcript_writes
from app.engine.supervisor import supervised_engine
from app.errors import ConfigurationError
from app.index import versions
from app.observability.metrics import ChatMetrics
from app.presentation.turns import done_payload
from app.retrieval.published_index import PublishedIndex
from app.sessions.base import SessionStore
from app.sessions.memory import MemorySessionStore
from app.sessions.resilient import ResilientSessionStore
from app.sessions.turn_vectors import TurnVectorCache
from app.settings import Settings
from app.transcripts.db import make_engine, session_factory, upgrade
from app.transcripts.durable import DurableTranscripts, durable_transcripts
from app.transcripts.models import Conversation, Escalation, Message
from app.transcripts.outbox import Rating, TranscriptOutbox
from app.transcripts.reads import get_conversation, session_turns
from app.transcripts.records import ConversationDetail
from app.transcripts.store import SqlTranscripts
from app.transcripts.writes import record_turn
from ingest.pipeline import run_ingest
from tests.conftest import KNOWLEDGE, REPO
from tests.faults import (
    RedisServer,
    TcpProxy,
    engine_core_pids,
    fresh_postgres_database,
    through,
)

QUESTIONS = [
    "Tell me about the Stormhollow 2 tent",
    "how heavy is it?",
    "How long do I have to return an item?",
    "Do you deliver to Northern Ireland?",
    "Can I pay with Klarna?",
    "Is live chat open on Sunday?",
]


def report(case: str, *, sent: int, answered: int, refused: int, lost: int) -> None:
    print(f"\nFAULT {case}: sent={sent} answered={answered} refused={refused} lost={lost}")


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    with fresh_postgres_database() as url:
        yield url


def conversation_service(
    stack: Any, *, store: SessionStore, transcripts: Any, engine: Any = None
) -> ConversationService:
    """The real chat pipeline of the shared stack over the given stores (short answers)."""
    chat = ChatService(
        store=store,
        turn_vectors=TurnVectorCache(store, capacity=1000),
        encoder=stack.encoder,
        retriever=stack.chat._retriever,
        engine=engine or stack.engine,
        prompt_format=stack.chat.prompt_format,
        options=replace(stack.chat._options, max_answer_tokens=32),
        line_vectors=stack.chat._lines,
    )
    return ConversationService(
        chat=chat,
        transcripts=transcripts,
        metrics=ChatMetrics(),
        model="SmolLM2-135M-Instruct",
        handoff="A member of our team will pick this up.",
    )


async def send(service: ConversationService, session_id: str, message: str) -> Recorded:
    recorded = None
    async for event in service.ask(session_id, message):
        if isinstance(event, Recorded):
            recorded = event
    assert recorded is not None, "the turn ended without its done event"
    return recorded


async def until(condition: Any, timeout: float = 120) -> None:
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.2)

    await asyncio.wait_for(poll(), timeout)


async def flush_outbox(url: str, outbox_path: Path) -> bool:
    """Flush the outbox file into the database at ``url``, as a fresh process would."""
    sql = SqlTranscripts(make_engine(url))
    durable = DurableTranscripts(sql, TranscriptOutbox(outbox_path), write_timeout_s=10)
    try:
        return await durable.flush()
    finally:
        durable.outbox.close()
        sql.close()


def stored_turns(url: str, session_id: str) -> list[FinishedTurn]:
    engine = make_engine(url)
    try:
        with session_factory(engine)() as session:
            return session_turns(session=session, session_id=session_id)
    finally:
        engine.dispose()


# --- PostgreSQL unavailable for a while --------------------------------------------------------


def test_postgres_outage_queues_turns_durably_and_stores_each_once(
    portal: BlockingPortal, stack: Any, postgres_url: str, tmp_path: Path
) -> None:
    session_id = secrets.token_urlsafe(16)
    with TcpProxy("127.0.0.1", 5432) as proxy:
        sql = SqlTranscripts(make_engine(through(postgres_url, proxy.port)))

        async def scenario() -> dict[str, Any]:
            outbox_path = tmp_path / "outbox.sqlite3"
            async with durable_transcripts(
                sql, outbox_path, write_timeout_s=5, retry_max_s=1
            ) as durable:
                service = conversation_service(
                    stack, store=MemorySessionStore(ttl_s=600), transcripts=durable
                )
                before = [await send(service, session_id, q) for q in QUESTIONS[:1]]
                await asyncio.to_thread(proxy.cut)
                during = [await send(service, session_id, q) for q in QUESTIONS[1:3]]
                handoff = await service.hand_to_human(session_id, "please call me")
                rating = await service.rate(
                    session_id, rating=-1, comment=None, message_id=before[0].message_id
                )
                queued = durable.stats.depth
                reader = TranscriptOutbox(outbox_path)  # the file, read as another process would
                on_disk = reader.depth()
                reader.close()
                await asyncio.to_thread(proxy.restore)
                await until(lambda: durable.stats.database_up and not durable.stats.depth)
                after = await send(service, session_id, QUESTIONS[3])
                rerated = await service.rate(
                    session_id, rating=1, comment="thanks", message_id=before[0].message_id
                )
                return {
                    "before": before,
                    "during": during,
                    "after": after,
                    "handoff": handoff,
                    "rating": rating,
                    "rerated": rerated,
                    "queued": queued,
                    "on_disk": on_disk,
                    "stats": durable.stats,
                }

        result = portal.call(scenario)
        sql.close()

    before, during, after = result["before"], result["during"], result["after"]
    assert all(r.message_id is not None for r in [*before, after])
    assert all(r.message_id is None for r in during)  # answered, but waiting in the outbox
    assert all(r.turn.answer and r.turn.failure is None for r in [*before, *during, after])
    assert result["handoff"] == "A member of our team will pick this up."
    assert result["rating"] is None and result["rerated"]  # queued, then stored at once
    assert result["queued"] == result["on_disk"] == 4  # two turns, the escalation, the rating
    assert result["stats"].flushed == 4

    stored = stored_turns(postgres_url, session_id)
    assert [t.turn_index for t in stored] == [0, 1, 2, 3]
    assert [t.question for t in stored] == QUESTIONS[:4]
    assert [t.answer for t in stored] == [r.turn.answer for r in [*before, *during, after]]
    engine = make_engine(postgres_url)
    with session_factory(engine)() as session:
        escalations = session.scalar(select(func.count()).select_from(Escalation))
    engine.dispose()
    assert escalations == 1
    (rated,) = [m for m in staff_view(postgres_url, session_id).messages if m.feedback]
    assert rated.turn_index == 0 and rated.feedback  # the later rating replaced the queued one
    assert (rated.feedback.rating, rated.feedback.comment) == (1, "thanks")
    report("postgres-outage", sent=4, answered=4, refused=0, lost=4 - len(stored))


def test_an_answer_given_during_an_outage_is_rated_by_its_turn_key(
    portal: BlockingPortal, stack: Any, postgres_url: str, tmp_path: Path
) -> None:
    """The shopper rates through the API's route while PostgreSQL is cut: 202, the ratings
    wait in the outbox after the answers they rate, and staff see them once flushed."""
    session_id = secrets.token_urlsafe(16)
    with TcpProxy("127.0.0.1", 5432) as proxy:
        sql = SqlTranscripts(make_engine(through(postgres_url, proxy.port)))

        async def scenario() -> dict[str, Any]:
            async with durable_transcripts(
                sql, tmp_path / "outbox.sqlite3", write_timeout_s=5, retry_max_s=1
            ) as durable:
                service = conversation_service(
                    stack, store=MemorySessionStore(ttl_s=600), transcripts=durable
                )
                stored = await send(service, session_id, QUESTIONS[2])
                await asyncio.to_thread(proxy.cut)
                queued = await send(service, session_id, QUESTIONS[3])
                done = done_payload(queued.turn, queued.message_id)
                answers: list[tuple[int, dict[str, Any]]] = []
                for body in (
                    FeedbackIn(turn_index=0, rating=-1),  # stored before the cut
                    FeedbackIn(turn_index=done["turn_index"], rating=-1, comment="too short"),
                    FeedbackIn(turn_index=done["turn_index"], rating=1, comment="fine, thanks"),
                ):
                    response = Response()
                    out = await rate(body, service, session_id, response)
                    answers.append((response.status_code, out.model_dump()))
                depth = durable.stats.depth
                await asyncio.to_thread(proxy.restore)
                await until(lambda: durable.stats.database_up and not durable.stats.depth)
                return {"stored": stored, "done": done, "answers": answers, "depth": depth}

        result = portal.call(scenario)
        sql.close()

    assert result["stored"].message_id is not None
    assert result["done"]["recorded"] is False and result["done"]["turn_index"] == 1
    for status, body in result["answers"]:
        assert status == 202, body
        assert body["recorded"] is False and body["feedback_id"] is None
        assert "will be saved" in body["detail"]
    assert result["depth"] == 4  # the answer and the three ratings
    view = staff_view(postgres_url, session_id)
    ratings = {
        m.turn_index: (m.feedback.rating, m.feedback.comment) for m in view.messages if m.feedback
    }
    assert ratings == {0: (-1, None), 1: (1, "fine, thanks")}  # the later rating won
    assert view.summary.lowest_rating == -1
    report("rating-during-outage", sent=2, answered=2, refused=0, lost=2 - len(view.messages))


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_queued_ratings_are_stored_after_their_answers_once_and_latest_wins(
    backend: str, postgres_url: str, tmp_path: Path
) -> None:
    """Replayed from the outbox (twice, as after a crash before the dequeue): each answer keeps
    its latest rating; a rating of a turn stored under another index (its index was taken)
    still finds it; a rating of an answer that exists nowhere is dropped, not kept forever."""
    url = postgres_url if backend == "postgresql" else f"sqlite:///{tmp_path / 't.db'}"
    if backend == "sqlite":
        upgrade(url)
    session_id = secrets.token_urlsafe(16)
    at = datetime.now(UTC)
    older = transcript_turn(session_id, 0, "Tell me about tents", at)
    moved = transcript_turn(session_id, 0, "What about boots?", at.replace(year=at.year + 1))
    engine = make_engine(url)
    with session_factory(engine)() as session:
        record_turn(session=session, turn=older)
    engine.dispose()
    outbox_path = tmp_path / "outbox.sqlite3"
    outbox = TranscriptOutbox(outbox_path)
    outbox.put(moved)  # stored as turn 1: its index 0 is the older turn's
    rated = [
        Rating(session_id, -1, "no", at, turn_index=0, turn_created_at=moved.created_at),
        Rating(session_id, 1, "yes", at + timedelta(seconds=1), turn_index=0,
               turn_created_at=moved.created_at),
        Rating(session_id, 1, None, at, turn_index=0),  # the older turn
        Rating(session_id, -1, None, at, turn_index=7),  # no such answer
    ]  # fmt: skip
    for rating in rated:
        outbox.put(rating)
    outbox.close()

    assert asyncio.run(flush_outbox(url, outbox_path))
    again = TranscriptOutbox(outbox_path)
    for rating in reversed(rated[:2]):  # replayed newest first: the older must not win
        again.put(rating)
    again.close()
    assert asyncio.run(flush_outbox(url, outbox_path))
    view = staff_view(url, session_id)
    assert [(m.question, m.turn_index) for m in view.messages] == [
        ("Tell me about tents", 0),
        ("What about boots?", 1),
    ]
    assert [(m.feedback.rating, m.feedback.comment) for m in view.messages if m.feedback] == [
        (1, None),
        (1, "yes"),
    ]
    assert TranscriptOutbox(outbox_path).depth() == 0


def staff_view(url: str, session_id: str) -> ConversationDetail:
    """The conversation as the staff page reads it."""
    engine = make_engine(url)
    try:
        with session_factory(engine)() as session:
            conversation_id = session.scalar(
                select(Conversation.id).where(Conversation.session_id == session_id)
            )
            assert conversation_id is not None, "the conversation was not stored"
            detail = get_conversation(session=session, conversation_id=conversation_id)
    finally:
        engine.dispose()
    assert detail is not None
    return detail


def test_the_service_starts_while_postgres_is_down_and_migrates_it_once_it_answers(
    portal: BlockingPortal, stack: Any, tmp_path: Path
) -> None:
    """Started through the composition root's own transcript set-up with the proxy cut, on an
    empty database: a turn is answered and queued, /readyz says degraded and why; restored,
    the flusher migrates the database and stores the turn, and /readyz says ready."""
    session_id = secrets.token_urlsafe(16)
    with fresh_postgres_database(migrated=False) as url, TcpProxy("127.0.0.1", 5432) as proxy:
        proxy.cut()
        settings = Settings(
            database_url=through(url, proxy.port),
            data_dir=tmp_path,
            transcript_write_timeout_s=5,
            transcript_retry_max_s=1,
        )

        async def scenario() -> dict[str, Any]:
            async with AsyncExitStack() as exits:
                sql, durable = await transcript_writes(settings, exits)
                started = {"migrated": sql.migrated, "up": durable.stats.database_up}
                service = conversation_service(
                    stack, store=MemorySessionStore(ttl_s=600), transcripts=durable
                )
                answered = await send(service, session_id, QUESTIONS[2])
                ops: Any = SimpleNamespace(
                    index=stack.index, engine=stack.engine, transcript_writes=durable.stats
                )
                degraded = await readyz(ops)
                await asyncio.to_thread(proxy.restore)
                await until(
                    lambda: (
                        durable.stats.schema_current
                        and durable.stats.database_up
                        and not durable.stats.depth
                    )
                )
                ready = await readyz(ops)
                return {
                    "started": started,
                    "answered": answered,
                    "degraded": degraded,
                    "ready": ready,
                    "migrated": sql.migrated,
                }

        result = portal.call(scenario)
        stored = stored_turns(url, session_id)

    assert result["started"] == {"migrated": False, "up": False}
    answered = result["answered"]
    assert answered.message_id is None and answered.turn.answer  # answered, queued
    degraded = result["degraded"]
    assert degraded["status"] == "degraded"
    assert "transcript database is unreachable" in degraded["reason"]
    assert "(1 queued)" in degraded["reason"] and "schema is migrated" in degraded["reason"]
    assert result["ready"]["status"] == "ready" and "reason" not in result["ready"]
    assert result["migrated"] is True
    assert [(t.turn_index, t.answer) for t in stored] == [(0, answered.turn.answer)]
    report("start-while-postgres-down", sent=1, answered=1, refused=0, lost=1 - len(stored))


def test_a_database_url_that_cannot_work_still_fails_the_start(tmp_path: Path) -> None:
    async def start(url: str) -> None:
        async with AsyncExitStack() as exits:
            await transcript_writes(Settings(database_url=url, data_dir=tmp_path), exits)

    unusable = ["mysqlx://shop@db/transcripts", "not a url"]
    if importlib.util.find_spec("pg8000") is None:  # a driver that is not installed
        unusable.append("postgresql+pg8000://shop@db/transcripts")
    for url in unusable:
        with pytest.raises(ConfigurationError, match="SHOPDESK_DATABASE_URL cannot be used"):
            asyncio.run(start(url))


def test_a_flusher_killed_between_insert_and_dequeue_stores_nothing_twice(
    postgres_url: str, tmp_path: Path
) -> None:
    session_id = secrets.token_urlsafe(16)
    outbox_path = tmp_path / "outbox.sqlite3"
    outbox = TranscriptOutbox(outbox_path)
    at = datetime.now(UTC)
    for index, question in enumerate(QUESTIONS[:3]):
        outbox.put(transcript_turn(session_id, index, question, at))
    outbox.close()
    # A flusher process that dies (SIGKILL) right after the database took its first write,
    # before it could remove that write from the outbox.
    script = textwrap.dedent(
        """
        import asyncio, os, signal, sys
        from pathlib import Path
        from app.transcripts.db import make_engine
        from app.transcripts.durable import DurableTranscripts
        from app.transcripts.outbox import TranscriptOutbox
        from app.transcripts.store import SqlTranscripts

        def die(self, entry_id):
            os.kill(os.getpid(), signal.SIGKILL)

        TranscriptOutbox.remove = die
        outbox = TranscriptOutbox(Path(sys.argv[2]))
        durable = DurableTranscripts(SqlTranscripts(make_engine(sys.argv[1])), outbox,
                                     write_timeout_s=10)
        asyncio.run(durable.flush())
        """
    )
    child = subprocess.run(
        [sys.executable, "-c", script, postgres_url, str(outbox_path)], cwd=REPO, check=False
    )
    assert child.returncode == -signal.SIGKILL
    assert len(stored_turns(postgres_url, session_id)) == 1
    assert TranscriptOutbox(outbox_path).depth() == 3  # the stored one is still queued

    assert asyncio.run(flush_outbox(postgres_url, outbox_path))
    stored = stored_turns(postgres_url, session_id)
    assert [t.turn_index for t in stored] == [0, 1, 2]
    assert TranscriptOutbox(outbox_path).depth() == 0
    report("flusher-killed", sent=3, answered=3, refused=0, lost=3 - len(stored))


def transcript_turn(session_id: str, index: int, question: str, at: datetime) -> FinishedTurn:
    return FinishedTurn(
        session_id=session_id,
        turn_index=index,
        question=question,
        answer=f"Answer {index}.",
        answered=True,
        groundedness=0.9,
        engine="vllm",
        model="m",
        index_version="v1",
        timings={},
        prompt_tokens=10,
        cached_tokens=0,
        generated_tokens=3,
        passages=(),
        created_at=at.replace(microsecond=index),
    )


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_a_turn_whose_index_is_taken_is_stored_after_the_last(
    backend: str, postgres_url: str, tmp_path: Path
) -> None:
    """A session store that lost the conversation hands out turn 0 again: that new turn must
    not be taken for a retry of the old one and dropped."""
    url = postgres_url if backend == "postgresql" else f"sqlite:///{tmp_path / 't.db'}"
    if backend == "sqlite":
        upgrade(url)
    session_id = secrets.token_urlsafe(16)
    engine = make_engine(url)
    at = datetime.now(UTC)
    first = transcript_turn(session_id, 0, "Tell me about tents", at)
    again = transcript_turn(session_id, 0, "What about boots?", at.replace(year=at.year + 1))
    with session_factory(engine)() as session:
        first_id = record_turn(session=session, turn=first)
        second_id = record_turn(session=session, turn=again)
        # replays (a retry, or the outbox after a crash) find what they stored
        assert record_turn(session=session, turn=first) == first_id
        assert record_turn(session=session, turn=again) == second_id
    engine.dispose()
    assert second_id != first_id
    stored = stored_turns(url, session_id)
    assert [(t.turn_index, t.question) for t in stored] == [
        (0, "Tell me about tents"),
        (1, "What about boots?"),
    ]


# --- Redis stopped mid-conversation, then restarted (empty) ------------------------------------


def test_redis_stopped_mid_conversation_then_restarted_empty(
    portal: BlockingPortal, stack: Any, postgres_url: str, tmp_path: Path
) -> None:
    redis_server = RedisServer(tmp_path)
    redis_server.start()
    session_id = secrets.token_urlsafe(16)
    sql = SqlTranscripts(make_engine(postgres_url))

    async def scenario() -> dict[str, Any]:
        async with durable_transcripts(
            sql, tmp_path / "outbox.sqlite3", write_timeout_s=5, retry_max_s=1
        ) as durable:
            redis_store = await _session_store(Settings(redis_url=redis_server.url))
            store = ResilientSessionStore(redis_store, recorded=durable.session_turns, ttl_s=600)
            service = conversation_service(stack, store=store, transcripts=durable)
            up = [await send(service, session_id, q) for q in QUESTIONS[:1]]
            await asyncio.to_thread(redis_server.kill)
            down = [await send(service, session_id, q) for q in QUESTIONS[1:3]]
            await asyncio.to_thread(redis_server.start)  # nothing kept: the session is gone
            back = [await send(service, session_id, q) for q in QUESTIONS[3:4]]
            held = await redis_store.turns(session_id)
            await store.close()
            return {"up": up, "down": down, "back": back, "held": held, "stats": store.stats}

    try:
        result = portal.call(scenario)
    finally:
        redis_server.kill()
        sql.close()
    turns = [*result["up"], *result["down"], *result["back"]]
    assert all(r.message_id is not None and r.turn.answer for r in turns)
    assert [r.turn.turn_index for r in turns] == [0, 1, 2, 3]
    # the follow-up asked while Redis was down still knew what "it" was
    assert any("Stormhollow" in p.title for p in result["down"][0].turn.passages)
    assert [t.question for t in result["held"]] == QUESTIONS[:4]  # Redis refilled
    stats = result["stats"]
    assert stats.fallbacks["turns"] == 2 and stats.fallbacks["append"] == 2
    assert stats.restored == 1
    stored = stored_turns(postgres_url, session_id)
    assert [(t.turn_index, t.question) for t in stored] == list(enumerate(QUESTIONS[:4]))
    report("redis-restart", sent=4, answered=4, refused=0, lost=4 - len(stored))


# --- the engine stalls, or dies -----------------------------------------------------------------


def test_a_stalled_engine_times_out_with_a_clear_message_and_the_turn_is_kept(
    portal: BlockingPortal, stack: Any, tmp_path: Path
) -> None:
    (core,) = engine_core_pids()  # the shared stack's engine
    session_id = secrets.token_urlsafe(16)
    url = f"sqlite:///{tmp_path / 'transcripts.db'}"
    sql = SqlTranscripts.open(url)

    async def scenario() -> tuple[list[str], list[str]]:
        async with (
            durable_transcripts(
                sql, tmp_path / "o.sqlite3", write_timeout_s=5, retry_max_s=1
            ) as durable,
            supervised_engine(
                lambda: _borrowed(stack.engine), timeout_s=3, restart=False
            ) as impatient,
        ):
            store = MemorySessionStore(ttl_s=600)
            service = conversation_service(
                stack, store=store, transcripts=durable, engine=impatient
            )
            os.kill(core, signal.SIGSTOP)  # the engine stops making progress
            try:
                stalled = [e async for e in _events(service, session_id, QUESTIONS[2], None)]
            finally:
                os.kill(core, signal.SIGCONT)
            assert impatient.stats.timeouts == 1
            # the same conversation goes on (with the usual time limit) once the engine does
            service = conversation_service(stack, store=store, transcripts=durable)
            later = [e async for e in _events(service, session_id, QUESTIONS[3], None)]
            return stalled, later

    stalled, later = portal.call(scenario)
    sql.close()
    done = _done(stalled)
    assert done["failure"] == "engine_timeout" and done["answered"] is False
    assert done["recorded"] is True and done["answer"].endswith(ENGINE_FAILED)
    assert ENGINE_FAILED in "".join(_deltas(stalled))  # streamed to the shopper too
    again = _done(later)
    assert again["failure"] is None and again["answer"] and again["recorded"]
    stored = stored_turns(url, session_id)
    assert [(t.turn_index, t.failure) for t in stored] == [(0, "engine_timeout"), (1, None)]
    report("engine-stall", sent=2, answered=1, refused=1, lost=2 - len(stored))


class _borrowed:
    """The shared engine as a lifespan that leaves it running (the stack owns it)."""

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    async def __aenter__(self) -> Any:
        return self.engine

    async def __aexit__(self, *exc: object) -> None:
        return None


def _done(events: list[str]) -> dict[str, Any]:
    (done,) = [e for e in events if e.startswith("event: done")]
    return dict(json.loads(done.split("data: ", 1)[1]))


def _deltas(events: list[str]) -> list[str]:
    return [
        json.loads(e.split("data: ", 1)[1])["text"] for e in events if e.startswith("event: delta")
    ]


@pytest.mark.slow
def test_a_killed_engine_core_is_restarted_and_later_turns_are_answered(
    portal: BlockingPortal, stack: Any, tmp_path: Path
) -> None:
    """About three minutes on two CPU cores: a second vLLM engine starts, dies, starts again."""
    from app.engine.vllm_engine import VllmOptions, vllm_engine
    from app.modelstore import resolve_generator

    settings = stack.settings
    options = VllmOptions(
        model=resolve_generator(settings.generator_model, settings.model_cache_dir),
        max_model_len=settings.vllm_max_model_len,
        max_num_seqs=4,
        cpu_kvcache_gib=1,
    )
    session_id = secrets.token_urlsafe(16)
    url = f"sqlite:///{tmp_path / 'transcripts.db'}"
    sql = SqlTranscripts.open(url)
    shared = engine_core_pids()

    async def scenario() -> dict[str, Any]:
        async with (
            durable_transcripts(
                sql, tmp_path / "o.sqlite3", write_timeout_s=5, retry_max_s=1
            ) as durable,
            supervised_engine(
                lambda: vllm_engine(options), timeout_s=120, restart=True, watch_s=1
            ) as engine,
        ):
            (core,) = engine_core_pids() - shared
            service = conversation_service(
                stack, store=MemorySessionStore(ttl_s=600), transcripts=durable, engine=engine
            )
            first = await send(service, session_id, QUESTIONS[2])
            pieces: list[str] = []
            async for event in service.ask(session_id, QUESTIONS[3]):
                if isinstance(event, Delta):
                    pieces.append(event.text)
                    if len(pieces) == 1:
                        os.kill(core, signal.SIGKILL)  # the engine dies mid-answer
                elif isinstance(event, Recorded):
                    killed = event
            await until(lambda: engine.stats.restarts > 0, timeout=400)
            (new_core,) = engine_core_pids() - shared
            after = await send(service, session_id, QUESTIONS[4])
            return {"first": first, "killed": killed, "after": after, "new_core": new_core,
                    "core": core, "stats": engine.stats}  # fmt: skip

    result = portal.call(scenario)
    sql.close()
    assert result["first"].turn.failure is None
    killed = result["killed"].turn
    assert killed.failure == "engine_unavailable" and killed.answer.endswith(ENGINE_FAILED)
    assert result["new_core"] != result["core"] and result["stats"].restarts == 1
    assert result["after"].turn.failure is None and result["after"].turn.answer
    stored = stored_turns(url, session_id)
    assert [(t.turn_index, t.failure) for t in stored] == [
        (0, None),
        (1, "engine_unavailable"),
        (2, None),
    ]
    report("engine-killed", sent=3, answered=2, refused=1, lost=3 - len(stored))


# --- an ingest run killed at each stage ---------------------------------------------------------

# module:function to replace with a SIGKILL of the run itself, by the stage it stands for
KILL_POINTS = {
    "loading": "ingest.pipeline:load_file",
    "indexing": "app.index.vector_index:build_index",
    "writing the version": "app.index.versions:_fsync_file",
    "before the pointer swap": "app.index.versions:set_pointer",
    "after the pointer swap": "app.index.versions:prune_versions",
}
FAILPOINT = textwrap.dedent(
    """
    import importlib, os, signal, sys
    module, name = sys.argv[1].split(":")
    setattr(importlib.import_module(module), name,
            lambda *a, **k: os.kill(os.getpid(), signal.SIGKILL))
    from ingest.cli import main
    sys.exit(main(sys.argv[2:]))
    """
)


@pytest.mark.parametrize("stage", list(KILL_POINTS))
def test_an_ingest_run_killed_at_each_stage_leaves_an_index_serving(
    stage: str, chat_settings: Settings, embedder: Any, tmp_path: Path
) -> None:
    settings = chat_settings.model_copy(update={"data_dir": tmp_path / "data"})
    for part in ("index", "cache"):  # the published version and a warm embedding cache
        shutil.copytree(chat_settings.data_dir / part, settings.data_dir / part)
    root = settings.index_dir
    served = versions.current_version_id(root)
    live = PublishedIndex(root, poll_seconds=0)
    assert live.current().version.id == served

    args = ["--knowledge", str(KNOWLEDGE), "--data-dir", str(settings.data_dir), "--quiet"]
    child = subprocess.run(
        [sys.executable, "-c", FAILPOINT, KILL_POINTS[stage], "--force", *args],
        cwd=REPO,
        env={**os.environ, "SHOPDESK_EMBED_DEVICE": "cpu"},
        check=False,
    )
    assert child.returncode == -signal.SIGKILL, "the run ended before its kill point"

    now = versions.current_version_id(root)
    if stage == "after the pointer swap":
        assert now != served  # the new version was whole when the pointer moved
    else:
        assert now == served
    if stage == "writing the version":
        assert any(
            p.name.startswith(versions.STAGING_PREFIX) for p in (root / "versions").iterdir()
        )
    assert live.current().version.id == now  # the app follows the pointer, reading whole files
    vector = embedder.embed(["How long do I have to return an item?"])
    assert live.current().search(vector, 3)[0]

    resumed = run_ingest(settings, embedder, force=True)  # the next nightly run
    assert resumed.outcome == "published"
    assert versions.current_version_id(root) == resumed.version_id
    assert not any(
        p.name.startswith(versions.STAGING_PREFIX) for p in (root / "versions").iterdir()
    )
    assert live.current().version.id == resumed.version_id


# --- a new index version published under load ---------------------------------------------------


def test_a_version_published_by_the_ingest_job_under_load_drops_no_turn(
    portal: BlockingPortal, stack: Any, tmp_path: Path
) -> None:
    before = versions.current_version_id(stack.settings.index_dir)
    sql = SqlTranscripts.open(f"sqlite:///{tmp_path / 'transcripts.db'}")
    args = ["--knowledge", str(KNOWLEDGE), "--data-dir", str(stack.settings.data_dir)]
    shoppers = 6

    async def scenario() -> list[Recorded]:
        async with durable_transcripts(
            sql, tmp_path / "o.sqlite3", write_timeout_s=5, retry_max_s=1
        ) as durable:
            service = conversation_service(
                stack, store=MemorySessionStore(ttl_s=600), transcripts=durable
            )
            publisher = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "ingest", "--force", "--quiet", *args,
                cwd=REPO, env={**os.environ, "SHOPDESK_EMBED_DEVICE": "cpu"},
                stdout=asyncio.subprocess.DEVNULL,
            )  # fmt: skip
            published = asyncio.create_task(publisher.wait())

            async def shopper(n: int) -> list[Recorded]:
                session_id, answers = secrets.token_urlsafe(16), []
                while not published.done() or len(answers) < 2:
                    question = QUESTIONS[(n + len(answers)) % len(QUESTIONS)]
                    answers.append(await send(service, session_id, question))
                answers.append(await send(service, session_id, QUESTIONS[2]))  # after the swap
                return answers

            results = await asyncio.gather(*(shopper(n) for n in range(shoppers)))
            assert await published == 0
            return [r for answers in results for r in answers]

    turns = portal.call(scenario)
    with session_factory(sql.engine)() as session:
        stored = session.scalar(select(func.count()).select_from(Message))
    sql.close()
    after = versions.current_version_id(stack.settings.index_dir)
    assert after != before
    assert all(t.message_id is not None and t.turn.failure is None for t in turns)
    assert all(t.turn.answer for t in turns)
    assert {t.turn.index_version for t in turns} >= {after}
    assert turns[-1].turn.index_version == after
    assert stored == len(turns)
    report("publish-under-load", sent=len(turns), answered=len(turns), refused=0, lost=0)
