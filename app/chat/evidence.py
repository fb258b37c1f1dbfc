"""The shop's own lines that answer a question: chosen at sentence and field level.

Passages are cut into quotable units (a product record's "Field: value" lines and its "Specs"
fields, prose and FAQ answers as sentences), and each unit is scored by how close it is in
meaning to the question (the embedder's cosine, computed by the caller), how many of the
question's words it holds (compared by their first five letters, with the few ways shoppers name
a record's field mapped to it: "cost" finds "Price", "heavy" finds "Weight"), and whether it
belongs to the product the conversation is about. The best unit is chosen, and a second when
it answers a part of the question the first does not (a comparison, "price and weight").
The units are verbatim substrings of the passage text, so a quotation of one is the shop's own.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.chat.defences.planted_instructions import is_request
from app.chat.products import (
    CUT_WORDS,
    GENERIC,
    PRODUCT_CODE,
    compared,
    cuts,
    kinds_named,
    name_words,
    named_titles,
    names,
    subject,
    tokens,
)
from app.index.passage import TABLE_RULE, Passage
from app.retrieval.published_index import ScoredPassage
from app.retrieval.terms import STOPWORDS, content_words

_LINE = re.compile(r"[^\n]+")
# a sentence ends at . ! ? before a space and a capital, digit, quote or bracket: "1.8 m²",
# "£9.95" and "e.g. a tent" stay whole
_SENTENCE_END = re.compile(r"(?<=[.!?])(?:\*\*)?\s+(?=[A-Z0-9\"“‘(*£])")
_FIELD = re.compile(r"^[A-Z][\w /()&'-]{0,40}:\s")
STEM = 5
MAX_QUOTE_CHARS = 300
# a sentence quoted with the one that completes it may be longer: a whole FAQ answer of two
# sentences ("We process refunds within 5 working days… After that, card refunds take 3–5…")
MAX_CONTINUED_CHARS = 450
# Lines that are scaffolding of a record, not something the shop states.
_NOT_STATEMENTS = ("Question:", "Category:", "SKU:")
# A shopper's word for a product record's field: asked "how much does it cost?",
# the record's "Price (GBP): 39" line answers.
_FIELD_OF_WORD: dict[str, str | tuple[str, ...]] = {
    "cost": "price",
    "costs": "price",
    "cheap": "price",
    "expensive": "price",
    "heavy": "weight",
    "light": "weight",
    "color": "colour",
    "courier": "carrier",  # a delivery table's Carrier column
    "couriers": "carrier",
    "colors": "colour",
    "made": "material",
    "wash": "care",
    "clean": "care",
    "available": ("size", "stock"),
    "stock": "stock",
    "left": "stock",
    "warm": ("temperature", "r-value"),  # a sleeping bag's temperatures, a mat's R-value
    "warmer": ("temperature", "r-value"),
    "warmest": ("temperature", "r-value"),
    "cold": "temperature",
    "tall": "height",
    "deep": ("submersible", "depth"),  # "how deep can it go?": "submersible to 2 m"
    "underwater": ("submersible", "resistance", "water"),
    "big": ("size", "dimensions"),
    "waterproof": ("hydrostatic", "resistance", "water", "rating"),  # "Water resistance: IPX4"
    "last": ("runtime", "burn", "battery"),
    "lasts": ("runtime", "burn", "battery"),
    "comes": ("included", "contents"),
    "come": ("included", "contents"),
    "box": ("included", "contents"),
    "lifetime": ("lifespan", "life"),
    "dunk": ("resistance", "water"),
    "rain": ("hydrostatic", "resistance", "water", "rating"),
    "wet": ("hydrostatic", "resistance", "water", "rating"),
    "stream": ("resistance", "water"),
    "river": ("resistance", "water"),
    "submerge": ("resistance", "water"),
    "bright": ("output", "lumens"),
    "brightness": ("output", "lumens"),
    "far": ("beam", "distance"),
    "run": ("runtime",),
    "runs": ("runtime",),
    "powerful": ("output", "power"),
    "guarantee": "warranty",
    "guaranteed": "warranty",
    "hold": ("capacity", "volume"),
    "holds": ("capacity", "volume"),
    "volume": "capacity",
    "wide": ("width", "dimensions"),
    # "do the poles fold?", "how small does it pack down?": its packed length or size
    "fold": ("packed",),
    "folds": ("packed",),
    "folded": ("packed",),
    "collapse": ("packed",),
    "carry": ("load",),  # "how much weight can I carry in it?": its recommended maximum load
    "lowest": ("temperature", "minimum"),  # "the lowest temperature it's good for?"
    "people": ("berth",),  # "how many people does it sleep?": a tent's "Berth: 2-person"
    "persons": ("berth",),
    # "what can I put in it instead of AAAs?", "any accessories for it?": what it takes
    "instead": ("compatibility",),
    "accessory": ("compatibility",),
    "accessories": ("compatibility",),
}
# a colour asked is asked of the Colours line, whether or not it lists it ("does it come in
# pink?"); not red or white, a light's colours ("Red light: 1 lumen")
_FIELD_OF_WORD |= dict.fromkeys(
    """black blue green yellow pink purple orange grey gray navy brown beige khaki olive teal
    burgundy maroon""".split(),  # noqa: SIM905
    "colour",
)
# a comparison asks the same field: "which is lighter?" its Weight, "brighter" its Output
_FIELD_OF_WORD |= {
    form: _FIELD_OF_WORD[word]
    for word, forms in {
        "heavy": ("heavier", "heaviest"),
        "light": ("lighter", "lightest"),
        "cheap": ("cheaper", "cheapest"),
        "warm": ("warmer", "warmest"),
        "cold": ("colder", "coldest"),
        "tall": ("taller", "tallest"),
        "big": ("bigger", "biggest"),
        "bright": ("brighter", "brightest"),
    }.items()
    for form in forms
}
# Weights of the unit score, fitted on the tuning part of the labelled shop questions.
WORD_WEIGHT = 0.05
PRODUCT_WEIGHT = 0.3
RANK_PENALTY = 0.04
LABEL_WEIGHT = 0.25
# and more for the field a question asks about and nothing else: it outweighs five passages' rank
ONLY_FIELD_WEIGHT = 0.2
SECOND_LINE_MARGIN = 0.4  # a second line must score within this of the first
MAX_ITEMS = 7  # a list's items shown under its lead when the lead is chosen
# An FAQ's answer opens with a whole sentence; a clause cut from a long one is only part of it
_WHOLE_SENTENCE = (".", "!", "?", ".)", ".”", '."')
RANGE_HELD = "#range"  # held by a table row whose range holds a number the question gives
RANGE_WEIGHT = 0.3  # as telling as the product asked about: the measurement's own row
PLACE_HEADING_WEIGHT = 0.15  # a line under a heading naming the place asked, beyond naming it
# An FAQ whose own question holds this share of the shopper's words answers it: its answer's
# opening is ranked up by FAQ_WEIGHT (its words are in its title, so they earn no word weight).
FAQ_MATCH = 0.75
FAQ_WEIGHT = 0.45
# The FAQ closest to the whole question, when this close, answers it with fewer of its words
# ("klarna pay in 3 how does it work lol" of "How does paying with Klarna work?"): its share is
# lifted by FAQ_LIFT (both chosen on the tuning part: 0.60-0.70 and 1.25-1.5 scored alike).
FAQ_COSINE = 0.65
FAQ_LIFT = 1.25


@dataclass(frozen=True)
class Unit:
    """A quotable piece of a passage: ``number`` is the passage's citation number, from 1."""

    number: int
    text: str
    passage: ScoredPassage
    continued: str = ""  # the unit with the sentence after it, verbatim ("" when none)
    # a table row's header row ("| Size | Chest (cm) | Waist (cm) |"), or the lead of a list
    # item ("we can't accept returns of:" above "socks that have been removed …")
    header: str = ""


@dataclass(frozen=True)
class Evidence:
    number: int  # the passage's citation number, from 1
    text: str
    score: float = 0.0


@dataclass(frozen=True)
class Selection:
    """The chosen lines (best first) and the product the question is about, if one is named."""

    lines: tuple[Evidence, ...]
    product: str | None
    held_words: frozenset[str]  # every word stem of the chosen lines, their pages and sections
    # lines shown after the answer's, for a part of the question they did not hold; the verdict
    # on whether the pages answer does not rest on them
    more: tuple[Evidence, ...] = ()
    # the help page topic the question names beside the conversation's product (`_help_topic`)
    topic: frozenset[str] = frozenset()
    # the answer's lines are those of the passage the pages' structure says answers: the
    # opening of the FAQ the question asks in other words (`app.chat.faq_questions`) or of the
    # section whose heading it names, the table whose column it asks (`app.chat.help_pages`)
    answers_as_given: bool = False

    @property
    def shown(self) -> tuple[Evidence, ...]:
        """Every line the shopper is shown: the answer's, then the further ones."""
        return (*self.lines, *self.more)


