"""A finished turn as the shopper's clients see it: the `done` payload that the JSON API streams
and that the shopper page lists an answer's sources from."""

from __future__ import annotations

from typing import Any

from app.chat.outcome import TurnOutcome


def done_payload(outcome: TurnOutcome, message_id: int | None) -> dict[str, Any]:
    """The `done` event: ``message_id`` is null and ``recorded`` false while the transcript
    database is down (the turn waits in the outbox; it cannot be rated until stored);
    ``failure`` says why the engine gave no full answer (the answer then says so too)."""
    cited = {c.passage.passage.id: c.number for c in outcome.citations}
    return {
        "message_id": message_id,
        "recorded": message_id is not None,
        "failure": outcome.failure,
        "answer": outcome.answer,
        "answered": outcome.answered,
        "groundedness": round(outcome.groundedness, 3),
        "sources": [
            {
                "number": cited.get(h.passage.id),
                "title": h.passage.title,
                "section": h.passage.section,
                "citation": h.passage.citation_target,
                "snippet": h.passage.text[:240],
                "score": round(h.score, 3),
            }
            for h in outcome.passages
        ],
        "timings": {k: round(v, 3) for k, v in outcome.timings.items()},
        "tokens": {
            "prompt": outcome.stats.prompt_tokens,
            "cached": outcome.stats.cached_tokens,
            "generated": outcome.stats.generated_tokens,
        },
        "index_version": outcome.index_version,
        "parts": {
            "policy": outcome.answer_policy,
            "model_text": outcome.model_text,
            "evidence": [{"number": e.number, "text": e.text} for e in outcome.evidence],
            "note": outcome.note,
            "composed": outcome.composed,
            "declined": outcome.declined,
            "dropped": len(outcome.dropped),
        },
    }
