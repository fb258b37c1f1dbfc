"""A finished turn as the shopper's clients see it: the `done` payload that the JSON API streams
and that the shopper page lists an answer's sources from.

The presenter decides what a shopper is shown of ``FinishedTurn``: the fields named below and
nothing else (not the model or engine, the check cost, why a message was blocked, the dropped
sentences' text); a new field of the record stays with staff until it is named here.
"""

from __future__ import annotations

from typing import Any

from app.chat.turn import AnswerParts, FinishedTurn, PassageRecord


def done_payload(turn: FinishedTurn, message_id: int | None) -> dict[str, Any]:
    """The `done` event: ``turn_index`` names the answer for a rating at any time;
    ``message_id`` is null and ``recorded`` false while the transcript database is down (the
    turn waits in the outbox; a rating by ``turn_index`` waits there after it);
    ``failure`` says why the engine gave no full answer (the answer then says so too)."""
    return {
        "turn_index": turn.turn_index,
        "message_id": message_id,
        "recorded": message_id is not None,
        "failure": turn.failure,
        "answer": turn.answer,
        "answered": turn.answered,
        "groundedness": round(turn.groundedness, 3),
        "sources": [_source(rank, p) for rank, p in enumerate(turn.passages)],
        "timings": {k: round(v, 3) for k, v in turn.timings.items()},
        "tokens": {
            "prompt": turn.prompt_tokens,
            "cached": turn.cached_tokens,
            "generated": turn.generated_tokens,
        },
        "index_version": turn.index_version,
        "parts": _parts(turn.parts or AnswerParts()),
    }


def _source(rank: int, passage: PassageRecord) -> dict[str, Any]:
    return {
        "number": rank + 1 if passage.cited else None,  # the answer's [n] marker
        "title": passage.title,
        "section": passage.section,
        "citation": passage.citation,
        "snippet": passage.snippet,
        "score": round(passage.score, 3),
    }


def _parts(parts: AnswerParts) -> dict[str, Any]:
    return {
        "policy": parts.policy,
        "model_text": parts.model_text,
        "evidence": [{"number": e.number, "text": e.text} for e in parts.evidence],
        "note": parts.note,
        "composed": parts.composed,
        "declined": parts.declined,
        "dropped": len(parts.dropped),
    }