def units(passages: Sequence[ScoredPassage]) -> list[Unit]:
    """Every quotable unit of ``passages``, in passage order."""
    found: list[Unit] = []
    for number, hit in enumerate(passages, start=1):
        found.extend(
            Unit(number, text, hit, more, header)
            # a product record's "this lamp" is the product, not the sentence before it
            for text, more, header in _quotable(
                hit.passage.text, back=hit.passage.kind != "product"
            )
        )
    return found


# how many of a thing a question asks about ("more than one", "two", "several")
_HOW_MANY = re.compile(
    r"\b(?:more\s+than\s+one|(?:several|multiple|two|three|both|another|second|additional)\b"
    r"|\d+\s+(?:codes?|cards?|items?|orders?|parcels?)\b)",
    re.IGNORECASE,
)


def counts(question: str) -> bool:
    """Whether ``question`` asks how many of a thing ("Can I use more than one discount
    code?"): a question that counts asks another thing than one that does not."""
    return bool(_HOW_MANY.search(question))


def answers_faq(question: str, line: Evidence, passages: Sequence[ScoredPassage]) -> bool:
    """Whether ``line`` opens the shop's FAQ answer to the question the shopper asked: the FAQ's
    own question holds most of the shopper's words, counts what the shopper counts ("more than
    one discount code" is not "a discount code"), and the line is its answer's first."""
    passage = passages[line.number - 1].passage
    if passage.kind != "faq" or _asks(asked_stems(question), passage) < FAQ_MATCH:
        return False
    if counts(passage.title) and not counts(question):
        return False
    opening = next(iter(units([passages[line.number - 1]])), None)
    return opening is not None and line.text.startswith(opening.text[:40])


def quotable_lines(passages: Sequence[Passage]) -> list[str]:
    """Every distinct quotable unit of ``passages``: what the line-vector cache is warmed with."""
    every = [ScoredPassage(p, 0.0) for p in passages]
    return list(dict.fromkeys(unit.text for unit in units(every)))


def select_evidence(
    question: str,
    earlier: Sequence[str],
    passages: Sequence[ScoredPassage],
    similarity: Sequence[float],
    *,
    about: str | None = None,
    max_lines: int = 2,
    more_lines: int = 1,
    parts: Sequence[tuple[str, Sequence[float]]] = (),
    answering: str | None = None,
    places: Sequence[str] = (),
    titles_named: Callable[[str], frozenset[str]] | None = None,
    topics: frozenset[str] = frozenset(),
) -> Selection:
    """The units of ``passages`` that best answer ``question``.

    ``earlier`` holds the conversation's earlier questions, newest first (a follow-up's product
    is named there); ``similarity`` the cosine of the question with each of ``units(passages)``;
    ``about`` the title of the product the turn is about when the question does not name one
    (the shopper's page's, or the one the last answer was about). ``parts`` are the questions of
    a message that asks more than one ("Which pack will the tent fit in, and how long is that
    pack's warranty?"), each with its own cosines: each part's lines are chosen as a question's
    are, so every part is answered. Up to ``max_lines`` lines answer (each part's); up to
    ``more_lines`` further ones, chosen the same way, are shown after them (``Selection.more``)
    but not relied on: whether the pages answer is judged on the answer's own lines.
    ``answering`` is the id of the passage the pages' structure says answers the question: the
    FAQ it asks in other words (`app.chat.faq_questions`) or the section whose heading it names,
    whose opening comes first, or the table whose column it asks, which is the answer whole
    (`app.chat.help_pages`). ``places`` are the places the question names that the pages name
    ("Canada"): the lines of a passage naming one are about it, and are ranked up as a named
    product's record is ("how long does delivery to canada take?" is the Rest of the world
    section's, which lists Canada, not the Northern Ireland FAQ's "takes 3–5 working days").
    ``titles_named`` gives the product titles a text names (the catalogue's reading): a help
    page's line naming other products and not the one asked about is theirs, never its.
    ``topics``: the words of the help pages' titles ("return", "refund"): one the question
    asks of the product it names, and no field of its record, is what its lines are about.
    """
    candidates = units(passages)
    titles = [h.passage.title for h in passages if h.passage.kind == "product"]
    comparing = asks_comparison(question)  # not "does the footprint fit the Stormhollow 3?"
    named_all = compared(question, titles, loosely=comparing)
    if len(named_all) > 1:
        product = None  # a comparison: every product's lines may answer
        if comparing:
            each = _compared_lines(question, earlier, candidates, similarity, passages, named_all)
            if each is not None:
                return each
    else:
        product = subject([question], passages) or about or subject(earlier, passages)
    chosen: list[_Scored] = []
    more: list[_Scored] = []
    topic: frozenset[str] = frozenset()
    table_given: list[_Scored] = []
    page_asked = False  # the question names a help page's topic, and its introduction answers
    if len(parts) > 1:
        for text, cosines in parts:
            # a part that names no product may be about the product's case, not its record
            # ("…, and how long is that pack's warranty?"): its record's lines earn no bonus
            named = subject([text], passages) if product is not None else None
            ranked = _ranked(
                text, asked_stems(text), candidates, cosines, passages, product, named,
                given=answering, places=places, titles_named=titles_named,
            )  # fmt: skip
            shown = {c[1].text for c in chosen}
            found = _chosen([r for r in ranked if r[1].text not in shown], max_lines + more_lines)
            chosen.extend(found[:max_lines])
            more.extend(found[max_lines:])
    else:
        asked = _asked_in(question, earlier, product)
        if product is not None and asks_what_it_is(question, product, asked):
            asked |= {_DESCRIPTION_STEM}
        named = subject([question], passages) if product is not None else None
        # a question naming the product asks a help page's topic by a page's own title
        # ("can i return my stormhollow 2 tent?": Returns and Refunds), not an FAQ's question
        topic = (
            _help_topic(asked, candidates, product, topics if product == named else None)
            if product is not None
            else frozenset()
        )
        # "the Torridon jacket": the men's and the women's alike, ranked over the overtrousers
        alike = frozenset(named_titles(question, titles)) if product is None else frozenset()
        alike = alike if cuts(alike) else frozenset()
        ranked = _ranked(
            question, asked, candidates, similarity, passages, product, topic=topic, alike=alike,
            given=answering, places=places, titles_named=titles_named,
        )  # fmt: skip
        found = _chosen(ranked, max_lines + more_lines)  # greedy: the answer's lines come first
        head = found[0][1].passage.passage if found else None
        if head is not None and (
            asks_page(asked, head) or (head.id == answering and names_page(asked, head))
        ):  # "whats ur returns policy": the page's introduction as it reads, nothing beside
            # it; "whats ur delivery policy": the first section of a page whose introduction
            # only says what the page holds (`app.chat.help_pages`)
            order = {id(u): n for n, u in enumerate(candidates)}
            own = [r for r in ranked if r[1].passage is found[0][1].passage]
            found = sorted(own, key=lambda r: order[id(r[1])])[: max_lines + more_lines]
            page_asked = True
        chosen, more = found[:max_lines], found[max_lines:]
        table_given = _table_rows(ranked, answering)
        table = table_given or _asked_table(asked, found[0][1] if found else None, ranked)
        if table:  # "What are your opening hours?": the Opening hours section's table
            rows = {id(t[1]) for t in table}
            chosen, more = table, [f for f in found if id(f[1]) not in rows]
            more = [] if table_given else more  # the asked column's table is the whole answer
            page_asked = False
    chosen = _with_items(chosen, candidates)
    answer_texts = {c[1].text for c in chosen}
    more = [m for m in dict((m[1].text, m) for m in more).values() if m[1].text not in answer_texts]
    place = _naming(places)
    if place is not None and chosen and _names_place(place, chosen[0][1]):
        # the answer is the place's own section's: a help page's line after it is too, never
        # another zone's ("Standard delivery to Northern Ireland takes 3–5 working days" under
        # Canada's); a product's own line (its price) stays
        chosen = [chosen[0], *(c for c in chosen[1:] if _of_place(place, c[1]))]
        more = [m for m in more if _of_place(place, m[1])]
    words: set[str] = set()
    for _, unit, _ in chosen:
        page = unit.passage.passage
        words |= _line_words(unit)
        if place is not None:  # the Rest of the world's row, in the section listing Canada
            words |= {s for p in place.findall(f"{page.section} {page.text}") for s in stems(p)}
    every = [*chosen, *more]
    lines = _evidence(chosen, every, [])
    given = bool(chosen) and chosen[0][1].passage.passage.id == answering
    given = (given and (bool(table_given) or _opens(chosen[0][1]))) or page_asked
    return Selection(
        tuple(lines), product, frozenset(words), tuple(_evidence(more, every, lines)), topic,
        given,
    )  # fmt: skip


def _line_words(unit: Unit) -> frozenset[str]:
    """What a shown line holds: the word stems of its page's title and section, its lead or
    header and its text, and the names of its figures' units."""
    page = unit.passage.passage
    return stems(f"{page.title} {page.section} {unit.header} {unit.text}") | unit_names(unit.text)


