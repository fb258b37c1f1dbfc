"""The HTTP edge on a small app of its own: the body cap, the shape of validation errors, and the
status each domain error is answered with."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, Field, ValidationError

from app.api.chat_routes import FeedbackIn
from app.api.problems import add_problem_handlers, validation_problem
from app.errors import (
    IndexNotPublishedError,
    InvalidMessageError,
    RateLimitedError,
    ServerBusyError,
    ShopdeskError,
    TranscriptsUnavailableError,
)
from app.traffic.body_limit import BodyLimit

LIMIT = 2048


class Note(BaseModel):
    text: str = Field(max_length=10)


def _app(refused: list[str]) -> FastAPI:
    app = FastAPI()
    app.add_middleware(BodyLimit, max_bytes=LIMIT, on_refused=lambda: refused.append("413"))
    app.add_exception_handler(RequestValidationError, validation_problem)

    @app.post("/notes")
    async def add(note: Note) -> dict[str, str]:
        return {"text": note.text}

    return app


def _post(app: FastAPI, **kwargs: object) -> httpx.Response:
    async def call() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
            return await client.post("/notes", **kwargs)  # type: ignore[arg-type]

    return asyncio.run(call())


def test_a_declared_oversize_body_is_refused_unread() -> None:
    refused: list[str] = []
    response = _post(_app(refused), content=b"x" * (LIMIT + 1))
    assert response.status_code == 413
    assert "at most 2,048 bytes" in response.json()["detail"]
    assert refused == ["413"]


def test_an_oversize_body_without_a_length_is_cut_off_as_it_streams() -> None:
    sent: list[int] = []

    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(100):
            sent.append(1)
            yield b"[" * 512

    refused: list[str] = []
    response = _post(_app(refused), content=chunks())
    assert response.status_code == 413 and refused == ["413"]


def test_a_body_under_the_cap_goes_through() -> None:
    response = _post(_app([]), json={"text": "hello"})
    assert response.status_code == 200 and response.json() == {"text": "hello"}


def test_validation_errors_name_the_field_without_echoing_the_input() -> None:
    response = _post(_app([]), json={"text": "a secret e-mail jo@example.com"})
    assert response.status_code == 422
    (problem,) = response.json()["detail"]
    assert problem["loc"] == ["body", "text"] and "10 characters" in problem["msg"]
    assert "jo@example.com" not in response.text and "input" not in problem


def test_text_that_cannot_be_encoded_still_gets_a_422() -> None:
    body = b'{"\\ud800": "x", "text": 5}'  # a lone surrogate as a key, and a wrong type
    response = _post(_app([]), content=body, headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert response.content.isascii()
    assert json.loads(response.content)["detail"][0]["loc"] == ["body", "text"]


def test_malformed_json_says_why() -> None:
    response = _post(_app([]), content=b'{"text": ', headers={"content-type": "application/json"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["msg"].startswith("The body is not valid JSON: ")


def test_bad_utf8_and_deep_nesting_are_client_errors() -> None:
    for body in (b'{"text": "\xff\xfe"}', b"[" * 1020 + b"]" * 1020):
        response = _post(_app([]), content=body, headers={"content-type": "application/json"})
        assert response.status_code in (400, 422), body[:20]
        assert response.json()["detail"]


def test_domain_errors_become_problems_with_their_status_and_wait() -> None:
    raised: list[ShopdeskError] = [
        InvalidMessageError("Please type a question as text."),
        RateLimitedError("Too many requests from your address.", retry_after_s=0.2),
        ServerBusyError("Please try again in a few seconds.", retry_after_s=5),
        IndexNotPublishedError("no index yet: run python -m ingest"),
        TranscriptsUnavailableError("the transcript database is unreachable"),
    ]
    app = FastAPI()
    add_problem_handlers(app)

    @app.post("/notes")
    async def add(number: int) -> None:
        raise raised[number]

    answers = [_post(app, params={"number": n}) for n in range(len(raised))]
    assert [a.status_code for a in answers] == [422, 429, 503, 503, 503]
    assert [a.json()["detail"] for a in answers] == [str(e) for e in raised]
    assert [a.headers.get("retry-after") for a in answers] == [None, "1", "5", None, None]


def test_a_rating_names_its_answer_by_exactly_one_of_turn_index_and_message_id() -> None:
    app = FastAPI()
    app.add_exception_handler(RequestValidationError, validation_problem)

    @app.post("/notes")
    async def rate(body: FeedbackIn) -> dict[str, int | None]:
        return {"turn_index": body.turn_index, "message_id": body.message_id}

    by_turn = _post(app, json={"turn_index": 0, "rating": 1})
    assert by_turn.status_code == 200 and by_turn.json() == {"turn_index": 0, "message_id": None}
    by_message = _post(app, json={"message_id": 7, "rating": -1})
    assert by_message.status_code == 200 and by_message.json()["message_id"] == 7
    for body in ({"rating": 1}, {"turn_index": 0, "message_id": 7, "rating": 1}):
        response = _post(app, json=body)
        assert response.status_code == 422, body
        (problem,) = response.json()["detail"]
        assert problem["loc"] == ["body"]
        assert "exactly one of turn_index and message_id" in problem["msg"]
    negative = _post(app, json={"turn_index": -1, "rating": 1})
    assert negative.status_code == 422
    assert negative.json()["detail"][0]["loc"] == ["body", "turn_index"]


def test_a_rating_names_its_answer_by_a_number_never_by_true_or_false() -> None:
    """JSON's false is no answer 0 and true no thumbs-up (schemathesis found "turn_index":
    false accepted and saved as a rating of answer 0)."""
    for body in ('{"turn_index": false, "rating": 1}', '{"message_id": true, "rating": 1}',
                 '{"turn_index": 0, "rating": true}'):  # fmt: skip
        with pytest.raises(ValidationError):
            FeedbackIn.model_validate_json(body)
    assert FeedbackIn.model_validate_json('{"turn_index": 0, "rating": -1}').turn_index == 0
