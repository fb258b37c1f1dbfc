"""After generation: which passages the answer cites, and how much of it the passages support."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.retrieval.published_index import ScoredPassage

_MARKER = re.compile(r"\[(\d{1,2})\]")
_WORD = re.compile(r"[a-z0-9£€$%]+(?:[.,'][a-z0-9]+)*", re.IGNORECASE)
_STOPWORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "and",
        "or",
        "but",
        "if",
        "then",
        "so",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "from",
        "as",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "it",
        "its",
        "this",
        "that",
        "these",
        "those",
        "you",
        "your",
        "yours",
        "we",
        "our",
        "ours",
        "i",
        "me",
        "my",
        "he",
        "she",
        "they",
        "them",
        "their",
        "there",
        "here",
        "what",
        "which",
        "who",
        "whom",
        "when",
        "where",
        "why",
        "how",
        "can",
        "could",
        "would",
        "should",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "do",
        "does",
        "did",
        "done",
        "have",
        "has",
        "had",
        "not",
        "no",
        "yes",
        "please",
        "thanks",
        "thank",
        "hi",
        "hello",
        "any",
        "some",
        "all",
        "more",
        "most",
        "other",
        "such",
        "only",
        "own",
        "same",
        "than",
        "too",
        "very",
        "just",
        "also",
        "about",
        "into",
        "over",
        "under",
        "again",
        "further",
        "once",
        "up",
        "down",
        "out",
        "off",
    }
)


@dataclass(frozen=True)
class Citation:
    number: int
    passage: ScoredPassage


def cited(answer: str, passages: Sequence[ScoredPassage]) -> list[Citation]:
    """Passages the answer points at with [n], in order of first mention; bad numbers ignored."""
    seen: dict[int, Citation] = {}
    for match in _MARKER.finditer(answer):
        number = int(match.group(1))
        if 1 <= number <= len(passages) and number not in seen:
            seen[number] = Citation(number, passages[number - 1])
    return list(seen.values())


def strip_invalid_markers(answer: str, passage_count: int) -> str:
    """Drop [n] markers that point at no passage, so a shopper never sees a dangling citation."""

    def keep(match: re.Match[str]) -> str:
        return match.group(0) if 1 <= int(match.group(1)) <= passage_count else ""

    return _MARKER.sub(keep, answer)


def groundedness(answer: str, passages: Sequence[ScoredPassage]) -> float:
    """Share of the answer's content words (numbers and prices included) found in the passages.

    A cheap, model-free signal: 1.0 means every content word appears in what was retrieved;
    an answer that invents figures or products scores low. An empty answer scores 0.
    """
    words = content_words(_MARKER.sub(" ", answer))
    if not words:
        return 0.0
    support = set(content_words(" ".join(f"{h.passage.title} {h.passage.text}" for h in passages)))
    return sum(1 for w in words if w in support) / len(words)


def content_words(text: str) -> list[str]:
    return [w for w in (m.group(0).lower() for m in _WORD.finditer(text)) if w not in _STOPWORDS]
