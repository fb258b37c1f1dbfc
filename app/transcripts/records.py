"""Plain data in and out of the transcripts package (no SQLAlchemy): the turns the chat
service records, and the conversations staff read back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class PassageRecord:
    """One retrieved passage of a turn, with its score and whether the answer cited it."""

    passage_id: str
    title: str
    source: str
    citation: str
    score: float
    cited: bool


@dataclass(frozen=True)
class TurnRecord:
    """One question and its answer, as they happened, with what the answer rested on."""

    session_id: str
    turn_index: int
    question: str
    answer: str
    answered: bool
    groundedness: float
    engine: str
    model: str
    index_version: str
    timings: dict[str, float]
    prompt_tokens: int
    cached_tokens: int
    generated_tokens: int
    passages: tuple[PassageRecord, ...]
    created_at: datetime  # timezone-aware UTC
    failure: str | None = None  # why the engine gave no full answer (None: it did)


@dataclass(frozen=True)
class FeedbackRecord:
    """The shopper's rating of one answer, as stored (the comment masked)."""

    rating: int
    comment: str | None
    created_at: datetime


@dataclass(frozen=True)
class MessageRecord:
    """One stored turn, as staff review it: masked text, passages in rank order, feedback."""

    id: int
    turn_index: int
    question: str
    answer: str
    answered: bool
    groundedness: float
    engine: str
    model: str
    index_version: str
    timings: dict[str, float]
    prompt_tokens: int
    cached_tokens: int
    generated_tokens: int
    created_at: datetime
    passages: tuple[PassageRecord, ...]
    feedback: FeedbackRecord | None
    failure: str | None = None


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
    messages: tuple[MessageRecord, ...]
    escalations: tuple[EscalationRecord, ...]
    notes: tuple[NoteRecord, ...]
