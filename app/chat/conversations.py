"""The shopper-facing use case: chat turns that are recorded, rated and handed to a human."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from typing import Protocol

from app.chat.outcome import ChatEvent, Done
from app.chat.person import asks_for_person
from app.chat.service import ChatService
from app.chat.turn import FinishedTurn
from app.errors import ShopdeskError
from app.observability.metrics import ChatMetrics
from app.sessions.base import Turn

logger = logging.getLogger(__name__)

ASKED_IN_CHAT = "asked in chat"  # the reason recorded for a hand-off the shopper typed


class TranscriptWriter(Protocol):
    """Where turns are recorded; ``None`` for a write that waits in the outbox (the database
    is down) and will be stored later."""

    async def record_turn(self, turn: FinishedTurn) -> int | None: ...

    async def record_feedback(
        self,
        *,
        session_id: str,
        rating: int,
        comment: str | None,
        message_id: int | None = None,
        turn_index: int | None = None,
    ) -> int | None: ...

    async def record_escalation(self, *, session_id: str, reason: str) -> int | None: ...


@dataclass(frozen=True)
class Recorded:
    """The last event of a turn: the finished turn (its timings with ``record``, the time it
    took to store it) and the transcript row it was stored as (None while the row waits in the
    outbox to be stored)."""

    turn: FinishedTurn
    message_id: int | None


ConversationEvent = ChatEvent | Recorded


class ConversationService:
    def __init__(
        self,
        *,
        chat: ChatService,
        transcripts: TranscriptWriter,
        metrics: ChatMetrics,
        model: str,
        handoff: str,
    ) -> None:
        self._chat = chat
        self._transcripts = transcripts
        self._metrics = metrics
        self._model = model
        self._handoff = handoff

    async def ask(
        self, session_id: str, message: str, *, product: str | None = None
    ) -> AsyncIterator[ConversationEvent]:
        """Stream the answer; once it is complete, store the transcript row and say its id.
        ``product``: the product of the page the shopper asks from (SKU or URL), if any."""
        self._metrics.in_flight.inc()
        try:
            if asks_for_person(message):  # "I want to speak to a human": as the page's button
                question = self._chat.clean(message)
                told = await self.hand_to_human(session_id, ASKED_IN_CHAT)
                events = self._chat.say(session_id, question, told)
            else:
                events = self._chat.turn(session_id, message, product=product)
            async for event in events:
                if isinstance(event, Done):
                    turn = event.outcome.finished(model=self._model)
                    started = time.perf_counter()
                    message_id = await self._transcripts.record_turn(turn)
                    stored = time.perf_counter() - started
                    turn = replace(turn, timings={**turn.timings, "record": stored})
                    self._metrics.observe_turn(turn)
                    yield Recorded(turn, message_id)
                else:
                    yield event
        except ShopdeskError as exc:
            self._metrics.errors.labels(kind=type(exc).__name__).inc()
            raise
        finally:
            self._metrics.in_flight.dec()

    async def history(self, session_id: str) -> list[Turn]:
        return await self._chat.history(session_id)

    async def open_on(self, session_id: str, product: str) -> None:
        """Start the conversation on a product's page (its SKU or URL)."""
        await self._chat.open_on(session_id, product)

    async def rate(
        self,
        session_id: str,
        *,
        rating: int,
        comment: str | None,
        message_id: int | None = None,
        turn_index: int | None = None,
    ) -> int | None:
        """Rate one of the session's answers, named by its turn index (known before the answer
        is stored) or its message id; the stored rating's id, or None while it waits in the
        outbox to be stored after the answer."""
        feedback_id = await self._transcripts.record_feedback(
            session_id=session_id,
            rating=rating,
            comment=comment,
            message_id=message_id,
            turn_index=turn_index,
        )
        self._metrics.feedback.labels(rating="up" if rating > 0 else "down").inc()
        return feedback_id

    async def hand_to_human(self, session_id: str, reason: str) -> str:
        """Record the escalation; return what the shopper is told happens next."""
        await self._transcripts.record_escalation(session_id=session_id, reason=reason)
        self._metrics.escalations.inc()
        return self._handoff
