"""Every read and write of transcripts: keyword-only functions that take a ``Session``, commit
their own unit of work and return plain data (ids or frozen dataclasses)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, case, exists, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from app.transcripts.masking import mask_personal_data
from app.transcripts.models import (
    Conversation,
    Escalation,
    Feedback,
    Message,
    RetrievedPassage,
    StaffNote,
)
from app.transcripts.parts import parts_columns, parts_json, stored_parts
from app.transcripts.records import (
    AnswerParts,
    ConversationDetail,
    ConversationSummary,
    EscalationRecord,
    FeedbackRecord,
    MessageRecord,
    NoteRecord,
    PassageRecord,
    TurnRecord,
)

__all__ = [
    "ConversationDetail",
    "ConversationSummary",
    "MessageRecord",
    "TranscriptFilter",
    "add_note",
    "export_rows",
    "get_conversation",
    "list_conversations",
    "record_escalation",
    "record_feedback",
    "record_turn",
    "session_turns",
]

logger = logging.getLogger(__name__)


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


def _now() -> datetime:
    return datetime.now(UTC)


def _conversation_for_update(session: Session, session_id: str) -> Conversation | None:
    stmt = select(Conversation).where(Conversation.session_id == session_id).with_for_update()
    return session.scalars(stmt).one_or_none()


def _new_conversation(session: Session, session_id: str, at: datetime) -> Conversation:
    conversation = Conversation(
        session_id=session_id,
        started_at=at,
        last_message_at=at,
        turns=0,
        escalated=False,
        any_unanswered=False,
    )
    session.add(conversation)
    return conversation


def _stored_message_id(session: Session, turn: TurnRecord) -> tuple[int | None, bool]:
    """``(id, taken)``: the message this very turn was stored as, if it was (a retry or an outbox
    replay carries the same index and time); and whether another turn holds its index."""
    in_session = select(Message.id, Message.turn_index, Message.created_at, Message.question).join(
        Conversation
    )
    at_index = session.execute(
        in_session.where(
            Conversation.session_id == turn.session_id, Message.turn_index == turn.turn_index
        )
    ).one_or_none()
    if at_index is None:
        return None, False
    if at_index.created_at == turn.created_at:
        return at_index.id, False
    # The index is another turn's; this one may have been stored after the last turn before.
    question = mask_personal_data(turn.question)
    moved = session.execute(
        in_session.where(
            Conversation.session_id == turn.session_id, Message.created_at == turn.created_at
        )
    ).all()
    return next((row.id for row in moved if row.question == question), None), True


def _next_turn_index(session: Session, session_id: str) -> int:
    last = session.scalar(
        select(func.max(Message.turn_index))
        .join(Conversation)
        .where(Conversation.session_id == session_id)
    )
    return 0 if last is None else int(last) + 1


def _commit_turn(session: Session, turn: TurnRecord) -> int:
    conversation = _conversation_for_update(session, turn.session_id)
    if conversation is None:
        conversation = _new_conversation(session, turn.session_id, turn.created_at)
    message = Message(
        conversation=conversation,
        turn_index=turn.turn_index,
        question=mask_personal_data(turn.question),
        answer=mask_personal_data(turn.answer),
        answered=turn.answered,
        groundedness=turn.groundedness,
        engine=turn.engine,
        model=turn.model,
        index_version=turn.index_version,
        timings=dict(turn.timings),
        prompt_tokens=turn.prompt_tokens,
        cached_tokens=turn.cached_tokens,
        generated_tokens=turn.generated_tokens,
        created_at=turn.created_at,
        failure=turn.failure,
        **parts_columns(turn.parts),
    )
    message.passages = [
        RetrievedPassage(rank=rank, **vars(passage)) for rank, passage in enumerate(turn.passages)
    ]
    session.add(message)
    session.flush()
    message_id = message.id
    _refresh_aggregates(session, conversation)
    session.commit()
    return message_id


def _refresh_aggregates(session: Session, conversation: Conversation) -> None:
    """Recompute the conversation's turn aggregates from its stored messages, inside the write
    transaction, so that concurrent writers of one conversation cannot lose an update."""
    turns, lowest, first, last, unanswered = session.execute(
        select(
            func.count(),
            func.min(Message.groundedness),
            func.min(Message.created_at),
            func.max(Message.created_at),
            func.max(case((Message.answered.is_(False), 1), else_=0)),
        ).where(Message.conversation_id == conversation.id)
    ).one()
    conversation.turns = turns
    conversation.min_groundedness = lowest
    conversation.started_at = min(conversation.started_at, first)
    conversation.last_message_at = max(conversation.last_message_at, last)
    conversation.any_unanswered = bool(unanswered)


def record_turn(*, session: Session, turn: TurnRecord) -> int:
    """Store one turn (masked, its parts too) with its passages and return the message id.

    Recording the same turn again (same ``(session_id, turn_index)`` and ``created_at``: a retry,
    or a replay from the outbox after a crash) returns the stored message's id and changes
    nothing. A different turn that finds its index taken (the session store lost the
    conversation, or it expired and the shopper came back) is stored after the last turn
    instead of being dropped.
    """
    if turn.created_at.tzinfo is None:
        raise ValueError("a turn's created_at must be timezone-aware")
    # A concurrent writer may create the conversation first, then store this very turn first:
    # each conflict rolls back and looks again, so the third try cannot meet a new one.
    for attempt in range(3):
        existing, taken = _stored_message_id(session, turn)
        if existing is not None:
            session.rollback()
            return existing
        placed = turn
        if taken:
            placed = replace(turn, turn_index=_next_turn_index(session, turn.session_id))
            logger.warning(
                "turn %d of session %s was taken by another turn; stored as turn %d",
                turn.turn_index,
                turn.session_id,
                placed.turn_index,
            )
        try:
            return _commit_turn(session, placed)
        except IntegrityError:
            session.rollback()
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def record_feedback(
    *, session: Session, session_id: str, message_id: int, rating: int, comment: str | None
) -> int:
    """Store a shopper's rating (+1 or -1) of one of their own answers; a later rating of the
    same answer replaces the earlier one. Raises ``LookupError`` for another session's message."""
    if rating not in (1, -1):
        raise ValueError(f"rating must be +1 or -1, not {rating!r}")
    stmt = (
        select(Message)
        .join(Conversation)
        .where(Message.id == message_id, Conversation.session_id == session_id)
    )
    message = session.scalars(stmt).one_or_none()
    if message is None:
        session.rollback()
        raise LookupError(f"no message {message_id} in session {session_id}")
    # Lock the conversation first: one rating of its answers is written at a time.
    conversation = session.get_one(Conversation, message.conversation_id, with_for_update=True)
    feedback = session.scalars(
        select(Feedback).where(Feedback.message_id == message.id)
    ).one_or_none()
    if feedback is None:
        feedback = Feedback(message_id=message.id)
        session.add(feedback)
    feedback.rating, feedback.created_at = rating, _now()
    feedback.comment = mask_personal_data(comment) if comment else None
    session.flush()
    conversation.lowest_rating = session.scalar(
        select(func.min(Feedback.rating))
        .join(Message)
        .where(Message.conversation_id == conversation.id)
    )
    feedback_id = feedback.id
    session.commit()
    return feedback_id


