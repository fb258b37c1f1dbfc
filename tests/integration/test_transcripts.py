"""Transcripts on both real backends: a SQLite file and a PostgreSQL database made for this run."""

from __future__ import annotations

import os
import secrets
import threading
from collections.abc import Iterator
from dataclasses import fields, replace
from datetime import UTC, datetime, timedelta, timezone

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, func, inspect, select, text
from sqlalchemy.orm import Session

from app.chat.turn import AnswerParts, DroppedRecord, EvidenceRecord, FinishedTurn, PassageRecord
from app.errors import TranscriptNotFoundError
from app.transcripts.db import (
    alembic_config,
    downgrade,
    make_engine,
    normalise_url,
    session_factory,
    upgrade,
)
from app.transcripts.models import Base, Conversation, Message, RetrievedPassage
from app.transcripts.reads import (
    TranscriptFilter,
    export_rows,
    get_conversation,
    list_conversations,
    session_turns,
)
from app.transcripts.writes import add_note, record_escalation, record_feedback, record_turn

POSTGRES_ADMIN_URL = os.environ.get(
    "SHOPDESK_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
TABLES = {"conversation", "message", "retrieved_passage", "feedback", "escalation", "staff_note"}
DAY_ONE = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)
NO_PARTS = None  # a turn recorded without parts, as before answers had them


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    """A fresh PostgreSQL database for this module, migrated from empty, dropped afterwards."""
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"shopdesk_test_{secrets.token_hex(6)}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        url = admin.url.set(database=name).render_as_string(hide_password=False)
        upgrade(url)
        yield url
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A migrated, empty transcript database on each backend."""
    if request.param == "sqlite":
        # A folder that does not exist yet: make_engine has to create it.
        url = f"sqlite:///{tmp_path_factory.mktemp('sqlite') / 'nested' / 'transcripts.db'}"
        upgrade(url)
        return url
    postgres: str = request.getfixturevalue("postgres_url")
    engine = make_engine(postgres)
    with engine.begin() as connection:
        connection.execute(text(f"TRUNCATE {', '.join(sorted(TABLES))} RESTART IDENTITY CASCADE"))
    engine.dispose()
    return postgres


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def session(engine: Engine) -> Iterator[Session]:
    with session_factory(engine)() as session:
        yield session


def passage(n: int, score: float, *, cited: bool = False) -> PassageRecord:
    return PassageRecord(
        passage_id=f"returns.md#{n}",
        title=f"Returns, part {n}",
        source="returns.md",
        citation=f"Returns policy §{n}",
        score=score,
        cited=cited,
    )


def turn(
    session_id: str,
    index: int,
    *,
    question: str = "Can I return a jacket?",
    answer: str = "Yes, within 30 days [1].",
    answered: bool = True,
    groundedness: float = 0.9,
    at: datetime = DAY_ONE,
    passages: tuple[PassageRecord, ...] = (),
    parts: AnswerParts | None = NO_PARTS,
    check_ms: float | None = None,
) -> FinishedTurn:
    return FinishedTurn(
        session_id=session_id,
        turn_index=index,
        question=question,
        answer=answer,
        answered=answered,
        groundedness=groundedness,
        engine="vllm",
        model="smollm2-360m-instruct",
        index_version="v20261101",
        timings={"retrieve_ms": 12.5, "generate_ms": 840.0},
        prompt_tokens=900 + index,
        cached_tokens=512,
        generated_tokens=40 + index,
        passages=passages or (passage(1, 0.82, cited=True), passage(2, 0.61)),
        created_at=at,
        parts=parts,
        check_ms=check_ms,
    )


PARTS = AnswerParts(
    model_text="Yes, within 30 days [1].",
    evidence=(
        EvidenceRecord(1, "Returns are free within 30 days of delivery.", 0.82),
        EvidenceRecord(2, "Sale items can be returned too.", 0.61),
    ),
    note="(I'm not fully certain of this answer.)",
    dropped=(
        DroppedRecord("Refunds take 2 hours.", "unsupported_number"),
        DroppedRecord("We also sell tents.", "off_topic"),
    ),
    policy="verified",
    composed=False,
)


def test_migrations_build_every_table_from_empty_and_rerun_harmlessly(
    database_url: str, engine: Engine
) -> None:
    assert set(inspect(engine).get_table_names()) >= TABLES
    upgrade(database_url)  # already at head: nothing to do
    head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
    with engine.connect() as connection:
        assert MigrationContext.configure(connection).get_current_revision() == head
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        assert compare_metadata(context, Base.metadata) == []  # the migration matches the models

    downgrade(database_url)
    inspect(engine).clear_cache()
    assert not TABLES & set(inspect(engine).get_table_names())
    upgrade(database_url)
    assert set(inspect(engine).get_table_names()) >= TABLES


def test_plain_postgresql_urls_are_pointed_at_psycopg() -> None:
    assert normalise_url("postgresql://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("postgres://u@h/db").drivername == "postgresql+psycopg"
    assert normalise_url("sqlite:///x.db").drivername == "sqlite"


def test_every_turn_is_stored_with_its_passages_scores_timings_and_tokens(
    session: Session,
) -> None:
    local = timezone(timedelta(hours=1))
    ids = [
        record_turn(session=session, turn=turn("s-1", 0, at=DAY_ONE)),
        record_turn(
            session=session,
            turn=turn(
                "s-1",
                1,
                question="And the label?",
                answer="I don't know.",
                answered=False,
                groundedness=0.3,
                at=DAY_ONE.astimezone(local) + timedelta(minutes=5),
                passages=(passage(3, 0.4), passage(4, 0.35), passage(5, 0.2)),
            ),
        ),
    ]
    summaries, total = list_conversations(session=session, filters=TranscriptFilter())
    assert total == 1
    summary = summaries[0]
    assert (summary.session_id, summary.turns, summary.first_question) == (
        "s-1",
        2,
        "Can I return a jacket?",
    )
    assert summary.started_at == DAY_ONE and summary.started_at.tzinfo is not None
    assert summary.last_message_at == DAY_ONE + timedelta(minutes=5)
    assert summary.min_groundedness == pytest.approx(0.3)
    assert summary.any_unanswered and not summary.escalated and summary.lowest_rating is None

    detail = get_conversation(session=session, conversation_id=summary.id)
    assert detail is not None
    assert [m.id for m in detail.messages] == ids
    first, second = detail.messages
    assert first.passages == (passage(1, 0.82, cited=True), passage(2, 0.61))
    assert [p.passage_id for p in second.passages] == [f"returns.md#{n}" for n in (3, 4, 5)]
    assert [p.score for p in second.passages] == pytest.approx([0.4, 0.35, 0.2])
    assert first.timings == {"retrieve_ms": 12.5, "generate_ms": 840.0}
    assert (second.prompt_tokens, second.cached_tokens, second.generated_tokens) == (901, 512, 41)
    assert (second.engine, second.model, second.index_version) == (
        "vllm",
        "smollm2-360m-instruct",
        "v20261101",
    )
    assert not second.answered and second.created_at.utcoffset() == timedelta(0)
    assert first.feedback is None and detail.notes == () and detail.escalations == ()
    assert get_conversation(session=session, conversation_id=summary.id + 1000) is None


def test_recording_the_same_turn_twice_stores_it_once(session: Session) -> None:
    first = record_turn(session=session, turn=turn("s-twice", 0))
    again = record_turn(session=session, turn=turn("s-twice", 0, answer="A retried answer."))
    assert again == first
    assert session.scalar(select(func.count()).select_from(Message)) == 1
    assert session.scalar(select(func.count()).select_from(RetrievedPassage)) == 2
    summaries, _ = list_conversations(session=session, filters=TranscriptFilter())
    assert summaries[0].turns == 1
    with pytest.raises(ValueError, match="timezone-aware"):
        record_turn(session=session, turn=turn("s-naive", 0, at=datetime(2026, 11, 1, 9)))


def test_turns_recorded_concurrently_are_stored_once_and_all_counted(engine: Engine) -> None:
    sessions = session_factory(engine)
    ids: dict[int, list[int]] = {}
    failures: list[BaseException] = []

    def writer(name: int, indices: range) -> None:
        try:
            with sessions() as session:
                ids[name] = [record_turn(session=session, turn=turn("s-race", i)) for i in indices]
        except BaseException as exc:
            failures.append(exc)

    # Three writers race on the same turns; two more add different turns of the same session.
    jobs = [range(8), range(8), range(8), range(8, 16, 2), range(9, 16, 2)]
    threads = [threading.Thread(target=writer, args=job) for job in enumerate(jobs)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    assert ids[0] == ids[1] == ids[2]
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(Message)) == 16
        summaries, _ = list_conversations(session=session, filters=TranscriptFilter())
    assert [s.turns for s in summaries] == [16]


def test_feedback_is_kept_for_the_sessions_own_answers_only(session: Session) -> None:
    mine = record_turn(session=session, turn=turn("s-mine", 0))
    theirs = record_turn(session=session, turn=turn("s-theirs", 0))

    with pytest.raises(TranscriptNotFoundError):
        record_feedback(
            session=session, session_id="s-mine", message_id=theirs, rating=-1, comment=None
        )
    with pytest.raises(TranscriptNotFoundError):
        record_feedback(
            session=session, session_id="s-mine", message_id=theirs + 99, rating=1, comment=None
        )
    with pytest.raises(ValueError):
        record_feedback(session=session, session_id="s-mine", message_id=mine, rating=0, comment="")

    first = record_feedback(
        session=session, session_id="s-mine", message_id=mine, rating=-1, comment="Wrong size"
    )
    summaries, _ = list_conversations(session=session, filters=TranscriptFilter(low_rating=True))
    assert [s.session_id for s in summaries] == ["s-mine"]
    assert summaries[0].lowest_rating == -1

    # Changing one's mind replaces the rating instead of adding a second one.
    second = record_feedback(
        session=session, session_id="s-mine", message_id=mine, rating=1, comment=None
    )
    assert second == first
    summaries, total = list_conversations(
        session=session, filters=TranscriptFilter(low_rating=True)
    )
    assert (summaries, total) == ([], 0)
    detail = get_conversation(session=session, conversation_id=1)
    assert detail is not None and detail.messages[0].feedback is not None
    assert (detail.messages[0].feedback.rating, detail.messages[0].feedback.comment) == (1, None)


def test_feedback_names_its_answer_by_turn_key_and_the_latest_rating_wins(
    session: Session,
) -> None:
    first = record_turn(session=session, turn=turn("s-key", 0))
    second = record_turn(session=session, turn=turn("s-key", 1))
    later = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    earlier = later - timedelta(minutes=5)
    stored = record_feedback(
        session=session, session_id="s-key", turn_index=1, rating=1, comment=None, at=later
    )
    # an older rating replayed after a newer one (from the outbox) changes nothing
    assert stored == record_feedback(
        session=session, session_id="s-key", turn_index=1, rating=-1, comment="no", at=earlier
    )
    with pytest.raises(TranscriptNotFoundError):
        record_feedback(session=session, session_id="s-other", turn_index=1, rating=1, comment="")
    with pytest.raises(ValueError, match="exactly one"):
        record_feedback(
            session=session, session_id="s-key", turn_index=1, message_id=second, rating=1,
            comment=None,
        )  # fmt: skip
    conversation_id = session.scalar(
        select(Conversation.id).where(Conversation.session_id == "s-key")
    )
    assert conversation_id is not None
    detail = get_conversation(session=session, conversation_id=conversation_id)
    assert detail is not None
    feedback = {m.id: m.feedback for m in detail.messages}
    assert feedback[first] is None
    rated = feedback[second]
    assert rated is not None and (rated.rating, rated.comment, rated.created_at) == (
        1,
        None,
        later,
    )


def test_escalation_marks_the_conversation_and_can_come_before_any_turn(session: Session) -> None:
    record_turn(session=session, turn=turn("s-talked", 0))
    record_escalation(session=session, session_id="s-talked", reason="I want a person")
    record_escalation(session=session, session_id="s-talked", reason="Still waiting")
    record_escalation(session=session, session_id="s-silent", reason="Call me")

    summaries, total = list_conversations(session=session, filters=TranscriptFilter(escalated=True))
    assert total == 2
    by_session = {s.session_id: s for s in summaries}
    assert by_session["s-silent"].turns == 0 and by_session["s-silent"].first_question is None
    detail = get_conversation(session=session, conversation_id=by_session["s-talked"].id)
    assert detail is not None and detail.summary.escalated
    assert [e.reason for e in detail.escalations] == ["I want a person", "Still waiting"]

    # The shopper who escalated first can still ask, into the same conversation.
    record_turn(session=session, turn=turn("s-silent", 0))
    silent = get_conversation(session=session, conversation_id=by_session["s-silent"].id)
    assert silent is not None and len(silent.messages) == 1 and silent.summary.escalated


def test_staff_notes_are_attached_to_the_conversation(session: Session) -> None:
    record_turn(session=session, turn=turn("s-noted", 0))
    conversation_id = list_conversations(session=session, filters=TranscriptFilter())[0][0].id
    add_note(
        session=session,
        conversation_id=conversation_id,
        author="amira",
        text="Policy answer was right.",
        label=None,
    )
    add_note(
        session=session,
        conversation_id=conversation_id,
        author="ben",
        text="Add the label fee to the FAQ.",
        label="knowledge-gap",
    )
    detail = get_conversation(session=session, conversation_id=conversation_id)
    assert detail is not None
    assert [(n.author, n.label) for n in detail.notes] == [
        ("amira", None),
        ("ben", "knowledge-gap"),
    ]
    with pytest.raises(TranscriptNotFoundError):
        add_note(session=session, conversation_id=999, author="amira", text="?", label=None)
    with pytest.raises(ValueError):
        add_note(
            session=session, conversation_id=conversation_id, author="a", text="t", label="x" * 41
        )


def populate(session: Session) -> None:
    """Seven conversations, one a day from DAY_ONE, each standing out in one way."""

    def at(day: int, minutes: int = 0) -> datetime:
        return DAY_ONE + timedelta(days=day, minutes=minutes)

    record_turn(session=session, turn=turn("happy", 0, at=at(0)))
    record_turn(
        session=session,
        turn=turn("happy", 1, question="Where is my PARCEL?", answer="On its way.", at=at(0, 3)),
    )
    unhappy = record_turn(session=session, turn=turn("unhappy", 0, at=at(1)))
    record_feedback(
        session=session, session_id="unhappy", message_id=unhappy, rating=-1, comment=None
    )
    record_turn(session=session, turn=turn("escalated", 0, at=at(2)))
    record_escalation(session=session, session_id="escalated", reason="Person please")
    record_turn(session=session, turn=turn("unanswered", 0, answered=False, at=at(3)))
    record_turn(session=session, turn=turn("ungrounded", 0, groundedness=0.2, at=at(4)))
    record_turn(
        session=session,
        turn=turn("percent", 0, question="Is there 50% off coats?", answer="No.", at=at(5)),
    )
    record_turn(
        session=session,
        turn=turn("points", 0, question="I have 500 points", answer="Your parcel ships", at=at(6)),
    )


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (TranscriptFilter(), ["points", "percent", "ungrounded", "unanswered", "escalated"]),
        (TranscriptFilter(low_rating=True), ["unhappy"]),
        (TranscriptFilter(escalated=True), ["escalated"]),
        (TranscriptFilter(unanswered=True), ["unanswered"]),
        (TranscriptFilter(max_groundedness=0.5), ["ungrounded"]),
        (TranscriptFilter(text="parcel"), ["points", "happy"]),  # a question and an answer
        (TranscriptFilter(text="50%"), ["percent"]),  # "%" is a character, not a wildcard
        (
            TranscriptFilter(since=DAY_ONE + timedelta(days=2), until=DAY_ONE + timedelta(days=4)),
            ["unanswered", "escalated"],
        ),
        (TranscriptFilter(until=DAY_ONE + timedelta(days=1)), ["happy"]),
        (TranscriptFilter(text="PARCEL", since=DAY_ONE + timedelta(days=1)), ["points"]),
        (TranscriptFilter(escalated=True, unanswered=True), []),
    ],
)
def test_each_filter_keeps_exactly_the_matching_conversations(
    session: Session, filters: TranscriptFilter, expected: list[str]
) -> None:
    populate(session)
    summaries, total = list_conversations(session=session, filters=filters, page_size=5)
    assert [s.session_id for s in summaries] == expected[:5]
    assert total == (7 if filters == TranscriptFilter() else len(expected))


def test_pages_cover_every_conversation_once_newest_first(session: Session) -> None:
    populate(session)
    pages = [
        list_conversations(session=session, filters=TranscriptFilter(), page=n, page_size=3)
        for n in (1, 2, 3, 4)
    ]
    assert [len(p[0]) for p in pages] == [3, 3, 1, 0]
    assert {p[1] for p in pages} == {7}
    listed = [s for page, _ in pages for s in page]
    assert len({s.id for s in listed}) == 7
    assert [s.last_message_at for s in listed] == sorted(
        (s.last_message_at for s in listed), reverse=True
    )
    with pytest.raises(ValueError):
        list_conversations(session=session, filters=TranscriptFilter(), page=0)


@pytest.mark.parametrize(
    "filters",
    [
        TranscriptFilter(),
        TranscriptFilter(text="parcel"),
        TranscriptFilter(low_rating=True),
        TranscriptFilter(since=DAY_ONE, until=DAY_ONE + timedelta(days=3)),
        TranscriptFilter(escalated=True, unanswered=True),
    ],
)
def test_export_holds_every_message_of_exactly_the_listed_conversations(
    session: Session, filters: TranscriptFilter
) -> None:
    populate(session)
    summaries, total = list_conversations(session=session, filters=filters, page_size=100)
    rows = list(export_rows(session=session, filters=filters))

    assert total == len(summaries)
    assert len(rows) == sum(s.turns for s in summaries)
    assert [r["conversation_id"] for r in rows] == [s.id for s in summaries for _ in range(s.turns)]
    for summary in summaries:
        detail = get_conversation(session=session, conversation_id=summary.id)
        assert detail is not None
        exported = [r for r in rows if r["conversation_id"] == summary.id]
        assert [r["turn"] for r in exported] == [m.turn_index for m in detail.messages]
        assert [r["question"] for r in exported] == [m.question for m in detail.messages]
    if rows:
        row = rows[0]
        assert row["passages"] == "returns.md#1:0.8200 returns.md#2:0.6100"
        assert {"session_id", "created_at", "answer", "groundedness", "rating"} <= row.keys()
        assert {"escalated", "index_version", "engine", "answered"} <= row.keys()
    if filters.low_rating:
        assert [r["rating"] for r in rows] == [-1]


def test_personal_data_is_masked_before_it_is_stored(session: Session, engine: Engine) -> None:
    message_id = record_turn(
        session=session,
        turn=turn(
            "s-private",
            0,
            question="I'm jo@example.com, card 4111 1111 1111 1111, call 07700 900123",
            answer="We'll email jo@example.com about order 10452 (£229.00).",
        ),
    )
    record_feedback(
        session=session,
        session_id="s-private",
        message_id=message_id,
        rating=-1,
        comment="Ring me on +44 7700 900123",
    )
    record_escalation(session=session, session_id="s-private", reason="Email jo@example.com")

    with engine.connect() as connection:
        stored = connection.execute(
            text(
                "SELECT m.question, m.answer, f.comment, e.reason FROM message m "
                "JOIN feedback f ON f.message_id = m.id "
                "JOIN escalation e ON e.conversation_id = m.conversation_id"
            )
        ).one()
    assert tuple(stored) == (
        "I'm [email], card [card], call [phone]",
        "We'll email [email] about order 10452 (£229.00).",
        "Ring me on [phone]",
        "Email [email]",
    )


def test_an_answers_parts_are_stored_and_read_back_as_they_were(session: Session) -> None:
    composed = AnswerParts(
        evidence=(EvidenceRecord(3, "Labels cost £2.50.", 0.7),), policy="extractive", composed=True
    )
    record_turn(session=session, turn=turn("s-parts", 0, parts=PARTS))
    record_turn(session=session, turn=turn("s-parts", 1, parts=composed, at=DAY_ONE + HOUR))
    (summary,), _ = list_conversations(session=session, filters=TranscriptFilter())
    detail = get_conversation(session=session, conversation_id=summary.id)
    assert detail is not None
    assert [m.parts for m in detail.messages] == [PARTS, composed]
    assert detail.messages[0].answer == "Yes, within 30 days [1]."  # still what the shopper read
    assert [t.parts for t in session_turns(session=session, session_id="s-parts")] == [
        PARTS,
        composed,
    ]

    first, second = export_rows(session=session, filters=TranscriptFilter())
    assert (first["model_text"], first["answer_policy"]) == ("Yes, within 30 days [1].", "verified")
    assert first["answer_parts"] == {
        "evidence": [
            {"number": 1, "text": "Returns are free within 30 days of delivery.", "score": 0.82},
            {"number": 2, "text": "Sale items can be returned too.", "score": 0.61},
        ],
        "note": "(I'm not fully certain of this answer.)",
        "dropped": [
            {"text": "Refunds take 2 hours.", "reason": "unsupported_number"},
            {"text": "We also sell tents.", "reason": "off_topic"},
        ],
        "composed": False,
    }
    assert (second["model_text"], second["answer_policy"]) == ("", "extractive")
    assert isinstance(second["answer_parts"], dict) and second["answer_parts"]["composed"] is True


def test_a_turn_without_parts_is_stored_with_null_columns_and_reads_back_as_none(
    session: Session, engine: Engine
) -> None:
    record_turn(session=session, turn=turn("s-plain", 0))  # the writer left the default parts
    with engine.connect() as connection:
        stored = connection.execute(
            text("SELECT model_text, answer_policy, answer_parts FROM message")
        ).one()
    assert tuple(stored) == (None, None, None)
    detail = get_conversation(session=session, conversation_id=1)
    assert detail is not None and detail.messages[0].parts is None
    (recorded,) = session_turns(session=session, session_id="s-plain")
    assert recorded.parts is None
    (row,) = export_rows(session=session, filters=TranscriptFilter())
    assert (row["model_text"], row["answer_policy"], row["answer_parts"]) == (None, None, None)


def test_personal_data_is_masked_in_every_part(session: Session, engine: Engine) -> None:
    private = AnswerParts(
        model_text="We'll email jo@example.com today.",
        evidence=(EvidenceRecord(1, "Call 07700 900123 for returns.", 0.9),),
        note="Card 4111 1111 1111 1111 was not charged.",
        dropped=(DroppedRecord("Ring +44 7700 900123 now.", "unsupported_contact"),),
    )
    record_turn(session=session, turn=turn("s-private-parts", 0, parts=private))
    detail = get_conversation(session=session, conversation_id=1)
    assert detail is not None
    assert detail.messages[0].parts == AnswerParts(
        model_text="We'll email [email] today.",
        evidence=(EvidenceRecord(1, "Call [phone] for returns.", 0.9),),
        note="Card [card] was not charged.",
        dropped=(DroppedRecord("Ring [phone] now.", "unsupported_contact"),),
    )
    with engine.connect() as connection:
        stored = connection.execute(text("SELECT model_text, answer_parts FROM message")).one()
    raw = f"{stored[0]} {stored[1]}"
    for secret in ("jo@example.com", "900123", "4111"):
        assert secret not in raw


def test_the_parts_migration_upgrades_a_database_at_0002(
    database_url: str, engine: Engine, session: Session
) -> None:
    record_turn(session=session, turn=turn("s-before", 0))
    session.close()
    downgrade(database_url, "0002")
    inspect(engine).clear_cache()
    columns = {c["name"] for c in inspect(engine).get_columns("message")}
    assert "failure" in columns and not {"model_text", "answer_policy", "answer_parts"} & columns

    upgrade(database_url)
    inspect(engine).clear_cache()
    columns = {c["name"] for c in inspect(engine).get_columns("message")}
    assert {"model_text", "answer_policy", "answer_parts"} <= columns
    with session_factory(engine)() as fresh:
        record_turn(session=fresh, turn=turn("s-before", 1, parts=PARTS, at=DAY_ONE + HOUR))
        detail = get_conversation(session=fresh, conversation_id=1)
    assert detail is not None
    old, new = detail.messages
    assert (old.answer, old.parts) == ("Yes, within 30 days [1].", None)  # kept, without parts
    assert new.parts == PARTS


def test_a_turn_reads_back_field_for_field_but_what_the_transcript_does_not_keep(
    session: Session,
) -> None:
    """The message row is filled from the record's fields by name: every field comes back as
    it went in, except those the transcript does not keep (they come back at their defaults)."""
    kept = (passage(1, 0.82, cited=True), passage(2, 0.61))
    shown = tuple(
        replace(p, section="Returns › Refunds", snippet="Returns are free…") for p in kept
    )
    original = replace(
        turn("s-round", 0, parts=replace(PARTS, declined="partial"), check_ms=37.5),
        passages=shown,
        failure="engine_timeout",
        blocked="prompt_extraction",
    )
    record_turn(session=session, turn=original)
    (stored,) = session_turns(session=session, session_id="s-round")
    assert stored == replace(
        original,
        passages=kept,  # section and snippet: the index version holds them
        blocked=None,  # counted by the metrics only
    )
    detail = get_conversation(session=session, conversation_id=1)
    assert detail is not None
    (message,) = detail.messages
    assert message.check_ms == 37.5 and message.failure == "engine_timeout"
    assert {f.name: getattr(message, f.name) for f in fields(FinishedTurn)} == {
        f.name: getattr(stored, f.name) for f in fields(FinishedTurn)
    }


def test_the_answer_checks_cost_is_stored_and_null_when_no_check_ran(
    session: Session, engine: Engine
) -> None:
    record_turn(session=session, turn=turn("s-checks", 0, check_ms=12.3))
    record_turn(session=session, turn=turn("s-checks", 1, at=DAY_ONE + HOUR))  # a declined turn
    with engine.connect() as connection:
        stored = connection.execute(text("SELECT check_ms FROM message ORDER BY turn_index")).all()
    assert [row[0] for row in stored] == [pytest.approx(12.3), None]
    detail = get_conversation(session=session, conversation_id=1)
    assert detail is not None
    assert [m.check_ms for m in detail.messages] == [pytest.approx(12.3), None]
    assert [t.check_ms for t in session_turns(session=session, session_id="s-checks")] == [
        pytest.approx(12.3),
        None,
    ]


def test_the_check_cost_migration_upgrades_a_database_at_0003(
    database_url: str, engine: Engine, session: Session
) -> None:
    record_turn(session=session, turn=turn("s-older", 0, parts=PARTS))
    session.close()
    downgrade(database_url, "0003")
    inspect(engine).clear_cache()
    columns = {c["name"] for c in inspect(engine).get_columns("message")}
    assert "answer_parts" in columns and "check_ms" not in columns

    upgrade(database_url)
    inspect(engine).clear_cache()
    assert "check_ms" in {c["name"] for c in inspect(engine).get_columns("message")}
    with session_factory(engine)() as fresh:
        record_turn(session=fresh, turn=turn("s-older", 1, check_ms=4.0, at=DAY_ONE + HOUR))
        detail = get_conversation(session=fresh, conversation_id=1)
    assert detail is not None
    old, new = detail.messages
    assert (old.parts, old.check_ms) == (PARTS, None)  # kept, without a check cost
    assert new.check_ms == 4.0