def _with_items(chosen: Sequence[_Scored], candidates: Sequence[Unit]) -> list[_Scored]:
    """The chosen units, each line that leads into a list followed by the list's items (up to
    MAX_ITEMS, in their order, those not chosen already): "To operate the Make Password action,
    you will first need:" says nothing without "- Pin Number, or answer to the Security
    Question" under it, nor "There is no fee if:" without its cases."""
    shown = {c[1].text for c in chosen}
    found: list[_Scored] = []
    for score, unit, held in chosen:
        found.append((score, unit, held))
        items = [
            u for u in candidates
            if u.header == unit.text and u.passage is unit.passage and u.text not in shown
        ]  # fmt: skip
        for item in items[:MAX_ITEMS]:
            found.append((score, item, frozenset()))
            shown.add(item.text)
    return found


# words that compare what two products have, not only name both
_COMPARING = re.compile(
    r"\b(?:vs\.?|versus|compar(?:e[sd]?|ing|isons?)|differ(?:s|ences?)?|more|less|fewer|better|"
    r"worse|bigger|smaller|larger|heavier|lighter|cheaper|warmer|colder|taller|shorter|longer|"
    r"brighter|lightest|heaviest|cheapest|warmest|brightest|same\s+as)\b",
    re.IGNORECASE,
)


# asking the same of each of several products said before ("what do they both weigh?")
_OF_BOTH = re.compile(r"\b(?:both|the\s+two|(?:each|either)\s+of)\b", re.IGNORECASE)


def asks_of_both(question: str) -> bool:
    """Whether ``question`` asks the same of each of several products ("how much would both
    cost?", "what do the two weigh?"), which it may name before or not at all."""
    return bool(_OF_BOTH.search(question))


def asks_comparison(question: str) -> bool:
    """Whether ``question`` compares what products have ("which is lighter", "vs") or asks the
    same of each ("how much are both …?"), rather than only naming two ("does the Stormhollow 2
    Footprint fit the Stormhollow 3?")."""
    return bool(_COMPARING.search(question)) or asks_of_both(question)


@functools.cache
def differing() -> frozenset[str]:
    """The stems of a comparison's words that ask nothing of the products but how they differ
    ("compare" is no "Compatibility")."""
    return stems("difference differ different between compare compared comparing vs versus same")


def _compared_lines(
    question: str,
    earlier: Sequence[str],
    candidates: Sequence[Unit],
    similarity: Sequence[float],
    passages: Sequence[ScoredPassage],
    named: Sequence[str],
) -> Selection | None:
    """For a question comparing products ("Which is lighter, the Stormhollow 2 tent or the
    Stormhollow 3?"), the best line of each one's record, chosen as if it alone were asked
    about (its "Minimum weight", not a description that names the other), for each thing the
    question compares ("which is warmer and which is lighter?": the temperatures, then the
    weights); None when fewer than two of them have a record line among the passages;
    ``named``: the products the question names in full."""
    # what is asked of each: not the products' names ("Doors: 2" holds the 2 of "Stormhollow 2")
    names = {w for t in named for w in stems(t)}
    pieces = _NEXT_COMPARED.split(question)
    picked: list[_Scored] = []
    for piece in pieces if len(pieces) > 1 else []:
        asked = _asked_in(piece, earlier) - names - differing()
        for line in _each_ones_line(question, asked, candidates, similarity, passages, named):
            if all(line[1].text != p[1].text for p in picked):
                picked.append(line)
    if not picked:
        asked = _asked_in(question, earlier) - names - differing()
        picked = _each_ones_line(question, asked, candidates, similarity, passages, named)
    if len(picked) < 2:
        return None
    # each product's lines together, in the order the question names them
    order = {title: n for n, title in enumerate(named)}
    picked.sort(key=lambda r: order.get(r[1].passage.passage.title, len(order)))
    words = frozenset().union(*(_line_words(unit) for _, unit, _ in picked))
    return Selection(tuple(_evidence(picked, picked, [])), None, words)


# a comparison asking more than one thing of each: "which is warmer, and which is lighter?"
_NEXT_COMPARED = re.compile(r"\s*(?:[,;]\s*)?\band\s+(?=(?:which|what|how|who)\b)", re.I)


def _each_ones_line(
    question: str,
    asked: frozenset[str],
    candidates: Sequence[Unit],
    similarity: Sequence[float],
    passages: Sequence[ScoredPassage],
    named: Sequence[str],
) -> list[_Scored]:
    """The line of each of the ``named`` products' records that best holds what is ``asked``
    of them (word stems), the same field of each where each record gives it; [] when fewer
    than two have a record line."""
    if not asked:  # "what's the difference between them?": what each one is
        asked = frozenset({_DESCRIPTION_STEM})
    what_each_is = asked == {_DESCRIPTION_STEM}
    picked: list[_Scored] = []
    owns: list[list[_Scored]] = []
    for title in named:
        ranked = _ranked(question, asked, candidates, similarity, passages, title)
        others = [t for t in named if t != title]
        # not "Succeeded by the Trailrunner 5 …, which has a 6 mm drop"; but a description
        # that opens by comparing the other ("All the weather resistance of the Stormhollow 2
        # with room for three") says what this one is
        own = [
            r for r in ranked
            if r[1].passage.passage.title == title
            and (
                not any(names(r[1].text, other) == 1.0 for other in others)
                or (what_each_is and _opens_description(r[1]))
            )
        ]  # fmt: skip
        if own:  # its best line holding what is asked ("Minimum weight"), else its best
            picked.append(next((r for r in own if r[2]), own[0]))
            owns.append(own)
    if len(picked) < 2:
        return []
    # the same field of each, when each record gives the best one's: "Comfort temperature"
    # of both bags, never one's comfort and the other's extreme temperature
    lead = _FIELD.match(max(picked, key=lambda r: r[0])[1].text)
    if lead is not None:
        same = [next((r for r in own if r[1].text.startswith(lead.group(0))), None) for own in owns]
        picked = [s for s in same if s is not None] if all(same) else picked
    return picked


def _opens(unit: Unit) -> bool:
    """Whether ``unit`` is its passage's first."""
    first = next(iter(units([unit.passage])), None)
    return first is not None and first.text == unit.text


def _evidence(
    picked: Sequence[_Scored], every: Sequence[_Scored], before: Sequence[Evidence]
) -> list[Evidence]:
    """The picked units as quoted lines, a table row under its header and a list's item under
    its lead (once, not when a line ``before`` them is that header)."""
    lines: list[Evidence] = []

    def shown(text: str) -> bool:
        return any(e.text == text for e in (*before, *lines))

    for score, unit, _ in picked:
        if unit.header and not shown(unit.header):
            lines.append(Evidence(unit.number, unit.header, round(score, 4)))
        quoted = _quoted_text(unit, every)
        if not shown(quoted):  # a lead picked as a line of its own too is quoted once
            lines.append(Evidence(unit.number, quoted, round(score, 4)))
    return lines


# A follow-up that asks the last question again of something else: "and the 3?", "what about
# the 45?"
_ELLIPTICAL = re.compile(r"^\W*(?:and|or|what\s+about|how\s+about)\b", re.IGNORECASE)
# words that tell which product of a line is meant, and ask nothing of it: "and the older
# Trailrunner 4?", "what about the smaller one?"
_WHICH_ONE = frozenset(
    """old older oldest new newer newest latest previous big bigger biggest small smaller
    smallest large larger largest cheap cheaper cheapest""".split()  # noqa: SIM905
)


_WHICH_ONE_SAID = re.compile(rf"\b(?:{'|'.join(sorted(_WHICH_ONE))})\b", re.IGNORECASE)


def tells_which_one(question: str) -> bool:
    """Whether ``question`` tells one product of a line from another by a word such as
    "older", "smaller" or "cheapest" ("what about the small one?")."""
    return bool(_WHICH_ONE_SAID.search(question))


def elliptical(question: str) -> bool:
    """Whether ``question`` goes on from the last one without a question's form of its own
    ("and the 3?", "what about the women's?", "and if I put it under the Airloft?")."""
    return bool(_ELLIPTICAL.match(question))


_DESCRIPTION_STEM = "descr"  # the stem of "description"


def _opens_description(unit: Unit) -> bool:
    """``unit`` is the first sentence of its record's description (which the unit leaves
    unlabelled)."""
    return f"Description: {unit.text}" in unit.passage.passage.text


HELP_KINDS = ("policy", "page")  # the kinds of passage a help page's are


def asks_page(asked: frozenset[str], page: Passage) -> bool:
    """``asked`` names the topic of the help page ``page`` is on and nothing else ("What is
    your returns policy?", "in which cases can I ask for a refund?" of "Returns and Refunds"),
    and ``page`` is a policy page's introduction, not one of its sections (nor an FAQ, whose
    title is a question)."""
    return page.opens_page and names_page(asked, page)


