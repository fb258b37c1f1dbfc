"""An answer's parts as the message table and the outbox hold them: plain JSON, masked.

The message table keeps the model's own words, the answer policy and why the pages did not
hold the answer (the decline reason, NULL when they did) in columns of their own and the rest
(quoted lines, the service's note, the dropped sentences, whether the answer was composed) in
one JSON column. All are NULL for a turn without parts (one stored before answers had parts);
the decline reason is NULL too for turns stored before it was kept (migration 0005).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from app.chat.turn import AnswerParts, DroppedRecord, EvidenceRecord
from app.transcripts.masking import mask_personal_data
from app.transcripts.models import Message


def parts_json(parts: AnswerParts) -> dict[str, Any]:
    """The ``answer_parts`` column: every part but the model's words and the policy."""
    return {
        "evidence": [
            {"number": e.number, "text": e.text, "score": e.score} for e in parts.evidence
        ],
        "note": parts.note,
        "dropped": [{"text": d.text, "reason": d.reason} for d in parts.dropped],
        "composed": parts.composed,
    }


def parts_from_json(data: Mapping[str, Any], *, model_text: str, policy: str) -> AnswerParts:
    """The parts back from :func:`parts_json`'s shape and the two values kept beside it."""
    return AnswerParts(
        model_text=model_text,
        evidence=tuple(
            EvidenceRecord(int(e["number"]), str(e["text"]), float(e["score"]))
            for e in data.get("evidence", ())
        ),
        note=str(data.get("note", "")),
        dropped=tuple(
            DroppedRecord(str(d["text"]), str(d["reason"])) for d in data.get("dropped", ())
        ),
        policy=policy,
        composed=bool(data.get("composed", False)),
        declined=data.get("declined"),
    )


def masked_parts(parts: AnswerParts) -> AnswerParts:
    """``parts`` with personal data masked in every text, as the answer itself is masked."""
    return replace(
        parts,
        model_text=mask_personal_data(parts.model_text),
        evidence=tuple(replace(e, text=mask_personal_data(e.text)) for e in parts.evidence),
        note=mask_personal_data(parts.note),
        dropped=tuple(replace(d, text=mask_personal_data(d.text)) for d in parts.dropped),
    )


def parts_columns(parts: AnswerParts | None) -> dict[str, Any]:
    """The message columns that store ``parts``, masked; none (all NULL) when unrecorded."""
    if parts is None:
        return {}
    known = masked_parts(parts)
    return {
        "model_text": known.model_text,
        "answer_policy": known.policy,
        "answer_parts": parts_json(known),
        "declined": known.declined,
    }


def stored_parts(message: Message) -> AnswerParts | None:
    """A stored message's parts, or None for a row without them."""
    if message.answer_parts is None:
        return None
    return parts_from_json(
        {**message.answer_parts, "declined": message.declined},
        model_text=message.model_text or "",
        policy=message.answer_policy or AnswerParts.policy,
    )
