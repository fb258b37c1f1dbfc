"""Knowledge-gap reads: the shopper questions that got no good answer in a time window, and the
cache of their embeddings (``question_vector``: bytes per message and embedder model).

A question is a gap when its turn was declined (a decline reason is recorded: nothing relevant
found, only the closest lines, a product the shop does not sell, ...), was answered with a
groundedness below the floor, was rated thumbs down, or was the last one asked before the
shopper asked for a person. A turn the engine failed on, or the injection defences declined, is
no knowledge gap unless the shopper rated it down or asked for a person after it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session, aliased

from app.transcripts.models import Escalation, Feedback, Message, QuestionVector
from app.transcripts.records import GAP_REASONS, GapQuestion

__all__ = ["GapWindow", "gap_questions", "question_vectors", "store_question_vectors"]


@dataclass(frozen=True)
class GapWindow:
    """Which questions to look at: asked in ``[since, until)`` (an end left None is open); an
    answer under ``floor`` groundedness is a gap."""

    floor: float
    since: datetime | None = None
    until: datetime | None = None


def _handed_off() -> Select[tuple[int | None]]:
    """Per escalation, the id of its conversation's last message asked at or before it."""
    asked = aliased(Message)
    last_before = (
        select(asked.id)
        .where(
            asked.conversation_id == Escalation.conversation_id,
            asked.created_at <= Escalation.created_at,
        )
        .order_by(asked.created_at.desc(), asked.turn_index.desc())
        .limit(1)
        .correlate(Escalation)
        .scalar_subquery()
    )
    return select(last_before).select_from(Escalation)


def _reasons(window: GapWindow) -> dict[str, ColumnElement[bool]]:
    """Each reason of ``GAP_REASONS`` as a condition on a message (joined to its rating)."""
    return {
        "declined": Message.declined.is_not(None),
        "low_groundedness": and_(
            Message.answered.is_(True),
            Message.declined.is_(None),
            Message.groundedness < window.floor,
        ),
        "thumbs_down": Feedback.rating == -1,
        "handoff": Message.id.in_(_handed_off()),
    }


def _gaps(window: GapWindow, *columns: Any) -> Select[Any]:
    """``columns`` of the gap messages asked in the window."""
    conditions: list[ColumnElement[bool]] = [or_(*_reasons(window).values())]
    if window.since is not None:
        conditions.append(Message.created_at >= window.since)
    if window.until is not None:
        conditions.append(Message.created_at < window.until)
    return (
        select(*columns)
        .select_from(Message)
        .outerjoin(Feedback, Feedback.message_id == Message.id)
        .where(*conditions)
    )


def gap_questions(*, session: Session, window: GapWindow) -> list[GapQuestion]:
    """The gap questions asked in the window, oldest message first, with their reasons."""
    reasons = _reasons(window)
    stmt = _gaps(
        window,
        Message.id,
        Message.conversation_id,
        Message.question,
        Message.created_at,
        Message.declined,
        *(reasons[name].label(name) for name in GAP_REASONS),
    ).order_by(Message.id)
    rows = session.execute(stmt)
    questions = [
        GapQuestion(
            message_id=message_id,
            conversation_id=conversation_id,
            question=question,
            asked_at=asked_at,
            reasons=tuple(name for name, on in zip(GAP_REASONS, flags, strict=True) if on),
            declined=declined,
        )
        for message_id, conversation_id, question, asked_at, declined, *flags in rows
    ]
    session.rollback()
    return questions


def question_vectors(*, session: Session, window: GapWindow, model_id: str) -> dict[int, bytes]:
    """The cached vectors (by message id) of the window's gap questions embedded by ``model_id``."""
    stmt = select(QuestionVector.message_id, QuestionVector.vector).where(
        QuestionVector.model_id == model_id,
        QuestionVector.message_id.in_(_gaps(window, Message.id)),
    )
    vectors = {row.message_id: bytes(row.vector) for row in session.execute(stmt)}
    session.rollback()
    return vectors


def store_question_vectors(
    *, session: Session, model_id: str, vectors: Mapping[int, bytes]
) -> None:
    """Cache questions' vectors; one already stored (by another replica, say) is kept."""
    if not vectors:
        return
    dialect = session.get_bind().dialect.name
    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    rows = [
        {"message_id": message_id, "model_id": model_id, "vector": vector}
        for message_id, vector in vectors.items()
    ]
    session.execute(insert(QuestionVector).on_conflict_do_nothing(), rows)
    session.commit()
