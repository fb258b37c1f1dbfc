"""The part of a message that asks, apart from what the shopper tells of themselves.

"I'm going backpacking in Snowdonia next month. What's the packed weight of the Stormhollow 2?"
asks one thing; the first sentence is the shopper's situation. Whether the pages answer is
judged on the asking sentences: Snowdonia is no name the pages must know, "backpacking" and
"month" are no words the lines must hold. A place told of still matters when the question asks
about getting something there ("I live in Iceland. Do you ship there?").
"""

from __future__ import annotations

import re

from app.retrieval.rewrite import opens_question

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# a sentence that asks without a question's form: "I want to know how much is wool."
_REQUEST = re.compile(
    r"\b(?:want(?:ed)?\s+to\s+know|need\s+to\s+know|wonder(?:ing)?|tell\s+me|let\s+me\s+know"
    r"|looking\s+for|any\s+idea|please|pls|plz)\b",
    re.IGNORECASE,
)
# a question about getting something to a place: a place told of elsewhere is where
_WHERE = re.compile(
    r"\b(?:there|here|deliver\w*|ship\w*|send\w*|sent|post\w*|courier|collect\w*|to\s+me)\b",
    re.IGNORECASE,
)


# where a sentence's telling clause ends and its question begins: "I'm a student at uni in
# Sheffield, do you do any discount?", "flying to Geneva next month - can it go in my hold bag?"
_CLAUSE_END = re.compile(r"(?:,|\s[-\u2013\u2014]|;)\s+")
# a clause that tells of the shopper: "I'm …", "we're …", "my …", "flying to …" (which the
# reading reads as "air travel to …"); not a condition the question is asked under ("If I
# pre-order something, do you take the money?")
_TELLS = re.compile(r"(?:i|i'm|im|i've|we|we're|my|our|me|\w+ing|air\s+travel)\b", re.I)


# what opens a relative clause as well as a question: "I'm 190cm tall, which is long"
_RELATIVE = re.compile(r"(?:which|who|whose|where|when)\b", re.I)


def asking_part(message: str, *, clauses: bool = False) -> str:
    """The sentences of ``message`` that ask (a question mark, a question's opening, a request),
    when others only tell, and with ``clauses``, of a sentence that tells of the shopper before
    it asks, what it asks; the message itself when every part asks or none does."""
    sentences = [p for s in _SENTENCE_END.split(message.strip()) if s.strip() for p in _led(s)]
    if clauses:
        sentences = [c for s in sentences for c in _clauses(s)]
    asking = [s for s in sentences if _asks(s)]
    if not asking or len(asking) == len(sentences):
        return message
    return " ".join(asking)


def _led(sentence: str) -> list[str]:
    """``sentence`` as its lead and its question, when a colon introduces the question ("For
    night navigation I need to know: how far does the beam reach?"); else itself."""
    lead, colon, rest = sentence.partition(": ")
    return [f"{lead}:", rest] if colon and opens_question(rest) else [sentence]


def _clauses(sentence: str) -> list[str]:
    """``sentence`` as its telling clauses and the question after them, when it opens by
    telling of the shopper and then asks ("I'm at uni in Sheffield, do you do a discount?")."""
    text = sentence.strip()
    start = 0
    told: list[str] = []
    for end in _CLAUSE_END.finditer(text):
        clause, rest = text[start : end.start()], text[end.end() :]
        if not _TELLS.match(clause) or _asks(clause):
            break
        told.append(clause)
        if opens_question(rest) and (rest.endswith("?") or not _RELATIVE.match(rest)):
            return [*told, rest]
        start = end.end()
    return [sentence]


def told_places_matter(message: str) -> bool:
    """Whether the places the shopper tells of elsewhere in ``message`` bear on what it asks:
    it asks about getting something somewhere."""
    return bool(_WHERE.search(asking_part(message, clauses=True)))


def _asks(sentence: str) -> bool:
    text = sentence.strip()
    if text.endswith(":"):  # what introduces a question ("I need to know:") asks nothing itself
        return False
    return text.endswith("?") or opens_question(text) or bool(_REQUEST.search(text))
