"""One chat turn: validate → history → retrieve → prompt → stream → cite → remember.

Longer than the ~300 lines a module is kept to, on purpose: the order of a turn's steps (screen,
retrieve, select evidence, judge it, show the shop's lines, generate, gate each sentence, finish)
reads top to bottom here in one place, while each step's logic lives in its own module.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import logging
import time
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Sequence
from dataclasses import dataclass

import numpy as np

from app.chat.answerability import MIN_COVERAGE, judge
from app.chat.catalog import Catalog, Focus, Product
from app.chat.citations import cited, groundedness
from app.chat.claims import (
    NOT_RESTATED,
    UNSOLD_PRODUCT,
    check_sentence,
    cited_lines,
    restates,
)
from app.chat.compose import (
    PARTIAL,
    WITH_CLOSEST_LINES,
    composed_pieces,
    decline,
    declined_with_lines,
)
from app.chat.defences.answer_guard import WITHHELD, answer_guard
from app.chat.defences.grounded_content import grounding_text
from app.chat.defences.message_screening import DECLINES, Screening, screen_message
from app.chat.defences.prompt_leak import PromptLeakDetector
from app.chat.evidence import (
    Evidence,
    Selection,
    answers_faq,
    asks_comparison,
    asks_of_both,
    of_kinds_asked,
    quotable_lines,
    select_evidence,
    units,
)
from app.chat.faq_questions import PARAPHRASE_COSINE, faq_questions
from app.chat.listing import (
    MAX_LISTED,
    Listed,
    asks_for_list,
    cut_and_kind,
    for_whom_only,
    listing_answer,
)
from app.chat.messages import clean_message
from app.chat.near_words import NEAR_WORD_SIMILARITY, near_question_words
from app.chat.outcome import LOW_GROUNDEDNESS_NOTE, ChatEvent, Delta, Done, TurnOutcome
from app.chat.page_facts import PageFacts
from app.chat.problems import SORRY, reported_problem
from app.chat.prompt import AssembledPrompt, HistoryTurn, assemble_prompt
from app.chat.prompt_format import PromptFormat
from app.chat.reading import among, of_each, of_models, read_question
from app.chat.scaffolding import STOP_SEQUENCES
from app.chat.sentence_gate import SentenceGate
from app.chat.small_talk import small_talk_reply
from app.chat.superlatives import Ranking, ranked_by
from app.chat.turn_search import TurnSearch
from app.chat.vocabulary import Vocabulary
from app.chat.yes_no import plain_answer
from app.embedding.embedder import WordEmbedder
from app.engine.base import Engine, GenerationRequest
from app.errors import EngineUnavailableError
from app.retrieval.line_vectors import LineVectors
from app.retrieval.published_index import ScoredPassage
from app.retrieval.query_encoder import QueryEncoder
from app.retrieval.retriever import Retriever
from app.retrieval.rewrite import (
    asked_questions,
    is_bare,
    resolve_bare,
    resolve_plural,
    resolve_statement,
)
from app.sessions.base import SessionStore, ShownSource, Turn
from app.sessions.turn_vectors import TurnVectorCache

logger = logging.getLogger(__name__)


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
    answer_policy: str = "verified"  # "generative" | "verified" | "extractive"
    min_coverage: float = MIN_COVERAGE  # under it, the closest lines are shown as such
    # a question's word held by a line's word this alike (contextual vectors; 0: spelling only)
    near_word_similarity: float = NEAR_WORD_SIMILARITY
    # a message this alike to an FAQ's own question asks that FAQ (0: never by meaning alone)
    faq_paraphrase: float = PARAPHRASE_COSINE
    history_turns_for_retrieval: int = 2
    screen_messages: bool = True  # decline prompt attacks and requests for others' data up front
    # end the answer after this many sentences dropped in a row (0: never)
    stop_after_dropped: int = 2
    # the verified policy's model sees only the passages of the lines shown ("evidence"), or
    # every passage retrieved ("retrieved")
    generation_passages: str = "evidence"


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
        line_vectors: LineVectors,
        words: WordEmbedder | None = None,
    ) -> None:
        """``words``: the embedder's word vectors, for the hedge to count a question's word the
        lines hold in other words (none: by spelling only)."""
        self._store = store
        self._retriever = retriever
        self._search = TurnSearch(
            encoder=encoder,
            retriever=retriever,
            turn_vectors=turn_vectors,
            history_weights=options.history_weights,
            history_turns=options.history_turns_for_retrieval,
            lines=line_vectors,
            paraphrase_cosine=options.faq_paraphrase,
        )
        self._engine = engine
        self._format = prompt_format
        self._options = options
        self._lines = line_vectors
        self._words = words
        self._encoder = encoder
        self._page_facts: tuple[str, asyncio.Future[PageFacts]] | None = None  # version, counting
        self._leaks = PromptLeakDetector(prompt_format.system, prompt_format.canary)
        shop = options.shop_name
        # Fixed answers to attacks: kept in the session, but never fed back to the generator.
        self._withheld = {t.format(shop=shop) for t in (*DECLINES.values(), WITHHELD)}

    @property
    def prompt_format(self) -> PromptFormat:
        return self._format

    async def history(self, session_id: str) -> list[Turn]:
        return await self._store.turns(session_id)

    async def open_on(self, session_id: str, product: str) -> None:
        """The conversation starts on a product's page: its messages that give no product of
        their own are asked from that page."""
        await self._store.set_page(session_id, product.strip())

    async def turn(
        self, session_id: str, message: str, *, product: str | None = None
    ) -> AsyncIterator[ChatEvent]:
        """Answer one message, streaming; raises InvalidMessageError before doing anything.
        ``product`` is the product of the page the shopper asks from (its SKU or page URL); the
        page the session was opened on when the message gives none."""
        question = self.clean(message)
        screening = screen_message(question) if self._options.screen_messages else None
        if screening is not None:
            async for event in self._decline(session_id, question, screening):
                yield event
            return
        reply = small_talk_reply(question, shop=self._options.shop_name)
        if reply is not None:  # "hi there!", "thanks, that's all": nothing to look up
            async for event in self.say(session_id, question, reply):
                yield event
            return
        started = time.perf_counter()
        timings: dict[str, float] = {}
        async with self._store.exclusive(session_id):
            turns = await self._store.turns(session_id)
            facts = await self._facts()
            last = [turns[-1].product] if turns else []
            # the last turn left the product for a help page's topic: "it" may still be it
            before = [t.product for t in reversed(turns[:-1])] if last == [None] else []
            page = product or await self._store.page(session_id)
            listed = turns[-1].listed if turns else ()
            focus = facts.catalog.focus(
                question, given=page, earlier=last, before=before, listed=listed
            )
            asked, focus, reported = await self._read(question, turns, focus, facts, page)
            vector, in_conversation, retrieval, answering = await self._search.find(
                session_id, asked, turns, focus, facts, timings
            )

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
                product=focus.product.document_id if focus else None,
            )
            ranking = ranked_by(
                read_question(question, "", facts.vocabulary),
                facts.catalog,
                turns[-1].listed if turns else (),
            )
            listing = None if ranking else self._listing(question, facts, retrieval.passages)
            if ranking:
                yield Delta(self._rank(outcome, ranking))
            elif listing:
                yield Delta(self._list(outcome, *listing))
            elif retrieval.passages:
                shown: list[str] = []
                try:
                    async for text in self._answer(
                        outcome,
                        turns,
                        asked,
                        in_conversation,
                        focus,
                        facts,
                        answering,
                        sorry=reported,
                    ):
                        shown.append(text)
                        yield Delta(text)
                except EngineUnavailableError as exc:  # timed out, or the engine died
                    yield Delta(outcome.engine_failed(exc, "".join(shown)))
            else:
                self._decline_honestly(outcome, "floor")
                yield Delta(outcome.answer)

            mark = time.perf_counter()
            index = await self._store.append(
                session_id,
                Turn(
                    question=question,
                    answer=outcome.model_text,  # later prompts see only what the model said
                    passage_ids=tuple(c.passage.passage.id for c in outcome.citations),
                    at=time.time(),
                    shown=outcome.answer,
                    product=outcome.product,
                    sources=tuple(
                        ShownSource(
                            c.number,
                            c.passage.passage.title,
                            c.passage.passage.section,
                            c.passage.passage.citation_target,
                        )
                        for c in sorted(outcome.citations, key=lambda c: c.number)
                    ),
                    answered=outcome.answered,
                    listed=outcome.listed,
                ),
            )
            if reported:  # the next turns go on about the problem and what was said of it:
                # "how much to replace it?" after "the main zip on my jacket has broken"
                vector = await self._encoder.encode(f"{asked} {question}")
            await self._search.remember(session_id, index, vector)
            timings["persist"] = time.perf_counter() - mark
            timings["total"] = time.perf_counter() - started
        yield Done(outcome)

    async def _read(
        self,
        question: str,
        turns: list[Turn],
        focus: Focus | None,
        facts: PageFacts,
        page: str | None = None,
    ) -> tuple[str, Focus | None, bool]:
        """``question`` as the turn reads it, with what it leaves implicit (the transcript
        keeps the shopper's words), the product it is about (``focus``, or none for a problem
        report), and whether it reports a problem with the shopper's purchase; ``page``: the
        product of the shopper's page, if any."""
        listed = turns[-1].listed if turns else ()
        last = turns[-1].question if turns else ""
        asked = read_question(question, last, facts.vocabulary)
        if asks_comparison(question):  # "is it warmer than the 800?" after the 650: both
            viewed = facts.catalog.find(page) if page else None  # "is this lighter than …?"
            pointed = (turns[-1].product if turns else None) or (
                viewed.document_id if viewed else None
            )
            both = facts.catalog.compared_with(question, focus, pointed)
            if (
                not both
                and (focus or not listed)
                and asks_of_both(question)
                and not (facts.catalog.compared(question) or facts.catalog.named(question))
            ):
                # naming none: "what do they both weigh?" of the products the last answer
                # showed, or "how much would both cost?" of those the last question named
                shown = [p.title for d in listed if (p := facts.catalog.document(d))]
                both = shown or [p.title for p in facts.catalog.compared(last)]
            if both:
                asked, focus = among(asked, both), None
        else:  # "how much are the tent and the footprint?": asked of both
            each = of_each(asked, [p.title for p in facts.catalog.compared(question)])
            # "how much is the helvellyn fleece?": the 200's price and the 300's, unless the
            # shopper's page or a product the conversation is on is one of them
            if each == asked and facts.catalog.named(asked) is None:
                said = facts.catalog.titles_said(asked)
                if not _known_among(said, page, focus, listed, facts):
                    each = of_models(asked, said)
            asked = each
        if focus is None:  # "can I use two of them?" after gift cards (a product's "them" is
            # the product the conversation is on)
            asked = resolve_plural(asked, last, facts.vocabulary.holds_phrase)
            # "how much?" after "do you deliver to jersey?": asked of what that asked of
            # "I placed the order 2 hours ago" after "can I change my delivery address?"
            recent = _recent_readings(turns, facts.vocabulary)
            named = next((read for said, read in recent if not is_bare(said)), "")
            asked = resolve_statement(resolve_bare(asked, named), named)
            # "do I pay customs?" after "do you ship to canada?": to Canada (or after "do you
            # ship to the usa?" and "which courier do you use for that?": the last that asked
            # about goods going to a place)
            places = facts.vocabulary.places
            destined = next((read for _, read in recent if places.destinations(read)), "")
            asked = places.carried(asked, destined or named)
            # "do you ship to the usa?": to the rest of the world, which the pages list it in (a
            # product's own lines say where it may go: "the PowerCell to Canada?")
            asked = facts.vocabulary.places.with_catch_all(asked)
            if asks_comparison(question) and not facts.catalog.compared(question):
                # "which one is lightest?" of the products the last answer listed
                titles = [p.title for d in listed if (p := facts.catalog.document(d))]
                asked = among(asked, titles)
            # "how do I return some boots?": the FAQ "How do I return an item?", not the boots'
            # care lines, when the pages have no rule of their own for boots
            general = facts.items.read(asked)
            if general is not None and await self._search.faq_asked(general, facts):
                asked = general
        else:  # "can I swap my Haworth boots for a bigger size?": the shop's exchanges, not the
            # boots' sizes (a kind with a rule of its own keeps its product: a pitched tent)
            just_shown = (turns[-1].shown or turns[-1].answer) if turns else ""
            general = facts.items.read_of(asked, focus.product.title, just_shown)
            if general is not None and await self._search.faq_asked(general, facts):
                asked, focus = general, None
        # "the zip on my jacket broke": what to do about a faulty item, not the jacket's zip;
        # unless an FAQ on that problem asks it in the shopper's words ("My waterproof jacket
        # is letting water in. Is it faulty?")
        earlier = read_question(last, "", facts.vocabulary)
        problem = reported_problem(read_question(question, "", facts.vocabulary), earlier)
        if problem is not None:
            faq = await self._search.faq_asked(question, facts)
            if faq is None or reported_problem(faq) is None:
                return problem, None, True
        return asked, focus, False

    def _listing(
        self, question: str, facts: PageFacts, retrieved: list[ScoredPassage]
    ) -> tuple[Listed, list[ScoredPassage]] | None:
        """What ``question`` asks the shop's range of ("What headlamps do you sell?") and the
        records of the catalogue's products of that kind, each with its retrieval score (0 when
        not retrieved); None when it asks no such thing or the catalogue has none of that kind."""
        listed = asks_for_list(question)
        records = facts.catalog.of_kind(listed.words) if listed is not None else []
        cut = for_whom_only(listed) if listed is not None and not records else None
        if listed is not None and cut:  # "do you have anything for kids?"
            records = facts.catalog.cut_for(cut)
            listed = dataclasses.replace(listed, kind=f"products for {listed.kind}")
        elif listed is not None and not records and (cut_of := cut_and_kind(listed)):
            # "do you sell women's jackets?": the jackets cut for women
            cut, kind = cut_of
            records = facts.catalog.of_kind(kind, cut)
        elif listed is not None and not records and listed.use is None:
            # "do you sell gas?": the Gas Canisters
            records = facts.catalog.titled_with(listed.words)
            listed = dataclasses.replace(listed, kind=f"{listed.kind} products")
        if listed is None or not records:
            return None
        scores = {hit.passage.id: hit.score for hit in retrieved}
        return listed, [ScoredPassage(r, scores.get(r.id, 0.0)) for r in records]

    def _list(self, outcome: TurnOutcome, listed: Listed, records: list[ScoredPassage]) -> str:
        """The catalogue's products of the asked kind, phrased by template, each cited."""
        shown = records[:MAX_LISTED]
        answer = listing_answer(listed, [r.passage for r in shown], of=len(records))
        # the one product of its kind is what the conversation is on: "what sizes?" next
        return self._from_catalogue(outcome, answer, shown, one=len(records) == 1)

    def _rank(self, outcome: TurnOutcome, ranking: Ranking) -> str:
        """The product asked for by a superlative, with each product's measuring line cited."""
        shown = [ScoredPassage(m.passage, 0.0) for m in ranking.ranked]
        outcome.evidence = tuple(
            Evidence(number, m.line) for number, m in enumerate(ranking.ranked, start=1)
        )
        # the product named first is what the conversation goes on about: "how much is it?"
        return self._from_catalogue(outcome, ranking.answer(), shown, one=True)

    def _from_catalogue(
        self, outcome: TurnOutcome, answer: str, shown: list[ScoredPassage], *, one: bool
    ) -> str:
        """``answer``, made from the records of ``shown`` (each cited by its place), as the
        turn's; ``one``: the first product is what the conversation is on from here."""
        outcome.passages, outcome.composed = shown, True
        outcome.answer_policy = self._options.answer_policy
        outcome.answered = True
        outcome.listed = tuple(r.passage.document_id for r in shown)
        outcome.product = outcome.listed[0] if one else None
        outcome.answer = outcome.note = answer
        outcome.citations = cited(answer, shown)
        outcome.groundedness = groundedness(answer, shown)
        return outcome.answer

    async def _decline(
        self, session_id: str, question: str, screening: Screening
    ) -> AsyncIterator[ChatEvent]:
        """A fixed answer to an attack: nothing retrieved or generated, so nothing to leak."""
        answer = screening.decline(shop=self._options.shop_name)
        logger.info("declined a message: %s (%s)", screening.reason, ", ".join(screening.features))
        async for event in self.say(session_id, question, answer, blocked=screening.reason):
            yield event

    def clean(self, message: str) -> str:
        """``message`` as a turn takes it; raises InvalidMessageError when it cannot be one."""
        return clean_message(message, max_chars=self._options.max_message_chars)

    async def say(
        self, session_id: str, question: str, answer: str, *, blocked: str | None = None
    ) -> AsyncIterator[ChatEvent]:
        """A fixed ``answer`` to ``question`` (a hand-off's, an attack's decline), stored as the
        conversation's turn; nothing retrieved or generated. ``blocked``: the defence that
        declined the message, if one did."""
        started = time.perf_counter()
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
                blocked=blocked,
            )
            outcome.note = answer
            yield Delta(answer)
            await self._store.append(
                session_id, Turn(question, "", at=time.time(), shown=answer, answered=False)
            )
        outcome.timings["total"] = time.perf_counter() - started
        yield Done(outcome)

    def _decline_honestly(
        self, outcome: TurnOutcome, reason: str, *, product: str = "", missing: str = ""
    ) -> None:
        """The shop's pages do not hold the answer: say so, offer a person, call no model."""
        outcome.answered = False
        outcome.declined = reason
        shop = self._options.shop_name
        outcome.answer = outcome.note = decline(reason, shop=shop, product=product, missing=missing)

    async def _answer(
        self,
        outcome: TurnOutcome,
        turns: list[Turn],
        question: str,
        vector: np.ndarray,
        focus: Focus | None,
        facts: PageFacts,
        answering: str | None,
        *,
        sorry: bool = False,
    ) -> AsyncIterator[str]:
        """Choose the shop's lines that answer; decline, compose or generate-and-check.
        ``answering``: the passage the pages' structure says answers, if any (the FAQ asked
        in other words, the table whose column is asked, the section whose heading is named);
        ``sorry``: the shopper reported a problem, which the answer is sorry to hear."""
        earlier = [t for t in turns if (t.shown or t.answer) not in self._withheld]
        prompt = self._prompt(outcome, earlier, question)
        # the shop's lines are chosen and checked in the passages whole; the prompt holds what
        # fits its budget (a record's Specs line may be past it)
        passages = outcome.passages
        mark = time.perf_counter()
        last = turns[-1].question if turns else ""
        places = facts.vocabulary.places.asked_in(
            question, read_question(last, "", facts.vocabulary)
        )
        selection = await self._select(
            question, vector, turns, passages, focus, answering, places, facts
        )
        outcome.product = _product_of(selection, passages, facts.catalog, outcome.product)
        outcome.listed = _compared(question, selection, passages)
        about = _asked_about(selection, focus, facts.catalog)
        verdict_of = functools.partial(
            judge,
            question,
            selection,
            passages,
            facts.vocabulary,
            catalog=facts.catalog,
            product=about,
            min_coverage=self._options.min_coverage,
            earlier=turns[-1].question if turns else "",
            said=outcome.question,
            topics=facts.pages.topic_words,
        )
        verdict = verdict_of()
        if verdict.partial:  # the lines may hold the question's words in other words
            near = await self._near_words(question, selection)
            verdict = verdict_of(near=near) if near else verdict
        outcome.timings["evidence"] = time.perf_counter() - mark
        outcome.answer_policy = self._options.answer_policy
        lines = [e for e in selection.shown if not self._leaks.leaked(e.text)]
        if not verdict.answerable:
            if about is not None:  # declined of it: the conversation stays on the product asked
                outcome.product = about.document_id  # about, not the record its lines were of
            title = about.title if about is not None else facts.catalog.common_name(question)
            reason = verdict.reason or "no_match"
            self._decline_honestly(outcome, reason, product=title, missing=verdict.missing)
            if reason in WITH_CLOSEST_LINES and lines:  # what the pages do say, as such
                outcome.evidence, outcome.composed = tuple(lines), True
                shown = "".join(declined_with_lines(outcome.note, lines, passages))
                yield shown
                self._finish(outcome, lines, passages, shown)
            else:
                yield outcome.answer
            return
        policy = self._options.answer_policy
        covered = facts.vocabulary.places.note(outcome.question)  # "Belfast under Northern …"
        covered = f"{SORRY} {covered}".strip() if sorry else covered
        if verdict.partial and lines:  # the closest lines as such, and a person offered
            outcome.evidence, outcome.composed = tuple(lines), True
            outcome.declined, outcome.note = "partial", PARTIAL.strip()
            pieces = composed_pieces(lines, passages, partial=True, covered=covered)
            shown = "".join(pieces) + PARTIAL
            yield shown
            self._finish(outcome, lines, passages, shown)
            return
        shown = ""
        if policy != "generative" and lines:  # the shop's own words first, at once
            outcome.evidence, outcome.composed = tuple(lines), True
            own_faq = answers_faq(question, lines[0], passages)  # in the shopper's own words
            stated = plain_answer(
                question,
                lines[0].text,
                product=selection.product,
                faq_match=own_faq,
                other=_other_named(lines[0].text, question, selection.product, facts.catalog),
                before=turns[-1].shown if turns else "",
                heading=passages[lines[0].number - 1].passage.heading,
            )
            pieces = composed_pieces(lines, passages, stated=stated, covered=covered)
            for piece in pieces:
                shown += piece
                yield piece
        if policy != "extractive":
            separator = "\n\n" if shown else ""
            generated = self._generate(outcome, prompt, earlier, question, selection, facts)
            async for text in generated:
                yield separator + text
                shown, separator = shown + separator + text, ""
        rest = self._finish(outcome, lines, passages, shown)
        if rest:
            yield rest

    def _prompt(self, outcome: TurnOutcome, earlier: list[Turn], question: str) -> AssembledPrompt:
        prompt = self._assemble(
            earlier, outcome.passages, question, passage_tokens=self._options.passage_tokens
        )
        outcome.prompt_tokens_budgeted = prompt.tokens
        outcome.turns_dropped = prompt.turns_dropped
        return prompt

    async def _select(
        self,
        question: str,
        vector: np.ndarray,
        turns: list[Turn],
        passages: list[ScoredPassage],
        focus: Focus | None,
        answering: str | None,
        places: Sequence[str],
        facts: PageFacts,
    ) -> Selection:
        """The lines that answer; ``places``: those the question names that the pages name too
        ("Canada"), whose sections' lines are the ones about it; ``facts``: which products a
        help page's line names, and the help pages' topics."""
        self.warm_lines()
        found = units(passages)
        texts = [unit.text for unit in found]
        lines = await self._lines.vectors(texts) if texts else None
        similarity = lines @ vector if lines is not None else []
        if lines is not None and focus is None:  # "how do I wash my down jacket?": no fleece's
            similarity = np.where(of_kinds_asked(question, found), similarity, -1.0)
        parts: list[tuple[str, list[float]]] = []
        if lines is not None:  # each question of a message that asks several, its own lines
            for part in asked_questions(question):
                cosines = lines @ await self._encoder.encode(part)
                parts.append((part, [float(x) for x in cosines]))
        earlier = [t.question for t in reversed(turns)][: self._options.history_turns_for_retrieval]
        # the page's product; the one talked about, or named by the catalogue's reading (a
        # line's name alone: "the skiddaw"), when its record is among the passages (else the
        # conversation's words say which it is)
        about = focus.product.title if focus is not None else None
        if focus is not None and not focus.page and all(h.passage.title != about for h in passages):
            about = None
        return select_evidence(
            question,
            earlier,
            passages,
            [float(x) for x in similarity],
            about=about,
            parts=parts,
            answering=answering,
            places=places,
            titles_named=facts.catalog.titles_named,
            topics=facts.pages.topics,
        )

    async def _near_words(self, question: str, selection: Selection) -> frozenset[str]:
        """The question's words that the chosen lines hold in other words (one embedder call
        for the question and its lines, off the event loop)."""
        threshold = self._options.near_word_similarity
        if self._words is None or threshold <= 0 or not selection.lines:
            return frozenset()
        texts = [question, *(line.text for line in selection.lines)]
        found = await asyncio.to_thread(self._words.word_vectors, texts)
        return near_question_words(question, found, threshold=threshold)

    def warm_lines(self) -> None:
        """Start embedding every quotable line of a newly served version, in the background."""
        version = self._retriever.index.current().version
        if version.id != self._lines.warmed_version:
            questions = [p.title for p in faq_questions(version.passages)]  # asked by meaning
            self._lines.warm_soon(version.id, [*quotable_lines(version.passages), *questions])

    async def _facts(self) -> PageFacts:
        """The served version's vocabulary and catalog, worked out once per version off the
        event loop (about 0.6 s for 10,000 passages), shared by the turns that wait for them."""
        version = self._retriever.index.current().version
        if self._page_facts is None or self._page_facts[0] != version.id:
            counting = asyncio.to_thread(PageFacts.of, version.passages)
            self._page_facts = (version.id, asyncio.ensure_future(counting))
        return await self._page_facts[1]

    async def _generate(
        self,
        outcome: TurnOutcome,
        prompt: AssembledPrompt,
        earlier: list[Turn],
        question: str,
        selection: Selection,
        facts: PageFacts,
    ) -> AsyncIterator[str]:
        options = self._options
        shown_lines = [e.text for e in selection.shown]
        # beside the shop's lines (the verified policy), the model may only restate them
        restating = options.answer_policy == "verified" and bool(shown_lines)
        given = prompt
        if restating and options.generation_passages == "evidence":
            given = self._evidence_prompt(outcome.passages, earlier, question, selection)
            outcome.prompt_tokens_budgeted = given.tokens
        request = GenerationRequest(
            request_id=f"{outcome.session_id[:8]}-{outcome.turn_index}-{uuid.uuid4().hex[:8]}",
            prompt=given.text,
            max_tokens=options.max_answer_tokens,
            temperature=options.temperature,
            frequency_penalty=options.frequency_penalty,
            stop=STOP_SEQUENCES,  # small models go on to write the next exchange of the layout
            session_id=outcome.session_id,  # a fleet's router keeps the conversation on one engine
        )
        guard = answer_guard(
            self._leaks,
            allowed=grounding_text(
                outcome.passages, question, *(f"{t.question}\n{t.answer}" for t in earlier)
            ),
        )
        checking = [0.0]

        def check(sentence: str) -> str | None:
            started = time.perf_counter()
            try:
                reason = check_sentence(
                    sentence,
                    passages=outcome.passages,
                    question=question,
                    product=selection.product,
                    evidence=shown_lines,
                )
                if reason is None and facts.catalog.unsold(sentence):
                    return UNSOLD_PRODUCT  # the shop's line saying it does not sell it is shown
                if (
                    reason is None
                    and restating
                    and not restates(
                        sentence,
                        cited_lines(sentence, selection.shown),
                        question=question,
                        product=selection.product,
                        answer=shown_lines[0],
                    )
                ):
                    return NOT_RESTATED
                return reason
            finally:
                checking[0] += time.perf_counter() - started

        gate = SentenceGate(
            check,
            outcome.passages,
            known=shown_lines,
            question=question,
            stop_after_dropped=options.stop_after_dropped,
        )
        mark = time.perf_counter()
        first = True
        stream = self._engine.stream(request)
        try:
            async for chunk in stream:
                if chunk.text:
                    if first:
                        outcome.timings["first_token"] = time.perf_counter() - mark
                        first = False
                    shown = gate.feed(guard.feed(chunk.text))
                    if shown:
                        yield shown
                    if guard.blocked is not None or gate.stopped:
                        break  # nothing more of this answer would be shown
                if chunk.stats is not None:
                    outcome.stats = chunk.stats
        finally:
            if isinstance(stream, AsyncGenerator):
                await stream.aclose()
        rest = gate.feed(guard.finish()) + gate.finish()
        if rest:
            yield rest
        outcome.timings["generate"] = time.perf_counter() - mark
        outcome.timings["queue"] = outcome.stats.queue_s
        outcome.timings["prefill"] = outcome.stats.prefill_s
        outcome.timings["decode"] = outcome.stats.decode_s
        outcome.model_text = gate.text
        outcome.dropped = gate.dropped
        outcome.timings["claims"] = checking[0]
        if guard.blocked is not None:  # the shop's own lines still answer (see _finish)
            outcome.blocked = guard.blocked
            logger.warning("cut an answer short (%s) in turn %s", guard.blocked, request.request_id)

    def _evidence_prompt(
        self,
        passages: list[ScoredPassage],
        earlier: list[Turn],
        question: str,
        selection: Selection,
    ) -> AssembledPrompt:
        """The verified policy's generation prompt: the passages the shown lines come from,
        cited by their numbers in the turn's prompt. The model may only restate those lines
        (`claims.restates`), so the other passages would only be prefilled, not used."""
        numbers = sorted({line.number for line in selection.shown})
        shown = [passages[n - 1] for n in numbers]
        return self._assemble(earlier, shown, question, numbers=numbers)

    def _assemble(
        self,
        earlier: list[Turn],
        passages: list[ScoredPassage],
        question: str,
        *,
        passage_tokens: int | None = None,
        numbers: list[int] | None = None,
    ) -> AssembledPrompt:
        options = self._options
        return assemble_prompt(
            system=self._format.system,
            history=[HistoryTurn(t.question, t.answer) for t in earlier],
            passages=passages,
            question=question,
            render=self._format.render,
            count_tokens=self._format.count_tokens,
            budget_tokens=options.context_tokens - options.max_answer_tokens,
            passage_tokens=passage_tokens,
            numbers=numbers,
        )

    def _finish(
        self,
        outcome: TurnOutcome,
        lines: list[Evidence],
        passages: list[ScoredPassage],
        shown: str,
    ) -> str:
        """Settle the answer from what was shown; returns what is still to be shown (the shop's
        lines when the generative policy's model said nothing that passed, a caution, a
        decline)."""
        said = outcome.model_text
        rest = ""
        if not shown.strip() and lines:  # generative, nothing of the model's passed
            outcome.evidence, outcome.composed = tuple(lines), True
            rest = "".join(composed_pieces(lines, passages))
        answer = (shown + rest).strip()
        outcome.groundedness = groundedness(answer, passages)
        outcome.citations = cited(answer, passages)
        if said and not outcome.evidence and outcome.groundedness < self._options.min_groundedness:
            outcome.note = LOW_GROUNDEDNESS_NOTE.strip()
            rest += LOW_GROUNDEDNESS_NOTE
            answer += LOW_GROUNDEDNESS_NOTE
        if not answer:
            if outcome.blocked is not None:
                outcome.answer = outcome.note = WITHHELD.format(shop=self._options.shop_name)
            else:
                self._decline_honestly(outcome, "no_match")
            return outcome.answer
        outcome.answer = answer
        return rest


