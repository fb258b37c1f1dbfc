"""Guess what kind of knowledge a file holds from where the shop keeps it."""

from __future__ import annotations

from pathlib import PurePosixPath

from ingest.documents import DocumentKind


def kind_from_path(rel: str) -> DocumentKind:
    """The outermost folder (or file name) naming a kind decides: faq/product-care.md is FAQ."""
    for part in PurePosixPath(rel).parts:
        name = part.lower()
        for prefix, kind in _PREFIXES:
            if name.startswith(prefix):
                return kind
    return "page"


_PREFIXES: tuple[tuple[str, DocumentKind], ...] = (
    ("product", "product"),
    ("faq", "faq"),
    ("polic", "policy"),
)