def names_page(asked: frozenset[str], page: Passage) -> bool:
    """``asked`` names the topic of the help page ``page`` is on and nothing else."""
    topic = asked - _POLICY_WORDS - REQUEST
    return bool(topic) and page.kind in HELP_KINDS and topic <= stems(page.title)


MAX_TABLE_ROWS = 8  # a table asked for as a whole is shown whole up to this many rows


def _asked_table(asked: frozenset[str], best: Unit | None, ranked: Sequence[_Scored]
                 ) -> list[_Scored]:  # fmt: skip
    """The rows of the table in the help page's section the question names, in the page's
    order, when the best line is in that section: the section's table is its answer as a
    whole ("What are your opening hours?": the Opening hours table, not one of its rows nor the
    sentence under it). None when the table is longer than MAX_TABLE_ROWS: a part of it is asked."""
    if best is None or not _asks_section(asked, best.passage.passage):
        return []
    section = best.passage.passage.section
    rows = [r for r in ranked if r[1].passage.passage.section == section
            and r[1].header.startswith("|")]  # fmt: skip
    if not rows:
        return []
    header, passage = rows[0][1].header, rows[0][1].passage
    table = [r for r in rows if r[1].header == header and r[1].passage is passage]
    if len(table) > MAX_TABLE_ROWS:
        return []
    return sorted(table, key=lambda r: passage.passage.text.find(r[1].text))


def _table_rows(ranked: Sequence[_Scored], passage_id: str | None) -> list[_Scored]:
    """The rows of the first table of the passage ``passage_id`` (the table whose column the
    question asks: `app.chat.help_pages`), in the page's order; [] when it has none, or more
    than MAX_TABLE_ROWS (a part of it is asked)."""
    rows = [r for r in ranked if r[1].passage.passage.id == passage_id
            and r[1].header.startswith("|")]  # fmt: skip
    if not rows:
        return []
    text = rows[0][1].passage.passage.text
    rows.sort(key=lambda r: text.find(r[1].text))
    table = [r for r in rows if r[1].header == rows[0][1].header]
    return table if len(table) <= MAX_TABLE_ROWS else []


def _asks_section(asked: frozenset[str], page: Passage) -> bool:
    """``asked`` holds every word of the heading of the help page's section ``page`` is in, and
    they are at least half of what it asks ("What's your phone number?" of "Contact Us and
    Complaints › Phone", not "the bust, waist and hip measurements for a size 20" of "How to
    measure"): a policy's section, as a record's field label, says what its lines are about."""
    if page.kind in ("product", "faq") or page.opens_page:
        return False
    title = stems(page.title)
    heading = stems(page.heading) - title
    return bool(heading) and heading <= asked and 2 * len(heading) >= len(asked - title)


# a question after a product's worth, which its description answers: "what's the torridon
# like?", "what do you think of the skiddaw?", "is the nightjar 300 any good?" (not "is it good
# for skiing?", which asks something of it)
_ITS_WORTH = re.compile(
    r"^\W*(?:what(?:'s|\s+is|\s+are)\s+(.+?)\s+like"
    r"|what\s+do\s+(?:you|u)\s+think\s+(?:of|about)\s+(.+?)"
    r"|how\s+good\s+(?:is|are)\s+(.+?)"
    r"|(?:is|are)\s+(.+?)\s+(?:any\s+)?good)\W*$",
    re.IGNORECASE,
)


def worth_asked(question: str) -> str | None:
    """What ``question`` asks the worth of ("what's the torridon like?": "the torridon"), if
    it asks only that (of each product a line named alone is, as the turn reads it: "what's
    the torridon like: the …'s and the …'s, both?"); None otherwise."""
    found = _ITS_WORTH.match(question.split(": ", 1)[0])
    return next(g for g in found.groups() if g) if found is not None else None


def asks_what_it_is(question: str, product: str, asked: frozenset[str] | None = None) -> bool:
    """``question`` asks nothing of the product called ``product`` but what it is: "Tell me
    about the Stormhollow 2 Tent", "What is FH-STV-9010?" (``asked``: its asked stems), not
    "and the 3?", which asks the last question again."""
    if _ELLIPTICAL.match(question):
        return False
    asked = asked_stems(question) if asked is None else asked
    codes = {stem(code.lower()) for code in PRODUCT_CODE.findall(question)}
    return not asked - stems(product) - codes


def _asked_in(question: str, earlier: Sequence[str], product: str | None = None) -> frozenset[str]:
    """The question's own words; an elliptical follow-up that asks nothing in words of its own
    asks what the last question asked ("How heavy is the Stormhollow 2 Tent?" → "and the 3?":
    the weight; "What is the R-value of the Foamlite Z?" → "and the airloft?": the R-value of
    ``product``, the one it names)."""
    asked = asked_stems(question)
    # a model's number, a cut, which one of a line (nor the field it would name: "the bigger
    # one" asks no size) or the product's name is no word of its own: "and the 3?", "what
    # about the women's?", "and the older Trailrunner 4?"
    cut = {stem(w) for w in CUT_WORDS}
    named = stems(product) if product else frozenset()
    which = asked_stems(_WHICH_ONE_SAID.sub(" ", question))
    own = {w for w in which if not w.isdigit() and w not in cut and w not in named}
    if earlier and elliptical(question) and not own:
        return which | asked_stems(earlier[0])
    return asked


_Scored = tuple[float, Unit, frozenset[str]]  # a unit's score and the question's words it holds


def _ranked(
    question: str,
    asked: frozenset[str],
    candidates: Sequence[Unit],
    similarity: Sequence[float],
    passages: Sequence[ScoredPassage],
    product: str | None,
    favoured: str | None = "",
    *,
    topic: frozenset[str] = frozenset(),
    alike: frozenset[str] = frozenset(),
    given: str | None = None,
    places: Sequence[str] = (),
    titles_named: Callable[[str], frozenset[str]] | None = None,
) -> list[_Scored]:
    """The candidates that may answer, best first; another product's lines are left out when
    ``product`` is known, and the ``favoured`` product's record (by default ``product``'s) is
    ranked up, but not its lines that hold none of the ``topic`` words when there are some
    (`_help_topic`). With no ``product``, the records of the cuts of one product that the
    question names alike (``alike``: the men's and the women's) are ranked up as one
    product's would be. The opening of the ``given`` passage (the FAQ asked in other words, the
    section named) comes first."""
    favoured = product if favoured == "" else favoured
    scored: list[_Scored] = []
    closest = max((h.score for h in passages), default=0.0)
    asks = {h.passage.id: _faq_share(asked, h, closest) for h in passages}
    # the FAQ asked in other words ("help me cancelling purchase 3707955617"), the section
    # named ("whats your email"): its opening comes first, the shop's answer to what was asked
    given_passage = next(
        (h for h in passages if h.passage.id == given and h.passage.kind != "product"), None
    )
    introductions = {h.passage.id for h in passages if asks_page(asked, h.passage)}
    openings = {id(u.passage): u for u in reversed(candidates)}  # each passage's first unit
    on_topic = _on_topic(topic, candidates)
    asked_of = product or min(alike, default=None)  # the product, or a cut named alike
    kind = _kind_of(asked_of, passages, candidates) if asked_of is not None else frozenset()
    which = bool(_WHICH.match(question)) and not _NEGATED.search(question)
    # "how long …?" asks a duration or a length, which a line gives as a figure: its "long" is
    # no word a line holds ("… before a long day out" is no answer to how long a resole takes)
    framing = (
        {stem("long")}
        if _HOW_LONG.search(question) and not _LONG.search(_HOW_LONG.sub(" ", question))
        else set()
    )
    place = _naming(places)
    about_place = {
        h.passage.id for h in passages
        if place is not None and place.search(f"{h.passage.section} {h.passage.text}")
    }  # fmt: skip
    # a section headed with the place is about it ("Channel Islands (Jersey and Guernsey)"),
    # more than a line listing it among others ("We can't send gas canisters to …, the Channel
    # Islands, the EU or the rest of the world")
    headed_place = {
        h.passage.id for h in passages if place is not None and place.search(h.passage.section)
    }
    for unit, cosine in zip(candidates, similarity, strict=True):
        named = stems(f"{unit.passage.passage.title} {unit.passage.passage.section}")
        if unit.header.startswith("|"):
            held = _row_held(question, asked - named, unit)
        elif unit.header:  # a list's item: what it is a list of counts too
            held = frozenset((asked - named) & stems(f"{unit.header} {unit.text}"))
        else:
            held = frozenset((asked - named) & stems(unit.text))
        held |= asked & unit_names(unit.text)  # "how many litres": "Up to 1,500 L"
        held -= framing
        if which:  # "Which headlamp takes AAA batteries?": "Does NOT take AAA batteries" is
            held -= _negated(unit.text)  # what does not, no answer to which does
        record = unit.passage.passage.kind == "product"
        of_kind = False  # a table's row labelled with the kind the product is of
        if asked_of is not None and not record:  # a help page's line, asked of a product
            if names_another(unit.text, asked_of):  # "the Beacon 400 Rechargeable Battery Pack"
                continue  # another product's case, never shown as this one's
            others = titles_named(unit.text) if titles_named is not None else frozenset()
            if others and asked_of not in others and not others & alike:
                continue  # "the Ben Nevis has a wide (G) fitting", asked of the Haworth
            if asked & named:  # on a page about what is asked: the row of the product's kind
                held |= kind & stems(unit.text) - named  # "Headlamps, … | 2 years"
                row = table_cells(unit.text)[0] if unit.header.startswith("|") else ""
                # a kind's row, not a model's ("Trailrunner 5 Trail Shoe" of a size table)
                of_kind = bool(kind) and kind <= stems(row) and not models_row(row)
        score = cosine + WORD_WEIGHT * len(held) - RANK_PENALTY * unit.number
        if RANGE_HELD in held or of_kind:
            score += RANGE_WEIGHT  # the row the shopper's measurement or product falls in
        if unit.passage.passage.id in about_place:
            score += PRODUCT_WEIGHT  # about the place asked, as a named product's record is
        if unit.passage.passage.id in headed_place and asked_of is None:
            score += PLACE_HEADING_WEIGHT  # (a product's record competes as it did)
        label = field_label(unit.text)
        opening = openings[id(unit.passage)] is unit and unit.text.endswith(_WHOLE_SENTENCE)
        if asks[unit.passage.passage.id] >= FAQ_MATCH and opening:
            score += FAQ_WEIGHT  # the shop's own answer to the question the shopper asked
        if topic and not on_topic.get(id(unit), True):
            continue  # not about the help topic asked about (kept when no line is)
        off_topic = record and topic and not held & topic
        field = _label_asked(unit.text, label, asked, named) if label else 0.0
        if not field and _bare_yes_no(unit.text):
            continue  # "Waterproof: No" answers its field's question, no other one
        if field and not off_topic:
            score += field  # "Weight: 520 g" over "Fabric weight: 300 g/m²" for "weigh?"
        elif _DESCRIPTION_STEM in asked and record and _opens_description(unit):
            score += LABEL_WEIGHT  # what the product is: its description's first sentence
        elif unit.passage.passage.id in introductions:
            score += LABEL_WEIGHT  # "What is your returns policy?": the page's introduction
        elif not record and _asks_section(asked, unit.passage.passage):
            score += LABEL_WEIGHT  # "What's your phone number?": the page's Phone section
        if product is not None and record:
            if unit.passage.passage.title != product:
                continue  # another product's line is never shown as this one's ("Price: 349")
            if product == favoured and not off_topic:
                score += PRODUCT_WEIGHT  # its record over a general page
        elif record and unit.passage.passage.title in alike:
            score += PRODUCT_WEIGHT  # one cut of the product the question names
        scored.append((score, unit, held))
    scored.sort(key=lambda s: -s[0])
    given_opening = openings.get(id(given_passage)) if given_passage is not None else None
    first = next((s for s in scored if s[1] is given_opening), None)
    if first is not None and first is not scored[0] and _no_closer(asked, first[1], scored[0][1]):
        scored.remove(first)  # the shop's answer to the question asked, first
        scored.insert(0, (scored[0][0], *first[1:]))
    return scored


