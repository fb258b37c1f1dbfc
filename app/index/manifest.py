"""The manifest of a published index version: what it was built from, with what, and how.

Written last into a version folder (``manifest.json``) and read back when the version is loaded,
listed, or compared with the next ingestion run. ``to_json`` writes the keys in the order the
file has always had, so a manifest read and saved again is byte for byte the same file.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class EmbeddingModel:
    """The embedder every vector of the version came from."""

    id: str
    dimension: int


@dataclass(frozen=True)
class IndexFacts:
    """The Faiss index kind, its search parameters and the recall@10 measured with them."""

    kind: str
    params: Mapping[str, int]
    recall_at_10: float


@dataclass(frozen=True)
class Chunking:
    """The chunking policy the passages were cut with (tokens of the embedder)."""

    max_tokens: int
    overlap: int
    # the chunker's rules: passages cut by other rules are cut again (1: before it was recorded)
    rules: int = 1


@dataclass(frozen=True)
class Counts:
    files: int
    documents: int
    passages: int
    embedded_new: int
    embedded_reused: int
    skipped: int


@dataclass(frozen=True)
class SkippedSource:
    """A knowledge file the run could not read, and why."""

    path: str
    reason: str


@dataclass(frozen=True)
class FileFacts:
    """Size and digest of one file of the version folder."""

    bytes: int
    sha256: str


@dataclass(frozen=True)
class VersionManifest:
    """One version's manifest. ``version`` and ``files`` are filled in when it is published."""

    created_at: str  # ISO 8601, UTC, to the second
    content_digest: str  # the model and every passage, in order (ingest.pipeline.content_digest)
    model: EmbeddingModel
    index: IndexFacts
    chunking: Chunking
    counts: Counts
    documents: Mapping[str, str]  # document id -> content hash
    skipped: tuple[SkippedSource, ...]
    timings: Mapping[str, float]  # stage -> seconds
    version: str = ""
    files: Mapping[str, FileFacts] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> VersionManifest:
        """Raises KeyError or TypeError when ``data`` is not a manifest."""
        return cls(
            created_at=data["created_at"],
            content_digest=data["content_digest"],
            model=EmbeddingModel(**data["model"]),
            index=IndexFacts(**data["index"]),
            chunking=Chunking(**data["chunking"]),
            counts=Counts(**data["counts"]),
            documents=dict(data["documents"]),
            skipped=tuple(SkippedSource(**s) for s in data["skipped"]),
            timings=dict(data["timings"]),
            version=data["version"],
            files={name: FileFacts(**facts) for name, facts in data["files"].items()},
        )

    def to_json(self) -> dict[str, Any]:
        """The manifest as JSON data, keys in field order (the order the file has always had)."""
        return asdict(self)

    @classmethod
    def load(cls, path: Path) -> VersionManifest:
        """Raises OSError, ValueError (not JSON), KeyError or TypeError (not a manifest)."""
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            raise TypeError(f"{path.name} holds {type(data).__name__}, not an object")
        return cls.from_json(data)

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=2))
