"""A question that asks for the most or the least of a kind by a measure, answered from the
catalogue.

"What's the lightest tent you sell?", "which is your cheapest sleeping bag?", "which headlamp is
the brightest?": no one line of the pages answers these (retrieval finds the one tent whose
description says "light enough for solo backpackers"); the records do, together. Each product of
the kind is read for the field that measures what is asked (a "Weight" or "Minimum weight" for
"lightest", "Price (GBP)" for "cheapest", "Comfort temperature" for "warmest"), the products are
ordered by it, and the answer names the one asked for and quotes every product's line, so the
shopper sees what the order rests on. A kind no title holds, or a measure none of its records
gives, is no such question and is answered as any other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from app.chat.catalog import Catalog
from app.chat.evidence import stems
from app.index.passage import Passage


@dataclass(frozen=True)
class Field:
    """A record field that measures what a superlative asks, and which end of it is asked."""

    label: str  # the field's name, lower case ("minimum weight")
    least: bool  # the smallest value is the one asked for ("lightest", "cheapest")


@dataclass(frozen=True)
class Measure:
    """What a superlative word measures ("weight"), by the fields that can give it, the most
    telling first; ``head``: a field named with this word last counts too ("Trail weight")."""

    name: str
    fields: tuple[Field, ...]
    head: str = ""
    least: bool = True  # the end asked of a field found by ``head``


def _measure(name: str, least: bool, *labels: str, head: str = "") -> Measure:
    return Measure(name, tuple(Field(label, least) for label in labels), head, least)


_WEIGHT = ("weight", "minimum weight", "packed weight", "gross weight")
_PRICE = ("price (gbp)", "price")
_WATERPROOF = ("waterproof rating", "hydrostatic head", "flysheet hydrostatic head")
# Each superlative a shopper uses, and what it measures. "Warmest": a lower comfort temperature
# or temperature guide, a higher R-value.
_MEASURES: dict[str, Measure] = {
    "lightest": _measure("weight", True, *_WEIGHT, head="weight"),
    "heaviest": _measure("weight", False, *_WEIGHT, head="weight"),
    "cheapest": _measure("price", True, *_PRICE),
    "least expensive": _measure("price", True, *_PRICE),
    "most affordable": _measure("price", True, *_PRICE),
    "most expensive": _measure("price", False, *_PRICE),
    "priciest": _measure("price", False, *_PRICE),
    "dearest": _measure("price", False, *_PRICE),
    "warmest": Measure(
        "warmth rating",
        (
            Field("comfort temperature", True),
            Field("temperature guide", True),
            Field("r-value", False),
        ),
    ),
    "brightest": _measure("output", False, "maximum output"),
    "most powerful": _measure("output", False, "maximum output", "output"),
    "biggest": _measure("size", False, "capacity", "berth"),
    "largest": _measure("size", False, "capacity", "berth"),
    "roomiest": _measure("size", False, "capacity", "berth"),
    "smallest": _measure("size", True, "capacity", "berth"),
    "most waterproof": _measure("waterproof rating", False, *_WATERPROOF),
}
_WORD = "|".join(sorted((w.replace(" ", r"\s+") for w in _MEASURES), key=len, reverse=True))
# the kind after the superlative ("the lightest tent you sell", "your cheapest sleeping bags?")
# or before it ("which tent is the lightest?", "which of your jackets is the most waterproof")
_AFTER = re.compile(
    rf"\b(?P<word>{_WORD})\s+(?:(?:one|model)\s+of\s+(?:your|the)\s+)?(?P<kind>[a-z][\w' -]*?)"
    r"(?=\s+(?:you|u|ya|we|do|does|that|which|for|to|with|in|on|under|at|available|there|"
    r"of|i|can|on\s+sale)\b|\s*[?.!,]|\s*$)",
    re.IGNORECASE,
)
_BEFORE = re.compile(
    r"\b(?:which|what)\s+(?:(?:one\s+)?of\s+(?:your|the)\s+)?(?P<kind>[a-z][\w' -]*?)\s+"
    rf"(?:is|are|'s)\s+(?:the\s+)?(?P<word>{_WORD})\b",
    re.IGNORECASE,
)
# a product for children is compared with others only when the question asks for children's
_CHILDREN = re.compile(
    r"\b(?:kids?|child(?:ren)?|children's|junior|toddlers?|youth)\b", re.IGNORECASE
)
# a comparative asked of the products just shown ("which is lighter?" after two jackets were
# compared): what its superlative measures, of those
_COMPARATIVES = {
    "lighter": "lightest",
    "heavier": "heaviest",
    "cheaper": "cheapest",
    "more expensive": "most expensive",
    "warmer": "warmest",
    "brighter": "brightest",
    "bigger": "biggest",
    "larger": "largest",
    "roomier": "roomiest",
    "smaller": "smallest",
    "more waterproof": "most waterproof",
}
_SAID_COMPARATIVE = "|".join(w.replace(" ", r"\s+") for w in _COMPARATIVES)
_COMPARATIVE = re.compile(
    r"^\W*(?:(?:so|and|ok|okay)\W+)?(?:which|what)(?:\s+one)?"
    r"(?:\s+of\s+(?:them|those|the\s+two|these))?\s+(?:is|'s)\s+(?:the\s+)?"
    rf"(?P<word>{_SAID_COMPARATIVE})\W*$",
    re.IGNORECASE,
)
_NOT_KIND = frozenset("one ones model models option options item items product products".split())  # noqa: SIM905
_ALONE = re.compile(rf"\b(?P<word>{_WORD})\b", re.IGNORECASE)
_LABEL = re.compile(r"[A-Z][\w /()&'-]{0,40}")  # a field's name, as a record gives it
_NUMBER = re.compile(r"([−-]?\d[\d,]*(?:\.\d+)?)\s*(kg\b|g\b)?")


@dataclass(frozen=True)
class Superlative:
    """What a superlative question asks: the word as said ("lightest"), what it measures, and
    the kind of product as said ("tent") with its word stems."""

    word: str
    measure: Measure
    kind: str
    words: frozenset[str]


def for_whom(question: str, records: Sequence[Passage]) -> list[Passage]:
    """``records`` less those of products for children, unless ``question`` asks for
    children's or every record is one ("the lightest boot": the adults' boots, not the
    Little Fell Kids' boot at UK 1)."""
    if _CHILDREN.search(question):
        return list(records)
    grown = [r for r in records if not _CHILDREN.search(r.title)]
    return grown or list(records)


