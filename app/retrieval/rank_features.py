"""What the second-stage ranker sees of each (question, candidate) pair: plain numbers.

The first stage hands over its candidates with their dense cosine, BM25 score and fused rank;
these functions turn them into one row of features each, in the order of ``FEATURES``, which is
the order a trained model was fitted on. Pure functions of plain data, so training and the
service compute the same thing.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.index.passage import Passage
from app.retrieval.terms import content_words, index_terms

# The knowledge base's own kinds, then those of public product data (specs, descriptions,
# shoppers' Q&A, reviews); anything else counts as "other".
KINDS = ("product", "faq", "policy", "page", "spec", "description", "qa", "review")

FEATURES = (
    "cosine",  # the best cosine of the query vectors with the passage
    "cosine_gap",  # the best candidate's cosine minus this one's
    "bm25",  # BM25 score over the query's best: 1 for the best lexical match, 0 for none
    "fused_reciprocal_rank",  # 1 / (1 + rank) in the first stage's fused order
    "identifier_match",  # the passage is about a product code the question names
    *(f"kind_{kind}" for kind in (*KINDS, "other")),
    "log_words",  # log(1 + words in the passage's text)
    "title_overlap",  # share of the question's terms in the passage's title and section
    "text_overlap",  # share of the question's terms in the passage's text
    "question_terms",  # terms in the question (lets the trees tell short from long questions)
    # which product the first stage is about: candidates of one product vote for each other
    "product_votes",  # share of the first stage's top VOTERS of this passage's product
    "product_best_cosine_gap",  # best cosine overall minus the best of this passage's product
    "same_product_as_first",  # of the product of the first stage's best candidate
)

VOTERS = 10


@dataclass(frozen=True)
class Candidate:
    """One passage the first stage found, with what it measured about it."""

    row: int  # the passage's row in the served version
    passage: Passage
    cosine: float
    bm25: float  # raw BM25, the best over the query texts; 0 when no term is shared
    rank: int  # 0-based position in the fused ranking
    exact: bool  # the passage is about a product code the question names

    @property
    def product(self) -> str:
        """What the passage is about: its title (a product's name), else its document."""
        return self.passage.title or self.passage.document_id


def feature_rows(question: str, candidates: Sequence[Candidate]) -> np.ndarray:
    """One row per candidate, columns as ``FEATURES``; shape (len(candidates), len(FEATURES))."""
    rows = np.zeros((len(candidates), len(FEATURES)), dtype=np.float32)
    if not candidates:
        return rows
    terms = set(index_terms(question))
    best_cosine = max(c.cosine for c in candidates)
    best_bm25 = max(c.bm25 for c in candidates)
    voters = Counter(c.product for c in sorted(candidates, key=lambda c: c.rank)[:VOTERS])
    product_cosine: dict[str, float] = {}
    for c in candidates:
        product_cosine[c.product] = max(c.cosine, product_cosine.get(c.product, -1.0))
    first = min(candidates, key=lambda c: c.rank).product
    for i, candidate in enumerate(candidates):
        passage = candidate.passage
        rows[i] = [
            candidate.cosine,
            best_cosine - candidate.cosine,
            candidate.bm25 / best_bm25 if best_bm25 > 0 else 0.0,
            1.0 / (1 + candidate.rank),
            float(candidate.exact),
            *kind_one_hot(passage.kind),
            math.log1p(len(content_words(passage.text))),
            overlap(terms, f"{passage.title} {passage.section}"),
            overlap(terms, passage.text),
            len(terms),
            voters[candidate.product] / VOTERS,
            best_cosine - product_cosine[candidate.product],
            float(candidate.product == first),
        ]
    return rows


def kind_one_hot(kind: str) -> list[float]:
    """One 1 among ``KINDS`` and "other"."""
    known = kind if kind in KINDS else "other"
    return [float(known == k) for k in (*KINDS, "other")]


def overlap(terms: set[str], text: str) -> float:
    """Share of ``terms`` (the question's index terms) that ``text`` also has."""
    if not terms:
        return 0.0
    return len(terms & set(index_terms(text))) / len(terms)
