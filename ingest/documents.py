"""What the loaders produce: documents made of titled sections, and the files they had to skip."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Literal

DocumentKind = Literal["product", "faq", "policy", "page"]


@dataclass(frozen=True)
class Section:
    """A run of text under one heading path, with the anchor a citation can link to."""

    heading: tuple[str, ...]
    text: str
    anchor: str = ""


@dataclass(frozen=True)
class Document:
    """One citable unit of the knowledge base: a page, a product record, an FAQ entry."""

    id: str
    source: str
    title: str
    kind: DocumentKind
    sections: tuple[Section, ...]
    url: str = ""
    content_hash: str = field(default="", compare=False)

    @classmethod
    def build(
        cls,
        *,
        id: str,
        source: str,
        title: str,
        kind: DocumentKind,
        sections: list[Section] | tuple[Section, ...],
        url: str = "",
    ) -> Document:
        body = "\n".join(f"{'/'.join(s.heading)}\n{s.text}" for s in sections)
        digest = content_hash(f"{title}\n{url}\n{body}")
        return cls(
            id=id,
            source=source,
            title=title,
            kind=kind,
            sections=tuple(sections),
            url=url,
            content_hash=digest,
        )


@dataclass(frozen=True)
class SkippedFile:
    """A knowledge file (or part of one) that was not ingested, and why."""

    path: str
    reason: str


@dataclass
class LoadResult:
    """Documents from one file plus anything in it that had to be skipped."""

    documents: list[Document] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)


def content_hash(text: str) -> str:
    """Stable hex digest of a text (sha256)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_SLUG_DROP = re.compile(r"[^\w\- ]+", re.UNICODE)


def slugify(text: str) -> str:
    """GitHub-style heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    return _SLUG_DROP.sub("", text.strip().lower()).replace(" ", "-")
