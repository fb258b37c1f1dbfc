"""Transcript reads: keyword-only functions that take a ``Session``, end their read-only
transaction and return plain data (frozen dataclasses). Staff read them through
``review.TranscriptReview``; the session store refills a session from ``session_turns``."""

from __future__ import annotations

import json
from collections.abc import Generator
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import ColumnElement, exists, func, select
from sqlalchemy.orm import Session, selectinload

from app.chat.turn import FinishedTurn
from app.transcripts.models import Conversation, Message
from app.transcripts.parts import parts_json
from app.transcripts.records import (
    ConversationDetail,
    ConversationSummary,
    EscalationRecord,
    NoteRecord,
)
from app.transcripts.rows import finished_turn, stored_turn

__all__ = [
    "TranscriptFilter",
    "export_rows",
    "get_conversation",
    "list_conversations",
    "session_turns",
]


@dataclass(frozen=True)
class TranscriptFilter:
    """Which conversations staff want to see; every criterion is optional and they combine.

    ``since``/``until`` keep conversations active in that window (``until`` exclusive);
    ``max_groundedness`` keeps those with a turn at or below it; ``text`` is a
    case-insensitive substring of any question or answer."""

    since: datetime | None = None
    until: datetime | None = None
    low_rating: bool = False
    escalated: bool = False
    unanswered: bool = False
    max_groundedness: float | None = None
    text: str | None = None


def _conditions(filters: TranscriptFilter) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if filters.since is not None:
        conditions.append(Conversation.last_message_at >= filters.since)
    if filters.until is not None:
        conditions.append(Conversation.started_at < filters.until)
    if filters.low_rating:
        conditions.append(Conversation.lowest_rating < 0)
    if filters.escalated:
        conditions.append(Conversation.escalated.is_(True))
    if filters.unanswered:
        conditions.append(Conversation.any_unanswered.is_(True))
    if filters.max_groundedness is not None:
        conditions.append(Conversation.min_groundedness <= filters.max_groundedness)
    if filters.text:
        needle = filters.text.lower()
        conditions.append(
            exists()
            .where(
                Message.conversation_id == Conversation.id,
                func.lower(Message.question).contains(needle, autoescape=True)
                | func.lower(Message.answer).contains(needle, autoescape=True),
            )
            .correlate(Conversation)
        )
    return conditions


_NEWEST_FIRST = (Conversation.last_message_at.desc(), Conversation.id.desc())


def list_conversations(
    *, session: Session, filters: TranscriptFilter, page: int = 1, page_size: int = 25
) -> tuple[list[ConversationSummary], int]:
    """One page of the conversations that match, newest first, and how many match in all."""
    if page < 1 or page_size < 1:
        raise ValueError("page and page_size start at 1")
    total = session.scalar(
        select(func.count()).select_from(Conversation).where(*_conditions(filters))
    )
    first_question = (
        select(Message.question)
        .where(Message.conversation_id == Conversation.id)
        .order_by(Message.turn_index)
        .limit(1)
        .scalar_subquery()
    )
    stmt = (
        select(Conversation, first_question)
        .where(*_conditions(filters))
        .order_by(*_NEWEST_FIRST)
        .limit(page_size)
        .offset((page - 1) * page_size)
    )
    summaries = [_summary(row[0], row[1]) for row in session.execute(stmt)]
    session.rollback()
    return summaries, total or 0


def session_turns(*, session: Session, session_id: str) -> list[FinishedTurn]:
    """A session's stored turns in order, as stored (masked): what a session store that lost
    the conversation is refilled from. A row without parts comes back with ``parts`` None."""
    stmt = (
        select(Message)
        .join(Conversation)
        .where(Conversation.session_id == session_id)
        .order_by(Message.turn_index)
        .options(selectinload(Message.passages))
    )
    turns = [finished_turn(m, session_id) for m in session.scalars(stmt)]
    session.rollback()
    return turns


def get_conversation(*, session: Session, conversation_id: int) -> ConversationDetail | None:
    """Everything stored about one conversation, or ``None`` when there is no such id."""
    stmt = (
        select(Conversation)
        .where(Conversation.id == conversation_id)
        .options(
            selectinload(Conversation.messages).selectinload(Message.passages),
            selectinload(Conversation.messages).selectinload(Message.feedback),
            selectinload(Conversation.escalations),
            selectinload(Conversation.notes),
        )
    )
    conversation = session.scalars(stmt).one_or_none()
    detail = _detail(conversation) if conversation is not None else None
    session.rollback()
    return detail


def export_rows(
    *, session: Session, filters: TranscriptFilter
) -> Generator[dict[str, object], None, None]:
    """One row per message of every matching conversation (newest conversation first, turns in
    order), ready for JSON Lines (``answer_parts`` is a nested object, None for a row without
    parts) or CSV; streamed in batches."""
    matching = select(Conversation.id).where(*_conditions(filters))
    stmt = (
        select(Message)
        .join(Conversation)
        .where(Conversation.id.in_(matching))
        .order_by(*_NEWEST_FIRST, Message.turn_index)
        .options(
            selectinload(Message.passages),
            selectinload(Message.feedback),
            selectinload(Message.conversation),
        )
        .execution_options(yield_per=500)
    )
    try:
        for message in session.scalars(stmt):
            yield _export_row(message)
    finally:
        session.rollback()


def _summary(conversation: Conversation, first_question: str | None) -> ConversationSummary:
    return ConversationSummary(
        id=conversation.id,
        session_id=conversation.session_id,
        started_at=conversation.started_at,
        last_message_at=conversation.last_message_at,
        turns=conversation.turns,
        escalated=conversation.escalated,
        lowest_rating=conversation.lowest_rating,
        min_groundedness=conversation.min_groundedness,
        any_unanswered=conversation.any_unanswered,
        first_question=first_question,
    )


def _detail(conversation: Conversation) -> ConversationDetail:
    messages = tuple(stored_turn(m, conversation.session_id) for m in conversation.messages)
    return ConversationDetail(
        summary=_summary(conversation, messages[0].question if messages else None),
        messages=messages,
        escalations=tuple(
            EscalationRecord(e.id, e.reason, e.created_at) for e in conversation.escalations
        ),
        notes=tuple(
            NoteRecord(n.id, n.author, n.text, n.label, n.created_at) for n in conversation.notes
        ),
    )


def _export_row(message: Message) -> dict[str, object]:
    conversation = message.conversation
    turn = stored_turn(message, conversation.session_id)
    parts, feedback = turn.parts, turn.feedback
    return {
        "conversation_id": conversation.id,
        "session_id": conversation.session_id,
        "turn": turn.turn_index,
        "created_at": turn.created_at.isoformat(),
        "started_at": conversation.started_at.isoformat(),
        "question": turn.question,
        "answer": turn.answer,
        "model_text": parts.model_text if parts else None,
        "answer_policy": parts.policy if parts else None,
        "answer_parts": parts_json(parts) if parts else None,
        "answered": turn.answered,
        "groundedness": turn.groundedness,
        "rating": feedback.rating if feedback else None,
        "feedback_comment": feedback.comment if feedback else None,
        "escalated": conversation.escalated,
        "index_version": turn.index_version,
        "engine": turn.engine,
        "model": turn.model,
        "timings": json.dumps(turn.timings, sort_keys=True),
        "prompt_tokens": turn.prompt_tokens,
        "cached_tokens": turn.cached_tokens,
        "generated_tokens": turn.generated_tokens,
        "passages": " ".join(f"{p.passage_id}:{p.score:.4f}" for p in turn.passages),
    }
