"""A seeded set of transcripts for the knowledge-gaps tests: questions about four things the
shop's pages do not cover (gift wrapping, paying in crypto, shipping to Australia, tent
repairs), each declined, answered with low groundedness, rated down or followed by a hand-off;
and turns that are no gap (answered well, rated up, cut short by the engine)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session

from app.chat.turn import AnswerParts, FinishedTurn
from app.transcripts.writes import record_escalation, record_feedback, record_turn

DAY = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
FLOOR = 0.5  # the default SHOPDESK_MIN_GROUNDEDNESS

# topic → the questions asked about it, each with why it is a gap
GAPS: dict[str, dict[str, tuple[str, ...]]] = {
    "gift": {
        "Do you offer gift wrapping?": ("declined",),
        "Can you gift wrap my order?": ("low_groundedness",),
        "Is gift wrap available for presents?": ("declined",),
    },
    "crypto": {
        "Can I pay with Bitcoin?": ("thumbs_down",),
        "Do you accept cryptocurrency?": ("declined",),
        "Is paying in crypto possible?": ("low_groundedness",),
    },
    "australia": {
        "How long does delivery to Australia take?": ("handoff",),
        "Can you deliver to Sydney, Australia?": ("declined", "thumbs_down"),
    },
    "repair": {
        "Do you fix broken tent poles?": ("thumbs_down",),
        "My tent pole snapped, can you repair it?": ("declined",),
    },
}
NOT_GAPS = (
    "How much is the Ridgeline 65+10?",
    "What is the return window?",
    "Is the Stormhollow 2 waterproof?",
    "Do you ship to Australia?",
)
TOPIC = {question: topic for topic, asked in GAPS.items() for question in asked}


def _turn(
    session_id: str,
    index: int,
    question: str,
    at: datetime,
    *,
    declined: str | None = None,
    groundedness: float = 0.9,
    failure: str | None = None,
) -> FinishedTurn:
    return FinishedTurn(
        session_id=session_id,
        turn_index=index,
        question=question,
        answer="Sorry, our pages don't say." if declined else "An answer [1].",
        answered=declined is None and failure is None,
        groundedness=0.0 if declined else groundedness,
        engine="vllm",
        model="m",
        index_version="v1",
        timings={"total": 1.0},
        prompt_tokens=10,
        cached_tokens=0,
        generated_tokens=5,
        passages=(),
        created_at=at,
        failure=failure,
        parts=AnswerParts(declined=declined),
    )


def _rate(session: Session, session_id: str, message_id: int, rating: int) -> None:
    record_feedback(
        session=session, session_id=session_id, message_id=message_id, rating=rating, comment=None
    )


def seed(session: Session) -> dict[str, int]:
    """Record the set (gap questions on 1-3 December, good turns between); returns each
    question's message id."""
    ids: dict[str, int] = {}

    def ask(
        session_id: str,
        index: int,
        question: str,
        day: int,
        *,
        declined: str | None = None,
        groundedness: float = 0.9,
        failure: str | None = None,
    ) -> int:
        at = DAY + timedelta(days=day, minutes=len(ids))
        turn = _turn(
            session_id,
            index,
            question,
            at,
            declined=declined,
            groundedness=groundedness,
            failure=failure,
        )
        ids[question] = record_turn(session=session, turn=turn)
        return ids[question]

    ask("s-gift-1", 0, "Do you offer gift wrapping?", 0, declined="floor")
    ask("s-gift-1", 1, "How much is the Ridgeline 65+10?", 0)
    ask("s-gift-2", 0, "Can you gift wrap my order?", 0, groundedness=0.2)
    _rate(session, "s-crypto-1", ask("s-crypto-1", 0, "Can I pay with Bitcoin?", 0), -1)
    ask("s-crypto-2", 0, "Do you accept cryptocurrency?", 0, declined="no_match")
    ask("s-aus-1", 0, "Do you ship to Australia?", 1)
    ask("s-aus-1", 1, "How long does delivery to Australia take?", 1, groundedness=0.8)
    record_escalation(
        session=session,
        session_id="s-aus-1",
        reason="customer asked",
        at=DAY + timedelta(days=1, hours=2),
    )
    sydney = ask("s-aus-2", 0, "Can you deliver to Sydney, Australia?", 1, declined="no_match")
    _rate(session, "s-aus-2", sydney, -1)
    ask("s-gift-3", 0, "Is gift wrap available for presents?", 1, declined="partial")
    ask("s-crypto-3", 0, "Is paying in crypto possible?", 1, groundedness=0.1)
    _rate(session, "s-good", ask("s-good", 0, "What is the return window?", 1), 1)
    ask("s-failed", 0, "Is the Stormhollow 2 waterproof?", 1, failure="engine_timeout")
    _rate(session, "s-repair", ask("s-repair", 0, "Do you fix broken tent poles?", 2), -1)
    ask("s-repair", 1, "My tent pole snapped, can you repair it?", 2, declined="unknown_name")
    # a hand-off before anything was asked points at no question
    record_escalation(session=session, session_id="s-early", reason="a person please", at=DAY)
    return ids
