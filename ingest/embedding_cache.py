"""Embeddings already computed, keyed by model and passage hash: unchanged text is not re-embedded.

A SQLite file: safe to share between runs, committed batch by batch so that a run killed midway
keeps what it had already paid for.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from types import TracebackType

import numpy as np

_SCHEMA = """
CREATE TABLE IF NOT EXISTS embeddings (
    model TEXT NOT NULL,
    hash TEXT NOT NULL,
    vector BLOB NOT NULL,
    PRIMARY KEY (model, hash)
) WITHOUT ROWID
"""
_LOOKUP_CHUNK = 500


class EmbeddingCache:
    def __init__(self, path: Path, *, model_id: str, dimension: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, timeout=30)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(_SCHEMA)
        self._model_id = model_id
        self._dimension = dimension

    def get_many(self, hashes: Iterable[str]) -> dict[str, np.ndarray]:
        """The cached vectors among ``hashes`` (missing ones are simply absent)."""
        wanted = list(dict.fromkeys(hashes))
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(wanted), _LOOKUP_CHUNK):
            chunk = wanted[start : start + _LOOKUP_CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                f"SELECT hash, vector FROM embeddings WHERE model = ? AND hash IN ({marks})",
                [self._model_id, *chunk],
            )
            for digest, blob in rows:
                vector = np.frombuffer(blob, dtype=np.float32)
                if vector.shape == (self._dimension,):
                    found[digest] = vector
        return found

    def put_many(self, vectors: Mapping[str, np.ndarray]) -> None:
        rows = [
            (self._model_id, digest, np.asarray(v, dtype=np.float32).tobytes())
            for digest, v in vectors.items()
        ]
        with self._db:
            self._db.executemany(
                "INSERT OR REPLACE INTO embeddings (model, hash, vector) VALUES (?, ?, ?)", rows
            )

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> EmbeddingCache:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
