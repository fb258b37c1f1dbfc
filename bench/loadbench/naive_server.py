"""The naive pipeline behind shopdesk's chat API shape, so one load generator drives both.

`POST /api/sessions`, `POST /api/sessions/{id}/messages` (server-sent `delta` events, then `done`
with `timings` and `tokens`, or `error`) and `/readyz`. Settings come from ``SHOPDESK_*`` variables
like shopdesk's, so the two read the same published index and models.

    .venv/bin/python -m bench.loadbench.naive_server --port PORT [--dtype float32]
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from app.chat.messages import clean_message
from app.errors import InvalidMessageError, ShopdeskError
from app.settings import Settings

from .naive_pipeline import NaivePipeline

logger = logging.getLogger(__name__)


class MessageIn(BaseModel):
    message: str = Field(max_length=100_000)


def create_app(settings: Settings, *, dtype: str) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.pipeline = NaivePipeline(settings, dtype=dtype)
        yield

    app = FastAPI(title="naive pipeline (benchmark baseline)", lifespan=lifespan)

    def pipeline(request: Request) -> NaivePipeline:
        return request.app.state.pipeline

    @app.get("/readyz")
    async def readyz(request: Request) -> dict[str, str]:
        try:
            version = pipeline(request).index_version()
        except ShopdeskError as exc:
            raise HTTPException(503, detail=str(exc)) from exc
        return {"status": "ready", "index_version": version, "engine": "hf-generate"}

    @app.post("/api/sessions", status_code=201)
    async def start_session(request: Request) -> dict[str, str]:
        return {"session_id": pipeline(request).new_session()}

    @app.post("/api/sessions/{session}/messages")
    async def ask(request: Request, session: str, body: MessageIn) -> StreamingResponse:
        naive = pipeline(request)
        if not naive.has_session(session):
            raise HTTPException(404, detail="unknown session: start one with POST /api/sessions")
        try:
            question = clean_message(body.message, max_chars=settings.max_message_chars)
        except InvalidMessageError as exc:
            raise HTTPException(422, detail=str(exc)) from exc
        return StreamingResponse(_events(naive, session, question), media_type="text/event-stream")

    return app


async def _events(naive: NaivePipeline, session: str, question: str) -> AsyncIterator[str]:
    try:
        async for kind, data in naive.turn(session, question):
            yield _sse(kind, {"text": data} if kind == "delta" else data)
    except (ShopdeskError, RuntimeError) as exc:
        logger.exception("a naive turn failed")
        yield _sse("error", {"detail": str(exc)})


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8100)
    parser.add_argument(
        "--dtype",
        default="float32",
        choices=["float32", "bfloat16"],
        help="weights for generate (the converted folder holds bfloat16)",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    import uvicorn

    uvicorn.run(
        create_app(Settings(), dtype=args.dtype),
        host=args.host,
        port=args.port,
        log_level="warning",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