_CATEGORY = re.compile(r"^Category: (.+)$", re.MULTILINE)
_DIGIT = re.compile(r"\d")


def record_category(text: str) -> str:
    """The category a product record's passage ``text`` gives ("Insulated jackets"); ""."""
    found = _CATEGORY.search(text)
    return found.group(1).strip() if found else ""


def _kind_of(
    title: str, passages: Sequence[ScoredPassage], candidates: Sequence[Unit]
) -> frozenset[str]:
    """The stems of the kind the product ``title`` is of, as the rows of ``candidates``' tables
    label kinds (`kind_readings`: "Insulated jackets, fleeces, … | 2 years" over "Waterproof
    jackets …" for the Cairngorm 800's category; "Stoves | 3 years" for the Emberlite Canister
    Stove, whose category "Stoves & cookware" no row names whole); a model's row
    (`models_row`) labels no kind."""
    given = (record_category(h.passage.text) for h in passages if h.passage.title == title)
    readings = kind_readings(title, next((c for c in given if c), ""))
    labels = [table_cells(u.text)[0] for u in candidates if u.header.startswith("|")]
    rows = [stems(label) for label in labels if not models_row(label)]
    return next((r for r in readings if any(r <= row for row in rows)), readings[0])


# a label in title case, as a product's name is ("Stanage Approach Shoe"; not "Hiking boots")
_TITLE_CASE = re.compile(r"^[A-Z][\w'’]*(?:\s+[A-Z0-9][\w'’().-]*)+$")


def models_row(label: str) -> bool:
    """Whether a table row's ``label`` is a model's, not a kind's: it holds a number
    ("Trailrunner 5 Trail Shoe") or is a name in title case ("Ben Nevis Leather Mountain
    Boot")."""
    return bool(_DIGIT.search(label) or _TITLE_CASE.match(label.strip()))


def kind_readings(title: str, category: str) -> list[frozenset[str]]:
    """The stems of the kinds a product of ``title`` and ``category`` (its record's) is of,
    the most telling first: its title's kind with its category ("Jacket", "Insulated jackets"),
    the category alone, the title's kind alone."""
    own, given = kind_stems(title), stems(category)
    return [r for r in dict.fromkeys((own | given, given, own)) if r] or [frozenset()]


def _names_place(place: re.Pattern[str], unit: Unit) -> bool:
    """Whether ``unit``'s passage names a place ``place`` finds (in its section or text)."""
    return bool(place.search(f"{unit.passage.passage.section} {unit.passage.passage.text}"))


def _of_place(place: re.Pattern[str], unit: Unit) -> bool:
    """Whether ``unit`` may stand beside a line about the place asked: a product's own, or a
    line of a passage naming the place."""
    return unit.passage.passage.kind == "product" or _names_place(place, unit)


def _naming(places: Sequence[str]) -> re.Pattern[str] | None:
    """A pattern finding any of ``places`` written whole, in any case; None for none."""
    if not places:
        return None
    alternation = "|".join(re.escape(p) for p in sorted(places, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])", re.IGNORECASE)


# a question asking which one does something; what a line says is not done, up to three words
_WHICH = re.compile(r"\W*which\b", re.IGNORECASE)
_NEGATED = re.compile(
    r"\b(?:not|never|no|cannot)\s+((?:[\w-]+\s+){0,2}[\w-]+)|n't\s+((?:[\w-]+\s+){0,2}[\w-]+)",
    re.IGNORECASE,
)


def _negated(text: str) -> frozenset[str]:
    """The word stems ``text`` says are not so: up to three words after a negation ("Does NOT
    take AAA batteries": take, AAA, batteries)."""
    return frozenset(
        word for m in _NEGATED.finditer(text) for word in stems(m.group(1) or m.group(2))
    )


def _label_asked(
    text: str, label: frozenset[str], asked: frozenset[str], named: frozenset[str]
) -> float:
    """How plainly a record line's field name is what the question asks: `LABEL_WEIGHT` when
    the question holds all its words; more (`ONLY_FIELD_WEIGHT`), whatever the line's passage
    ranks, when it asks nothing but that field of the product the page is about ("how much is
    the Stormhollow 2 Tent?", "what's its packed size?"), the name read without what its
    figures are in ("Price (GBP)", "Packed size (cm)"); 0 otherwise ("how much are
    replacement pegs for it?" asks the pegs' price, not the tent's)."""
    match = _FIELD.match(text)
    core = stems(_UNIT_NOTE.sub(" ", match.group(0))) if match else frozenset()
    rest = asked - core - named - _FIELD_FRAME - _GENERIC_STEMS  # a product's kind: "tent"
    if core and core <= asked and not rest:
        return LABEL_WEIGHT + ONLY_FIELD_WEIGHT
    return LABEL_WEIGHT if label <= asked else 0.0


# what a field's name says its figures are in: "(GBP)", "(cm)"
_UNIT_NOTE = re.compile(r"\([^)]*\)")
# the words that ask for a price, not for anything of their own ("how much", "what does it cost")
_FIELD_FRAME = frozenset({"much", "cost"})


def _no_closer(asked: frozenset[str], given: Unit, best: Unit) -> bool:
    """Whether the ``best`` line's page and section hold no more of the question's words than
    the ``given`` line's do ("Can I cancel a pre-order?": the Pre-orders section, not the FAQ
    "Can I change or cancel my order?"); what a request says of the shopper ("I need help
    to cancel …") is no word of the question's."""
    asked = asked - REQUEST
    page, own = best.passage.passage, given.passage.passage
    return len(asked & stems(f"{own.title} {own.section}")) >= len(
        asked & stems(f"{page.title} {page.section}")
    )


