"""After generation: which passages the answer cites, and how much of it the passages support."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.retrieval.published_index import ScoredPassage
from app.retrieval.terms import content_words

MARKER = re.compile(r"\[(\d{1,2})\]")  # a citation marker, [n]


@dataclass(frozen=True)
class Citation:
    number: int
    passage: ScoredPassage


def cited(answer: str, passages: Sequence[ScoredPassage]) -> list[Citation]:
    """Passages the answer points at with [n], in order of first mention; bad numbers ignored."""
    seen: dict[int, Citation] = {}
    for match in MARKER.finditer(answer):
        number = int(match.group(1))
        if 1 <= number <= len(passages) and number not in seen:
            seen[number] = Citation(number, passages[number - 1])
    return list(seen.values())


def strip_invalid_markers(answer: str, passage_count: int) -> str:
    """Drop [n] markers that point at no passage, so a shopper never sees a dangling citation."""

    def keep(match: re.Match[str]) -> str:
        return match.group(0) if 1 <= int(match.group(1)) <= passage_count else ""

    return MARKER.sub(keep, answer)


def groundedness(answer: str, passages: Sequence[ScoredPassage]) -> float:
    """Share of the answer's content words (numbers and prices included) found in the passages.

    A cheap, model-free signal: 1.0 means every content word appears in what was retrieved;
    an answer that invents figures or products scores low. An empty answer scores 0.
    """
    words = content_words(MARKER.sub(" ", answer))
    if not words:
        return 0.0
    support = set(content_words(" ".join(f"{h.passage.title} {h.passage.text}" for h in passages)))
    return sum(1 for w in words if w in support) / len(words)


# a sentence ends at . ! ? before a space, or glued to a capital after a word ("wrapping.The",
# as small models loop); "1.5 kg" and "2.5L" stay whole
SENTENCE_BOUNDARY = re.compile(r"(?<=[.!?])\s+|(?<=[a-z\])][.!?])(?=[A-Z])|\n+")


def _sentences(text: str) -> list[str]:
    """``text`` cut into sentences, each keeping the space or newlines that followed it."""
    pieces, start = [], 0
    for boundary in SENTENCE_BOUNDARY.finditer(text):
        pieces.append(text[start : boundary.end()])
        start = boundary.end()
    if start < len(text):
        pieces.append(text[start:])
    return pieces


MIN_SUPPORT = 0.6  # share of a sentence's content words one passage must hold to be its source


def attribute(answer: str, passages: Sequence[ScoredPassage]) -> str:
    """Add a [n] marker to each sentence that cites nothing but one passage clearly supports,
    and drop sentences that repeat an earlier one word for word.

    Small models often answer from the passages without writing markers; the shopper should
    still see where each statement comes from. A sentence is given the passage holding the
    largest share (at least ``MIN_SUPPORT``) of its content words, so an invented sentence
    stays unmarked, and the groundedness score still judges the whole answer.
    """
    if not passages:
        return answer
    supports = [
        set(content_words(f"{h.passage.title} {h.passage.section} {h.passage.text}"))
        for h in passages
    ]
    pieces: list[str] = []
    seen: set[str] = set()
    for sentence in _sentences(answer):
        words = content_words(MARKER.sub(" ", sentence))
        key = " ".join(words)
        if len(words) >= 3 and key in seen:
            continue  # a small model looping: say each sentence once
        seen.add(key)
        if MARKER.search(sentence) or len(words) < 2:
            pieces.append(sentence)
            continue
        shares = [sum(w in s for w in words) / len(words) for s in supports]
        best = max(range(len(shares)), key=shares.__getitem__)
        if shares[best] < MIN_SUPPORT:
            pieces.append(sentence)
            continue
        body = sentence.rstrip()
        end = len(body.rstrip(".!?"))
        pieces.append(f"{body[:end]} [{best + 1}]{body[end:]}{sentence[len(body) :]}")
    return "".join(pieces)
