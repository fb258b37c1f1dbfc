"""The ingestion run: knowledge files → documents → passages → embeddings → a published version."""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

import numpy as np

from app.embedding.embedder import Embedder
from app.errors import CorruptIndexVersionError, NothingToPublishError
from app.index import vector_index, versions
from app.index.manifest import (
    Chunking,
    Counts,
    EmbeddingModel,
    IndexFacts,
    SkippedSource,
    VersionManifest,
)
from app.index.passage import Passage
from app.settings import Settings
from ingest.chunking import ChunkingPolicy, chunk_documents
from ingest.documents import Document, SkippedFile
from ingest.embedding_cache import EmbeddingCache
from ingest.loaders import discover, load_file

logger = logging.getLogger(__name__)

Outcome = Literal["published", "unchanged"]
_EMBED_SLICE = 1024  # passages embedded between two cache commits


@dataclass
class IngestReport:
    """What a run did, for the summary table, the manifest and the exit code."""

    outcome: Outcome = "unchanged"
    version_id: str | None = None
    files: int = 0
    documents: int = 0
    passages: int = 0
    embedded_new: int = 0
    embedded_reused: int = 0
    skipped: list[SkippedFile] = field(default_factory=list)
    index_kind: str = ""
    index_recall: float = 1.0
    timings: dict[str, float] = field(default_factory=dict)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings[name] = round(time.perf_counter() - started, 4)


def run_ingest(
    settings: Settings, embedder: Embedder, *, force: bool = False, progress: bool = False
) -> IngestReport:
    """Ingest ``settings.knowledge_dir`` and publish a new version unless nothing changed.

    Raises NothingToPublishError when no passage came out; any failure leaves the served
    version untouched.
    """
    root = settings.index_dir
    report = IngestReport()
    started = time.perf_counter()
    with versions.ingest_lock(root):
        versions.clean_staging(root)
        with report.stage("load"):
            documents = load_documents(settings, report)
        current = versions.current_version_id(root)
        served = _served_manifest(root, current)
        policy = ChunkingPolicy(settings.chunk_tokens, settings.chunk_overlap_tokens)
        with report.stage("chunk"):
            passages = chunk_changed(
                documents,
                embedder,
                policy,
                previous=_previous_passages(root, current, served, embedder.model_id, policy),
            )
        report.passages = len(passages)
        if not passages:
            raise NothingToPublishError(
                f"no passages came out of {settings.knowledge_dir} "
                f"({len(report.skipped)} skipped); the served version is unchanged"
            )
        digest = content_digest(embedder.model_id, passages)
        if not force and served is not None and served.content_digest == digest:
            report.version_id = current
            report.embedded_reused = len({p.hash for p in passages})
            report.timings["total"] = round(time.perf_counter() - started, 4)
            return report
        with report.stage("embed"):
            matrix = embed_passages(settings, embedder, passages, report, progress=progress)
        with report.stage("index"):
            choice = vector_index.choose_index(
                len(passages),
                setting=settings.index_kind,
                exact_max=settings.index_exact_max,
                on_gpu=settings.index_device != "cpu" and vector_index.gpu_count() > 0,
            )
            index = vector_index.build_index(matrix, choice)
            choice, report.index_recall = vector_index.calibrate(index, matrix, choice)
            report.index_kind = choice.kind
        with report.stage("publish"):
            report.version_id = versions.new_version_id(digest)
            manifest = _manifest(policy, embedder, report, choice, digest, documents)
            versions.publish_version(
                root,
                version_id=report.version_id,
                index=index,
                passages=passages,
                manifest=manifest,
                keep=settings.keep_versions,
            )
        report.outcome = "published"
    report.timings["total"] = round(time.perf_counter() - started, 4)
    return report


def load_documents(settings: Settings, report: IngestReport) -> list[Document]:
    """Every loadable document under the knowledge folder; bad files go to ``report.skipped``."""
    root = settings.knowledge_dir
    if not root.is_dir():
        raise NothingToPublishError(f"knowledge folder {root} does not exist")
    paths = discover(root)
    report.files = len(paths)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(
            pool.map(lambda p: load_file(p, root=root, max_bytes=settings.max_file_bytes), paths)
        )
    documents: list[Document] = []
    for result in results:
        documents.extend(result.documents)
        report.skipped.extend(result.skipped)
    report.documents = len(documents)
    return documents