# What a title says after the product's kind: "… Walking Boot Women's", "… Poles (pair)"
FOR_WHOM = re.compile(r"(?:\s+(?:\([^)]*\)|Men's|Women's|Kids'))+\s*$", re.IGNORECASE)


def kind_stems(title: str) -> frozenset[str]:
    """The stem of the kind of product ``title`` is, its last word ("Beacon 400 Headlamp":
    headlamp; "Scafell Mid Walking Boot Women's": boot): how a help page names it."""
    words = FOR_WHOM.sub("", title).split()
    return stems(words[-1]) if words else frozenset()


def names_another(text: str, title: str) -> bool:
    """Whether ``text`` names the product of ``title`` only as the start of another product's
    name ("the Beacon 400 Rechargeable Battery Pack" for the Beacon 400 Headlamp)."""
    lead, own = _name_lead(title)
    after = lead.search(text) if lead is not None else None
    return after is not None and after.group(1).lower().split("'")[0] not in own


@functools.lru_cache(maxsize=512)
def _name_lead(title: str) -> tuple[re.Pattern[str] | None, frozenset[str]]:
    """A pattern for ``title``'s name words as written and the capitalised word after them,
    and the title's own words: made once per title, not once per line."""
    lead = [w for w in title.split() if w.lower().strip("'") in name_words(title)]
    if not lead:
        return None, frozenset()
    pattern = re.compile(r"\b" + r"\s+".join(map(re.escape, lead)) + r"\s+([A-Z][\w'-]*)")
    return pattern, frozenset(tokens(title))


def _help_topic(
    asked: frozenset[str],
    candidates: Sequence[Unit],
    product: str | None,
    topics: frozenset[str] | None = None,
) -> frozenset[str]:
    """The question's words that name the topic of a help page of the turn (in its title: a
    section's heading is often a kind of product, "Sleeping bag lengths"), besides the product's
    own name and kind and its record's field names, or a shopper's word for one ("wash" for
    Care): a question that does not name the conversation's product ("Can I return a tent I
    pitched once?" after the Stormhollow 2 Tent's weight) asks the returns page, and that
    product's lines about pitching are not its answer ("what sizes are left?" asks its Sizes
    line). ``topics``: the words of the help pages' titles (`HelpPages.topics`), when those
    alone are the topics, not the FAQs' questions nor only the turn's pages."""
    pages: set[str] = set()
    own: set[str] = set(stems(product or "")) | _GENERIC_STEMS
    for unit in candidates:
        page = unit.passage.passage
        if page.kind != "product":
            pages |= stems(page.title)
        elif page.title == product:
            own |= field_label(unit.text)
    fields = {w for w, names in FIELD_NAMES.items() if own.intersection(names)}  # wash → Care
    on = pages if topics is None else topics
    return frozenset((asked & on) - own - {stem(w) for w in fields})


def _on_topic(topic: frozenset[str], candidates: Sequence[Unit]) -> dict[int, bool]:
    """Whether each candidate (by id) holds a ``topic`` word in its text or its page's title or
    section; {} when none does, so that every line stays a candidate."""
    if not topic:
        return {}
    found = {
        id(u): bool(
            topic & stems(f"{u.passage.passage.title} {u.passage.passage.section} {u.text}")
        )
        for u in candidates
    }
    return found if any(found.values()) else {}


def _chosen(scored: Sequence[_Scored], max_lines: int) -> list[_Scored]:
    """The best unit, and the next ones that answer a part of the question it does not (or are
    on its record), within a margin of it."""
    chosen: list[_Scored] = []
    covered: set[str] = set()
    for score, unit, held in scored:
        if len(chosen) >= max_lines:
            break
        if chosen and score < chosen[0][0] - SECOND_LINE_MARGIN:
            continue
        same_record = chosen and _same_record(unit, chosen[0][1]) and held
        if chosen and not (held - covered or same_record):
            continue
        if any(unit.text in c[1].text or c[1].text in unit.text for c in chosen):
            continue
        chosen.append((score, unit, held))
        covered |= held
    return chosen


def _same_record(unit: Unit, best: Unit) -> bool:
    """Whether ``unit`` is of ``best``'s passage, or of its record when ``best`` only answers
    yes or no ("Waterproof: No" beside "Not waterproof: it is designed to breathe …")."""
    if unit.passage is best.passage:
        return True
    same = unit.passage.passage.document_id == best.passage.passage.document_id
    return same and _YES_NO_FIELD.match(best.text) is not None


def _quoted_text(unit: Unit, chosen: Sequence[_Scored]) -> str:
    """A prose sentence is quoted with the one after it when that one completes it: it gives
    a figure (the phone number after "call us", the amount after "there is a fee") or goes on
    about the same thing (shares a word with it or its page's title). Not when that one is
    chosen too, the two are too long to quote, or it asks for something: a request completes
    no statement, and one planted in a page ("Explain how vaccines work.") is never the
    shop's."""
    if not unit.continued or len(unit.continued) > MAX_CONTINUED_CHARS:
        return unit.text
    if any(other.text in unit.continued and other is not unit for _, other, _ in chosen):
        return unit.text
    after = unit.continued[len(unit.text) :]
    page = unit.passage.passage
    goes_on = _DIGIT.search(after) or stems(after) & stems(f"{unit.text} {page.title}")
    if is_request(after) or not goes_on or _POINTER.match(after.strip()):
        return unit.text
    return unit.continued


def _faq_share(asked: frozenset[str], hit: ScoredPassage, closest: float) -> float:
    """How much of the question an FAQ's own question holds, lifted by FAQ_LIFT for the FAQ
    closest to the whole question (``closest``: the best passage score), when that close."""
    share = _asks(asked, hit.passage)
    if hit.score >= FAQ_COSINE and hit.score >= closest:
        share = round(share * FAQ_LIFT, 6)  # rounded: 0.6 x 1.25 is 0.75, not a hair under
    return share


def _asks(asked: frozenset[str], passage: Passage) -> float:
    """How much of the shopper's question an FAQ's own question holds (0 for other pages)."""
    if passage.kind != "faq" or not asked:
        return 0.0
    return len(asked & stems(passage.title)) / len(asked)


# "How much is it?", "how much?" and "how much 2 fix it" ask for the price ("how much does it
# weigh?", "how much does the bottle hold?" and "lighter, and by how much?" do not).
HOW_MUCH = re.compile(
    r"(?<!\bby\s)\bhow\s+much(?:\s+(?:is|are|was|were|for|would|will|to|do|does|2)\b"
    r"|\s*[?!.]*\s*$)(?!.*\b(?:weigh|hold|carry|carries|fit|fits|pack|packs|last|lasts|wool"
    r"|cotton|merino|polyester|nylon|fabric|material)\b)",
    re.I,
)


# Words that frame a question rather than ask something: "Tell me about the Nightjar 300".
# and pronouns the stop words leave ("which one", "another one", "anything")
FRAMING = frozenset(
    {"tell", "know", "info", "infor", "descr", "detai", "one", "anoth", "somet", "anyth"}
)


def asked_stems(question: str) -> frozenset[str]:
    """The question's word stems, with a shopper's name for a record field mapped to it; the
    words that only frame it ("tell me about", "what's … like?") hold nothing a line could
    answer."""
    words = plain_words(worth_asked(question) or question)
    asked = {stem(w) for w in words} - FRAMING | {f for w in words for f in FIELD_NAMES.get(w, ())}
    # "how much is it?": a price, or what a table's Cost column gives
    asked |= {stem("price"), stem("cost")} if HOW_MUCH.search(question) else set()
    return frozenset(asked | ({stem("time")} if _HOW_LONG_IT_TAKES.search(question) else set()))


_HOW_LONG = re.compile(r"\bhow\s+long\b", re.I)
_LONG = re.compile(r"\blong\b", re.I)
# "how long does it take?", "how many days will delivery take": a time ("Delivery time"); so
# does "how long?" alone, of what the conversation is about
_HOW_LONG_IT_TAKES = re.compile(
    r"\bhow\s+(?:long|many\s+days)\b(?:(?:\W+\w+){0,4}?\W+tak(?:e|es|ing)\b|\s*[?!.]*\s*$)",
    re.I,
)


# A figure's unit, by its symbol, and the stems of the words that name it: "600 L" holds the
# "litres" of "how many litres will it filter?"
_UNIT_WORDS = {
    "l": ("litre", "liter"),
    "ml": ("millilitre", "milliliter", "ml"),
    "g": ("gram", "gramme"),
    "kg": ("kilogram", "kilo", "kg"),
    "mm": ("millimetre", "millimeter", "mm"),
    "cm": ("centimetre", "centimeter", "cm"),
    "m": ("metre", "meter"),
    "km": ("kilometre", "kilometer", "km"),
    "h": ("hour",),
    "hr": ("hour",),
    "hrs": ("hour",),
    "min": ("minute",),
    "mins": ("minute",),
    "°c": ("degree", "celsius"),
    "°f": ("degree", "fahrenheit"),
    "w": ("watt",),
    "mah": ("milliamp",),
    "lm": ("lumen",),
    "%": ("percent", "percentage"),
}
_FIGURE_UNIT = re.compile(
    r"\d(?:[\d,.]*\d)?\s?(mAh|mm|cm|km|kg|ml|hrs?|mins?|°[CF]|lm|[LgmhW]|%)(?![A-Za-z])"
)


