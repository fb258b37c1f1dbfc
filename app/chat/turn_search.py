"""History-aware retrieval for one chat turn.

A turn is searched with more than its own words: the question blended with the recent ones
(a follow-up's "and in blue?" is about what came before), the recent questions' words for the
lexical side, the name of the product "it" is (the page's product, or the one the conversation
is on), and each further question of a message that asks two ("will it fit in the Ridgeline
65+10, and how long is its warranty?") searched on its own. The product of the shopper's page
is preferred: its passages are ranked first; so is the size table's row holding a body
measurement the question gives ("a 104 cm chest"). A product the question names keeps a place
("is the waymark 3 waterproof?" is not the waterproof jackets'), and a help page's topic asked
of it is searched without its name when its records took every place ("i want to return my
nightjar 300"); asked of the product "it" is, a help page's topic is searched for the kind the
product is ("can i return them?" on a sock's page: the returns page's line on socks).
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from app.chat.answerability import asks_price
from app.chat.catalog import Focus, Product
from app.chat.evidence import (
    asked_stems,
    asks_comparison,
    asks_what_it_is,
    differing,
    elliptical,
    stem,
    stems,
    units,
)
from app.chat.faq_questions import paraphrased_faq
from app.chat.page_facts import PageFacts
from app.chat.reading import read_question
from app.retrieval.line_vectors import LineVectors
from app.retrieval.published_index import ScoredPassage
from app.retrieval.query_encoder import QueryEncoder
from app.retrieval.retriever import Retrieval, Retriever
from app.retrieval.rewrite import query_texts, question_parts
from app.sessions.base import Turn
from app.sessions.turn_vectors import TurnVectorCache


class Found(NamedTuple):
    vector: np.ndarray  # the question's own, kept for the next turns' blend
    in_conversation: np.ndarray  # blended with the recent questions'
    retrieval: Retrieval
    # the passage the pages' structure says answers: the FAQ the message asks in other words,
    # the table whose column it asks, the section whose heading it names
    answering: str | None


class TurnSearch:
    def __init__(
        self,
        *,
        encoder: QueryEncoder,
        retriever: Retriever,
        turn_vectors: TurnVectorCache,
        history_weights: tuple[float, ...],
        history_turns: int,
        lines: LineVectors,
        paraphrase_cosine: float,
    ) -> None:
        """``lines``: the cache of line vectors, which holds the FAQs' questions' too;
        ``paraphrase_cosine``: how close a message must be to an FAQ's question to ask it (0:
        never by meaning alone)."""
        self._encoder = encoder
        self._lines = lines
        self._paraphrase = paraphrase_cosine
        self._retriever = retriever
        self._vectors = turn_vectors
        self._weights = history_weights
        self._turns = history_turns

    async def find(
        self,
        session_id: str,
        question: str,
        turns: list[Turn],
        focus: Focus | None,
        facts: PageFacts,
        timings: dict[str, float],
    ) -> Found:
        """The question's own vector (kept for the next turns' blend), the question in its
        conversation (blended with the recent questions' vectors: what a follow-up's words
        are compared with), the turn's passages and the FAQ the question asks in other words
        (searched first); adds ``embed`` and ``search`` to ``timings``."""
        mark = time.perf_counter()
        vector = await self._encoder.encode(question)
        cuts = facts.catalog.cuts_named(question)
        since = len(turns) if new_subject(question, turns, focus, cuts) else _topic_start(turns)
        recent = list(range(max(since, len(turns) - self._turns), len(turns)))
        previous = await self._vectors.get(session_id, recent)
        timings["embed"] = time.perf_counter() - mark

        mark = time.perf_counter()
        queries = [vector]
        if previous:
            queries.append(self._vectors.blend(vector, previous, self._weights))
        # the recent questions as their turns read them: "do you deliver to france?" searched
        # with the region the pages name ("the EU"), which a follow-up goes on asking about
        earlier = [read_question(turns[i].question, "", facts.vocabulary) for i in recent]
        texts = query_texts(question, earlier, turns=self._turns)
        about = f"{focus.product.title}: " if focus is not None else ""
        if focus is not None and not focus.named:  # "is it waterproof?": say what "it" is
            queries.append(await self._encoder.encode(about + question))
            texts.append(about + question)
        searches = [(queries, texts)]
        for part in question_parts(question)[1:]:  # a further question in the message
            searches.append(([await self._encoder.encode(about + part)], [part]))
        page = focus.product.title if focus is not None and focus.page else None
        # the product asked of, or the first of the cuts named alike ("the torridon jacket":
        # the men's and the women's are of one kind)
        cut = cuts[0] if focus is None and cuts else None
        asked_of = focus.product if focus is not None else cut
        first: list[str] = []
        answering = None
        asked = asked_stems(question)
        both = facts.catalog.compared(question) if asks_comparison(question) else []
        if both:
            # "Which is lighter, the Stormhollow 2 or the 3?": each one's field asked for, else
            # ("what's the difference between the torridon and the skiddaw?") its description
            first = [
                i for product in both
                for i in (facts.catalog.holding(product, asked - stems(product.title) - differing())
                          or facts.catalog.describing(product))[:1]
            ]  # fmt: skip
        elif focus is not None and asks_what_it_is(question, focus.product.title, asked):
            first = facts.catalog.describing(focus.product)  # "Tell me about the Stormhollow 2"
        elif focus is not None and not focus.named:  # "how much is it?": its Price line
            first = facts.catalog.holding(focus.product, asked)[:2]
        elif (
            focus is not None
            and asks_price(question)
            and asked <= (stems(focus.product.title) | _PRICE_STEMS)
        ):  # "how much is the stormhollow 2?": its Price line, not only its footprint's
            first = facts.catalog.holding(focus.product, asked)[:1]
        elif focus is None and cut is None and not (recent and _POINTS_BACK.search(question)):
            # "What is your warranty?": its introduction; "How much is delivery?": the Delivery
            # page's first table with a Cost column (not when "it" is what the conversation is
            # about: "how long do you keep it?" after click and collect asks no column, section
            # or table of the privacy page's "How long we keep it")
            answering = facts.pages.table_asked(question)
            if answering is None:  # "help me cancelling purchase 3707955617": the FAQ "Can
                # I change or cancel my order?", not the page "Changing or Cancelling an Order"
                answering = await self._paraphrased(question, vector, facts)
            first = [] if answering else facts.pages.introducing(asked)
            opening = facts.pages.first_section(first[0]) if first else None
            if opening is not None:  # "how can I contact you?": not "This page lists every
                answering, first = opening, [opening]  # way to reach us", its first section
            if not first and answering is None:  # "whats your email": "Email and contact form"
                answering = facts.pages.section_named(question)
            first = first or ([answering] if answering else [])
            if not first:  # "what time does live chat close on a saturday": its table's row
                cell = facts.pages.cell_asked(asked)
                first = [cell] if cell else []
        if asked_of is not None and not first:
            # "what's the warranty on the cairngorm 800?": the row of its kind ("Insulated
            # jackets, …") of the table whose column the question asks and its record does not
            own = stems(asked_of.title) | facts.catalog.fields_of(asked_of)
            row = facts.pages.row_of_kind(asked - own, facts.catalog.kinds(asked_of))
            first = [row, *facts.catalog.describing(asked_of)] if row else []
        if focus is not None and not focus.named and not first:
            # "can i return them?" on a sock's page: the returns page's line on socks
            first = await self._of_kind(question, asked, focus, facts)
        # "I'm a 104 cm chest, what size torridon?": the row of the size table measuring it
        first += [row for row in facts.pages.measured(question) if row not in first]
        # the product the question names, or the cuts it names alike ("is the scafell mid ok
        # with crampons?": the men's and the women's records, though no line is near enough)
        named = (
            [focus.product.title] if focus is not None and focus.named else [p.title for p in cuts]
        )
        if len(searches) == 1:
            retrieval = self._retriever.search(
                queries, texts, prefer=page, first=first, named=named
            )
        else:
            retrieval = self._retriever.search_parts(
                searches, prefer=page, first=first, named=named
            )
        alone = len(searches) == 1 and not (first or both)
        topic = self._topic_asked(question, asked, named, facts) if alone else ""
        if topic and all(hit.passage.kind == "product" for hit in retrieval.passages):
            # "i want to return my nightjar 300": its records' passages took every place, the
            # returns page none; searched again with the question without the name too
            queries.append(await self._encoder.encode(topic))
            texts.append(topic)
            retrieval = self._retriever.search(
                queries, texts, prefer=page, first=first, named=named
            )
        if not retrieval.passages and earlier:
            # nothing near enough: a follow-up read with the question before it, in one ("What's
            # the smallest order I can use that for?" after "How does the Pay in 3 option work?")
            queries.append(await self._encoder.encode(f"{earlier[-1]} {question}"))
            retrieval = self._retriever.search(
                queries, texts, prefer=page, first=first, named=named
            )
        if named and not first:
            retrieval = await self._with_named(retrieval, named, question, vector)
        timings["search"] = time.perf_counter() - mark
        return Found(vector, queries[1] if previous else vector, retrieval, answering)

    async def _of_kind(
        self, question: str, asked: frozenset[str], focus: Focus, facts: PageFacts
    ) -> list[str]:
        """The help page passage nearest ``question`` asked of the kind ``focus``'s product is
        ("Socks: can i return them if i've worn them?": the returns page's items it can't
        accept), of a page titled with the topic's word, when the question asks a help page's
        topic no field of the record names and says no product's name ("them" of the page's
        product); [] otherwise."""
        kind = facts.catalog.category(focus.product)
        topic = self._topic_asked(question, asked, [focus.product.title], facts)
        if not kind or not topic:
            return []
        # a passage of the page (or FAQ) titled with the topic's word: "Waterproof jackets: can
        # i return it?" finds the leaking-jacket FAQ first, the warranty page's "return it to
        # you" next; else the topic searched alone
        words = (asked - stems(focus.product.title)) & facts.pages.topics
        for text in (f"{kind}: {topic}", topic):
            found = self._retriever.search([await self._encoder.encode(text)], [text])
            for hit in found.passages:
                if hit.passage.kind != "product" and words & stems(hit.passage.title):
                    return [hit.passage.id]
        return []

    @staticmethod
    def _topic_asked(
        question: str, asked: frozenset[str], named: list[str], facts: PageFacts
    ) -> str:
        """``question`` without the name of the product it names (``named``: its titles), when
        what it asks of the product holds a help page's topic (a word of a page's title:
        "return") that no field of its record names ("i want to return my nightjar 300": "i
        want to return my"); "" otherwise."""
        if not named:
            return ""
        products = [p for t in named if (p := facts.catalog.titled(t)) is not None]
        fields = frozenset().union(*(facts.catalog.fields_of(p) for p in products))
        name = _name_stems(named)
        of_it = asked - name
        if (of_it & facts.pages.topics) - fields:
            return without_name(question, name)
        return ""

    async def _with_named(
        self, retrieval: Retrieval, named: list[str], question: str, vector: np.ndarray
    ) -> Retrieval:
        """``retrieval`` with the named product's passage that holds the line nearest the
        question in the place of the last other product's passage, when none of the named one's
        was kept ("is the waymark 3 waterproof?": the waterproof jackets' records, not the GPS's
        "Water resistance: IPX7"); as it was when one of its passages is kept, or no other
        product's (the help pages' lines answer)."""
        served = self._retriever.index.current()
        titles = set(named)
        if served.version.id != retrieval.index_version or any(
            hit.passage.title in titles for hit in retrieval.passages
        ):
            return retrieval
        others = [i for i, hit in enumerate(retrieval.passages) if hit.passage.kind == "product"]
        if not others:
            return retrieval
        rows = [row for title in named for row in served.rows_titled(title)]
        own = [ScoredPassage(served.version.passages[row], 0.0) for row in rows]
        lines = units(own)
        if not lines:
            return retrieval
        # compared with what the question asks of it, its name cut ("is the waymark 3
        # waterproof?" as "is the waterproof?"): the name would draw the record's opening
        name = _name_stems(named)
        closeness = await self._lines.vectors([line.text for line in lines]) @ (
            await self._encoder.encode(without_name(question, name))
        )
        best = int(np.argmax(closeness))
        row = rows[lines[best].number - 1]
        score = float(served.similarity([row], vector[None, :]).max())
        hit = ScoredPassage(served.version.passages[row], score)
        kept = list(retrieval.passages)
        kept[others[-1]] = hit
        return replace(retrieval, passages=kept)

    async def faq_asked(self, message: str, facts: PageFacts) -> str | None:
        """The question of the shop's FAQ that ``message`` asks in other words, if any."""
        found = await self._paraphrased(message, await self._encoder.encode(message), facts)
        return next((faq.title for faq in facts.pages.faqs if faq.id == found), None)

    async def _paraphrased(self, message: str, vector: np.ndarray, facts: PageFacts) -> str | None:
        """The id of the FAQ ``message`` (``vector``: its own) asks in other words, if any."""
        return await paraphrased_faq(
            message,
            vector,
            facts.pages.faqs,
            self._lines,
            threshold=self._paraphrase,
            kinds=facts.catalog.kind_names(),
        )

    async def remember(self, session_id: str, index: int, vector: np.ndarray) -> None:
        """Keep the turn's vector for the next turns' blend."""
        await self._vectors.put(session_id, index, vector)


_PRICE_STEMS = asked_stems("how much is it, what's the price, what does it cost?")
_POINTS_BACK = re.compile(r"\b(?:it|that|this|them|they|those|these)\b", re.IGNORECASE)


def _topic_start(turns: list[Turn]) -> int:
    """Where the conversation's current topic starts: at the latest turn that left a product
    for a help page's topic (its product none, the turn before's some: "Can I return a tent I
    pitched once?" after the tent's weight), so that "How long do I have?" next is searched
    with the returns question, not the tent's weight; 0 when it never left one."""
    for index in range(len(turns) - 1, 0, -1):
        if turns[index].product is None and turns[index - 1].product is not None:
            return index
    return 0


def new_subject(
    question: str, turns: list[Turn], focus: Focus | None, cuts: Sequence[Product]
) -> bool:
    """``question`` leaves the last turn's product for another it names, and asks its own
    question of it ("what sizes does the torridon jacket come in for men?" after "how much is
    the helvellyn fleece?"): searched on its own words, not blended with the fleece's. Not
    when it goes on from the last one ("and the women's?", "is it lighter than that?") or
    compares ("which is warmer, …"), nor when the last turn was on a help page's topic ("can i
    return the helvellyn?" after the returns policy goes on with it)."""
    last = turns[-1].product if turns else None
    if last is None or elliptical(question) or _POINTS_BACK.search(question):
        return False
    if asks_comparison(question):
        return False
    if focus is not None:
        named = [focus.product] if focus.named and not focus.page else []
    else:
        named = list(cuts)
    if not named or any(p.document_id == last for p in named):
        return False
    return bool(asked_stems(question) - _name_stems([p.title for p in named]) - differing())


def _name_stems(titles: list[str]) -> frozenset[str]:
    """The word stems of the products' ``titles``: their names, as a question writes them."""
    return frozenset().union(*(stems(title) for title in titles))


def without_name(question: str, name: frozenset[str]) -> str:
    """``question`` without the words whose stems are in ``name`` (a product's): what it asks
    of the product ("is the waymark 3 waterproof?" as "is the waterproof?")."""
    kept = [w for w in question.split() if stem(w.strip(".,;:!?\"'()").lower()) not in name]
    return " ".join(kept)
