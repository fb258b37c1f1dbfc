"""What one chat turn produces: streamed deltas, then one outcome, the turn's working state,
which ends as the one record of the finished turn (``app.chat.turn.FinishedTurn``) that the
transcript, the API's `done` event, the staff pages and the metrics read.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from app.chat.citations import Citation
from app.chat.claims import Dropped
from app.chat.compose import decline
from app.chat.evidence import Evidence
from app.chat.turn import AnswerParts, DroppedRecord, EvidenceRecord, FinishedTurn, PassageRecord
from app.engine.base import GenerationStats
from app.errors import EngineTimeoutError, EngineUnavailableError
from app.retrieval.published_index import ScoredPassage

NOTHING_FOUND = decline("floor", shop="{shop}")
ENGINE_FAILED = (
    "Sorry, I couldn't finish this answer: our assistant is busy or restarting right now. "
    "Please try again in a minute, or ask to talk to a member of our team."
)
LOW_GROUNDEDNESS_NOTE = (
    "\n\n(I'm not fully certain of this answer: please check the sources below, "
    "or ask to talk to a member of our team.)"
)


@dataclass
class TurnOutcome:
    """One turn while it is answered, filled in stage by stage (the evaluation reads it too);
    ``finished`` makes the turn's record once it is over."""

    session_id: str
    question: str
    answer: str
    answered: bool  # False: nothing relevant was found and the shopper was offered a human
    passages: list[ScoredPassage]
    citations: list[Citation]
    groundedness: float
    index_version: str
    engine: str
    turn_index: int
    stats: GenerationStats = field(default_factory=GenerationStats)
    timings: dict[str, float] = field(default_factory=dict)
    prompt_tokens_budgeted: int = 0
    turns_dropped: int = 0
    # Why the injection defences declined the message or withheld the generated answer
    # (a screening reason, "system_prompt_leak", "unverified_contact", ...); None: answered.
    blocked: str | None = None
    failure: str | None = None  # engine_timeout / engine_unavailable: the answer was cut short
    # The parts of ``answer``: the model's checked words (all that later prompts see), the shop's
    # quoted lines, what the service added; and the sentences the claim checks dropped.
    model_text: str = ""
    evidence: tuple[Evidence, ...] = ()
    note: str = ""
    dropped: list[Dropped] = field(default_factory=list)
    answer_policy: str = "verified"
    composed: bool = False
    declined: str | None = None  # why the evidence did not hold the answer ("floor", "other_size")
    product: str | None = None  # document id of the product the turn was about, if one
    listed: tuple[str, ...] = ()  # a listing answer's products (document ids), in its order

    def engine_failed(self, exc: EngineUnavailableError, shown: str) -> str:
        """Turn what the shopper saw before the engine failed into an apology; returns the text
        still to show them."""
        timed_out = isinstance(exc, EngineTimeoutError)
        self.failure = "engine_timeout" if timed_out else "engine_unavailable"
        self.answered = False
        rest = f"\n\n{ENGINE_FAILED}" if shown.strip() else ENGINE_FAILED
        self.answer = (shown + rest).strip()
        self.note = ENGINE_FAILED
        return rest

    def finished(self, *, model: str, at: datetime | None = None) -> FinishedTurn:
        """The record of this turn once it is over (``at``: now by default)."""
        cited = {c.passage.passage.id for c in self.citations}
        checks = [self.timings[k] for k in ("evidence", "claims") if k in self.timings]
        return FinishedTurn(
            session_id=self.session_id,
            turn_index=self.turn_index,
            question=self.question,
            answer=self.answer,
            answered=self.answered,
            groundedness=self.groundedness,
            engine=self.engine,
            model=model,
            index_version=self.index_version,
            timings=dict(self.timings),
            prompt_tokens=self.stats.prompt_tokens,
            cached_tokens=self.stats.cached_tokens,
            generated_tokens=self.stats.generated_tokens,
            passages=tuple(
                PassageRecord(
                    passage_id=hit.passage.id,
                    title=hit.passage.title,
                    source=hit.passage.source,
                    citation=hit.passage.citation_target,
                    score=hit.score,
                    cited=hit.passage.id in cited,
                    section=hit.passage.section,
                    snippet=hit.passage.text[:240],
                )
                for hit in self.passages
            ),
            created_at=at or datetime.now(UTC),
            failure=self.failure,
            parts=AnswerParts(
                model_text=self.model_text,
                evidence=tuple(EvidenceRecord(e.number, e.text, e.score) for e in self.evidence),
                note=self.note,
                dropped=tuple(DroppedRecord(d.text, d.reason) for d in self.dropped),
                policy=self.answer_policy,
                composed=self.composed,
                declined=self.declined,
            ),
            blocked=self.blocked,
            check_ms=sum(checks) * 1000 if checks else None,
        )


@dataclass(frozen=True)
class Delta:
    text: str


@dataclass(frozen=True)
class Done:
    outcome: TurnOutcome


ChatEvent = Delta | Done