def _known_among(
    said: Sequence[str],
    page: str | None,
    focus: Focus | None,
    listed: Sequence[str],
    facts: PageFacts,
) -> bool:
    """Whether the product of the shopper's ``page``, the one the conversation is on
    (``focus``), or one the last answer ``listed`` (document ids) is one of the titles a
    question ``said`` alike ("how much is the helvellyn fleece?" on the Helvellyn 300's page:
    the 300; "what sizes does the Little Fell come in?" after the kids' boots were listed: the
    boots)."""
    viewed = facts.catalog.find(page) if page else None
    shown = [facts.catalog.document(d) for d in listed]
    known = {p.title for p in (viewed, focus.product if focus else None, *shown) if p}
    return bool(known & set(said))


def _recent_readings(turns: list[Turn], vocabulary: Vocabulary) -> list[tuple[str, str]]:
    """The conversation's last three questions, newest first, each as the shopper wrote it and
    as its turn read it ("do you deliver to jersey?" before "how much?")."""
    return [(t.question, read_question(t.question, "", vocabulary)) for t in reversed(turns[-3:])]


def _asked_about(selection: Selection, focus: Focus | None, catalog: Catalog) -> Product | None:
    """The product the question is about: the one the conversation names, else the page's or
    the one the last answer was about."""
    named = catalog.titled(selection.product) if selection.product else None
    return named or (focus.product if focus is not None else None)


