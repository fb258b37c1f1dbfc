"""BM25 over a version's passages: the exact-term half of hybrid retrieval.

Dense embeddings place "FH-STV-9030" near every other product code; a shopper who types the code
wants that product. The index is a sparse passages × terms matrix of precomputed BM25 weights, so a
query is one sparse column sum, and it is built from the passages when a version is loaded (a few
thousand passages take well under a second; nothing extra is published).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np
from scipy import sparse

from app.index.passage import Passage
from app.retrieval.terms import identifiers, index_terms, name_phrases

K1 = 1.2
B = 0.75
MAX_NAMED = 5  # a name held by more passages than this is no telling match


class LexicalIndex:
    def __init__(self, passages: Sequence[Passage]) -> None:
        vocabulary: dict[str, int] = {}
        rows: list[int] = []
        cols: list[int] = []
        counts: list[float] = []
        lengths = np.zeros(len(passages), dtype=np.float32)
        self._identifiers: dict[str, set[int]] = defaultdict(set)
        for row, passage in enumerate(passages):
            text = passage.embed_text or passage.text
            terms = Counter(index_terms(text))
            lengths[row] = sum(terms.values())
            for code in own_codes(passage):
                self._identifiers[code].add(row)
            for term, count in terms.items():
                rows.append(row)
                cols.append(vocabulary.setdefault(term, len(vocabulary)))
                counts.append(count)
        self._vocabulary = vocabulary
        shape = (len(passages), max(1, len(vocabulary)))
        tf = sparse.csr_matrix((counts, (rows, cols)), shape=shape, dtype=np.float32)
        documents = np.bincount(cols, minlength=shape[1]).astype(np.float32)
        idf = np.log1p((len(passages) - documents + 0.5) / (documents + 0.5)).astype(np.float32)
        norm = K1 * (1 - B + B * lengths / max(float(lengths.mean()) if len(lengths) else 1, 1.0))
        tf = tf.tocoo()
        weights = tf.data * (K1 + 1) / (tf.data + norm[tf.row]) * idf[tf.col]
        self._weights = sparse.csc_matrix((weights, (tf.row, tf.col)), shape=shape)

    def search(self, query: str, k: int) -> list[tuple[int, float]]:
        """Up to ``k`` (passage row, BM25 score) pairs, best first; only passages sharing a term."""
        return self.top(self.scores(query), k)

    def scores(self, query: str) -> np.ndarray | None:
        """Every passage's BM25 score for ``query``; None when no query term is indexed."""
        columns = [self._vocabulary[t] for t in index_terms(query) if t in self._vocabulary]
        if not columns:
            return None
        return np.asarray(self._weights[:, columns].sum(axis=1)).ravel()

    @staticmethod
    def top(scores: np.ndarray | None, k: int) -> list[tuple[int, float]]:
        """The ``k`` best (row, score) pairs of ``scores()``, best first, zeros left out."""
        if scores is None or k <= 0:
            return []
        candidates = np.flatnonzero(scores > 0)
        if len(candidates) > k:
            candidates = candidates[np.argpartition(-scores[candidates], k - 1)[:k]]
        ordered = candidates[np.argsort(-scores[candidates], kind="stable")]
        return [(int(i), float(scores[i])) for i in ordered]

    def name_matches(self, query: str) -> set[int]:
        """Rows of the passages that hold every word of a name the query gives ("American
        Express", "Apple Pay"), when few enough do that the name is telling (`MAX_NAMED`):
        the shopper asked after something the pages name, however its words embed."""
        rows: set[int] = set()
        for name in name_phrases(query):
            columns = [self._vocabulary.get(t) for t in index_terms(name)]
            if not columns or None in columns:
                continue
            holding = set.intersection(*(set(self._weights[:, c].indices) for c in columns))
            if len(holding) <= MAX_NAMED:
                rows |= {int(r) for r in holding}
        return rows

    def identifier_matches(self, query: str) -> set[int]:
        """Rows of passages about a product code or model number the query names exactly.

        "About" means the code is in the passage's title or heading path (a product record's own
        SKU), not merely mentioned, as accessories mention what they fit.
        """
        rows: set[int] = set()
        for code in identifiers(query):
            rows |= self._identifiers.get(code, set())
        return rows


def own_codes(passage: Passage) -> set[str]:
    """The codes a passage is about: in its title or headings, and a product record's own id.

    A product record's anchor is its identifier (the SKU), which is said once in the record's
    first chunk; through the anchor every chunk of the record answers to it.
    """
    named = f"{passage.title} {passage.section}"
    if passage.kind == "product":
        named += f" {passage.anchor}"
    return identifiers(named)
