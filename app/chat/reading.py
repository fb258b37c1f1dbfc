"""The question as a turn reads it, for retrieval, the evidence and the verdict.

The shopper's words are what the transcript keeps; the turn reads them with what they leave
implicit: the last question a follow-up asks again of something else ("and on sleeping mats?":
`app.retrieval.rewrite.resolve_ellipsis`), and the region of a place the pages cover only by
region ("Belfast (Northern Ireland)": `app.chat.places`), and its abbreviations in full words
("amex": American Express, `app.chat.abbreviations`), and the words of retail customer service
the pages do not use in the pages' own ("free shipping": free delivery, `app.chat.shoppers_words`),
and a measurement typed without its space ("a 104cm chest") as the pages write one ("104 cm").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.chat.abbreviations import spelled_out
from app.chat.claims import yes_no_question
from app.chat.shoppers_words import in_shop_words
from app.chat.vocabulary import Vocabulary
from app.retrieval.rewrite import opens_question, resolve_ellipsis


def read_question(question: str, last: str, vocabulary: Vocabulary) -> str:
    """``question`` as the turn reads it; ``last``: the conversation's last question ("" for a
    first turn)."""
    read = spelled_out(resolve_ellipsis(question, last), vocabulary.holds)
    read = in_shop_words(read, vocabulary.holds_phrase, vocabulary.holds_figure)
    read = vocabulary.hyphenated(read)  # "r value" as the pages write it: "r-value"
    read = _spaced(read, vocabulary)
    return vocabulary.places.read(read)


# a figure with its unit written on ("104cm", "450g"); not a litre's "L", which names models
# ("Torridon 3L"), nor a form the pages write themselves
_GLUED = re.compile(r"\b(\d+(?:\.\d+)?)(cm|mm|kg|g|ml)\b", re.IGNORECASE)


def _spaced(question: str, vocabulary: Vocabulary) -> str:
    """``question`` with each figure typed with its unit on ("a 104cm chest") written as the
    pages write one ("104 cm"): the size guide's row for it is found by the figure."""

    def spaced(match: re.Match[str]) -> str:
        if vocabulary.holds(match.group(0).lower()):
            return match.group(0)
        return f"{match.group(1)} {match.group(2)}"

    return _GLUED.sub(spaced, question)


def among(question: str, titles: Sequence[str]) -> str:
    """A comparison that names no product ("which one is lightest?") read as asked of the
    products the last answer listed, ``titles`` in its order ("…: the Stormhollow 2 Tent or the
    Stormhollow 3 Tent?")."""
    if len(titles) < 2:
        return question
    named = ", ".join(f"the {t}" for t in titles[:-1]) + f" or the {titles[-1]}"
    return f"{question.rstrip(' ?')}: {named}?"


# what relates two products named together rather than asks the same of each ("does the
# footprint fit the tent and the 3?", "can I use the filter with the bottle and the pouch?"),
# or asks of an order holding them ("if I order the tent and its footprint, is delivery free?")
_RELATING = re.compile(
    r"\b(?:fits?|fitting|compatible|with|inside|into|under|on|work|works|go|goes|use|pairs?|"
    r"instead|than|or|vs|versus|between|need|replace|replaces|order\w*|buy\w*|bought|"
    r"deliver\w*|send|sent|ship\w*|post\w*)\b",
    re.IGNORECASE,
)
_TELL = re.compile(r"\b(?:tell|show)\s+me\b", re.IGNORECASE)
_JOINED = re.compile(r"\s(?:and|&)\s", re.IGNORECASE)


def of_each(question: str, named: Sequence[str]) -> str:
    """A question naming two or more products together and asking the same of each ("How
    much are the Stormhollow 2 Tent and the Stormhollow 2 Footprint?", ``named`` the titles
    it names) read as asked of both, as a comparison is: each one's line; any other question
    as it is."""
    if len(named) < 2 or not _JOINED.search(question) or _RELATING.search(question):
        return question
    return f"{question.rstrip(' ?')}, both?"


def of_models(question: str, titles: Sequence[str]) -> str:
    """A question naming a line two or three products share, and none of them alone ("how much
    is the helvellyn fleece?": the 200 and the 300; "tell me about the scafell mid boots": the
    men's and the women's; ``titles`` those it names), read as asked of each, as `of_each`
    reads two named together: each one's line, not the first one found's as if it were the
    line's; a yes/no question, or one relating them, as it is."""
    if not 2 <= len(titles) <= 3 or yes_no_question(question) or _RELATING.search(question):
        return question
    if "?" not in question and not opens_question(question) and not _TELL.search(question):
        return question  # "the little fell one looks good": no question
    named = ", ".join(f"the {t}" for t in titles[:-1]) + f" and the {titles[-1]}"
    return f"{question.rstrip(' ?')}: {named}, {'both' if len(titles) == 2 else 'each of them'}?"
