"""Knowledge gaps on both real transcript backends (a SQLite file and a PostgreSQL database of
their own): the gap questions read with their reasons, the vector cache, the migrations, and a
seeded set of declined, low-groundedness, thumbs-down and handed-off turns grouped by the real
MiniLM into the topics they were written about."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, inspect, select
from sqlalchemy.orm import Session

from app.gaps.service import KnowledgeGaps
from app.transcripts.db import downgrade, make_engine, session_factory, upgrade
from app.transcripts.gaps import (
    GapWindow,
    gap_questions,
    question_vectors,
    store_question_vectors,
)
from app.transcripts.models import Message, QuestionVector
from app.transcripts.reads import session_turns
from app.transcripts.writes import record_turn
from tests.faults import fresh_postgres_database
from tests.gap_transcripts import DAY, FLOOR, GAPS, TOPIC, _turn, seed

EXPECTED = {question: reasons for asked in GAPS.values() for question, reasons in asked.items()}


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[str]:
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'transcripts.db'}"
        upgrade(url)
        yield url
        return
    with fresh_postgres_database() as url:
        yield url


@pytest.fixture
def sessions(database_url: str) -> Iterator[Any]:
    engine = make_engine(database_url)
    yield session_factory(engine)
    engine.dispose()


@pytest.fixture
def seeded(sessions: Any) -> dict[str, int]:
    with sessions() as session:
        return seed(session)


def _read(session: Session, **window: Any) -> dict[str, tuple[str, ...]]:
    found = gap_questions(session=session, window=GapWindow(FLOOR, **window))
    return {q.question: q.reasons for q in found}


def test_the_gap_questions_are_read_with_their_reasons(
    sessions: Any, seeded: dict[str, int]
) -> None:
    with sessions() as session:
        found = gap_questions(session=session, window=GapWindow(FLOOR))
    assert {q.question: q.reasons for q in found} == EXPECTED
    assert [q.message_id for q in found] == sorted(seeded[q] for q in EXPECTED)  # oldest first
    declined = {q.question: q.declined for q in found if q.declined}
    assert declined == {
        "Do you offer gift wrapping?": "floor",
        "Do you accept cryptocurrency?": "no_match",
        "Can you deliver to Sydney, Australia?": "no_match",
        "Is gift wrap available for presents?": "partial",
        "My tent pole snapped, can you repair it?": "unknown_name",
    }
    handed_off = next(q for q in found if q.reasons == ("handoff",))
    assert handed_off.asked_at == DAY + timedelta(days=1, minutes=6)


def test_the_window_and_the_floor_choose_the_questions(
    sessions: Any, seeded: dict[str, int]
) -> None:
    with sessions() as session:
        second_day = _read(session, since=DAY + timedelta(days=1), until=DAY + timedelta(days=2))
        strict = gap_questions(session=session, window=GapWindow(0.95))
    assert set(second_day) == {
        "How long does delivery to Australia take?",
        "Can you deliver to Sydney, Australia?",
        "Is gift wrap available for presents?",
        "Is paying in crypto possible?",
    }
    # at a 0.95 floor every answered turn is a gap, the engine's failure still is not
    assert {q.question for q in strict} == set(seeded) - {"Is the Stormhollow 2 waterproof?"}


def test_question_vectors_are_cached_per_model_and_stored_once(
    sessions: Any, seeded: dict[str, int]
) -> None:
    gift = seeded["Do you offer gift wrapping?"]
    good = seeded["What is the return window?"]  # no gap: never read back
    with sessions() as session:
        store_question_vectors(session=session, model_id="m1", vectors={gift: b"a", good: b"b"})
        store_question_vectors(session=session, model_id="m1", vectors={gift: b"again"})
        store_question_vectors(session=session, model_id="m2", vectors={gift: b"c"})
        window = GapWindow(FLOOR)
        assert question_vectors(session=session, window=window, model_id="m1") == {gift: b"a"}
        assert question_vectors(session=session, window=window, model_id="m2") == {gift: b"c"}
        assert session.scalar(select(func.count()).select_from(QuestionVector)) == 3
        session.delete(session.get_one(Message, gift))  # a deleted message takes its vectors
        session.commit()
        assert session.scalar(select(func.count()).select_from(QuestionVector)) == 1


def test_seeded_gaps_group_into_the_topics_they_were_written_about(
    sessions: Any, seeded: dict[str, int], embedder: Any
) -> None:
    gaps = KnowledgeGaps(sessions, embedder, floor=FLOOR)

    async def reports() -> tuple[Any, Any, Any]:
        first = await gaps.report(since=None, until=None)
        again = await gaps.report(since=None, until=None)
        with sessions() as session:  # a question answered well changes nothing
            record_turn(session=session, turn=_turn("s-late", 0, "Hi!", DAY + timedelta(days=5)))
        return first, again, await gaps.report(since=None, until=None)

    first, again, later = asyncio.run(reports())
    topics = [{TOPIC[q.question] for q in group.questions} for group in first.groups]
    assert topics == [{"gift"}, {"crypto"}, {"australia"}, {"repair"}]
    assert [g.count for g in first.groups] == [3, 3, 2, 2]
    assert dict(first.groups[2].reasons) == {"declined": 1, "thumbs_down": 1, "handoff": 1}
    assert first.embedded == 10 and again is first and later is first  # the kept report
    with sessions() as session:
        model = embedder.model_id
        cached = question_vectors(session=session, window=GapWindow(FLOOR), model_id=model)
    assert set(cached) == {seeded[q] for q in EXPECTED}
    assert all(len(v) == 2 * embedder.dimension for v in cached.values())  # float16


def test_a_new_gap_question_is_the_only_one_embedded_and_joins_its_group(
    sessions: Any, seeded: dict[str, int], embedder: Any
) -> None:
    gaps = KnowledgeGaps(sessions, embedder, floor=FLOOR)

    async def run() -> Any:
        await gaps.report(since=None, until=None)
        with sessions() as session:
            late = _turn(
                "s-late",
                0,
                "Could you wrap my order as a gift?",
                DAY + timedelta(days=5),
                declined="floor",
            )
            record_turn(session=session, turn=late)
        return await gaps.report(since=None, until=None)

    report = asyncio.run(run())
    assert report.embedded == 1
    assert report.groups[0].count == 4
    assert "Could you wrap my order as a gift?" in {q.question for q in report.groups[0].questions}


def test_the_gaps_migrations_upgrade_a_database_at_0004(
    database_url: str, sessions: Any, seeded: dict[str, int]
) -> None:
    engine = make_engine(database_url)
    try:
        downgrade(database_url, "0004")
        inspect(engine).clear_cache()
        assert "declined" not in {c["name"] for c in inspect(engine).get_columns("message")}
        assert "question_vector" not in inspect(engine).get_table_names()
        upgrade(database_url)
        inspect(engine).clear_cache()
        assert "question_vector" in inspect(engine).get_table_names()
    finally:
        engine.dispose()
    with sessions() as session:
        # kept before the decline reason was: read back without one, and no longer a gap
        (old,) = session_turns(session=session, session_id="s-crypto-2")
        assert old.parts is not None and old.parts.declined is None
        assert "Do you accept cryptocurrency?" not in _read(session)
        assert "Can I pay with Bitcoin?" in _read(session)  # its thumbs down is kept
