"""The shopper page opened as ``/?product=SKU`` asks about that product; without it, about none."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import gradio as gr
import pytest

from app.chat.outcome import Delta
from app.traffic.admission import TurnAdmission
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


@pytest.mark.parametrize(
    ("query", "product"),
    [({"product": "FH-TNT-7020"}, "FH-TNT-7020"), ({"product": "  "}, None), ({}, None)],
)
def test_the_page_passes_its_product_to_the_service(
    query: dict[str, str], product: str | None
) -> None:
    service = Service()
    admission = TurnAdmission(max_active=1, max_waiting=0, wait_s=1, retry_after_s=5)

    def provider() -> tuple[Any, TurnAdmission, str, str]:
        return service, admission, "secret", "Fernhill"

    page = build_shopper_page(provider, "Fernhill")
    (respond,) = {f.fn for f in page.fns.values() if f.name == "respond"}
    request = gr.Request(query_params=query)

    async def scenario() -> list[tuple[Any, ...]]:
        return [u async for u in respond("Is it waterproof?", [], None, {}, request)]

    history = asyncio.run(scenario())[-1][0]
    assert service.products == [product]
    assert history[-1] == {"role": "assistant", "content": "It is."}
