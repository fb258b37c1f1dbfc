"""Publishing versions: atomic pointer, retention, failures midway, readers during publish."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest

from app.errors import CorruptIndexVersionError, IndexNotPublishedError, IngestLockedError
from app.index import vector_index, versions
from app.index.manifest import Chunking, Counts, EmbeddingModel, IndexFacts, VersionManifest
from app.index.passage import Passage


def passages(n: int, tag: str = "") -> list[Passage]:
    return [
        Passage(
            id=f"doc{tag}::{i}",
            document_id=f"doc{tag}",
            source="x.md",
            title="T",
            section="S",
            url="",
            anchor="",
            kind="page",
            text=f"text {tag} {i}",
            embed_text=f"T\ntext {tag} {i}",
            hash=f"h{tag}{i}",
            tokens=4,
        )
        for i in range(n)
    ]


def manifest(n: int, tag: str) -> VersionManifest:
    return VersionManifest(
        created_at="2026-01-01T00:00:00+00:00",
        content_digest=f"digest-{tag}",
        model=EmbeddingModel("test-model", 8),
        index=IndexFacts("flat", {}, 1.0),
        chunking=Chunking(200, 40),
        counts=Counts(
            files=1, documents=1, passages=n, embedded_new=n, embedded_reused=0, skipped=0
        ),
        documents={f"doc{tag}": f"hash-{tag}"},
        skipped=(),
        timings={"load": 0.01},
    )


def publish(root: Path, n: int, tag: str, keep: int = 3) -> str:
    rng = np.random.default_rng(abs(hash(tag)) % 1000)
    vectors = rng.normal(size=(n, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = vector_index.build_index(vectors, vector_index.IndexChoice("flat"))
    version_id = versions.new_version_id(f"{tag:0<8}")
    versions.publish_version(
        root,
        version_id=version_id,
        index=index,
        passages=passages(n, tag),
        manifest=manifest(n, tag),
        keep=keep,
    )
    return version_id


def test_nothing_published_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(IndexNotPublishedError, match="python -m ingest"):
        versions.load_current(tmp_path)


def test_publish_swaps_pointer_and_keeps_the_last_versions(tmp_path: Path) -> None:
    ids = [publish(tmp_path, 5 + i, f"v{i}") for i in range(5)]
    assert versions.current_version_id(tmp_path) == ids[-1]
    assert versions.list_versions(tmp_path) == ids[-3:]
    loaded = versions.load_current(tmp_path)
    assert loaded.id == ids[-1] and len(loaded.passages) == 9 and loaded.index.ntotal == 9
    assert loaded.manifest is not None
    assert loaded.manifest.content_digest == "digest-v4" and loaded.manifest.version == ids[-1]
    assert set(loaded.manifest.files) == {"index.faiss", "passages.jsonl"}
    assert loaded.manifest.counts.passages == 9


def test_rolled_back_version_survives_pruning(tmp_path: Path) -> None:
    first = publish(tmp_path, 3, "a", keep=2)
    publish(tmp_path, 3, "b", keep=2)
    versions.set_pointer(tmp_path, first)
    publish(tmp_path, 3, "c", keep=2)  # pointer moves to c; a is old and not served any more
    publish(tmp_path, 3, "d", keep=2)
    assert first not in versions.list_versions(tmp_path)
    versions.set_pointer(tmp_path, versions.list_versions(tmp_path)[0])
    publish(tmp_path, 3, "e", keep=1)
    assert len(versions.list_versions(tmp_path)) == 1


def test_failure_while_writing_leaves_the_served_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    served = publish(tmp_path, 4, "good")

    def disk_full(index: object, path: Path) -> None:
        path.write_bytes(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(versions, "save_index", disk_full)
    with pytest.raises(OSError, match="No space"):
        publish(tmp_path, 4, "bad")
    assert versions.current_version_id(tmp_path) == served
    assert versions.list_versions(tmp_path) == [served]
    assert not any(p.name.startswith(".staging") for p in (tmp_path / "versions").iterdir())
    assert versions.load_current(tmp_path).id == served


def test_leftover_staging_from_a_killed_run_is_cleaned(tmp_path: Path) -> None:
    publish(tmp_path, 2, "x")
    leftover = tmp_path / "versions" / ".staging-20990101T000000Z-deadbeef-12345"
    leftover.mkdir()
    (leftover / "index.faiss").write_bytes(b"half")
    with versions.ingest_lock(tmp_path):
        assert versions.clean_staging(tmp_path) == [leftover.name]
    assert not leftover.exists()


def test_truncated_version_is_refused(tmp_path: Path) -> None:
    version_id = publish(tmp_path, 6, "t")
    passages_file = tmp_path / "versions" / version_id / "passages.jsonl"
    passages_file.write_text(passages_file.read_text()[:-20])
    with pytest.raises(CorruptIndexVersionError, match="truncated"):
        versions.load_current(tmp_path)


def test_pointer_refuses_an_incomplete_version(tmp_path: Path) -> None:
    (tmp_path / "versions" / "half").mkdir(parents=True)
    with pytest.raises(CorruptIndexVersionError):
        versions.set_pointer(tmp_path, "half")


def test_second_run_is_locked_out(tmp_path: Path) -> None:
    with (
        versions.ingest_lock(tmp_path),
        pytest.raises(IngestLockedError),
        versions.ingest_lock(tmp_path),
    ):
        pass


def test_reader_polling_during_publishes_never_fails(tmp_path: Path) -> None:
    publish(tmp_path, 10, "start", keep=2)
    errors: list[BaseException] = []
    seen: set[str] = set()
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            try:
                version = versions.load_current(tmp_path)
                assert version.index.ntotal == len(version.passages)
                seen.add(version.id)
            except BaseException as exc:
                errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for thread in threads:
        thread.start()
    try:
        for i in range(25):
            publish(tmp_path, 50 + i, f"p{i}", keep=2)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert errors == []
    assert len(seen) > 1