def chunk_changed(
    documents: Sequence[Document],
    embedder: Embedder,
    policy: ChunkingPolicy,
    *,
    previous: dict[str, tuple[str, list[Passage]]],
) -> list[Passage]:
    """Passages of every document, reusing the served version's for documents that are unchanged."""
    counter = _token_counter(embedder)
    passages: list[Passage] = []
    for document in documents:
        known = previous.get(document.id)
        if known is not None and known[0] == document.content_hash:
            passages.extend(known[1])
        else:
            passages.extend(chunk_documents([document], counter, policy))
    return passages


def embed_passages(
    settings: Settings,
    embedder: Embedder,
    passages: Sequence[Passage],
    report: IngestReport,
    *,
    progress: bool = False,
) -> np.ndarray:
    """Vectors for every passage, computing only those the cache does not hold."""
    with EmbeddingCache(
        settings.embedding_cache_path, model_id=embedder.model_id, dimension=embedder.dimension
    ) as cache:
        known = cache.get_many(p.hash for p in passages)
        missing = {p.hash: p.embed_text for p in passages if p.hash not in known}
        report.embedded_reused = len({p.hash for p in passages}) - len(missing)
        report.embedded_new = len(missing)
        pending = list(missing.items())
        for start in range(0, len(pending), _EMBED_SLICE):
            piece = pending[start : start + _EMBED_SLICE]
            vectors = embedder.embed([text for _, text in piece], progress=progress)
            fresh = {digest: vectors[i] for i, (digest, _) in enumerate(piece)}
            cache.put_many(fresh)
            known.update(fresh)
    return np.stack([known[p.hash] for p in passages]).astype(np.float32)


def content_digest(model_id: str, passages: Sequence[Passage]) -> str:
    """Identifies what a version would serve: the model and every passage, in order."""
    digest = hashlib.sha256(model_id.encode())
    for passage in passages:
        digest.update(f"\n{passage.id}\t{passage.hash}\t{passage.url}".encode())
    return digest.hexdigest()


def _served_manifest(root: Path, version_id: str | None) -> VersionManifest | None:
    """The served version's manifest (read once per run), or None: nothing served, or unreadable."""
    if version_id is None:
        return None
    try:
        return versions.read_manifest(root, version_id)
    except CorruptIndexVersionError:
        return None


def _previous_passages(
    root: Path,
    version_id: str | None,
    served: VersionManifest | None,
    model_id: str,
    policy: ChunkingPolicy,
) -> dict[str, tuple[str, list[Passage]]]:
    """The served version's passages by document, when made with this model and chunking."""
    if version_id is None or served is None:
        return {}
    if served.chunking != _recorded(policy) or served.model.id != model_id:
        return {}
    grouped: dict[str, list[Passage]] = {}
    try:
        for passage in versions.read_passages(root, version_id):
            grouped.setdefault(passage.document_id, []).append(passage)
    except CorruptIndexVersionError:
        return {}
    hashes = served.documents
    return {doc_id: (hashes[doc_id], ps) for doc_id, ps in grouped.items() if doc_id in hashes}


def _token_counter(embedder: Embedder) -> Any:
    @lru_cache(maxsize=65536)
    def count(text: str) -> int:
        return embedder.count_tokens([text])[0]

    return count


def _recorded(policy: ChunkingPolicy) -> Chunking:
    """The chunking policy as a manifest records it."""
    return Chunking(policy.max_tokens, policy.overlap_tokens, policy.rules)


def _manifest(
    policy: ChunkingPolicy,
    embedder: Embedder,
    report: IngestReport,
    choice: vector_index.IndexChoice,
    digest: str,
    documents: Sequence[Document],
) -> VersionManifest:
    """The new version's manifest; ``publish_version`` adds its id and the facts of its files."""
    return VersionManifest(
        created_at=datetime.now(UTC).isoformat(timespec="seconds"),
        content_digest=digest,
        model=EmbeddingModel(embedder.model_id, embedder.dimension),
        index=IndexFacts(choice.kind, dict(choice.params), report.index_recall),
        chunking=_recorded(policy),
        counts=Counts(
            files=report.files,
            documents=report.documents,
            passages=report.passages,
            embedded_new=report.embedded_new,
            embedded_reused=report.embedded_reused,
            skipped=len(report.skipped),
        ),
        documents={d.id: d.content_hash for d in documents},
        skipped=tuple(SkippedSource(s.path, s.reason) for s in report.skipped),
        timings=dict(report.timings),
    )