def asks_superlative(question: str) -> Superlative | None:
    """The superlative ``question`` asks, if it asks one, with the kind of product it asks it
    of; no kind's words when it names none ("which one is the lightest?": of the products the
    last answer listed), as for a comparative asked alone ("which is lighter?")."""
    compares = _COMPARATIVE.search(question)
    if compares is not None:  # "which is lighter?": of the products the last answer listed
        word = " ".join(compares.group("word").lower().split())
        return Superlative(word, _MEASURES[_COMPARATIVES[word]], "", frozenset())
    found = _BEFORE.search(question) or _AFTER.search(question) or _ALONE.search(question)
    if found is None:
        return None
    word = " ".join(found.group("word").lower().split())
    kind = found.groupdict().get("kind") or ""
    said = [w for w in kind.split() if w.lower() not in _NOT_KIND]
    return Superlative(word, _MEASURES[word], " ".join(said), stems(" ".join(said)))


@dataclass(frozen=True)
class Measured:
    """A product's record line that gives the measure, its passage and its value."""

    passage: Passage
    line: str
    value: float


def measured(
    measure: Measure, records: Sequence[Sequence[tuple[Passage, str]]]
) -> tuple[list[Measured], list[Passage]] | None:
    """Each record (its passages' lines, in order) with the line of the one field of
    ``measure`` that most of them give, ordered so that the one asked comes first, and the
    records that do not give it (by their first passage); None when no record gives any field
    of the measure."""
    chosen = _field(measure, records)
    if chosen is None:
        return None
    found: list[Measured] = []
    missing: list[Passage] = []
    for record in records:
        line = next(((p, t) for p, t in record if _label(t) == chosen.label), None)
        value = _value(line[1]) if line is not None else None
        if line is None or value is None:
            missing.append(record[0][0])
        else:
            found.append(Measured(line[0], line[1], value))
    found.sort(key=lambda m: m.value if chosen.least else -m.value)
    return found, missing


def _field(measure: Measure, records: Sequence[Sequence[tuple[Passage, str]]]) -> Field | None:
    """The field of ``measure`` that most of ``records`` give (the first listed of those
    given equally often); a field named with the measure's head word when none is listed."""
    given = [{_label(text) for _, text in record} for record in records]
    best: tuple[int, Field] | None = None
    for field in measure.fields:
        count = sum(field.label in labels for labels in given)
        if count and (best is None or count > best[0]):
            best = (count, field)
    if best is None and measure.head:
        headed = [lab for labels in given for lab in sorted(labels)
                  if lab.split() and lab.split()[-1] == measure.head]  # fmt: skip
        if headed:
            return Field(max(set(headed), key=headed.count), measure.least)
    return best[1] if best else None


