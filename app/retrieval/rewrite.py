"""Query texts for the lexical half of retrieval, rewritten for follow-ups.

"how heavy is it?" has no word in common with the tent it is about; the shopper's recent
questions do. A follow-up's lexical query is therefore the question with the recent questions in
front of it, searched beside the question alone, so a change of subject still finds its own
passages (fusion rewards what both rankings agree on).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

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


# "can I use two of them on one order?", "are they refundable?": the things the last question
# named; "two of them" reads "two gift cards"
_PLURAL_PRONOUN = re.compile(
    r"\b(?:(?P<how_many>two|three|four|five|both|all|any|some|several|\d+)\s+of\s+)?"
    r"(?P<pronoun>them|they|those|these)\b",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[a-z0-9]+(?:['’-][a-z0-9]+)*")
_NOT_THINGS = frozenset(
    """you u ya we i me my your ur our us do does did can could will would should is are was
    were have has had what which how when where why who any some the a an of to for on in at
    with about sell stock offer accept take get buy order ordered""".split()  # noqa: SIM905
)


def resolve_plural(question: str, last: str, holds_phrase: Callable[[str], bool]) -> str:
    """A follow-up's "them"/"they" read as the things the last question named, when it named
    some the pages hold in the plural ("do you do gift cards?" → "can I use two of them on one
    order?" is "can I use two gift cards on one order?"); the longest such phrase wins, and a
    follow-up without such a pronoun, or after a question naming none, is left as it is. A
    product's "it" is the conversation's product's (`app.chat.catalog`), not read here."""
    found = _PLURAL_PRONOUN.search(question)
    if not found or not last.strip():
        return question
    words = _WORDS.findall(last.lower())
    things = ""
    for size in (3, 2, 1):
        for start in range(len(words) - size + 1):
            phrase = words[start : start + size]
            if any(w in _NOT_THINGS for w in phrase) or not phrase[-1].endswith("s"):
                continue
            if holds_phrase(" ".join(phrase)):
                things = " ".join(phrase)
                break
        if things:
            break
    if not things:
        return question
    how_many = found.group("how_many")
    said = f"{how_many} {things}" if how_many else things
    return f"{question[: found.start()]}{said}{question[found.end() :]}"


# A follow-up that asks only how much, how long, when or what to do, of nothing it names: "how
# much?", "how long does it take?", "and what does that cost?", "what do I do?"
_BARE = re.compile(
    r"^\W*(?:(?:and|so|ok|okay|right)\W+)?"
    r"(?:(?:how\s+(?:much|long|many\s+days)|when)"
    r"(?:\s+(?:is|does|do|would|will)\b|['’]s\b)?(?:\s+(?:it|that|this|they|those)\b)?"
    r"(?:\s+(?:cost|costs|take|takes|be))?"
    r"|what(?:\s+(?:is|does|do|would|will)\b|['’]s\b)\s+"
    r"(?:(?:it|that|this|they|those)\s+(?:cost|costs|come\s+to)|the\s+(?:cost|price|charge|fee))"
    # "what do I do?", "what should I do now?", "what are my options?": what to do about it
    r"|what\s+(?:(?:do|should|can|shall)\s+i\s+do|now|are\s+my\s+options|happens\s+next)"
    r"(?:\s+(?:now|then|next|about\s+(?:it|that|this)))?)"
    r"(?:\s+(?:then|again|roughly|about))?\W*$",
    re.IGNORECASE,
)


def resolve_bare(question: str, last: str) -> str:
    """A follow-up that asks only a price, a time or a date of nothing it names ("how much?",
    "how long does it take?" after "do you deliver to jersey?"), read after the last question
    it asks it of ("do you deliver to jersey: how much?"); any other question, or a first
    turn's, is left as it is."""
    # what the last message asked of its own, not its own bare questions ("do you deliver to
    # france? how much?" before "how long will it take?")
    named = " ".join(p for p in re.split(r"(?<=[?.!])\s+", last.strip()) if not is_bare(p))
    if not named or not is_bare(question):
        return question
    return f"{named.rstrip('?.! ')}: {question.strip()}"


def is_bare(question: str) -> bool:
    """Whether ``question`` asks only a price, a time or a date, of nothing it names."""
    return bool(_BARE.match(question))


# a message that asks for something without a question's form ("I want to …", "please …", "tell
# me …", "help me …"): a request of its own
_REQUEST = re.compile(
    r"^\W*(?:(?:i|we)\s*(?:'d|would)?\s*(?:want|need|wanna|like|wish|hope)|i['’]d\s+like|"
    r"please|pls|plz|help|tell|show|explain|give|send|let|looking|search|find|check|"
    r"where|why|who|whose|whom)\b",
    re.IGNORECASE,
)
# how long a message telling something of the last question may be (longer ones say their own)
_TELLING_WORDS = 15
# what a shopper tells of their case: when, how long ago, how many ("I placed the order 2 hours
# ago", "it was yesterday"); a reaction ("the little fell one looks good") tells nothing of it
_CASE = re.compile(
    r"\d|\b(?:ago|yesterday|today|tonight|tomorrow|this\s+(?:morning|afternoon|evening)|"
    r"last\s+(?:night|week|month|year)|(?:minutes?|hours?|days?|weeks?|months?|years?))\b",
    re.IGNORECASE,
)


def resolve_statement(message: str, last: str) -> str:
    """A follow-up that tells when, how long ago or how many and asks nothing ("I placed the
    order 2 hours ago" after "can I change my delivery address?") read after the question it
    tells it of ("can I change my delivery address? I placed the order 2 hours ago"); a message
    that asks, requests or tells something else ("the little fell one looks good"), or a first
    turn's, is left as it is."""
    told = message.strip()
    if (
        not last.strip()
        or "?" in told
        or opens_question(told)
        or _REQUEST.match(told)
        or len(told.split()) > _TELLING_WORDS
        or not _CASE.search(told)
    ):
        return message
    return f"{last.strip().rstrip('?.! ')}? {told}"
