"""Plain data out of the transcripts package (no SQLAlchemy): the conversations staff read back.
The turns the chat service records are ``app.chat.turn.FinishedTurn``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from app.chat.turn import FinishedTurn


@dataclass(frozen=True)
class FeedbackRecord:
    """The shopper's rating of one answer, as stored (the comment masked)."""

    rating: int
    comment: str | None
    created_at: datetime


@dataclass(frozen=True, kw_only=True)
class StoredTurn(FinishedTurn):
    """A finished turn as staff review it: as stored (masked; the fields the transcript does not
    keep at their defaults), with its message id and the shopper's rating."""

    id: int
    feedback: FeedbackRecord | None = None


@dataclass(frozen=True)
class EscalationRecord:
    """A request for a person, with its masked reason."""

    id: int
    reason: str
    created_at: datetime


@dataclass(frozen=True)
class NoteRecord:
    """A support agent's note on a conversation."""

    id: int
    author: str
    text: str
    label: str | None
    created_at: datetime


@dataclass(frozen=True)
class ConversationSummary:
    """One line of the staff list: the aggregates and the opening question."""

    id: int
    session_id: str
    started_at: datetime
    last_message_at: datetime
    turns: int
    escalated: bool
    lowest_rating: int | None
    min_groundedness: float | None
    any_unanswered: bool
    first_question: str | None


@dataclass(frozen=True)
class ConversationDetail:
    """Everything stored about one conversation, turns in order."""

    summary: ConversationSummary
    messages: tuple[StoredTurn, ...]
    escalations: tuple[EscalationRecord, ...]
    notes: tuple[NoteRecord, ...]


# Why a question counts as a knowledge gap, in the order the pages show them.
GAP_REASONS = ("declined", "low_groundedness", "thumbs_down", "handoff")


@dataclass(frozen=True)
class GapQuestion:
    """A shopper's question that got no good answer: declined, answered with low groundedness,
    rated thumbs down, or the last one asked before a hand-off to a person (``reasons``, in
    ``GAP_REASONS`` order; ``declined``: the recorded decline reason, if any)."""

    message_id: int
    conversation_id: int
    question: str
    asked_at: datetime
    reasons: tuple[str, ...]
    declined: str | None
