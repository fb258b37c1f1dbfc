"""Transcript writes: keyword-only functions that take a ``Session``, commit their own unit of
work and return the id they stored. Turns, ratings and escalations come from the chat side
(through ``store.SqlTranscripts`` and the outbox), notes from staff (``review.TranscriptReview``).
A missing conversation or answer is a ``TranscriptNotFoundError``."""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import UTC, datetime

from sqlalchemy import case, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.chat.turn import FinishedTurn
from app.errors import TranscriptNotFoundError
from app.transcripts.masking import mask_personal_data
from app.transcripts.models import Conversation, Escalation, Feedback, Message, StaffNote
from app.transcripts.rows import message_row

__all__ = ["add_note", "record_escalation", "record_feedback", "record_turn"]

logger = logging.getLogger(__name__)


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


def _stored_message_id(session: Session, turn: FinishedTurn) -> tuple[int | None, bool]:
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


def _commit_turn(session: Session, turn: FinishedTurn) -> int:
    conversation = _conversation_for_update(session, turn.session_id)
    if conversation is None:
        conversation = _new_conversation(session, turn.session_id, turn.created_at)
    message = message_row(turn, conversation)
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


def record_turn(*, session: Session, turn: FinishedTurn) -> int:
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


def _rated_message(
    session: Session,
    session_id: str,
    *,
    message_id: int | None,
    turn_index: int | None,
    turn_created_at: datetime | None,
) -> Message | None:
    """The session's answer a rating names: by message id, or by turn key. A turn that was
    queued carries its own time too: it is found by that time even where the database stored
    it under another index (its index was taken by then)."""
    stmt = select(Message).join(Conversation).where(Conversation.session_id == session_id)
    if message_id is not None:
        return session.scalars(stmt.where(Message.id == message_id)).one_or_none()
    if turn_created_at is not None:
        same_time = session.scalars(stmt.where(Message.created_at == turn_created_at)).all()
        at_index = [m for m in same_time if m.turn_index == turn_index]
        if at_index or same_time:
            return (at_index or same_time)[0]
    return session.scalars(stmt.where(Message.turn_index == turn_index)).first()


def record_feedback(
    *,
    session: Session,
    session_id: str,
    rating: int,
    comment: str | None,
    message_id: int | None = None,
    turn_index: int | None = None,
    turn_created_at: datetime | None = None,
    at: datetime | None = None,
) -> int:
    """Store a shopper's rating (+1 or -1) of one of their own answers, named by ``message_id``
    or by its turn key (``turn_index``, and the turn's time when known). A later rating of the
    same answer replaces the earlier one: ``at`` (now by default) is when it was given, so a
    replay from the outbox neither duplicates it nor overwrites a newer one. Raises
    ``TranscriptNotFoundError`` for an answer that is not the session's."""
    if rating not in (1, -1):
        raise ValueError(f"rating must be +1 or -1, not {rating!r}")
    if (message_id is None) == (turn_index is None):
        raise ValueError("name the rated answer by exactly one of message_id and turn_index")
    at = at or _now()
    message = _rated_message(
        session,
        session_id,
        message_id=message_id,
        turn_index=turn_index,
        turn_created_at=turn_created_at,
    )
    if message is None:
        session.rollback()
        raise TranscriptNotFoundError("no such answer in this conversation")
    # Lock the conversation first: one rating of its answers is written at a time.
    conversation = session.get_one(Conversation, message.conversation_id, with_for_update=True)
    feedback = session.scalars(
        select(Feedback).where(Feedback.message_id == message.id)
    ).one_or_none()
    if feedback is not None and feedback.created_at > at:  # a later rating is stored already
        feedback_id = feedback.id
        session.rollback()
        return feedback_id
    if feedback is None:
        feedback = Feedback(message_id=message.id)
        session.add(feedback)
    feedback.rating, feedback.created_at = rating, at
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
    """Add a support agent's note to a conversation; raises ``TranscriptNotFoundError`` if there
    is none."""
    if label is not None and len(label) > 40:
        raise ValueError("a note's label is at most 40 characters")
    if session.get(Conversation, conversation_id) is None:
        session.rollback()
        raise TranscriptNotFoundError(f"there is no conversation {conversation_id}")
    note = StaffNote(
        conversation_id=conversation_id, author=author, text=text, label=label, created_at=_now()
    )
    session.add(note)
    session.flush()
    note_id = note.id
    session.commit()
    return note_id
