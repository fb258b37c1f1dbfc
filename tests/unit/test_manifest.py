"""The typed manifest of an index version reads and writes the file exactly as it always was."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.errors import CorruptIndexVersionError
from app.index import versions
from app.index.manifest import Chunking, VersionManifest

# A manifest as the ingestion job wrote it before the manifest was typed (key order, indent,
# escaped non-ASCII, no trailing newline): published versions must load and save unchanged.
WRITTEN = """{
  "created_at": "2026-11-30T20:10:00+00:00",
  "content_digest": "11870d0da58c2fd2e5d16adfe314a281c0ff0e75872535fc149fc36d855ffe77",
  "model": {
    "id": "all-MiniLM-L6-v2@d169a77c9aed/fp32",
    "dimension": 384
  },
  "index": {
    "kind": "hnsw",
    "params": {
      "M": 32,
      "efSearch": 64
    },
    "recall_at_10": 0.9625
  },
  "chunking": {
    "max_tokens": 200,
    "overlap": 40,
    "rules": 2
  },
  "counts": {
    "files": 13,
    "documents": 2,
    "passages": 321,
    "embedded_new": 0,
    "embedded_reused": 321,
    "skipped": 1
  },
  "documents": {
    "faq/general-faq.json#faq-order-tracking": "6f0f330ea5cb4210",
    "products/caf\\u00e9.csv#FH-BOT-1191": "db87ecdcd0fea2d1"
  },
  "skipped": [
    {
      "path": "broken.json",
      "reason": "not valid JSON: Expecting value: line 1 column 1 (char 0)"
    }
  ],
  "timings": {
    "load": 0.0119,
    "chunk": 0.2284,
    "embed": 33.6013,
    "index": 0.1647
  },
  "version": "20261130T201000483097Z-11870d0d",
  "files": {
    "index.faiss": {
      "bytes": 493101,
      "sha256": "74c5bdcf9db1c3b5b3c208d1d5f17dd7b705ad6e8cc92c94ba4d737e408c8515"
    },
    "passages.jsonl": {
      "bytes": 441510,
      "sha256": "a3fdd22bf5598b42c56f5bbe804d34958387be102a51fdb1e209141d71962036"
    }
  }
}"""


def test_a_written_manifest_loads_typed_and_saves_byte_for_byte(tmp_path: Path) -> None:
    source = tmp_path / "manifest.json"
    source.write_text(WRITTEN)
    manifest = VersionManifest.load(source)
    assert manifest.model.dimension == 384 and manifest.chunking == Chunking(200, 40, 2)
    assert manifest.index.params == {"M": 32, "efSearch": 64}
    assert manifest.counts.passages == 321 and manifest.skipped[0].path == "broken.json"
    assert manifest.files["index.faiss"].bytes == 493101
    assert "products/café.csv#FH-BOT-1191" in manifest.documents
    again = tmp_path / "again.json"
    manifest.save(again)
    assert again.read_bytes() == source.read_bytes()


def test_a_manifest_written_before_the_chunking_rules_were_recorded_reads_as_rules_1(
    tmp_path: Path,
) -> None:
    """Versions published before the chunker's rules were recorded still load: their passages
    were cut by the first rules, and the next ingest cuts them again."""
    source = tmp_path / "manifest.json"
    source.write_text(WRITTEN.replace(',\n    "rules": 2', ""))
    assert VersionManifest.load(source).chunking == Chunking(200, 40, 1)


@pytest.mark.parametrize(
    "text", ['{"tag": "v1"}', "[]", "{", WRITTEN.replace('"overlap": 40', '"overlap": 40, "x": 1')]
)
def test_a_file_that_is_not_a_manifest_is_a_corrupt_version(tmp_path: Path, text: str) -> None:
    folder = tmp_path / versions.VERSIONS / "v1"
    folder.mkdir(parents=True)
    (folder / versions.MANIFEST_FILE).write_text(text)
    with pytest.raises(CorruptIndexVersionError, match="unreadable manifest"):
        versions.read_manifest(tmp_path, "v1")
