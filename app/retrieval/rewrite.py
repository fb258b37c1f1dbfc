"""Query texts for the lexical half of retrieval, rewritten for follow-ups.

"how heavy is it?" has no word in common with the tent it is about; the shopper's recent
questions do. A follow-up's lexical query is therefore the question with the recent questions in
front of it, searched beside the question alone, so a change of subject still finds its own
passages (fusion rewards what both rankings agree on).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_QUESTION_WORDS = (
    r"(?:how|what|which|when|where|who|whose|is|are|can|could|do|does|will|would|should|has|have)"
)
# Where a second question starts: "…, and how long is its warranty?", "…? What does it weigh?"
_NEXT_QUESTION = re.compile(
    rf"(?:,\s*(?:and\s+)?|\s+and\s+|\?\s+)(?={_QUESTION_WORDS}\b)", re.IGNORECASE
)
# A part that opens as a question does ("can I", "what's", not "can't pay")
_OPENS_QUESTION = re.compile(rf"{_QUESTION_WORDS}\b(?!n?'t)", re.IGNORECASE)


def query_texts(question: str, earlier_questions: Sequence[str], *, turns: int = 2) -> list[str]:
    """The question alone, then (when there is history) the question after the recent ones."""
    recent = [q for q in earlier_questions[-turns:] if q.strip()] if turns > 0 else []
    if not recent:
        return [question]
    return [question, " ".join([*recent, question])]


def question_parts(question: str) -> list[str]:
    """The questions a message asks, when it asks more than one ("Will the Nightjar 500 fit in
    the Ridgeline 65+10, and what's the warranty on the sleeping bag?" asks two); otherwise
    the message alone. A part needs three words to stand on its own."""
    parts = [p.strip(" ,") for p in _NEXT_QUESTION.split(question) if p.strip(" ,")]
    if len(parts) < 2 or any(len(p.split()) < 3 for p in parts):
        return [question]
    return parts


def opens_question(text: str) -> bool:
    """Whether ``text`` opens as a question does ("can I", "what's", not "can't pay")."""
    return bool(_OPENS_QUESTION.match(text.lstrip()))


def asked_questions(question: str) -> list[str]:
    """The questions of a message that asks more than one, each opening as a question does
    ("Which pack will the tent fit in, and how long is that pack's warranty?"); [] for a
    message that asks one, or tells something first ("I'm a Gold member, can I get more
    time?")."""
    parts = question_parts(question)
    if len(parts) < 2 or not all(opens_question(p) for p in parts):
        return []
    return parts


# "and on sleeping mats?", "what about for the kids' one?": the last question asked again of
# something else, introduced by the same preposition
_ELLIPTICAL_WITH = re.compile(
    r"^\W*(?:and|or|what\s+about|how\s+about)\s+(?P<prep>on|for|in|with|to|at|from|of)\s+"
    r"(?P<rest>\S.*?)\W*$",
    re.IGNORECASE,
)


def resolve_ellipsis(question: str, last: str) -> str:
    """A follow-up that asks the last question again of something else, read as that question:
    "What's the warranty on sleeping bags?" → "and on sleeping mats?" is "What's the warranty on
    sleeping mats?". The last question's phrase after the same preposition is replaced; a
    follow-up of another shape, or a last question without that preposition, is left as it
    is."""
    found = _ELLIPTICAL_WITH.match(question)
    if not found or not last.strip():
        return question
    prep, rest = found.group("prep").lower(), found.group("rest")
    places = [m.start() for m in re.finditer(rf"\b{prep}\s+\S", last, re.IGNORECASE)]
    if not places:
        return question
    end = re.search(r"[?.!]*\s*$", last)
    mark = end.group(0).strip() if end else ""
    return f"{last[: places[-1]]}{prep} {rest}{mark or '?'}"
