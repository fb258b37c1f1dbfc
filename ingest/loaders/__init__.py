"""Turn knowledge files into documents: one loader per file type, behind one guarded entry point."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

from ingest.documents import LoadResult, SkippedFile
from ingest.loaders.html import load_html
from ingest.loaders.markdown import load_markdown, load_text
from ingest.loaders.records import load_csv, load_json, load_jsonl

logger = logging.getLogger(__name__)

Loader = Callable[[str, str], LoadResult]

LOADERS: dict[str, Loader] = {
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".txt": load_text,
    ".html": load_html,
    ".htm": load_html,
    ".json": load_json,
    ".jsonl": load_jsonl,
    ".csv": load_csv,
}

_BINARY_SNIFF_BYTES = 8192


def discover(root: Path) -> list[Path]:
    """Every non-hidden file under ``root``, in a stable order."""
    return sorted(
        p
        for p in root.rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def load_file(path: Path, *, root: Path, max_bytes: int) -> LoadResult:
    """Load one file, or report why it was skipped; never raises for bad content."""
    rel = path.relative_to(root).as_posix()
    loader = LOADERS.get(path.suffix.lower())
    if loader is None:
        return _skip(rel, f"unsupported file type {path.suffix or '(none)'!r}")
    try:
        size = path.stat().st_size
        if size == 0:
            return _skip(rel, "empty file")
        if size > max_bytes:
            return _skip(rel, f"oversized: {size:,} bytes (limit {max_bytes:,})")
        raw = path.read_bytes()
    except OSError as exc:
        return _skip(rel, f"unreadable: {exc.strerror or exc}")
    if b"\x00" in raw[:_BINARY_SNIFF_BYTES]:
        return _skip(rel, "binary content, not text")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        return _skip(rel, f"not UTF-8 text (invalid byte at offset {exc.start})")
    if not text.strip():
        return _skip(rel, "empty file (whitespace only)")
    try:
        result = loader(text, rel)
    except (ValueError, LookupError) as exc:  # json/csv/html parse errors derive from these
        return _skip(rel, f"corrupt {path.suffix.lstrip('.')}: {exc}")
    if not result.documents and not result.skipped:
        return _skip(rel, "no text found")
    return result


def _skip(rel: str, reason: str) -> LoadResult:
    logger.warning("skipping %s: %s", rel, reason)
    return LoadResult(skipped=[SkippedFile(rel, reason)])
