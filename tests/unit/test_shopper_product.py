"""The shopper page opened as ``/?product=SKU`` asks about that product; without it, about none."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import gradio as gr
import pytest

from app.chat.outcome import Delta
from app.observability.metrics import ChatMetrics
from app.settings import Settings
from app.traffic.guards import Guards, build_guards
from app.web.shopper import build_shopper_page


class Service:
    """Records the product each question was asked with (the page's only use of the service)."""

    def __init__(self) -> None:
        self.products: list[str | None] = []

    async def ask(
        self, session: str, message: str, *, product: str | None = None
    ) -> AsyncIterator[Delta]:
        self.products.append(product)
        yield Delta("It is.")


def respond_of(service: Service, guards: Guards) -> Any:
    def provider() -> tuple[Any, Guards, str, str]:
        return service, guards, "secret", "Fernhill"

    page = build_shopper_page(provider, "Fernhill")
    (respond,) = {f.fn for f in page.fns.values() if f.name == "respond"}
    return respond


@pytest.mark.parametrize(
    ("query", "product"),
    [({"product": "FH-TNT-7020"}, "FH-TNT-7020"), ({"product": "  "}, None), ({}, None)],
)
def test_the_page_passes_its_product_to_the_service(
    query: dict[str, str], product: str | None
) -> None:
    service = Service()
    respond = respond_of(service, build_guards(Settings(), ChatMetrics()))
    request = gr.Request(query_params=query)

    async def scenario() -> list[tuple[Any, ...]]:
        return [u async for u in respond("Is it waterproof?", [], None, {}, request)]

    history = asyncio.run(scenario())[-1][0]
    assert service.products == [product]
    assert history[-1] == {"role": "assistant", "content": "It is."}


def test_the_page_is_limited_per_client_like_the_api() -> None:
    """Past its share of turns a shopper keeps their message and is asked to slow down, as the
    API's 429 says; the service is not asked."""
    service = Service()
    guards = build_guards(Settings(client_turns_per_minute=1, client_turn_burst=2), ChatMetrics())
    respond = respond_of(service, guards)

    async def turn() -> tuple[Any, ...]:
        return [
            u async for u in respond("Is it waterproof?", [], None, {}, gr.Request(query_params={}))
        ][-1]

    answered = [asyncio.run(turn()) for _ in range(2)]
    history, box, _, _, status = asyncio.run(turn())
    assert [a[0][-1]["content"] for a in answered] == ["It is.", "It is."]
    assert history == [] and box == "Is it waterproof?"  # the message is kept to send again
    assert status.startswith("⏳") and "very quickly" in status
    assert len(service.products) == 2
