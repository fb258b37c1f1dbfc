"""The HTTP service: the composition root builds every backend once, in the app's lifespan."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Annotated

import gradio as gr
from fastapi import Depends, FastAPI, HTTPException, Query, Request
from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel

from app.api import chat_routes, ops_routes
from app.api.admission import TurnAdmission
from app.api.body_limit import BodyLimit
from app.api.guards import limit_requests
from app.api.problems import PROBLEM_RESPONSES, validation_problem
from app.chat.conversations import ConversationService
from app.container import Container, build_container
from app.errors import ShopdeskError
from app.observability.log_masking import mask_personal_data_in_logs
from app.retrieval.retriever import Retriever
from app.settings import Settings
from app.web import staff
from app.web.shopper import CSS, build_shopper_page

logger = logging.getLogger(__name__)


class SearchHit(BaseModel):
    passage_id: str
    title: str
    section: str
    source: str
    citation: str
    score: float
    text: str


class SearchResponse(BaseModel):
    index_version: str
    hits: list[SearchHit]


def create_app(settings: Settings) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with build_container(settings) as container:
            mask_personal_data_in_logs()  # now that uvicorn and vLLM have set up their handlers
            app.state.container = container
            yield

    def count_refusal(reason: str) -> None:
        container: Container | None = getattr(app.state, "container", None)
        if container is not None:
            container.guards.refused(reason)

    app = FastAPI(title="shopdesk", lifespan=lifespan)
    app.add_middleware(
        BodyLimit,
        max_bytes=settings.max_request_bytes,
        on_refused=lambda: count_refusal("body_too_large"),
    )
    app.add_exception_handler(RequestValidationError, validation_problem)
    app.include_router(chat_routes.router)
    app.include_router(staff.router)
    app.include_router(ops_routes.router)

    @app.get("/healthz")
    async def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/readyz", responses={503: PROBLEM_RESPONSES[503]})
    async def readyz(request: Request) -> dict[str, str]:
        container: Container = request.app.state.container
        try:
            served = await asyncio.to_thread(container.index.current)
        except ShopdeskError as exc:
            raise HTTPException(status_code=503, detail=str(exc)) from exc
        if not await container.engine.healthy():
            raise HTTPException(status_code=503, detail="the generation engine is not healthy")
        return {
            "status": "ready",
            "index_version": served.version.id,
            "engine": container.engine.description,
        }

    @app.get(
        "/api/search",
        response_model=SearchResponse,
        dependencies=[Depends(limit_requests)],
        responses=PROBLEM_RESPONSES,
    )
    async def search(
        request: Request,
        q: Annotated[str, Query(min_length=1, max_length=2000)],
        k: Annotated[int, Query(ge=1, le=50)] = 5,
    ) -> SearchResponse:
        if not q.strip():
            raise HTTPException(status_code=422, detail="the query is empty")
        container: Container = request.app.state.container
        try:
            served = await asyncio.to_thread(container.index.current)
        except ShopdeskError as exc:
            raise HTTPException(status_code=503, detail=str(exc)) from exc
        vector = await container.encoder.encode(q)
        retriever = Retriever(
            container.index, top_k=k, floor=-1.0, lexical_weight=settings.lexical_weight
        )
        hits = retriever.search([vector], [q]).passages
        return SearchResponse(
            index_version=served.version.id,
            hits=[
                SearchHit(
                    passage_id=h.passage.id,
                    title=h.passage.title,
                    section=h.passage.section,
                    source=h.passage.source,
                    citation=h.passage.citation_target,
                    score=round(h.score, 4),
                    text=h.passage.text,
                )
                for h in hits
            ],
        )

    def provider() -> tuple[ConversationService, TurnAdmission, str, str]:
        container: Container = app.state.container
        admission = container.guards.admission
        return container.conversations, admission, settings.secret_key, settings.shop_name

    page = build_shopper_page(provider, settings.shop_name)
    # Gradio's own queue is unbounded unless told otherwise: bound it like the API's.
    page.queue(
        max_size=max(1, settings.max_turns_waiting),
        default_concurrency_limit=settings.max_turns_in_flight,
    )
    theme = gr.themes.Soft(primary_hue="emerald", neutral_hue="slate")
    return gr.mount_gradio_app(app, page, path="/", css=CSS, theme=theme, footer_links=[])
