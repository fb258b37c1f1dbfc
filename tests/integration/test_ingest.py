"""The ingestion job end to end, with the real embedder and the bundled knowledge base."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.index import versions
from app.retrieval.published_index import PublishedIndex
from app.settings import Settings
from ingest import pipeline
from ingest.cli import main as ingest_main
from ingest.pipeline import run_ingest
from tests.conftest import REPO


def test_bundled_knowledge_base_ingests_every_format(settings: Settings, embedder) -> None:  # type: ignore[no-untyped-def]
    report = run_ingest(settings, embedder)
    assert report.outcome == "published"
    assert report.skipped == []
    assert report.embedded_new == report.passages  # fresh cache: everything embedded once
    version = versions.load_current(settings.index_dir)
    assert len(version.passages) == report.passages
    suffixes = {Path(p.source).suffix for p in version.passages}
    assert suffixes >= {".jsonl", ".csv", ".json", ".md", ".html"}
    products = {p.document_id for p in version.passages if p.kind == "product"}
    assert len(products) >= 40
    # token-aware with the real tokenizer: nothing the embedder would truncate
    assert max(p.tokens for p in version.passages) <= settings.chunk_tokens
    manifest = version.manifest
    assert manifest is not None and manifest.version == version.id
    assert manifest.model.dimension == 384
    assert manifest.counts.passages == report.passages
    assert manifest.index.kind == "flat"
    assert set(manifest.timings) >= {"load", "chunk", "embed", "index"}


def test_search_finds_the_passage_that_answers(settings: Settings, embedder) -> None:  # type: ignore[no-untyped-def]
    run_ingest(settings, embedder)
    served = PublishedIndex(settings.index_dir).current()
    questions = {
        "How long do I have to return something?": "policies/returns-and-refunds.md",
        "What are your live chat opening hours?": "policies/contact-and-escalation.md",
    }
    vectors = embedder.embed(list(questions))
    for (question, source), hits in zip(questions.items(), served.search(vectors, 5), strict=True):
        found = [served.version.passages[row] for row, _ in hits]
        assert source in [p.source for p in found], (question, [p.id for p in found])


def test_reingest_embeds_only_what_changed(
    settings: Settings,
    embedder,
    knowledge_copy: Path,  # type: ignore[no-untyped-def]
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = settings.model_copy(update={"knowledge_dir": knowledge_copy})
    first = run_ingest(settings, embedder)
    before = {p.hash for p in versions.load_current(settings.index_dir).passages}

    reads: list[str] = []
    read_manifest = versions.read_manifest
    monkeypatch.setattr(
        versions, "read_manifest", lambda root, v: reads.append(v) or read_manifest(root, v)
    )
    again = run_ingest(settings, embedder)
    assert reads == [first.version_id]  # the served manifest is read once per run
    assert again.outcome == "unchanged" and again.version_id == first.version_id
    assert again.embedded_new == 0

    faq = knowledge_copy / "faq" / "product-care.md"
    faq.write_text(faq.read_text() + "\n\n## Storing a tent\n\nDry it fully before packing.\n")
    changed = run_ingest(settings, embedder)
    after = {p.hash for p in versions.load_current(settings.index_dir).passages}
    assert changed.outcome == "published" and changed.version_id != first.version_id
    assert changed.embedded_new == len(after - before) >= 1
    assert changed.embedded_reused == len(after & before)
    assert changed.embedded_new < changed.passages / 10


def test_bad_files_are_reported_and_the_rest_published(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    knowledge = tmp_path / "kb"
    (knowledge / "policies").mkdir(parents=True)
    (knowledge / "policies" / "gift-cards.md").write_text("# Gift cards\n\nValid for 2 years.\n")
    (knowledge / "policies" / "empty.md").write_text("")
    (knowledge / "policies" / "scan.pdf").write_bytes(b"%PDF-1.4\x00\x01")
    (knowledge / "policies" / "legacy.md").write_bytes("Caf\xe9".encode("latin-1"))
    (knowledge / "broken.json").write_text('[{"sku": ')
    code = ingest_main(
        ["--knowledge", str(knowledge), "--data-dir", str(tmp_path / "d"), "--quiet"]
    )
    out = capsys.readouterr().out
    assert code == 3
    assert "published version" in out
    for reason in ("empty file", "unsupported file type '.pdf'", "not UTF-8", "corrupt json"):
        assert reason in out
    assert len(versions.load_current(tmp_path / "d" / "index").passages) == 1


def test_empty_result_publishes_nothing(settings: Settings, embedder, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    served = run_ingest(settings, embedder).version_id
    empty = tmp_path / "empty-kb"
    empty.mkdir()
    (empty / "blank.md").write_text("   \n")
    args = ["--data-dir", str(settings.data_dir), "--quiet"]
    assert ingest_main(["--knowledge", str(empty), *args]) == 4
    assert ingest_main(["--knowledge", str(tmp_path / "missing"), *args]) == 4
    assert versions.current_version_id(settings.index_dir) == served


def test_concurrent_run_is_refused(settings: Settings) -> None:
    with versions.ingest_lock(settings.index_dir):
        code = ingest_main(
            ["--knowledge", str(settings.knowledge_dir), "--data-dir", str(settings.data_dir)]
        )
    assert code == 6


def test_killed_run_leaves_the_published_version_serving(
    settings: Settings,
    embedder,
    knowledge_copy: Path,  # type: ignore[no-untyped-def]
) -> None:
    settings = settings.model_copy(update={"knowledge_dir": knowledge_copy})
    served = run_ingest(settings, embedder).version_id
    cached_before = _cached_rows(settings)
    bulk = "\n\n".join(
        f"## Note {i}\n\nStock note {i}: aisle {i % 17}, bin {i * 7}." for i in range(3000)
    )
    (knowledge_copy / "faq" / "stock-notes.md").write_text("# Stock notes\n\n" + bulk)

    env = {**os.environ, "SHOPDESK_EMBED_DEVICE": "cpu"}
    args = ["--knowledge", str(knowledge_copy), "--data-dir", str(settings.data_dir), "--quiet"]
    child = subprocess.Popen([sys.executable, "-m", "ingest", *args], cwd=REPO, env=env)
    try:
        deadline = time.monotonic() + 240
        while _cached_rows(settings) == cached_before:  # first batch of new embeddings committed
            assert child.poll() is None, "the run ended before it could be killed"
            assert time.monotonic() < deadline
            time.sleep(0.2)
        child.send_signal(signal.SIGKILL)
    finally:
        child.wait()
    assert child.returncode == -signal.SIGKILL
    assert versions.current_version_id(settings.index_dir) == served
    assert PublishedIndex(settings.index_dir).current().version.id == served

    resumed = run_ingest(settings, embedder)
    assert resumed.outcome == "published"
    assert resumed.embedded_reused > cached_before  # work the killed run committed is kept


def _cached_rows(settings: Settings) -> int:
    if not settings.embedding_cache_path.exists():
        return 0
    with sqlite3.connect(settings.embedding_cache_path, timeout=30) as db:
        return int(db.execute("SELECT COUNT(*) FROM embeddings").fetchone()[0])


@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
def test_approximate_index_when_configured(settings: Settings, embedder, kind: str) -> None:  # type: ignore[no-untyped-def]
    settings = settings.model_copy(update={"index_exact_max": 10, "index_kind": kind})
    report = run_ingest(settings, embedder)
    manifest = versions.load_current(settings.index_dir).manifest
    assert manifest is not None
    assert manifest.index.kind == report.index_kind == kind
    assert manifest.index.recall_at_10 >= 0.95


def test_a_nested_list_keeps_its_nesting_and_old_rules_are_cut_again(
    settings: Settings,
    embedder,  # type: ignore[no-untyped-def]
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long nested list (an agent handbook's "- Bronze members:" over its own item) is cut
    into lines that keep their indent, so the item is quoted under its own lead; a served
    version cut by older chunking rules is cut again, not reused."""
    import dataclasses
    import json

    from app.chat.evidence import units
    from app.retrieval.published_index import ScoredPassage

    knowledge = tmp_path / "kb" / "policies"
    knowledge.mkdir(parents=True)
    levels = "\n".join(
        f"   - {level} members:\n     - return possible within the last {days} days"
        for level, days in [("Gold", 365), ("Silver", 180), ("Bronze", 90), ("Guest", 30)] * 6
    )
    (knowledge / "returns.md").write_text(
        f"# Returns\n\n## Return windows\n\n3. Levels:\n{levels}\n"
    )
    settings = settings.model_copy(update={"knowledge_dir": tmp_path / "kb"})
    first = run_ingest(settings, embedder)
    version = versions.load_current(settings.index_dir)
    assert any("\n     - return possible" in p.text for p in version.passages)
    found = {(u.header, u.text) for p in version.passages for u in units([ScoredPassage(p, 0.5)])}
    assert ("- Bronze members:", "- return possible within the last 90 days") in found
    assert not any(text == "- Bronze members:" for _, text in found)

    # the same knowledge, served as if cut by the rules before they were recorded
    manifest = settings.index_dir / versions.VERSIONS / first.version_id / versions.MANIFEST_FILE
    data = json.loads(manifest.read_text())
    data["chunking"].pop("rules")
    manifest.write_text(json.dumps(data))
    served = versions.read_manifest(settings.index_dir, first.version_id)
    assert served.chunking == dataclasses.replace(served.chunking, rules=1)
    cut: list[str] = []
    chunk_documents = pipeline.chunk_documents
    monkeypatch.setattr(
        pipeline,
        "chunk_documents",
        lambda documents, *rest: (
            cut.extend(d.id for d in documents) or chunk_documents(documents, *rest)
        ),
    )
    run_ingest(settings, embedder)
    assert cut == ["policies/returns.md"]  # cut again by this chunker's rules, not reused
