"""The JSON chat API: sessions, answers streamed as server-sent events, ratings, hand-off."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from dataclasses import asdict
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, HTTPException, Path, Response
from fastapi.responses import StreamingResponse
from pydantic import AfterValidator, BaseModel, Field, field_validator, model_validator
from starlette.types import Receive, Scope, Send

from app.api.problems import PROBLEM_RESPONSES
from app.chat.conversations import ConversationService, Recorded
from app.chat.messages import clean_message, readable_text
from app.chat.outcome import Delta
from app.chat.session_ids import is_valid_session_id, new_session_id
from app.dependencies import (
    ClientAddressDep,
    ConversationsDep,
    GuardsDep,
    SettingsDep,
    limit_requests,
)
from app.errors import EngineUnavailableError, ShopdeskError
from app.presentation.turns import done_payload
from app.traffic.admission import TurnSlot

logger = logging.getLogger(__name__)

router = APIRouter(
    prefix="/api",
    tags=["chat"],
    dependencies=[Depends(limit_requests)],
    responses=PROBLEM_RESPONSES,
)

SessionPath = Annotated[str, Path(max_length=64, description="The id from POST /api/sessions")]
ReadableText = Annotated[str, AfterValidator(readable_text)]


class SessionIn(BaseModel):
    product: str | None = Field(
        None,
        max_length=2000,
        description="The product of the page the conversation starts on: its SKU or page URL. "
        "Messages that give no product of their own are asked from it.",
    )


class SessionCreated(BaseModel):
    session_id: str


class MessageIn(BaseModel):
    message: str = Field(max_length=100_000, description="The shopper's message")
    product: str | None = Field(
        None,
        max_length=2000,
        description="The product of the page the shopper asks from: its SKU or page URL. "
        "Retrieval prefers its passages and 'it' means it; an unknown one is ignored.",
    )


class FeedbackIn(BaseModel):
    """The rated answer is named by exactly one of ``turn_index`` (from its `done` event: known
    at once, even while the transcript database is down) and ``message_id``."""

    # strict: JSON's true and false are no numbers ("turn_index": false is not answer 0)
    turn_index: int | None = Field(
        None,
        ge=0,
        le=2**31 - 1,
        strict=True,
        description="The answer's `turn_index` from its `done` event",
    )
    message_id: int | None = Field(  # an INTEGER column in PostgreSQL
        None,
        ge=1,
        le=2**31 - 1,
        strict=True,
        description="The answer's `message_id` from its `done` event",
    )
    rating: Literal[1, -1]
    comment: ReadableText | None = Field(None, max_length=2000)

    @field_validator("rating", mode="before")
    @classmethod
    def _no_boolean(cls, value: object) -> object:
        if isinstance(value, bool):  # true == 1 to Python, not to a client
            raise ValueError("rating is 1 or -1, not true or false")
        return value

    @model_validator(mode="after")
    def _one_answer(self) -> FeedbackIn:
        if (self.turn_index is None) == (self.message_id is None):
            raise ValueError(
                "name the rated answer by exactly one of turn_index and message_id "
                "(both are in the answer's done event)"
            )
        return self


class FeedbackOut(BaseModel):
    recorded: bool = Field(description="False: the rating waits to be saved after the answer")
    feedback_id: int | None = Field(description="The stored rating's id; null until it is saved")
    detail: str


class EscalationIn(BaseModel):
    reason: ReadableText = Field("", max_length=2000)


class SourceOut(BaseModel):
    number: int  # the answer's [n] marker
    title: str
    section: str
    citation: str


class TurnOut(BaseModel):
    """A turn as the shopper read it: what a page restoring the conversation shows again."""

    turn_index: int  # rates the answer (POST .../feedback)
    question: str
    answer: str
    answered: bool
    sources: list[SourceOut]


class Handoff(BaseModel):
    message: str


async def session_id(settings: SettingsDep, session: SessionPath) -> str:
    """The session path parameter, when it is an id this service signed."""
    if not is_valid_session_id(session, settings.secret_key):
        raise HTTPException(404, detail="unknown session: start one with POST /api/sessions")
    return session


Session = Annotated[str, Depends(session_id)]


@router.post("/sessions", response_model=SessionCreated, status_code=201)
async def start_session(
    settings: SettingsDep, service: ConversationsDep, body: SessionIn | None = None
) -> SessionCreated:
    """A new conversation; a body with ``product`` starts it on that product's page."""
    session = new_session_id(settings.secret_key)
    if body is not None and body.product and body.product.strip():
        await service.open_on(session, body.product)
    return SessionCreated(session_id=session)


@router.get("/sessions/{session}/messages", response_model=list[TurnOut])
async def history(service: ConversationsDep, session: Session) -> list[TurnOut]:
    return [
        TurnOut(
            turn_index=index,
            question=t.question,
            answer=t.shown or t.answer,
            answered=t.answered,
            sources=[SourceOut(**asdict(source)) for source in t.sources],
        )
        for index, t in enumerate(await service.history(session))
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
    body: MessageIn,
    service: ConversationsDep,
    session: Session,
    settings: SettingsDep,
    guards: GuardsDep,
    client: ClientAddressDep,
) -> StreamingResponse:
    """Answer as `text/event-stream`: `delta` events with text, then `done` (or `error`).

    A turn is refused before anything streams: 422 for a message that cannot be answered,
    429 when this client sends too fast, 503 when every answering slot and queue place is taken.
    """
    clean_message(body.message, max_chars=settings.max_message_chars)
    guards.within_turn_rate(client)
    slot = await guards.admission.enter()
    return _SlotStream(
        slot,
        _events(service, session, body.message, body.product),
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


@router.post(
    "/sessions/{session}/feedback",
    status_code=201,
    response_model=FeedbackOut,
    responses={202: {"model": FeedbackOut, "description": "Accepted; saved once it can be"}},
)
async def rate(
    body: FeedbackIn, service: ConversationsDep, session: Session, response: Response
) -> FeedbackOut:
    """Rate one of this session's answers: 201 once stored; 202 while it waits to be stored
    (the transcript database is down, or the answer itself is not stored yet); 404 for an
    answer that is not the session's."""
    feedback_id = await service.rate(
        session,
        rating=body.rating,
        comment=body.comment,
        message_id=body.message_id,
        turn_index=body.turn_index,
    )
    if feedback_id is None:
        response.status_code = 202
        return FeedbackOut(
            recorded=False,
            feedback_id=None,
            detail="Thanks: your rating is kept and will be saved with the answer shortly.",
        )
    return FeedbackOut(recorded=True, feedback_id=feedback_id, detail="Thanks: rating saved.")


@router.post("/sessions/{session}/escalate", response_model=Handoff)
async def escalate(body: EscalationIn, service: ConversationsDep, session: Session) -> Handoff:
    return Handoff(message=await service.hand_to_human(session, body.reason))


async def _events(
    service: ConversationService, session: str, message: str, product: str | None
) -> AsyncIterator[str]:
    try:
        async for event in service.ask(session, message, product=product):
            if isinstance(event, Delta):
                yield _sse("delta", {"text": event.text})
            elif isinstance(event, Recorded):
                yield _sse("done", done_payload(event.turn, event.message_id))
    except EngineUnavailableError:
        logger.exception("engine unavailable during a turn")
        yield _sse("error", {"detail": "Our assistant is unavailable right now; please try again "
                             "in a minute, or ask to talk to a person."})  # fmt: skip
    except ShopdeskError as exc:
        yield _sse("error", {"detail": str(exc)})


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"
