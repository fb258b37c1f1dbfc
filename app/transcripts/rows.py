"""A finished turn as the transcript tables hold it, and back, by field name.

Every field of ``FinishedTurn`` is stored in the ``message`` column of the same name, except the
few listed here: those kept elsewhere (the conversation row, the passage rows, the parts
columns) and those not kept at all. A stored turn reads back with the latter at their defaults.
Adding a stored field to the record therefore takes a column of that name and a migration.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from app.chat.turn import FinishedTurn, PassageRecord
from app.transcripts.masking import mask_personal_data
from app.transcripts.models import Conversation, Message, RetrievedPassage
from app.transcripts.parts import parts_columns, stored_parts
from app.transcripts.records import FeedbackRecord, StoredTurn

# session_id: the conversation row; passages: retrieved_passage rows; parts: parts.py
KEPT_ELSEWHERE = frozenset({"session_id", "passages", "parts"})
NOT_KEPT = frozenset({"blocked"})  # counted by the metrics, not stored
MASKED = ("question", "answer")  # personal data masked before it is stored
PASSAGE_NOT_KEPT = frozenset({"section", "snippet"})  # the index version holds them

PLACES = 4

MESSAGE_COLUMNS = tuple(
    f.name for f in fields(FinishedTurn) if f.name not in KEPT_ELSEWHERE | NOT_KEPT
)
PASSAGE_COLUMNS = tuple(f.name for f in fields(PassageRecord) if f.name not in PASSAGE_NOT_KEPT)


def _kept(value: Any) -> Any:
    """A field's value as it is stored: numbers to ``PLACES`` places, a mapping's too."""
    if isinstance(value, float):
        return round(value, PLACES)
    if isinstance(value, dict):
        return {key: _kept(item) for key, item in value.items()}
    return value


def message_row(turn: FinishedTurn, conversation: Conversation) -> Message:
    """The message row of ``turn`` (masked), with its passage rows in prompt order."""
    columns = {name: _kept(getattr(turn, name)) for name in MESSAGE_COLUMNS}
    columns.update({name: mask_personal_data(columns[name]) for name in MASKED})
    message = Message(conversation=conversation, **columns, **parts_columns(turn.parts))
    message.passages = [
        RetrievedPassage(
            rank=rank, **{name: _kept(getattr(passage, name)) for name in PASSAGE_COLUMNS}
        )
        for rank, passage in enumerate(turn.passages)
    ]
    return message


def _turn_fields(message: Message, session_id: str) -> dict[str, Any]:
    return {
        **{name: getattr(message, name) for name in MESSAGE_COLUMNS},
        "timings": dict(message.timings),
        "session_id": session_id,
        "passages": tuple(
            PassageRecord(**{name: getattr(row, name) for name in PASSAGE_COLUMNS})
            for row in message.passages
        ),
        "parts": stored_parts(message),
    }


def finished_turn(message: Message, session_id: str) -> FinishedTurn:
    """A stored message as the turn it records (masked, as stored)."""
    return FinishedTurn(**_turn_fields(message, session_id))


def stored_turn(message: Message, session_id: str) -> StoredTurn:
    """A stored message as staff review it: the turn, its id and its rating."""
    feedback = message.feedback
    return StoredTurn(
        **_turn_fields(message, session_id),
        id=message.id,
        feedback=(
            FeedbackRecord(feedback.rating, feedback.comment, feedback.created_at)
            if feedback is not None
            else None
        ),
    )