def record_escalation(
    *, session: Session, session_id: str, reason: str, at: datetime | None = None
) -> int:
    """Record that the shopper asked for a person, marking the conversation escalated (and
    creating it when the shopper escalated before asking anything). ``at`` is when they asked
    (now by default); recording the same escalation again returns the stored id."""
    at = at or _now()
    conversation = _conversation_for_update(session, session_id)
    if conversation is None:
        conversation = _new_conversation(session, session_id, at)
    else:
        stored = session.scalar(
            select(Escalation.id).where(
                Escalation.conversation_id == conversation.id, Escalation.created_at == at
            )
        )
        if stored is not None:
            session.rollback()
            return stored
    escalation = Escalation(reason=mask_personal_data(reason), created_at=at)
    conversation.escalations.append(escalation)
    if not conversation.escalated:
        conversation.escalated, conversation.escalated_at = True, at
    session.flush()
    escalation_id = escalation.id
    session.commit()
    return escalation_id


def add_note(
    *, session: Session, conversation_id: int, author: str, text: str, label: str | None
) -> int:
    """Add a support agent's note to a conversation; raises ``LookupError`` if there is none."""
    if label is not None and len(label) > 40:
        raise ValueError("a note's label is at most 40 characters")
    if session.get(Conversation, conversation_id) is None:
        session.rollback()
        raise LookupError(f"no conversation {conversation_id}")
    note = StaffNote(
        conversation_id=conversation_id, author=author, text=text, label=label, created_at=_now()
    )
    session.add(note)
    session.flush()
    note_id = note.id
    session.commit()
    return note_id


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


