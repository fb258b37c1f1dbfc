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
