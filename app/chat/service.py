"""One chat turn: validate → history → retrieve → prompt → stream → cite → remember."""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator
from dataclasses import dataclass, field

from app.chat.answer_checks import grounding_text
from app.chat.citations import (
    Citation,
    attribute,
    cited,
    groundedness,
    strip_invalid_markers,
)
from app.chat.evidence import best_evidence
from app.chat.guard import WITHHELD, answer_guard
from app.chat.messages import clean_message
from app.chat.prompt import HistoryTurn, assemble_prompt
from app.chat.prompt_format import PromptFormat
from app.chat.prompt_leak import PromptLeakDetector
from app.chat.screening import DECLINES, Screening, screen_message
from app.engine.base import Engine, GenerationRequest, GenerationStats
from app.errors import EngineTimeoutError, EngineUnavailableError
from app.retrieval.published_index import ScoredPassage
from app.retrieval.query_encoder import QueryEncoder
from app.retrieval.retriever import Retriever
from app.retrieval.rewrite import query_texts
from app.sessions.base import SessionStore, Turn
from app.sessions.turn_vectors import TurnVectorCache

logger = logging.getLogger(__name__)

NOTHING_FOUND = (
    "I'm sorry, I couldn't find anything about that in the {shop} help pages, so I'd rather not "
    "guess. Would you like me to put you in touch with a member of our support team?"
)
ENGINE_FAILED = (
    "Sorry, I couldn't finish this answer: our assistant is busy or restarting right now. "
    "Please try again in a minute, or ask to talk to a member of our team."
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
    quote_evidence: bool = True
    history_turns_for_retrieval: int = 2
    screen_messages: bool = True  # decline prompt attacks and requests for others' data up front


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
    # Why the injection defences declined the message or withheld the generated answer
    # (a screening reason, "system_prompt_leak", "unverified_contact", ...); None: answered.
    blocked: str | None = None
    failure: str | None = None  # engine_timeout / engine_unavailable: the answer was cut short

    def engine_failed(self, exc: EngineUnavailableError, shown: str) -> str:
        """Turn what the shopper saw before the engine failed into an apology; returns the text
        still to show them."""
        timed_out = isinstance(exc, EngineTimeoutError)
        self.failure = "engine_timeout" if timed_out else "engine_unavailable"
        self.answered = False
        rest = f"\n\n{ENGINE_FAILED}" if shown.strip() else ENGINE_FAILED
        self.answer = (shown + rest).strip()
        return rest


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
        self._leaks = PromptLeakDetector(prompt_format.system, prompt_format.canary)
        shop = options.shop_name
        # Fixed answers to attacks: kept in the session, but never fed back to the generator.
        self._withheld = {t.format(shop=shop) for t in (*DECLINES.values(), WITHHELD)}

    @property
    def prompt_format(self) -> PromptFormat:
        return self._format

    async def history(self, session_id: str) -> list[Turn]:
        return await self._store.turns(session_id)

    async def turn(self, session_id: str, message: str) -> AsyncIterator[ChatEvent]:
        """Answer one message, streaming; raises InvalidMessageError before doing anything."""
        question = clean_message(message, max_chars=self._options.max_message_chars)
        screening = screen_message(question) if self._options.screen_messages else None
        if screening is not None:
            async for event in self._decline(session_id, question, screening):
                yield event
            return
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
            earlier = [t.question for t in turns]
            texts = query_texts(question, earlier, turns=self._options.history_turns_for_retrieval)
            retrieval = self._retriever.search(queries, texts)
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
                shown: list[str] = []
                try:
                    async for text in self._generate(outcome, turns, question):
                        shown.append(text)
                        yield Delta(text)
                except EngineUnavailableError as exc:  # timed out, or the engine died
                    yield Delta(outcome.engine_failed(exc, "".join(shown)))
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

    async def _decline(
        self, session_id: str, question: str, screening: Screening
    ) -> AsyncIterator[ChatEvent]:
        """A fixed answer to an attack: nothing retrieved or generated, so nothing to leak."""
        started = time.perf_counter()
        answer = screening.decline(shop=self._options.shop_name)
        logger.info("declined a message: %s (%s)", screening.reason, ", ".join(screening.features))
        async with self._store.exclusive(session_id):
            turns = await self._store.turns(session_id)
            outcome = TurnOutcome(
                session_id=session_id,
                question=question,
                answer=answer,
                answered=False,
                passages=[],
                citations=[],
                groundedness=0.0,
                index_version="",
                engine=self._engine.description,
                turn_index=len(turns),
                blocked=screening.reason,
            )
            yield Delta(answer)
            await self._store.append(session_id, Turn(question, answer, at=time.time()))
        outcome.timings["total"] = time.perf_counter() - started
        yield Done(outcome)

    async def _generate(
        self, outcome: TurnOutcome, turns: list[Turn], question: str
    ) -> AsyncIterator[str]:
        options = self._options
        earlier = [t for t in turns if t.answer not in self._withheld]
        prompt = assemble_prompt(
            system=self._format.system,
            history=[HistoryTurn(t.question, t.answer) for t in earlier],
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
        guard = answer_guard(
            self._leaks,
            allowed=grounding_text(
                prompt.passages, question, *(f"{t.question}\n{t.answer}" for t in earlier)
            ),
        )
        mark = time.perf_counter()
        pieces: list[str] = []
        shown = ""
        stream = self._engine.stream(request)
        try:
            async for chunk in stream:
                if chunk.text:
                    if not pieces:
                        outcome.timings["first_token"] = time.perf_counter() - mark
                    pieces.append(chunk.text)
                    released = guard.feed(chunk.text)
                    shown += released
                    if released:
                        yield released
                    if guard.blocked is not None:
                        break  # stop generating: nothing more of this answer will be shown
                if chunk.stats is not None:
                    outcome.stats = chunk.stats
        finally:
            if isinstance(stream, AsyncGenerator):
                await stream.aclose()
        rest = guard.finish()
        if rest:
            yield rest
        outcome.timings["generate"] = time.perf_counter() - mark
        outcome.timings["queue"] = outcome.stats.queue_s
        outcome.timings["prefill"] = outcome.stats.prefill_s
        outcome.timings["decode"] = outcome.stats.decode_s
        if guard.blocked is not None:
            outcome.blocked = guard.blocked
            logger.warning("cut an answer short (%s) in turn %s", guard.blocked, request.request_id)
            if not guard.kept:
                outcome.answer = WITHHELD.format(shop=options.shop_name)
                yield ("\n\n" if shown else "") + outcome.answer
                return
        answer = strip_invalid_markers(guard.kept.strip(), len(outcome.passages))
        answer = attribute(answer, outcome.passages)
        outcome.groundedness = groundedness(answer, outcome.passages)
        quote = self._quote(question, answer, outcome.passages)
        if quote:
            yield quote
            answer += quote
        outcome.citations = cited(answer, outcome.passages)
        if outcome.groundedness < options.min_groundedness or not answer:
            yield LOW_GROUNDEDNESS_NOTE
            answer = (answer + LOW_GROUNDEDNESS_NOTE).strip()
        outcome.answer = answer

    def _quote(self, question: str, answer: str, passages: list[ScoredPassage]) -> str:
        """The shop's own line answering the question, quoted under the answer (when it adds)."""
        if not self._options.quote_evidence or not answer:
            return ""
        evidence = best_evidence(question, passages)
        if evidence is None or _squashed(evidence.text) in _squashed(answer):
            return ""
        if self._leaks.leaked(evidence.text):  # shown after the guard: it gets the same check
            return ""
        return f"\n\n> “{evidence.text}” [{evidence.number}]"


def _squashed(text: str) -> str:
    return "".join(text.lower().split())