def session_turns(*, session: Session, session_id: str) -> list[TurnRecord]:
    """A session's stored turns in order, as stored (masked): what a session store that lost
    the conversation is refilled from. A row without parts comes back with the default parts,
    which ``parts.known_parts`` reads as unrecorded."""
    stmt = (
        select(Message)
        .join(Conversation)
        .where(Conversation.session_id == session_id)
        .order_by(Message.turn_index)
        .options(selectinload(Message.passages))
    )
    turns = [
        TurnRecord(
            session_id=session_id,
            turn_index=m.turn_index,
            question=m.question,
            answer=m.answer,
            answered=m.answered,
            groundedness=m.groundedness,
            engine=m.engine,
            model=m.model,
            index_version=m.index_version,
            timings=dict(m.timings),
            prompt_tokens=m.prompt_tokens,
            cached_tokens=m.cached_tokens,
            generated_tokens=m.generated_tokens,
            passages=_passage_records(m),
            created_at=m.created_at,
            failure=m.failure,
            parts=stored_parts(m) or AnswerParts(),
        )
        for m in session.scalars(stmt)
    ]
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


def export_rows(*, session: Session, filters: TranscriptFilter) -> Iterator[dict[str, object]]:
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


def _message(message: Message) -> MessageRecord:
    feedback = message.feedback
    return MessageRecord(
        id=message.id,
        turn_index=message.turn_index,
        question=message.question,
        answer=message.answer,
        answered=message.answered,
        groundedness=message.groundedness,
        engine=message.engine,
        model=message.model,
        index_version=message.index_version,
        timings=dict(message.timings),
        prompt_tokens=message.prompt_tokens,
        cached_tokens=message.cached_tokens,
        generated_tokens=message.generated_tokens,
        created_at=message.created_at,
        passages=_passage_records(message),
        feedback=(
            FeedbackRecord(feedback.rating, feedback.comment, feedback.created_at)
            if feedback is not None
            else None
        ),
        failure=message.failure,
        parts=stored_parts(message),
    )


def _passage_records(message: Message) -> tuple[PassageRecord, ...]:
    return tuple(
        PassageRecord(p.passage_id, p.title, p.source, p.citation, p.score, p.cited)
        for p in message.passages
    )


def _detail(conversation: Conversation) -> ConversationDetail:
    messages = tuple(_message(m) for m in conversation.messages)
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
    conversation, parts = message.conversation, stored_parts(message)
    return {
        "conversation_id": conversation.id,
        "session_id": conversation.session_id,
        "turn": message.turn_index,
        "created_at": message.created_at.isoformat(),
        "started_at": conversation.started_at.isoformat(),
        "question": message.question,
        "answer": message.answer,
        "model_text": parts.model_text if parts else None,
        "answer_policy": parts.policy if parts else None,
        "answer_parts": parts_json(parts) if parts else None,
        "answered": message.answered,
        "groundedness": message.groundedness,
        "rating": message.feedback.rating if message.feedback else None,
        "feedback_comment": message.feedback.comment if message.feedback else None,
        "escalated": conversation.escalated,
        "index_version": message.index_version,
        "engine": message.engine,
        "model": message.model,
        "timings": json.dumps(message.timings, sort_keys=True),
        "prompt_tokens": message.prompt_tokens,
        "cached_tokens": message.cached_tokens,
        "generated_tokens": message.generated_tokens,
        "passages": " ".join(f"{p.passage_id}:{p.score:.4f}" for p in message.passages),
    }
