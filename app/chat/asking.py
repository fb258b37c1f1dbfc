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


def asking_part(message: str) -> str:
    """The sentences of ``message`` that ask (a question mark, a question's opening, a request),
    when others only tell; the message itself when every sentence asks or none does."""
    sentences = [s for s in _SENTENCE_END.split(message.strip()) if s.strip()]
    asking = [s for s in sentences if _asks(s)]
    if not asking or len(asking) == len(sentences):
        return message
    return " ".join(asking)


def told_places_matter(message: str) -> bool:
    """Whether the places the shopper tells of elsewhere in ``message`` bear on what it asks:
    it asks about getting something somewhere."""
    return bool(_WHERE.search(asking_part(message)))


def _asks(sentence: str) -> bool:
    text = sentence.strip()
    return text.endswith("?") or opens_question(text) or bool(_REQUEST.search(text))
