"""Published index versions: immutable folders and an atomically swapped ``CURRENT`` pointer.

Layout under the index root::

    versions/<version-id>/index.faiss      the Faiss index (row i = passage i)
    versions/<version-id>/passages.jsonl   the passages, in index order
    versions/<version-id>/manifest.json    model, dimension, counts, hashes, timings; written last
    CURRENT                                the id of the version being served

A version folder is written under a hidden staging name, flushed to disk and renamed into place
before the pointer changes, so a reader never sees half a version, and a run that dies at any
moment leaves the served version as it was.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import os
import shutil
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from app.errors import CorruptIndexVersionError, IndexNotPublishedError, IngestLockedError
from app.index.manifest import FileFacts, VersionManifest
from app.index.passage import Passage
from app.index.vector_index import load_index, save_index

logger = logging.getLogger(__name__)

POINTER = "CURRENT"
VERSIONS = "versions"
STAGING_PREFIX = ".staging-"
INDEX_FILE, PASSAGES_FILE, MANIFEST_FILE = "index.faiss", "passages.jsonl", "manifest.json"


@dataclass(frozen=True)
class IndexVersion:
    """One published version, loaded into memory (``manifest`` is None for one built in memory
    and never published, as the evaluation does)."""

    id: str
    manifest: VersionManifest | None
    passages: list[Passage]
    index: Any


def new_version_id(content_digest: str, now: datetime | None = None) -> str:
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S%fZ")
    return f"{stamp}-{content_digest[:8]}"


def current_version_id(root: Path) -> str | None:
    """The id the pointer names, or None before the first publish."""
    try:
        return (root / POINTER).read_text().strip() or None
    except FileNotFoundError:
        return None


def list_versions(root: Path) -> list[str]:
    """Published version ids, oldest first."""
    folder = root / VERSIONS
    if not folder.exists():
        return []
    return sorted(p.name for p in folder.iterdir() if p.is_dir() and not p.name.startswith("."))


def read_manifest(root: Path, version_id: str) -> VersionManifest:
    path = root / VERSIONS / version_id / MANIFEST_FILE
    try:
        return VersionManifest.load(path)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CorruptIndexVersionError(
            f"version {version_id}: unreadable manifest ({exc})"
        ) from exc


def publish_version(
    root: Path,
    *,
    version_id: str,
    index: Any,
    passages: Sequence[Passage],
    manifest: VersionManifest,
    keep: int,
) -> Path:
    """Write a version folder, then swap the pointer to it; prune beyond the last ``keep``.

    The manifest is written last, with ``version_id`` and the facts of the files written."""
    versions = root / VERSIONS
    versions.mkdir(parents=True, exist_ok=True)
    staging = versions / f"{STAGING_PREFIX}{version_id}-{os.getpid()}"
    staging.mkdir()
    try:
        save_index(index, staging / INDEX_FILE)
        with (staging / PASSAGES_FILE).open("w", encoding="utf-8") as handle:
            for passage in passages:
                handle.write(json.dumps(passage.to_json(), ensure_ascii=False) + "\n")
        files = {name: _file_facts(staging / name) for name in (INDEX_FILE, PASSAGES_FILE)}
        replace(manifest, version=version_id, files=files).save(staging / MANIFEST_FILE)
        for name in (INDEX_FILE, PASSAGES_FILE, MANIFEST_FILE):
            _fsync_file(staging / name)
        final = versions / version_id
        staging.rename(final)
        _fsync_dir(versions)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    set_pointer(root, version_id)
    prune_versions(root, keep=keep)
    return final


def set_pointer(root: Path, version_id: str) -> None:
    """Atomically point readers at ``version_id`` (which must be a complete version)."""
    read_manifest(root, version_id)
    temporary = root / f".{POINTER}.{os.getpid()}.tmp"
    temporary.write_text(version_id + "\n")
    _fsync_file(temporary)
    os.replace(temporary, root / POINTER)
    _fsync_dir(root)
    logger.info("now serving index version %s", version_id)


def prune_versions(root: Path, *, keep: int) -> list[str]:
    """Delete all but the newest ``keep`` versions; the served one is never deleted."""
    current = current_version_id(root)
    versions = list_versions(root)
    doomed = [v for v in versions[: max(0, len(versions) - keep)] if v != current]
    for version_id in doomed:
        shutil.rmtree(root / VERSIONS / version_id, ignore_errors=True)
    return doomed


def clean_staging(root: Path) -> list[str]:
    """Remove folders left by runs that died while writing; call it holding ``ingest_lock``."""
    folder = root / VERSIONS
    removed: list[str] = []
    if not folder.exists():
        return removed
    for path in folder.iterdir():
        if path.name.startswith(STAGING_PREFIX):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path.name)
    return removed


def load_version(root: Path, version_id: str) -> IndexVersion:
    """Read a version fully into memory, checking its files against the manifest."""
    folder = root / VERSIONS / version_id
    manifest = read_manifest(root, version_id)
    try:
        for name, facts in manifest.files.items():
            if (folder / name).stat().st_size != facts.bytes:  # a publish may prune it meanwhile
                raise CorruptIndexVersionError(f"version {version_id}: {name} is truncated")
        passages = read_passages(root, version_id)
        index = load_index(folder / INDEX_FILE)
    except (OSError, ValueError, TypeError, RuntimeError) as exc:
        raise CorruptIndexVersionError(f"version {version_id}: {exc}") from exc
    if index.ntotal != len(passages):
        raise CorruptIndexVersionError(
            f"version {version_id}: {index.ntotal} vectors for {len(passages)} passages"
        )
    return IndexVersion(version_id, manifest, passages, index)


def read_passages(root: Path, version_id: str) -> list[Passage]:
    """A version's passages in index order."""
    path = root / VERSIONS / version_id / PASSAGES_FILE
    try:
        with path.open(encoding="utf-8") as handle:
            return [Passage.from_json(json.loads(line)) for line in handle]
    except (OSError, ValueError, TypeError) as exc:
        raise CorruptIndexVersionError(f"version {version_id}: {exc}") from exc


def load_current(root: Path, *, attempts: int = 3) -> IndexVersion:
    """The served version; re-reads the pointer if a publish pruned what it named meanwhile."""
    last_error: Exception | None = None
    for _ in range(attempts):
        version_id = current_version_id(root)
        if version_id is None:
            raise IndexNotPublishedError(
                f"no index has been published under {root}: run `python -m ingest`"
            )
        try:
            return load_version(root, version_id)
        except CorruptIndexVersionError as exc:
            last_error = exc
            if current_version_id(root) == version_id:
                raise
    raise CorruptIndexVersionError(str(last_error))


@contextlib.contextmanager
def ingest_lock(root: Path) -> Iterator[None]:
    """One publishing run per index root at a time; a second one fails at once."""
    root.mkdir(parents=True, exist_ok=True)
    with (root / ".lock").open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            raise IngestLockedError(
                f"another ingestion run is publishing into {root}; try again when it ends"
            ) from exc
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _file_facts(path: Path) -> FileFacts:
    with path.open("rb") as handle:
        digest = hashlib.file_digest(handle, "sha256")
    return FileFacts(bytes=path.stat().st_size, sha256=digest.hexdigest())


def _fsync_file(path: Path) -> None:
    with path.open("rb") as handle:
        os.fsync(handle.fileno())


def _fsync_dir(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)