def _label(line: str) -> str:
    """The name of the field ``line`` gives, lower case ("Specs: Weight: 820 g": "weight");
    "" for prose."""
    return _field_and_value(line)[0].lower()


def _field_and_value(line: str) -> tuple[str, str]:
    """``line``'s innermost field name and its value (a record's one-field "Specs: Weight:
    820 g" line is not split apart)."""
    label, value = "", line
    while True:
        head, sep, rest = value.partition(": ")
        if not (sep and _LABEL.fullmatch(head)):
            return label.strip(), value
        label, value = head, rest


def _value(line: str) -> float | None:
    """The first figure of a field's value, in grams where it is a weight in kilograms."""
    found = _NUMBER.search(_field_and_value(line)[1])
    if found is None:
        return None
    value = float(found.group(1).replace(",", "").replace("−", "-"))
    return value * 1000 if (found.group(2) or "").lower() == "kg" else value


MAX_RANKED = 10  # an answer quotes at most this many products' lines


@dataclass(frozen=True)
class Ranking:
    """A superlative question's answer: what it asks, the products of the kind that give the
    measure (the one asked for first) and those that do not."""

    asked: Superlative
    ranked: list[Measured]
    missing: list[Passage]

    def answer(self) -> str:
        return superlative_answer(self.asked, self.ranked, self.missing)


def ranked_by(question: str, catalog: Catalog, listed: Sequence[str] = ()) -> Ranking | None:
    """What ``question`` asks the most or least of ("the lightest tent you sell"; of the
    products the last answer ``listed``, by document id, when it names no kind), the products
    ordered by the record line that measures it (at most `MAX_RANKED`), and those whose record
    gives no such line; None when it asks no such thing, there are fewer than two products to
    rank, or none of their records gives the measure."""
    asked = asks_superlative(question)
    if asked is None:
        return None
    if asked.words:
        records = for_whom(question, catalog.of_kind(asked.words))
    else:
        records = [lines[0][0] for d in listed if (lines := catalog.lines(d))]
    if len(records) < 2:
        return None
    if len(records) > 2 and asked.word in _COMPARATIVES:  # "which is brighter?" of three
        asked = replace(asked, word=_COMPARATIVES[asked.word])
    found = measured(asked.measure, [catalog.lines(r.document_id) for r in records])
    if found is None:
        return None
    return Ranking(asked, found[0][:MAX_RANKED], found[1])


def superlative_answer(
    asked: Superlative, ranked: Sequence[Measured], missing: Sequence[Passage]
) -> str:
    """The product asked for, then each product's line (cited by its number, from 1, in
    ``ranked``'s order) under its name, phrased by template; the products whose pages do not
    give the measure named last."""
    kind = _singular(asked.kind)
    first, name = ranked[0], asked.measure.name
    ties = [m for m in ranked if m.value == first.value]
    if len(ranked) == 1:
        among = f"our {kind}s" if kind else "those"
        lead = f"Of {among}, only the **{first.passage.title}** has a {name} on its page"
    elif len(ties) > 1:
        names = " and the ".join(f"**{m.passage.title}**" for m in ties)
        lead = (
            f"The {asked.word} {kind}s we sell are" if kind else f"Of those, the {asked.word} are"
        )
        lead += f" the {names}, level"
    elif kind:
        lead = f"The {asked.word} {kind} we sell is the **{first.passage.title}**"
    else:
        lead = f"Of those, the {asked.word} is the **{first.passage.title}**"
    pieces = [f"{lead}. Here is what our product pages give for each:"]
    for number, item in enumerate(ranked, start=1):
        pieces.append(f"\n\n**{item.passage.title}**\n> “{item.line}” [{number}]")
    if missing:
        names = ", ".join(f"the {p.title}" for p in missing)
        pieces.append(f"\n\nOur product pages don't give a {asked.measure.name} for {names}.")
    return "".join(pieces)


def _singular(kind: str) -> str:
    """ "tents" → "tent" (the lead says "the lightest tent"); a kind said in the singular stays."""
    words = kind.split()
    if words and words[-1].lower().endswith("s") and not words[-1].lower().endswith("ss"):
        words[-1] = words[-1][:-1]
    return " ".join(words)
