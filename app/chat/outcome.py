"""What one chat turn produces: streamed deltas, then one outcome that everything else reads.

The outcome is what the transcript row, the API's `done` event and the metrics are made from.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.chat.citations import Citation
from app.chat.claims import Dropped
from app.chat.compose import decline
from app.chat.evidence import Evidence
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
    """Everything a transcript needs about one answered turn."""

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


@dataclass(frozen=True)
class Delta:
    text: str


@dataclass(frozen=True)
class Done:
    outcome: TurnOutcome


ChatEvent = Delta | Done
