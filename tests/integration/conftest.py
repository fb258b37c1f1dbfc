"""The real chat stack, started once per test session: vLLM on CPU, the embedder, an index."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal

from tests.conftest import KNOWLEDGE


@pytest.fixture(scope="session")
def portal() -> Iterator[BlockingPortal]:
    """An event loop on a thread of its own, for async backends driven from sync tests."""
    with start_blocking_portal() as running:
        yield running


@pytest.fixture(scope="session")
def chat_settings(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Any:
    from app.settings import Settings
    from ingest.pipeline import run_ingest

    settings = Settings(
        knowledge_dir=KNOWLEDGE,
        data_dir=tmp_path_factory.mktemp("chat-data"),
        embed_device="cpu",
        index_poll_seconds=0.0,
        vllm_max_num_seqs=8,
        # Tests judge answers, never speed: on a slow or busy machine, 16 conversations at once
        # must not turn into abandoned requests (the timeout itself is tested with fakes).
        generation_timeout_s=900.0,
    )
    run_ingest(settings, embedder)
    return settings


@pytest.fixture(scope="session")
def stack(portal: BlockingPortal, chat_settings: Any) -> Iterator[Any]:
    """The composition root's container with the in-process vLLM engine (about 40 s to start)."""
    from app.container import build_container

    with portal.wrap_async_context_manager(build_container(chat_settings)) as container:
        yield container


def ask(
    portal: BlockingPortal, chat: Any, session_id: str, message: str, product: str | None = None
) -> tuple[Any, list[str]]:
    """One turn, collected: (outcome, streamed pieces); ``product``: the page's product."""
    from app.chat.outcome import Delta, Done

    async def run() -> tuple[Any, list[str]]:
        pieces: list[str] = []
        outcome = None
        async for event in chat.turn(session_id, message, product=product):
            if isinstance(event, Delta):
                pieces.append(event.text)
            elif isinstance(event, Done):
                outcome = event.outcome
        return outcome, pieces

    return portal.call(run)
