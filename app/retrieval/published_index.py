"""The served index version, followed as the ingestion job publishes new ones."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from app.errors import ShopdeskError
from app.index import vector_index, versions
from app.index.passage import Passage
from app.index.versions import IndexVersion
from app.retrieval.lexical import LexicalIndex

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ScoredPassage:
    passage: Passage
    score: float


@dataclass(frozen=True)
class ServedIndex:
    """One loaded version: the (possibly GPU) vector index and the lexical index over it."""

    version: IndexVersion
    search_index: Any
    device: str
    lexical: LexicalIndex

    @classmethod
    def serve(cls, version: IndexVersion, device: str = "auto") -> ServedIndex:
        search_index, placed = vector_index.to_device(version.index, device)
        if hasattr(version.index, "make_direct_map"):  # IVF: lets similarity() reconstruct
            version.index.make_direct_map()
        return cls(version, search_index, placed, LexicalIndex(version.passages))

    def search(self, queries: np.ndarray, k: int) -> list[list[tuple[int, float]]]:
        """Top-``k`` (passage row, cosine) for each row of ``queries`` (normalised), best first."""
        k = min(k, len(self.version.passages))
        if k == 0 or len(queries) == 0:
            return [[] for _ in range(len(queries))]
        scores, ids = self.search_index.search(np.ascontiguousarray(queries, np.float32), k)
        return [
            [(int(i), float(s)) for s, i in zip(row_scores, row_ids, strict=True) if i >= 0]
            for row_scores, row_ids in zip(scores, ids, strict=True)
        ]

    def rows_titled(self, title: str) -> list[int]:
        """The rows of the passages titled ``title``: one product's record, reviews and Q&A."""
        return list(self._titled.get(title, ()))

    def row_of(self, passage_id: str) -> int | None:
        """The row of the passage with this id, if this version has it."""
        return self._rows.get(passage_id)

    @cached_property
    def _rows(self) -> dict[str, int]:
        return {passage.id: row for row, passage in enumerate(self.version.passages)}

    @cached_property
    def _titled(self) -> dict[str, list[int]]:
        """Each title's rows, worked out once per served version, on first use."""
        titled: dict[str, list[int]] = {}
        for row, passage in enumerate(self.version.passages):
            titled.setdefault(passage.title, []).append(row)
        return titled

    def similarity(self, rows: list[int], queries: np.ndarray) -> np.ndarray:
        """Cosine of each query with each given passage: shape (len(queries), len(rows))."""
        if not rows:
            return np.zeros((len(queries), 0), np.float32)
        vectors = np.stack([self.version.index.reconstruct(row) for row in rows])
        return np.asarray(queries, np.float32) @ vectors.T


class PublishedIndex:
    """Holds the served version in memory and swaps in a newer one without blocking readers.

    ``current()`` is cheap: it looks at the pointer at most every ``poll_seconds``. A new version
    is loaded beside the old one and replaces it in one assignment, so a request in flight keeps
    the version it started with. A version that fails to load is logged and the old one kept.
    """

    def __init__(self, root: Path, *, device: str = "auto", poll_seconds: float = 2.0) -> None:
        self._root = root
        self._device = device
        self._poll_seconds = poll_seconds
        self._lock = threading.Lock()
        self._served: ServedIndex | None = None
        self._checked_at = 0.0

    def current(self) -> ServedIndex:
        """The served index; raises IndexNotPublishedError before the first publish."""
        if self._served is None or time.monotonic() - self._checked_at >= self._poll_seconds:
            self.refresh(raise_errors=self._served is None)
        assert self._served is not None
        return self._served

    def refresh(self, *, raise_errors: bool = False) -> bool:
        """Load the pointer's version if it is not the one held; True when it swapped."""
        with self._lock:
            self._checked_at = time.monotonic()
            held = self._served.version.id if self._served else None
            if held is not None and versions.current_version_id(self._root) == held:
                return False
            try:
                served = ServedIndex.serve(versions.load_current(self._root), self._device)
            except ShopdeskError as exc:
                if raise_errors:
                    raise
                logger.error("keeping index version %s: %s", held, exc)
                return False
            self._served = served
            logger.info(
                "serving index version %s (%d passages, %s)",
                served.version.id,
                len(served.version.passages),
                served.device,
            )
            return True
