"""Question words the chosen lines hold in other words.

The hedge (answerability's coverage) counts the question's words that the shop's lines hold.
Held only by spelling, "How long is CCTV footage kept?" is not covered by "CCTV recordings |
30 days", nor "how long" by a line that says "within 14 days". A word counts as held when the
embedder's vector of it, in the question, is close to the vector of a word of the lines, in the
line. Names, numbers and words of one or two letters never count this way ("EU" is not "UK"):
the pages must spell them.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

import numpy as np

from app.chat.answerability import names_in
from app.embedding.embedder import WordVectors

# Cosine of two words' contextual vectors above which one stands for the other (fitted on the
# tuning part of the labelled shop questions; a setting).
NEAR_WORD_SIMILARITY = 0.6


def near_words(
    asked: WordVectors,
    lines: WordVectors,
    *,
    threshold: float = NEAR_WORD_SIMILARITY,
    names: Collection[str] = (),
) -> frozenset[str]:
    """The words of ``asked`` (the question's) with a word of ``lines`` at least ``threshold``
    alike; never one of ``names`` (lower case), a number or a word under three letters."""
    if not asked or not lines or threshold <= 0:
        return frozenset()
    matrix = np.stack([vector for _, vector in lines])
    return frozenset(
        word
        for word, vector in asked
        if word not in names
        and len(word) > 2
        and not word.isdigit()
        and float((matrix @ vector).max()) >= threshold
    )


def near_question_words(
    question: str, found: Sequence[WordVectors], *, threshold: float = NEAR_WORD_SIMILARITY
) -> frozenset[str]:
    """``found``: the word vectors of the question, then of each chosen line (one
    ``WordEmbedder.word_vectors`` call); the question's words the lines hold in other words."""
    if not found:
        return frozenset()
    asked, *lines = found
    names = {name.lower() for name in names_in(question)}
    said = [word for line in lines for word in line]
    return near_words(asked, said, threshold=threshold, names=names)
