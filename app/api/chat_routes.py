"""The JSON chat API: sessions, answers streamed as server-sent events, ratings, hand-off."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Path, Request
from fastapi.responses import StreamingResponse
from pydantic import AfterValidator, BaseModel, Field
from starlette.types import Receive, Scope, Send

from app.api.admission import TurnSlot
from app.api.guards import busy, guards_of, limit_requests, limit_turns
from app.api.problems import PROBLEM_RESPONSES
from app.chat.conversations import ConversationService, Recorded
from app.chat.messages import clean_message, readable_text
from app.chat.outcome import Delta, TurnOutcome
from app.chat.session_ids import is_valid_session_id, new_session_id
from app.errors import (
    EngineUnavailableError,
    InvalidMessageError,
    ServerBusyError,
    ShopdeskError,
    TranscriptsUnavailableError,
)

logger = logging.getLogger(__name__)

router = APIRouter(
    prefix="/api",
    tags=["chat"],
    dependencies=[Depends(limit_requests)],
    responses=PROBLEM_RESPONSES,
)

SessionPath = Annotated[str, Path(max_length=64, description="The id from POST /api/sessions")]
ReadableText = Annotated[str, AfterValidator(readable_text)]


class SessionCreated(BaseModel):
    session_id: str


class MessageIn(BaseModel):
    message: str = Field(max_length=100_000, description="The shopper's message")


class FeedbackIn(BaseModel):
    message_id: int = Field(ge=1, le=2**31 - 1)  # an INTEGER column in PostgreSQL
    rating: Literal[1, -1]
    comment: ReadableText | None = Field(None, max_length=2000)


class EscalationIn(BaseModel):
    reason: ReadableText = Field("", max_length=2000)


class TurnOut(BaseModel):
    question: str
    answer: str


class Handoff(BaseModel):
    message: str


def conversations(request: Request) -> ConversationService:
    service: ConversationService = request.app.state.container.conversations
    return service


def session_id(request: Request, session: SessionPath) -> str:
    if not is_valid_session_id(session, request.app.state.container.settings.secret_key):
        raise HTTPException(404, detail="unknown session: start one with POST /api/sessions")
    return session


Conversations = Annotated[ConversationService, Depends(conversations)]
Session = Annotated[str, Depends(session_id)]


@router.post("/sessions", response_model=SessionCreated, status_code=201)
async def start_session(request: Request) -> SessionCreated:
    return SessionCreated(
        session_id=new_session_id(request.app.state.container.settings.secret_key)
    )


@router.get("/sessions/{session}/messages", response_model=list[TurnOut])
async def history(service: Conversations, session: Session) -> list[TurnOut]:
    return [
        TurnOut(question=t.question, answer=t.shown or t.answer)
        for t in await service.history(session)
    ]


# Before OpenAPI 3.2, the `schema` of an event stream describes one event.
_EVENT_STREAM: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "`delta` events with text, then `done` (or `error`)",
        "content": {
            "text/event-stream": {
                "schema": {
                    "type": "object",
                    "required": ["event", "data"],
                    "properties": {
                        "event": {"type": "string", "enum": ["delta", "done", "error"]},
                        "data": {
                            "type": "string",
                            "contentMediaType": "application/json",
                            "description": "`{text}` for delta, the turn for done, "
                            "`{detail}` for error",
                        },
                    },
                }
            }
        },
    }
}


@router.post(
    "/sessions/{session}/messages", response_class=StreamingResponse, responses=_EVENT_STREAM
)
async def ask(
    request: Request, body: MessageIn, service: Conversations, session: Session
) -> StreamingResponse:
    """Answer as `text/event-stream`: `delta` events with text, then `done` (or `error`).

    A turn is refused before anything streams: 422 for a message that cannot be answered,
    429 when this client sends too fast, 503 when every answering slot and queue place is taken.
    """
    settings = request.app.state.container.settings
    try:
        clean_message(body.message, max_chars=settings.max_message_chars)
    except InvalidMessageError as exc:
        raise HTTPException(422, detail=str(exc)) from exc
    limit_turns(request)
    try:
        slot = await guards_of(request).admission.enter()
    except ServerBusyError as exc:
        raise busy(exc) from exc
    return _SlotStream(
        slot,
        _events(service, session, body.message),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


class _SlotStream(StreamingResponse):
    """A stream that gives its answering slot back however it ends (done, error, hang-up)."""

    def __init__(self, slot: TurnSlot, content: AsyncIterator[str], **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self._slot = slot

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._slot.release()


@router.post("/sessions/{session}/feedback", status_code=201)
async def rate(body: FeedbackIn, service: Conversations, session: Session) -> dict[str, int]:
    try:
        feedback_id = await service.rate(session, body.message_id, body.rating, body.comment)
    except LookupError as exc:
        raise HTTPException(404, detail="no such answer in this conversation") from exc
    except TranscriptsUnavailableError as exc:
        raise HTTPException(503, detail=str(exc)) from exc
    return {"feedback_id": feedback_id}


@router.post("/sessions/{session}/escalate", response_model=Handoff)
async def escalate(body: EscalationIn, service: Conversations, session: Session) -> Handoff:
    return Handoff(message=await service.hand_to_human(session, body.reason))


async def _events(service: ConversationService, session: str, message: str) -> AsyncIterator[str]:
    try:
        async for event in service.ask(session, message):
            if isinstance(event, Delta):
                yield _sse("delta", {"text": event.text})
            elif isinstance(event, Recorded):
                yield _sse("done", done_payload(event.outcome, event.message_id))
    except EngineUnavailableError:
        logger.exception("engine unavailable during a turn")
        yield _sse("error", {"detail": "Our assistant is unavailable right now; please try again "
                             "in a minute, or ask to talk to a person."})  # fmt: skip
    except ShopdeskError as exc:
        yield _sse("error", {"detail": str(exc)})


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


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
