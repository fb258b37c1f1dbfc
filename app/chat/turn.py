"""A finished turn: the one record of a question and its answer that the chat service produces
and everything else reads (the transcript store, the API's and the shopper page's `done`, the
staff pages, the metrics). Plain data, no behaviour, no imports from the rest of the service,
so that backends can hold it without importing the chat use case.

Views derive from it by field name: the transcript store fills a message row from the fields
whose names are columns, and each presenter lists the fields it shows. To add a field, add it
here (with a default, so older stored turns still read back) and fill it in
``TurnOutcome.finished``; see ``app/transcripts/rows.py`` for where a stored field goes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class PassageRecord:
    """One passage the turn was given, in prompt order (so a cited passage's marker is its
    position plus one), with its score and whether the answer cited it."""

    passage_id: str
    title: str
    source: str
    citation: str
    score: float
    cited: bool
    # What the shopper is shown of it; not kept in the transcript (the index version has it).
    section: str = ""
    snippet: str = ""


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
    declined: str | None = None  # why the pages did not hold the answer ("floor", "partial")


@dataclass(frozen=True)
class FinishedTurn:
    """One question and its answer, as they happened, with what the answer rested on and what
    it cost, as measured (times in seconds unless named otherwise)."""

    session_id: str
    turn_index: int
    question: str
    answer: str
    answered: bool  # False: declined, cut short, or nothing relevant was found
    groundedness: float
    engine: str
    model: str
    index_version: str
    timings: dict[str, float]  # stage → seconds
    prompt_tokens: int
    cached_tokens: int
    generated_tokens: int
    passages: tuple[PassageRecord, ...]
    created_at: datetime  # timezone-aware UTC
    failure: str | None = None  # why the engine gave no full answer (None: it did)
    parts: AnswerParts | None = None  # None: not recorded (a turn stored before parts existed)
    blocked: str | None = None  # why the injection defences declined or withheld the answer
    check_ms: float | None = None  # what the answer checks cost (None: no check ran)
