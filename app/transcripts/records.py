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
class EvidenceRecord:
    """A line of the shop's own text shown to the shopper, verbatim, with its citation number."""

    number: int
    text: str
    score: float


@dataclass(frozen=True)
class DroppedRecord:
    """A sentence the model wrote that the shopper did not see, and the check that stopped it."""

    text: str
    reason: str


@dataclass(frozen=True)
class AnswerParts:
    """The separate parts of what the shopper read: the model's checked words (the only part
    later prompts see), the shop's quoted lines, and what the service added (a caution, a
    decline); the sentences the checks dropped; the answer policy in force."""

    model_text: str = ""
    evidence: tuple[EvidenceRecord, ...] = ()
    note: str = ""
    dropped: tuple[DroppedRecord, ...] = ()
    policy: str = "verified"
    composed: bool = False  # the shop's lines stand in for the model's text


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
    parts: AnswerParts = AnswerParts()


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
    parts: AnswerParts | None = None  # None for turns stored before answers had parts


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