def _product_of(
    selection: Selection, passages: list[ScoredPassage], catalog: Catalog, focus: str | None
) -> str | None:
    """The product the turn leaves the conversation on: none when the question asked a help
    page's topic and a help page answers ("Can I return a tent I pitched once?" after the
    tent's weight: "How long do I have?" is then about returns, not the tent); else the one the
    conversation names; else the record the best line comes from ("which headlamp takes AAA?"
    answered from the Beacon 400's); else ``focus``, the product the turn was about."""
    best = passages[selection.lines[0].number - 1].passage if selection.lines else None
    if selection.topic and best is not None and best.kind != "product":
        return None
    named = catalog.titled(selection.product) if selection.product else None
    if named is not None:
        return named.document_id
    if best is not None and best.kind == "product":
        return best.document_id
    return focus


def _other_named(line: str, question: str, product: str | None, catalog: Catalog) -> str | None:
    """The title of another product than ``product`` that ``line`` names and ``question`` does
    not ("Fits under the Torridon 3L Waterproof Jacket" in the Cairngorm's record)."""
    named = catalog.named(line)
    if named is None or named.title == product or catalog.named(question) is named:
        return None
    return named.title


def _compared(
    question: str, selection: Selection, passages: list[ScoredPassage]
) -> tuple[str, ...]:
    """The products a comparison's answer shows (document ids), in its order, which "the second
    one" next picks from; () for any other answer."""
    if not asks_comparison(question):
        return ()
    shown = [passages[e.number - 1].passage for e in selection.shown]
    records = tuple(dict.fromkeys(p.document_id for p in shown if p.kind == "product"))
    return records if len(records) > 1 else ()
