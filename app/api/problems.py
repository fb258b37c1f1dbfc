"""One shape for every refusal of the JSON API, documented in the OpenAPI schema, and the
exception handlers that give it: the one place where errors become HTTP statuses.

A refusal's body is ``{"detail": ...}``: a sentence, or one entry per field that is wrong. Field
errors never echo the input back: it may be a megabyte, personal data, or text (lone surrogates)
that cannot even be encoded as UTF-8. A domain error (``app.errors``) that reaches a route is
answered by its class: 404 for a conversation or answer that is not there, 422 for a message that
cannot be answered, 429 for a client over its rate, 503 for anything the service cannot do right
now (busy, no index, a backend down), with ``Retry-After`` when the error says how long to wait.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel

from app.errors import (
    InvalidMessageError,
    RateLimitedError,
    ServerBusyError,
    ShopdeskError,
    TranscriptNotFoundError,
)
from app.traffic.guards import retry_after


class FieldProblem(BaseModel):
    loc: list[str | int]
    msg: str
    type: str


class Problem(BaseModel):
    detail: str | list[FieldProblem]


class AsciiJSONResponse(JSONResponse):
    """JSON with every non-ASCII character escaped, so any text at all can be sent back."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content, ensure_ascii=True, separators=(",", ":")).encode("ascii")


_RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before trying again",
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
    }
}

PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    400: {"model": Problem, "description": "The body is not readable JSON (bad UTF-8, too deep)"},
    403: {
        "model": Problem,
        "description": "Sent from a web page whose origin is not an allowed shop site",
    },
    404: {
        "model": Problem,
        "description": "Unknown session (start one with POST /api/sessions), or no such answer",
    },
    413: {"model": Problem, "description": "The request body is too large"},
    422: {"model": Problem, "description": "Invalid input; `detail` says what to change"},
    429: {
        "model": Problem,
        "description": "Too many requests from this client",
        "headers": _RETRY_AFTER,
    },
    503: {
        "model": Problem,
        "description": "Every answering slot is taken, or the service is not ready",
        "headers": _RETRY_AFTER,
    },
}


async def validation_problem(request: Request, exc: Exception) -> JSONResponse:
    """422 listing what is wrong with each field, without the input itself."""
    assert isinstance(exc, RequestValidationError)
    problems = []
    for error in exc.errors():
        message = str(error.get("msg", "invalid"))
        if error.get("type") == "json_invalid":
            reason = (error.get("ctx") or {}).get("error", "")
            message = f"The body is not valid JSON: {reason}".rstrip(": ")
        location = [p if isinstance(p, str | int) else str(p) for p in error.get("loc", ())]
        problems.append({"loc": location, "msg": message, "type": str(error.get("type", ""))})
    return AsciiJSONResponse({"detail": problems}, status_code=422)


# Checked in order; a domain error of any other class is something the service cannot do now.
_STATUS_OF: tuple[tuple[type[ShopdeskError], int], ...] = (
    (TranscriptNotFoundError, 404),
    (InvalidMessageError, 422),
    (RateLimitedError, 429),
)
_UNAVAILABLE = 503


async def domain_problem(request: Request, exc: Exception) -> JSONResponse:
    """The status a domain error stands for, its sentence as ``detail``, and ``Retry-After``."""
    assert isinstance(exc, ShopdeskError)
    status = next((code for kind, code in _STATUS_OF if isinstance(exc, kind)), _UNAVAILABLE)
    headers = None
    if isinstance(exc, RateLimitedError | ServerBusyError):
        headers = retry_after(exc.retry_after_s)
    return AsciiJSONResponse({"detail": str(exc)}, status_code=status, headers=headers)


def add_problem_handlers(app: FastAPI) -> None:
    """Register the handlers once on the app, so routes raise and never translate by hand."""
    app.add_exception_handler(RequestValidationError, validation_problem)
    app.add_exception_handler(ShopdeskError, domain_problem)
