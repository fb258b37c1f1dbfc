"""One chat turn: validate → history → retrieve → prompt → stream → cite → remember."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from app.chat.citations import Citation, cited, groundedness, strip_invalid_markers
from app.chat.messages import clean_message
from app.chat.prompt import HistoryTurn, assemble_prompt
from app.chat.prompt_format import PromptFormat
from app.engine.base import Engine, GenerationRequest, GenerationStats
from app.retrieval.published_index import ScoredPassage
from app.retrieval.query_encoder import QueryEncoder
from app.retrieval.retriever import Retriever
from app.sessions.base import SessionStore, Turn
from app.sessions.turn_vectors import TurnVectorCache

NOTHING_FOUND = (
    "I'm sorry, I couldn't find anything about that in {shop}'s help pages, so I'd rather not "
    "guess. Would you like me to put you in touch with a member of our support team?"
)
LOW_GROUNDEDNESS_NOTE = (
    "\n\n(I'm not fully certain of this answer: please check the sources below, "
    "or ask to talk to a member of our team.)"
)


@dataclass(frozen=True)
class ChatOptions:
    shop_name: str
    max_message_chars: int
    max_answer_tokens: int
    temperature: float
    frequency_penalty: float
    context_tokens: int
    passage_tokens: int
    history_weights: tuple[float, ...]
    min_groundedness: float
    history_turns_for_retrieval: int = 2


@dataclass
class TurnOutcome:
    """Everything a transcript needs about one answered turn."""

    session_id: str
    question: str
    answer: str
    answered: bool  # False: nothing relevant was found and the shopper was offered a human
    passages: list[ScoredPassage]
    citations: list[Citation]
    groundedness: float
    index_version: str
    engine: str
    turn_index: int
    stats: GenerationStats = field(default_factory=GenerationStats)
    timings: dict[str, float] = field(default_factory=dict)
    prompt_tokens_budgeted: int = 0
    turns_dropped: int = 0


@dataclass(frozen=True)
class Delta:
    text: str


@dataclass(frozen=True)
class Done:
    outcome: TurnOutcome


ChatEvent = Delta | Done


class ChatService:
    def __init__(
        self,
        *,
        store: SessionStore,
        turn_vectors: TurnVectorCache,
        encoder: QueryEncoder,
        retriever: Retriever,
        engine: Engine,
        prompt_format: PromptFormat,
        options: ChatOptions,
    ) -> None:
        self._store = store
        self._vectors = turn_vectors
        self._encoder = encoder
        self._retriever = retriever
        self._engine = engine
        self._format = prompt_format
        self._options = options

    @property
    def prompt_format(self) -> PromptFormat:
        return self._format

    async def history(self, session_id: str) -> list[Turn]:
        return await self._store.turns(session_id)

    async def turn(self, session_id: str, message: str) -> AsyncIterator[ChatEvent]:
        """Answer one message, streaming; raises InvalidMessageError before doing anything."""
        question = clean_message(message, max_chars=self._options.max_message_chars)
        started = time.perf_counter()
        timings: dict[str, float] = {}
        async with self._store.exclusive(session_id):
            turns = await self._store.turns(session_id)
            mark = time.perf_counter()
            vector = await self._encoder.encode(question)
            recent = list(
                range(max(0, len(turns) - self._options.history_turns_for_retrieval), len(turns))
            )
            previous = await self._vectors.get(session_id, recent)
            timings["embed"] = time.perf_counter() - mark

            mark = time.perf_counter()
            queries = [vector]
            if previous:
                queries.append(self._vectors.blend(vector, previous, self._options.history_weights))
            retrieval = self._retriever.search(queries)
            timings["search"] = time.perf_counter() - mark

            outcome = TurnOutcome(
                session_id=session_id,
                question=question,
                answer="",
                answered=bool(retrieval.passages),
                passages=retrieval.passages,
                citations=[],
                groundedness=0.0,
                index_version=retrieval.index_version,
                engine=self._engine.description,
                turn_index=len(turns),
                timings=timings,
            )
            if retrieval.passages:
                async for text in self._generate(outcome, turns, question):
                    yield Delta(text)
            else:
                outcome.answer = NOTHING_FOUND.format(shop=self._options.shop_name)
                yield Delta(outcome.answer)

            mark = time.perf_counter()
            index = await self._store.append(
                session_id,
                Turn(
                    question=question,
                    answer=outcome.answer,
                    passage_ids=tuple(c.passage.passage.id for c in outcome.citations),
                    at=time.time(),
                ),
            )
            await self._vectors.put(session_id, index, vector)
            timings["persist"] = time.perf_counter() - mark
            timings["total"] = time.perf_counter() - started
        yield Done(outcome)

    async def _generate(
        self, outcome: TurnOutcome, turns: list[Turn], question: str
    ) -> AsyncIterator[str]:
        options = self._options
        prompt = assemble_prompt(
            system=self._format.system,
            history=[HistoryTurn(t.question, t.answer) for t in turns],
            passages=outcome.passages,
            question=question,
            render=self._format.render,
            count_tokens=self._format.count_tokens,
            budget_tokens=options.context_tokens - options.max_answer_tokens,
            passage_tokens=options.passage_tokens,
        )
        outcome.passages = prompt.passages
        outcome.prompt_tokens_budgeted = prompt.tokens
        outcome.turns_dropped = prompt.turns_dropped
        request = GenerationRequest(
            request_id=f"{outcome.session_id[:8]}-{outcome.turn_index}-{uuid.uuid4().hex[:8]}",
            prompt=prompt.text,
            max_tokens=options.max_answer_tokens,
            temperature=options.temperature,
            frequency_penalty=options.frequency_penalty,
            # small models go on to invent the next exchange of the layout; cut them off there
            stop=("\nCustomer question:", "\nCustomer answer:"),
        )
        mark = time.perf_counter()
        pieces: list[str] = []
        async for chunk in self._engine.stream(request):
            if chunk.text:
                if not pieces:
                    outcome.timings["first_token"] = time.perf_counter() - mark
                pieces.append(chunk.text)
                yield chunk.text
            if chunk.stats is not None:
                outcome.stats = chunk.stats
        outcome.timings["generate"] = time.perf_counter() - mark
        outcome.timings["queue"] = outcome.stats.queue_s
        outcome.timings["prefill"] = outcome.stats.prefill_s
        outcome.timings["decode"] = outcome.stats.decode_s
        answer = strip_invalid_markers("".join(pieces).strip(), len(outcome.passages))
        outcome.citations = cited(answer, outcome.passages)
        outcome.groundedness = groundedness(answer, outcome.passages)
        if outcome.groundedness < options.min_groundedness or not answer:
            yield LOW_GROUNDEDNESS_NOTE
            answer = (answer + LOW_GROUNDEDNESS_NOTE).strip()
        outcome.answer = answer
