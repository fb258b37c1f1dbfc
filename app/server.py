"""The HTTP service, assembled: the composition root built once in the app's lifespan, the body
cap, the allowed shop sites, the error handlers, the routers, the widget and the shopper page."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import gradio as gr
from fastapi import FastAPI

from app.api import chat_routes, ops_routes, search_routes
from app.api.problems import add_problem_handlers
from app.chat.conversations import ConversationService
from app.container import build_container
from app.dependencies import running_container
from app.observability.log_masking import mask_personal_data_in_logs
from app.settings import Settings
from app.traffic.body_limit import BodyLimit
from app.traffic.guards import Guards
from app.traffic.origins import ShopOrigins
from app.web import staff, staff_gaps, staff_sign_in, widget
from app.web.shopper import CSS, build_shopper_page


def create_app(settings: Settings) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with build_container(settings) as container:
            mask_personal_data_in_logs()  # now that uvicorn and vLLM have set up their handlers
            app.state.container = container
            yield

    def count_refusal(reason: str) -> None:
        container = running_container(app)
        if container is not None:
            container.guards.refused(reason)

    app = FastAPI(title="shopdesk", lifespan=lifespan)
    app.add_middleware(
        BodyLimit,
        max_bytes=settings.max_request_bytes,
        on_refused=lambda: count_refusal("body_too_large"),
    )
    app.add_middleware(  # outermost: another site's request is refused before anything reads it
        ShopOrigins,
        allowed=settings.widget_origins,
        on_refused=lambda: count_refusal("origin_not_allowed"),
    )
    add_problem_handlers(app)
    app.include_router(chat_routes.router)
    app.include_router(search_routes.router)
    app.include_router(staff_sign_in.router)
    app.include_router(staff.router)
    app.include_router(staff_gaps.router)
    app.include_router(ops_routes.router)
    app.include_router(widget.router)

    def provider() -> tuple[ConversationService, Guards, str, str]:
        container = running_container(app)
        assert container is not None, "the shopper page is served only once the app has started"
        return (
            container.conversations,
            container.guards,
            settings.secret_key,
            settings.shop_name,
        )

    page = build_shopper_page(provider, settings.shop_name)
    # Gradio's own queue is unbounded unless told otherwise: bound it like the API's.
    page.queue(
        max_size=max(1, settings.max_turns_waiting),
        default_concurrency_limit=settings.max_turns_in_flight,
    )
    theme = gr.themes.Soft(primary_hue="emerald", neutral_hue="slate")
    return gr.mount_gradio_app(app, page, path="/", css=CSS, theme=theme, footer_links=[])