def unit_names(text: str) -> frozenset[str]:
    """The stems of the words naming the units of the figures ``text`` states."""
    return frozenset(
        stem(word) for symbol in _FIGURE_UNIT.findall(text) for word in _UNIT_WORDS[symbol.lower()]
    )


def stems(text: str) -> frozenset[str]:
    return frozenset(stem(word) for word in plain_words(text))


# What is left of a negated verb when its n't is cut ("isn't" → "isn"): no content word.
_NEGATED_VERB = frozenset(
    "isn aren wasn weren don doesn didn can couldn won wouldn shouldn haven hasn hadn ain".split()  # noqa: SIM905
)


# Contractions typed without their apostrophe ("whats the diff"): no content word either.
_UNMARKED_CONTRACTION = frozenset(
    "whats hows wheres whens whos thats theres heres dont doesnt didnt cant couldnt wont "  # noqa: SIM905
    "wouldnt shouldnt isnt arent wasnt werent havent hasnt hadnt im ive youre theyre weve".split()
)
# Chat shorthand for function words ("whats ur delivery policy", "can u ship n gift wrap"), its
# "please", "thanks" and "lol", and a greeting or filler that asks nothing ("hiya!! my mate
# reckons …, wots the actual rating"): no content word.
CHAT_SHORTHAND = frozenset(
    """u ur r n pls plz thx ty lol omg tbh btw ffs lmao haha xx
    wots wot wat shud shld wud cud sumthing summat aint
    hiya heya hiii mate reckon reckons actually actual really literally basically
    honestly""".split()  # noqa: SIM905
)


def plain_words(text: str) -> list[str]:
    """Content words as a question means them: a contraction or possessive without its ending
    ("what's" is no word, "stove's" is "stove", "isn't" and "whats" are none)."""
    words: list[str] = []
    for word in content_words(text):
        if word in _UNMARKED_CONTRACTION or word in CHAT_SHORTHAND:
            continue
        if "'" in word:
            word = word.split("'", 1)[0]
            if not word or word in STOPWORDS or word in _NEGATED_VERB:
                continue
        words.append(word)
    return words


_SUFFIX = re.compile(r"(?:ing|ed)$")
_PLURAL = re.compile(r"(?<=[a-z]{3})(?<!s)s$")


_PROOF = re.compile(r"^[a-z]+proof")
# a prefix that is a stem's whole length says nothing of the word: "interest" is not
# "international", nor "understand" "underwear"; such words keep three letters more
_PREFIXES = ("inter", "under", "trans")


def stem(word: str) -> str:
    """The first five letters after a common suffix and a final e: "filled", "fill" and "fills"
    agree, and so do "comes" and "come", "charges" and "charge" ("glass" keeps its s). A
    "-proof" word keeps the whole of it: "waterproof" is not "water"; an "inter-", "under-" or
    "trans-" word three letters more: "interest" is not "international"."""
    proof = _PROOF.match(word)
    if proof:
        return proof.group(0)
    if word.isalpha():
        word = _PLURAL.sub("", word)
        if len(word) > 4:
            word = _SUFFIX.sub("", word)
        if len(word) > 3 and word.endswith("e"):
            word = word[:-1]
    return word[: STEM + 3] if word.startswith(_PREFIXES) else word[:STEM]


# What a request says of the shopper, not what it asks of the pages: "I need help to cancel
# order …", "I want to check how long it takes".
REQUEST = frozenset(
    stem(w)
    for w in """need want wanna gonna check see help trying assistance ask request""".split()  # noqa: SIM905
)
# the words that ask what a policy says as a whole, not a case of it
_POLICY_WORDS = frozenset(
    stem(w)
    for w in ("policy", "policies", "cases", "situations", "circumstances", "conditions", "rules")
)


_GENERIC_STEMS = frozenset(stem(w) for w in GENERIC)  # a product's kind: "tent", "jacket"

# A shopper's word for a field, mapped to the field name's stem: cost → Price, heavy → Weight.
FIELD_NAMES = {
    word: tuple(stem(f) for f in ((field,) if isinstance(field, str) else field))
    for word, field in _FIELD_OF_WORD.items()
}


def _quotable(text: str, *, back: bool = True) -> list[tuple[str, str, str]]:
    """Quotable units with their continuation and, for a table's row, its header row: record
    fields (a "Specs: a: 1; b: 2" line as its fields), FAQ answers and prose as sentences,
    table rows as they are, each a verbatim substring of ``text``; a sentence's continuation is
    it and the sentence after it, as written ("" for the last). A table's header row says what
    its rows' cells are and is no statement of its own."""
    found: list[tuple[str, str, str]] = []
    raws = _LINE.findall(text)
    lines = [raw.strip() for raw in raws]
    header = ""
    leads: list[tuple[int, bool, str]] = []  # the lines above that lead into a list
    for number, line in enumerate(lines):
        if not line or line.startswith(_NOT_STATEMENTS):
            continue
        item = _BULLET.match(line) is not None  # of the list the line before it leads into
        indent = _indent(raws[number])
        above = _lead_of(leads, indent, item)
        nests = _nests(raws, number, indent)
        if _leads_in(line) or nests:
            leads.append((indent, item, line))
        if nests and _STEP_HEADING.match(line):
            continue  # "2. Log Out/In: Option 2" names the steps under it, and says nothing
        if TABLE_RULE.match(line):
            continue
        if line.startswith("|"):
            following = lines[number + 1] if number + 1 < len(lines) else ""
            if TABLE_RULE.match(following):
                header = line  # "| Size | Chest (cm) |" above "|---|---|"
            else:
                found.append((line, "", header))
            continue
        header = ""
        fields = _fields(line)
        if fields:
            found.extend((f, "", above) for f in fields)
        elif len(line) > 120 or line.startswith("Answer:") or line.startswith("Description:"):
            sentences = _sentences(_unlabelled(line), back=back)
            found.extend((unit, more, above) for unit, more in sentences)
        else:
            found.append((line, "", above))
    return [
        (u, more, head or lead_)
        for text_, more_, head in found
        for u, more, lead_ in _clauses(text_, more_)
        if (len(content_words(u)) >= 2 or _bare_yes_no(u))
        and len(u) <= MAX_QUOTE_CHARS
        and not u.endswith("?")
        and not (_BULLET.match(u) and _leads_in(u))  # it leads into its items
        and not _POINTER.match(u)
        and not _topics(u)
    ]


# a field a record answers yes or no ("Waterproof: No", "Heel clip loop: Yes")
_YES_NO_FIELD = re.compile(r"^[A-Z][\w /()&'-]{0,40}:\s+(?:yes|no)\b", re.I)


def _bare_yes_no(text: str) -> bool:
    """Whether ``text`` is a field answered yes or no whose one other word is its name
    ("Waterproof: No"): a line for its own field's question, and no other."""
    return _YES_NO_FIELD.match(text) is not None and len(content_words(text)) < 2


# A sentence that only sends the reader to another page ("Our Warranty page explains what is and
# isn't covered.", "See our size guide."), or says what its own page holds ("This page lists
# every way to reach us, …", "Topics: username, password, and two-factor authentication."):
# it states nothing a shopper could act on.
_POINTER = re.compile(
    r"^(?:(?:(?:our|the)\s+[\w'&, -]+?|this)\s+(?:page|policy|guide|notice)\s+"
    r"(?:explains|lists|sets\s+out|describes|has\s+(?:more|the\s+full|full)\b)"
    r"|(?:please\s+)?(?:see|read|check)\s+(?:our|the)\s"
    r"|(?:topics|contents|see\s+also|related\s+(?:pages|topics))\s*:)[^.;!?]*[.!]?$",
    re.I,
)


def _topics(text: str) -> bool:
    """Whether ``text`` only lists topics, three or more short ones between commas, with no
    figure, label or sentence: "Price of gift wrapping, Price of stitching your name, Does
    shopping cart qualify for free shipping" names what shoppers ask, and answers none of it."""
    if _FIELD.match(text) or _BULLET.match(text) or _NO_TOPIC.search(text):
        return False
    items = [item.split() for item in text.split(",")]
    return len(items) >= 3 and all(0 < len(words) <= 8 for words in items)


# what makes a line more than a list of topics: a figure, a label, a sentence's end
_NO_TOPIC = re.compile(r"\d|:|[.!?;](?:\s|$)")


def describes_itself(text: str) -> bool:
    """Whether a sentence of ``text`` (a page's introduction) only says what its page holds:
    "This page explains when your order will leave us, how much delivery costs, …"."""
    return any(
        sentence.lower().startswith("this") and _POINTER.match(sentence)
        for sentence, _ in _sentences(text)
    )


