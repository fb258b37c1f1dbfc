"""The transcript outbox file: what goes in comes back exactly, in order, after a restart too."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from app.chat.turn import AnswerParts, DroppedRecord, EvidenceRecord, FinishedTurn, PassageRecord
from app.transcripts.outbox import (
    Escalation,
    Rating,
    TranscriptOutbox,
    rating_from_json,
    rating_to_json,
    turn_from_json,
    turn_to_json,
)

PARTS = AnswerParts(
    model_text="Yes, within 30 days [1].",
    evidence=(EvidenceRecord(1, "Returns are free within 30 days.", 0.71),),
    note="(Please check the sources below.)",
    dropped=(DroppedRecord("Refunds take 2 hours.", "unsupported_number"),),
    policy="verified",
    composed=True,
)


def turn(session_id: str, index: int, *, question: str = "Can I return boots?") -> FinishedTurn:
    return FinishedTurn(
        session_id=session_id,
        turn_index=index,
        question=question,
        answer="Yes, within 30 days [1]. ✓",
        answered=True,
        groundedness=0.8123,
        engine="vllm:SmolLM2",
        model="/models/smollm2",
        index_version="20261129T101010000001Z-abcd1234",
        timings={"embed": 0.0123, "total": 1.5},
        prompt_tokens=812,
        cached_tokens=640,
        generated_tokens=42,
        passages=(
            PassageRecord("returns.md#0", "Returns", "returns.md", "/help/returns", 0.71, True),
            PassageRecord("boots.md#2", "Boots", "boots.md", "/p/boots", 0.52, False),
        ),
        created_at=datetime(2026, 11, 29, 10, 15, 30, 123456, tzinfo=UTC),
        failure=None,
    )


def test_a_turn_survives_the_round_trip_exactly() -> None:
    original = turn("s1", 3)
    assert turn_from_json(turn_to_json(original)) == original
    timed_out = FinishedTurn(**{**vars(original), "failure": "engine_timeout", "answered": False})
    assert turn_from_json(turn_to_json(timed_out)) == timed_out
    # another offset is kept as the same instant
    elsewhere = original.created_at.astimezone(timezone(timedelta(hours=5, minutes=30)))
    shifted = FinishedTurn(**{**vars(original), "created_at": elsewhere})
    assert turn_from_json(turn_to_json(shifted)).created_at == original.created_at


def test_an_answers_parts_survive_the_round_trip() -> None:
    original = replace(turn("s1", 3), parts=PARTS)
    assert turn_from_json(turn_to_json(original)) == original
    assert json.loads(turn_to_json(original))["parts"]["dropped"] == [
        {"text": "Refunds take 2 hours.", "reason": "unsupported_number"}
    ]


def test_a_turn_queued_before_answers_had_parts_reads_back_without_them() -> None:
    queued = json.loads(turn_to_json(turn("s1", 0)))
    del queued["parts"]  # as an older release wrote it
    assert turn_from_json(json.dumps(queued)) == turn("s1", 0)
    assert turn_from_json(json.dumps(queued)).parts is None


def test_entries_outlive_the_process_and_leave_only_when_removed(tmp_path: Path) -> None:
    path = tmp_path / "outbox" / "transcripts.sqlite3"
    first = TranscriptOutbox(path)
    at = datetime(2026, 11, 29, 11, 0, tzinfo=UTC)
    ids = [
        first.put(replace(turn("s1", 0), parts=PARTS)),
        first.put(Escalation("s1", "call me back", at)),
        first.put(turn("s2", 0, question="Other shopper")),
        first.put(turn("s1", 1, question="And in blue?")),
    ]
    first.close()

    again = TranscriptOutbox(path)  # a new process reading the same file
    assert again.depth() == 4
    pending = again.pending()
    assert [p.id for p in pending] == ids
    assert pending[0].record == replace(turn("s1", 0), parts=PARTS)
    assert pending[1].record == Escalation("s1", "call me back", at)
    assert [t.question for t in again.turns_of("s1")] == ["Can I return boots?", "And in blue?"]
    again.remove(ids[0])
    assert again.depth() == 3 and ids[0] not in [p.id for p in again.pending()]
    again.close()


def test_refused_entries_go_after_fresh_ones_and_keep_why(tmp_path: Path) -> None:
    outbox = TranscriptOutbox(tmp_path / "o.sqlite3")
    poisoned = outbox.put(turn("s1", 0))
    fresh = outbox.put(turn("s1", 1))
    outbox.note_failure(poisoned, "IntegrityError('...')")
    pending = outbox.pending()
    assert [p.id for p in pending] == [fresh, poisoned]
    assert pending[1].attempts == 1
    assert outbox.pending(limit=1)[0].id == fresh
    outbox.close()


RATED_AT = datetime(2026, 11, 29, 10, 16, 2, 5, tzinfo=UTC)


def test_a_rating_survives_the_round_trip_exactly(tmp_path: Path) -> None:
    by_turn = Rating("s1", -1, "Too vague ✗", RATED_AT, turn_index=3)
    of_queued_turn = replace(by_turn, turn_created_at=turn("s1", 3).created_at)
    by_message = Rating("s1", 1, None, RATED_AT, message_id=42)
    for rating in (by_turn, of_queued_turn, by_message):
        assert rating_from_json(rating_to_json(rating)) == rating
    outbox = TranscriptOutbox(tmp_path / "o.sqlite3")
    queued_turn = outbox.put(turn("s1", 3))
    ids = [outbox.put(r) for r in (of_queued_turn, by_message)]
    outbox.close()
    again = TranscriptOutbox(tmp_path / "o.sqlite3")
    pending = again.pending()
    assert [p.id for p in pending] == [queued_turn, *ids]  # the rating after the turn it rates
    assert [p.record for p in pending[1:]] == [of_queued_turn, by_message]
    assert [t.turn_index for t in again.turns_of("s1")] == [3]  # ratings are no turns
    again.close()


# The table as the release before ratings could be queued created it.
OLD_SCHEMA = """
CREATE TABLE pending (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('turn', 'escalation')),
    session_id TEXT NOT NULL,
    payload TEXT NOT NULL,
    queued_at REAL NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_error TEXT
);
CREATE INDEX pending_session ON pending (session_id);
"""


def test_an_outbox_file_of_the_older_schema_is_upgraded_keeping_its_entries(
    tmp_path: Path,
) -> None:
    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(OLD_SCHEMA)
    with old:
        old.execute(
            "INSERT INTO pending (id, kind, session_id, payload, queued_at, attempts, last_error)"
            " VALUES (7, 'turn', 's1', ?, 1.0, 2, 'IntegrityError')",
            (turn_to_json(turn("s1", 0)),),
        )
        with pytest.raises(sqlite3.IntegrityError):  # what the old CHECK does to a rating
            old.execute(
                "INSERT INTO pending (kind, session_id, payload, queued_at) VALUES (?, ?, ?, ?)",
                ("rating", "s1", rating_to_json(Rating("s1", 1, None, RATED_AT, 0)), 2.0),
            )
    old.close()

    outbox = TranscriptOutbox(path)
    rating = Rating("s1", 1, "thanks", RATED_AT, turn_index=0)
    rating_id = outbox.put(rating)
    pending = outbox.pending()
    assert [(p.id, p.attempts) for p in pending] == [(rating_id, 0), (7, 2)]
    assert pending[0].record == rating and pending[1].record == turn("s1", 0)
    assert rating_id > 7
    outbox.close()
    # opened again (another process, a restart): nothing rebuilt, nothing lost
    again = TranscriptOutbox(path)
    assert again.depth() == 2
    assert again.pending()[0].record == rating
    again.close()
