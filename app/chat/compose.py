"""Answers composed from the shop's own lines, phrased by templates rather than by the model.

Used when the model's checked text does not carry the answer (or is not asked for at all, in the
``extractive`` policy), and to show the evidence under a model's answer. Every quoted line is a
verbatim unit of a passage the turn was given, cited by its passage number.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.chat.evidence import Evidence
from app.retrieval.published_index import ScoredPassage

DECLINES = {
    "floor": "I'm sorry, I couldn't find anything about that in the {shop} help pages, so I'd "
    "rather not guess.",
    "no_match": "I'm sorry, I couldn't find that in the {shop} help pages, so I'd rather not "
    "guess.",
    "other_size": "I'm sorry, our pages don't give that for the size you asked about, so I'd "
    "rather not guess.",
    "unknown_name": "I'm sorry, I couldn't find anything about that in the {shop} help pages, so "
    "I'd rather not guess.",
    "unknown_code": "I'm sorry, I couldn't find that product code in the {shop} catalogue, so I'd "
    "rather not guess.",
}
OFFER = " Would you like me to put you in touch with a member of our support team?"


def decline(reason: str, *, shop: str) -> str:
    """The honest answer when the shop's pages do not hold what was asked, with a person offered."""
    return DECLINES.get(reason, DECLINES["floor"]).format(shop=shop) + OFFER


def quoted(lines: Sequence[Evidence]) -> str:
    """The evidence as block quotes, one line each, with their citations."""
    return "\n".join(f"> “{line.text}” [{line.number}]" for line in lines)


def composed(lines: Sequence[Evidence], passages: Sequence[ScoredPassage]) -> str:
    """An answer made of the shop's own lines: "Our returns policy says: …"."""
    if not lines:
        return ""
    return f"{lead_in(passages[lines[0].number - 1])}\n\n{quoted(lines)}"


def lead_in(hit: ScoredPassage) -> str:
    """Where the quoted lines come from, in the shopper's terms."""
    passage = hit.passage
    if passage.kind == "product":
        return f"Here is what our product page for the {passage.title} says:"
    if passage.kind == "faq":
        return "Here is what our help pages say:"
    return f"Here is what our {passage.title} page says:"
