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
FIGURE = re.compile(r"(?<![\w.])\d+(?:[,.]\d+)*")  # "1,550", "2.5": a figure as written


def attribute(answer: str, passages: Sequence[ScoredPassage]) -> str:
    """Add a [n] marker to each sentence that cites nothing but one passage clearly supports,
    point a sentence's markers at that passage when none it cites holds as much of it, and drop
    sentences that repeat an earlier one word for word.

    Small models often answer from the passages without writing markers, or cite the first
    passage for a fact of the fifth; the shopper should see where each statement comes from.
    A passage holds a sentence when it has at least ``MIN_SUPPORT`` of its content words and
    every figure it states; a sentence is given the one holding the largest share, so an
    invented sentence stays unmarked (or keeps the model's own marker), and the groundedness
    score still judges the whole answer.
    """
    if not passages:
        return answer
    texts = [f"{h.passage.title} {h.passage.section} {h.passage.text}" for h in passages]
    supports = [set(content_words(text)) for text in texts]
    figures_of = [_figures(text) for text in texts]
    pieces: list[str] = []
    seen: set[str] = set()
    for sentence in _sentences(answer):
        words = content_words(MARKER.sub(" ", sentence))
        key = " ".join(words)
        if len(words) >= 3 and key in seen:
            continue  # a small model looping: say each sentence once
        seen.add(key)
        if len(words) < 2:
            pieces.append(sentence)
            continue
        figures = _figures(MARKER.sub(" ", sentence))
        holds = [
            sum(w in s for w in words) / len(words) if figures <= f else 0.0
            for s, f in zip(supports, figures_of, strict=True)
        ]
        best = max(range(len(holds)), key=holds.__getitem__)
        marked = {int(m) for m in MARKER.findall(sentence)}
        if holds[best] < MIN_SUPPORT or any(
            1 <= n <= len(holds) and holds[n - 1] >= holds[best] for n in marked
        ):
            pieces.append(sentence)
            continue
        body = MARKER.sub("", sentence).rstrip()
        body = re.sub(r"\s+([.!?])$", r"\1", body)
        end = len(body.rstrip(".!?"))
        pieces.append(f"{body[:end]} [{best + 1}]{body[end:]}{sentence[len(sentence.rstrip()) :]}")
    return "".join(pieces)


def _figures(text: str) -> set[str]:
    """The figures ``text`` states, without thousands separators ("1,550" is "1550")."""
    return {figure.replace(",", "") for figure in FIGURE.findall(text)}
