"""Guess what kind of knowledge a file holds from where the shop keeps it."""

from __future__ import annotations

from pathlib import PurePosixPath

from ingest.documents import DocumentKind


def kind_from_path(rel: str) -> DocumentKind:
    parts = [p.lower() for p in PurePosixPath(rel).parts]
    if any(p.startswith("product") for p in parts):
        return "product"
    if any(p.startswith("faq") for p in parts):
        return "faq"
    if any(p.startswith("polic") for p in parts):
        return "policy"
    return "page"
