"""Shoppers' multi-turn conversations with the shop's real prompts, sent through the app's remote
engine (the router engine sends each conversation's routing key, as the service does).

Each turn's prompt is laid out by the service's own assembly (system → earlier questions and
answers → this turn's passages → question, under the same token budgets), with the passages the
service's search finds for the message; they are looked up once, before any engine starts, so
every phase prefills the same prompts as long as the model answers the same (temperature 0).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from pathlib import Path

from app.chat.prompt import HistoryTurn, assemble_prompt
from app.chat.prompt_format import PromptFormat
from app.chat.scaffolding import STOP_SEQUENCES
from app.engine.base import GenerationRequest
from app.engine.remote import RemoteEngine
from app.engine.stops import SERVER_STOPS
from app.retrieval.published_index import ScoredPassage
from app.settings import Settings
from bench.loadbench.conversations import Conversation


@dataclass(frozen=True)
class TurnRecord:
    conversation: int
    turn: int  # 1-based position in the conversation
    prompt_tokens: int
    cached_tokens: int
    latency_s: float
    first_token_s: float

    @property
    def prefilled_tokens(self) -> int:
        return self.prompt_tokens - self.cached_tokens


def find_passages(
    messages: Sequence[str], data_dir: Path, settings: Settings
) -> dict[str, list[ScoredPassage]]:
    """The service's hybrid search over an index of the bundled knowledge base, per message."""
    from app.embedding.factory import build_embedder
    from app.retrieval.passage_search import PassageSearch
    from app.retrieval.published_index import PublishedIndex
    from app.retrieval.query_encoder import QueryEncoder

    async def search_all() -> dict[str, list[ScoredPassage]]:
        index = PublishedIndex(data_dir / "index", device="cpu", poll_seconds=0)
        encoder = QueryEncoder(build_embedder(settings))
        search = PassageSearch(index, encoder, lexical_weight=settings.lexical_weight)
        try:
            found = {}
            for message in dict.fromkeys(messages):
                found[message] = (await search.find(message, top_k=settings.top_k)).passages
            return found
        finally:
            await encoder.close()

    return asyncio.run(search_all())


@dataclass(frozen=True)
class Workload:
    conversations: Sequence[Conversation]
    passages: dict[str, list[ScoredPassage]]
    prompt_format: PromptFormat
    shoppers: int
    max_tokens: int
    context_tokens: int
    passage_tokens: int


async def _converse(
    engine: RemoteEngine, work: Workload, conversation: Conversation, phase: str
) -> list[TurnRecord]:
    fmt, history, records = work.prompt_format, list[HistoryTurn](), []
    for turn, message in enumerate(conversation.messages, start=1):
        prompt = assemble_prompt(
            system=fmt.system,
            history=history,
            passages=work.passages[message],
            question=message,
            render=fmt.render,
            count_tokens=fmt.count_tokens,
            budget_tokens=work.context_tokens - work.max_tokens,
            passage_tokens=work.passage_tokens,
        )
        request = GenerationRequest(
            f"{phase}-{conversation.number}-{turn}",
            prompt.text,
            max_tokens=work.max_tokens,
            temperature=0.0,
            frequency_penalty=0.5,
            # the ones the server applies itself: a stop cut by the engine ends the request
            # before the server reports the cached tokens
            stop=STOP_SEQUENCES[:SERVER_STOPS],
            session_id=f"{phase}-conversation-{conversation.number}",
        )
        started, answer, stats = time.perf_counter(), "", None
        async for chunk in engine.stream(request):
            answer += chunk.text
            stats = chunk.stats or stats
        if stats is None:
            raise RuntimeError(f"{request.request_id}: the engine reported no usage")
        records.append(
            TurnRecord(
                conversation.number,
                turn,
                stats.prompt_tokens,
                stats.cached_tokens,
                time.perf_counter() - started,
                stats.first_token_s,
            )
        )
        history.append(HistoryTurn(message, answer.strip()))
    return records


async def run_phase(
    opened: AbstractAsyncContextManager[RemoteEngine], work: Workload, phase: str
) -> tuple[list[TurnRecord], float]:
    """Every conversation once, ``work.shoppers`` at a time (closed loop, no think time); the
    turns and the wall time from the first turn to the last answer."""
    queue: asyncio.Queue[Conversation] = asyncio.Queue()
    for conversation in work.conversations:
        queue.put_nowait(conversation)
    records: list[TurnRecord] = []

    async def shopper(engine: RemoteEngine) -> None:
        while not queue.empty():
            records.extend(await _converse(engine, work, queue.get_nowait(), phase))

    async with opened as engine:
        started = time.perf_counter()
        await asyncio.gather(*(shopper(engine) for _ in range(work.shoppers)))
        return records, time.perf_counter() - started
