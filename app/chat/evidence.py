"""The line of the shop's own text that answers the question, quoted under a generated answer.

A small model may paraphrase a weight onto the wrong product; the quoted line cannot. Passages
are split into lines (product records are "Field: value" lines, pages into sentences), and the
line sharing the most question words is chosen, words compared by their first five letters
("weigh" finds "weight"), the few ways shoppers ask for a record's field by another name mapped to
it ("cost" finds "Price", "heavy" finds "Weight"), and the product's own name left out (every line
of its record would match it). Nothing is quoted when no line shares a word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.retrieval.published_index import ScoredPassage
from app.retrieval.terms import content_words

_LINE = re.compile(r"[^\n]+")
_SENTENCE = re.compile(r"[^.!?]+(?:[.!?]+(?=\s|$)|$)")
STEM = 5
MAX_QUOTE_CHARS = 300
# A shopper's word for a product record's field (their stems): asked "how much does it cost?",
# the record's "Price (GBP): 39" line answers.
FIELD_NAMES = {
    "cost": "price",
    "costs": "price",
    "cheap": "price",
    "heavy": "weigh",
    "color": "colou",
    "colors": "colou",
    "made": "mater",
    "wash": "care",
    "clean": "care",
}


@dataclass(frozen=True)
class Evidence:
    number: int  # the passage's citation number, from 1
    text: str


def best_evidence(question: str, passages: Sequence[ScoredPassage]) -> Evidence | None:
    """The line of ``passages`` that best matches ``question``.

    A line scores one point per question word it holds that is not in its passage's title, plus
    half a point per question word in that title (the right product's line beats the same field
    of a product listed beside it); earlier passages win ties.
    """
    asked = _stems(question)
    asked |= {FIELD_NAMES[word] for word in content_words(question) if word in FIELD_NAMES}
    best: tuple[float, Evidence] | None = None
    for number, hit in enumerate(passages, start=1):
        named = _stems(f"{hit.passage.title} {hit.passage.section}")
        wanted = asked - named
        bonus = 0.5 * len(asked & named) - 0.01 * number
        for line in _lines(hit.passage.text):
            matches = len(wanted & _stems(line))
            if matches and (best is None or matches + bonus > best[0]):
                best = (matches + bonus, Evidence(number, line))
    return best[1] if best else None


def _lines(text: str) -> list[str]:
    """Quotable units: lines; a "Label: a; b; c" line as its fields; long prose as sentences."""
    units: list[str] = []
    for line in (raw.strip() for raw in _LINE.findall(text)):
        if ";" in line:
            units.extend(field.strip() for field in _strip_label(line).split(";"))
        elif len(line) > MAX_QUOTE_CHARS:
            units.extend(s.strip() for s in _SENTENCE.findall(line))
        else:
            units.append(line)
    return [u[:MAX_QUOTE_CHARS] for u in units if len(content_words(u)) >= 2]


def _strip_label(line: str) -> str:
    """'Specs: Weight: 420 g; Fit: regular' → 'Weight: 420 g; Fit: regular'."""
    label, _, rest = line.partition(": ")
    return rest if rest and ":" in rest and len(label.split()) <= 3 else line


def _stems(text: str) -> set[str]:
    return {word[:STEM] for word in content_words(text)}