# A numbered step's heading: its name and a word or three ("5. Enter Detail: Optional Step")
_STEP_HEADING = re.compile(r"^\d+\.\s+[^:]{1,40}:\s+\S+(?:\s+\S+){0,2}$")


def _nests(raws: Sequence[str], number: int, indent: int) -> bool:
    """Whether the line after line ``number`` (at ``indent``) is a list's item nested under it
    ("- Pick a payment method from the following three options" over "  - online, by phone")."""
    after = raws[number + 1] if number + 1 < len(raws) else ""
    return _BULLET.match(after.strip()) is not None and _indent(after) > indent


def _indent(raw: str) -> int:
    return len(raw) - len(raw.lstrip())


def _leads_in(line: str) -> bool:
    """Whether ``line`` ends in a colon ("We accept:", "- **Bronze members:**")."""
    return line.rstrip("*").endswith(":")


def _lead_of(leads: list[tuple[int, bool, str]], indent: int, item: bool) -> str:
    """The line a list's item at ``indent`` goes under, "" for a line that is no item; updates
    ``leads`` (indent, is an item, text: the lines above that end in ":" or have items nested
    under them) for the line: a line ends the leads it is not nested in, and an item leads only
    the items nested under it ("- Bronze members:" over "   - return possible within the last
    90 days"), not those beside it."""
    while leads and (
        leads[-1][0] > indent or (leads[-1][0] == indent and (leads[-1][1] or not item))
    ):
        leads.pop()
    return leads[-1][2] if item and leads else ""


_BULLET = re.compile(r"^[-*•]\s+\S")  # "- **Socks and liner socks** once removed …"
_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")
_RANGE = re.compile(r"^(\d+(?:\.\d+)?)\s*[–-]\s*(\d+(?:\.\d+)?)$")


def figures_of(text: str) -> list[str]:
    """The figures ``text`` gives, as written ("104", "2.5"); not those inside a word."""
    return _NUMBER.findall(text)


def in_range(cell: str, figure: float) -> bool:
    """Whether a table's ``cell`` is a range holding ``figure`` ("103–108": 104)."""
    found = _RANGE.match(cell)
    return found is not None and float(found.group(1)) <= figure <= float(found.group(2))


def table_cells(row: str) -> list[str]:
    """A table row's cells: "| M | 97–102 |" → ["M", "97–102"]."""
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def _row_held(question: str, asked: frozenset[str], unit: Unit) -> frozenset[str]:
    """The question's words a table row holds, its header's included; a number the question
    gives counts only in a column it names (any column when it names none), and falls in a
    range there: a 100 cm chest is the row "| M | 97–102 | 82–87 |" under
    "| Size | Chest (cm) | Waist (cm) |", not the XXL row with a waist of 100–106."""
    numbers = {n: float(n) for n in figures_of(question)}
    names = [stems(_UNIT_OF_MEASURE.sub("", cell)) & asked for cell in table_cells(unit.header)]
    columns = [i for i, name in enumerate(names) if name] or range(len(names))
    cells = table_cells(unit.text)
    held = set(asked & stems(f"{unit.header} {_NUMBER.sub(' ', unit.text)}"))
    for column in columns:
        cell = cells[column] if column < len(cells) else ""
        for text, number in numbers.items():
            if cell == text:
                held.add(text)
            elif in_range(cell, number):
                held.add(RANGE_HELD)
    return frozenset(held)


_UNIT_OF_MEASURE = re.compile(r"\([^)]*\)")  # "Chest (cm)": the column is the chest's


def _clauses(unit: str, more: str) -> list[tuple[str, str, str]]:
    """A unit too long to quote as its clauses ("backpacks and cookware 5 years; tents, …
    3 years; …"), each verbatim, the later ones under the lead of a list the unit opens with
    ("we can't accept returns of: used tents …; socks …": "socks …" under "…we can't accept
    returns of:"); a unit that fits, as it is."""
    if len(unit) <= MAX_QUOTE_CHARS:
        return [(unit, more, "")]
    clauses = [clause.strip() for clause in unit.split("; ")]
    lead, colon, _ = clauses[0].rpartition(": ")
    under = f"{lead}:" if colon else ""  # the first clause holds the lead itself
    return [(clause, "", under if i else "") for i, clause in enumerate(clauses)]


def _sentences(prose: str, *, back: bool = True) -> list[tuple[str, str]]:
    """Each sentence of ``prose`` and the span of it with the next one, both verbatim. With
    ``back``, a sentence that points back at the one before it ("Please don't post returns to
    this address …" after the address) is that one and it: alone it would say "this address"
    and not which."""
    bounds, start = [], 0
    for end in _SENTENCE_END.finditer(prose):
        bounds.append((start, end.start()))
        start = end.end()
    bounds.append((start, len(prose)))
    spans = [(a, b) for a, b in bounds if prose[a:b].strip()]
    pairs = []
    for i, (a, b) in enumerate(spans):
        if back and i and _points_back(prose[a:b]) and b - spans[i - 1][0] <= MAX_QUOTE_CHARS:
            a = spans[i - 1][0]
        more = prose[a : spans[i + 1][1]] if i + 1 < len(spans) else ""
        pairs.append((prose[a:b].strip(), more.strip()))
    return pairs


# "this address", "these checks", "if this happens": a thing the sentence before names. Not
# "this page" or "this policy" (the page itself), nor one after the sentence's first clause
# ("…; this usually takes 2–3 hours" points at its own clause).
_BACK = re.compile(r"\b(?:this|these|those)\s+(?!page\b|policy\b|notice\b|guide\b)[a-z]", re.I)


def _points_back(sentence: str) -> bool:
    return _BACK.search(re.split(r"[,;:]\s", sentence, maxsplit=1)[0]) is not None


def _fields(line: str) -> list[str]:
    """'Specs: Weight: 420 g; Fit: regular' → its 'Field: value' parts; [] for other lines.

    A part that is not 'Field: value' belongs to the field before it ("Pitching: Freestanding;
    fly-first or all-in-one" stays one field); a line of one such part is a field of its own,
    whose value says something with a colon ("Stock: Discontinued: final stock in sizes M and L
    only; it will not be restocked")."""
    label, sep, rest = line.partition(": ")
    if not sep or len(label.split()) > 3 or ";" not in rest or not _FIELD.match(rest):
        return []
    parts: list[str] = []
    for part in rest.split("; "):
        if parts and not _FIELD.match(part):
            parts[-1] += f"; {part}"
        else:
            parts.append(part.strip())
    return parts if len(parts) > 1 else []


def field_label(unit: str) -> frozenset[str]:
    """The stems of a 'Field: value' unit's field name (empty for prose)."""
    match = _FIELD.match(unit)
    return stems(match.group(0)) if match else frozenset()


def _unlabelled(line: str) -> str:
    """A record line without its 'Answer: ' or 'Description: ' label."""
    label, sep, rest = line.partition(": ")
    return rest if sep and label in ("Answer", "Description") else line


# words before a kind that say which one, not what kind ("my jacket", "the boots")
_POINTING_WORDS = frozenset(
    "a an the my your our his her its their this that these those some any new old".split()  # noqa: SIM905
)


def of_kinds_asked(question: str, found: Sequence[Unit]) -> list[bool]:
    """For each of ``found`` (the quotable units), whether it may answer ``question`` that
    names a kind of product and no product ("how do I wash my down jacket?"): a help page's
    line, or a product's of that kind or naming it; not the Helvellyn 200 Fleece's "Machine
    wash at 30°C". All when the question names no kind."""
    # the kinds of product, not whom they are cut for ("womens", "kids")
    kinds = {k for k in kinds_named(question) if not {k, f"{k}s"} & CUT_WORDS}
    if not kinds:
        return [True] * len(found)

    def is_kind(word: str) -> bool:  # "a backpack" is a pack
        return any(word.removesuffix("s").endswith(k) for k in kinds)

    # the kind as the question names it, with the word before it ("down jacket": a run of
    # kind words ends in the kind asked)
    said = tokens(question)
    heads = [
        i for i, word in enumerate(said)
        if is_kind(word) and not (i + 1 < len(said) and is_kind(said[i + 1]))
    ]  # fmt: skip
    phrases = {
        (
            said[i - 1] if i and said[i - 1] not in _POINTING_WORDS | CUT_WORDS else "",
            said[i].removesuffix("s"),
        )
        for i in heads
    }

    def naming(text: str) -> bool:  # a line naming it so: "Cleans down jackets"
        words = ["", *tokens(text)]
        return any(
            words[i].removesuffix("s").endswith(head) and (not before or words[i - 1] == before)
            for i in range(1, len(words))
            for before, head in phrases
        )

    return [
        unit.passage.passage.kind != "product"
        or any(is_kind(w) for w in tokens(unit.passage.passage.title))
        or naming(unit.text)
        for unit in found
    ]
