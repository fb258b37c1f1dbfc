"""Does the shop's evidence hold what was asked, for the product and case that were asked?

A relevance floor lets through the near miss: the Cairngorm jacket's weight is published for size
M, the shopper asks about XL; the shipping page lists zones, the shopper names a country it never
mentions. The chosen evidence is judged against the question's specifics instead:

- a product code the question gives must belong to a passage of the turn;
- a size the question asks about must be the size the evidence line states, when it states one;
- a name the question gives (a place, a scheme, a brand: a capitalised word that is not the
  question's first) must appear in the turn's passages;
- and the evidence must hold at least one of the question's own words, besides the product name.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.chat.evidence import Selection, asked_stems, stems
from app.chat.products import PRODUCT_CODE, name_words
from app.retrieval.published_index import ScoredPassage

# "size XL", "in XXL", "UK 11", "EU 44", "size 10"
_SIZE = re.compile(
    r"\b(?:(?:size|in)\s+(XXS|XS|S|M|L|XL|XXL|XXXL|\d{1,2}(?:\.5)?)\b"
    r"|(UK|EU|US)\s?(\d{1,2}(?:\.5)?)\b|(XXS|XS|XL|XXL|XXXL)\b)",
)
_STATED_SIZE = re.compile(
    r"\((?:[^)]*?\b)?(?:size\s+)?(XXS|XS|S|M|L|XL|XXL|XXXL|(?:UK|EU|US)\s?\d{1,2}(?:\.5)?)\b"
)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z]+|[A-Z]{2,})\b")
# Capitalised words that are no name: the shop's own vocabulary and a sentence's I.
_NOT_NAMES = frozenset(
    """I UK EU GB VAT FAQ OK PDF ID PIN SMS ASAP DIY Hi Hello Please Thanks Can Could Do Does
    Is Are What When Where Which Who Why How Will Would Should Have Has My Your You""".split()  # noqa: SIM905
)


_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class Verdict:
    answerable: bool
    reason: str | None = None  # why not: "unknown_code", "other_size", "unknown_name", "no_match"


def judge(question: str, selection: Selection, passages: Sequence[ScoredPassage]) -> Verdict:
    """Whether ``selection`` (chosen from ``passages``) answers ``question`` as asked."""
    if not selection.lines:
        return Verdict(False, "no_match")
    everything = " ".join(f"{h.passage.title} {h.passage.text}" for h in passages).lower()
    for code in PRODUCT_CODE.findall(question):
        if code.lower() not in everything:
            return Verdict(False, "unknown_code")
    asked = _asked_sizes(question)
    if asked:
        stated = {s for line in selection.lines for s in _stated_sizes(line.text)}
        if stated and not stated & asked:
            return Verdict(False, "other_size")
    known = set(_WORD.findall(everything))
    plain = PRODUCT_CODE.sub(" ", question)
    for name in _names(plain):
        if not set(_WORD.findall(name.lower())) <= known:
            return Verdict(False, "unknown_name")
    product_words = set()
    if selection.product:
        product_words = {w[:5] for w in name_words(selection.product)}
    own = asked_stems(question) - product_words - stems(selection.product or "")
    if own and not own & selection.matched_words:
        return Verdict(False, "no_match")
    return Verdict(True)


def _asked_sizes(question: str) -> set[str]:
    found = set()
    for match in _SIZE.finditer(question):
        letter, system, number, bare = match.groups()
        if system:
            found.add(f"{system.upper()} {number}")
        else:
            found.add((letter or bare).upper())
    return found


def _stated_sizes(line: str) -> set[str]:
    return {re.sub(r"\s+", " ", m.group(1)).upper() for m in _STATED_SIZE.finditer(line)}


def _names(question: str) -> list[str]:
    """Capitalised words after the question's first, and all-capital words, not the shop's own
    vocabulary: "Ireland", "NHS", "Manchester"."""
    return [m.group(1) for m in _NAME.finditer(question.strip()) if m.group(1) not in _NOT_NAMES]
