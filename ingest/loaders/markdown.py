"""Markdown and plain-text pages: split on headings, each section keeping its heading path."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from ingest.documents import Document, LoadResult, Section, slugify
from ingest.loaders.kinds import kind_from_path

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def load_markdown(text: str, rel: str) -> LoadResult:
    """One document per file; one section per heading (text before the first heading included)."""
    title = _title_from_path(rel)
    stack: list[tuple[int, str]] = []
    sections: list[Section] = []
    buffer: list[str] = []
    in_fence = False

    def flush() -> None:
        body = "\n".join(buffer).strip()
        buffer.clear()
        if body:
            heading = tuple(h for _, h in stack) or (title,)
            anchor = slugify(stack[-1][1]) if stack else ""
            sections.append(Section(heading=heading, text=body, anchor=anchor))

    for line in text.splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else _HEADING.match(line)
        if match is None:
            buffer.append(line)
            continue
        flush()
        level, heading = len(match.group(1)), match.group(2).strip()
        if level == 1 and not any(lvl == 1 for lvl, _ in stack) and not sections:
            title = heading
        while stack and stack[-1][0] >= level:
            stack.pop()
        stack.append((level, heading))
    flush()
    return _single_document(rel, title, sections)


def load_text(text: str, rel: str) -> LoadResult:
    """A plain-text file is one section under the file's title."""
    title = _title_from_path(rel)
    return _single_document(rel, title, [Section(heading=(title,), text=text.strip())])


def _single_document(rel: str, title: str, sections: list[Section]) -> LoadResult:
    if not sections:
        return LoadResult()
    document = Document.build(
        id=rel, source=rel, title=title, kind=kind_from_path(rel), sections=sections
    )
    return LoadResult(documents=[document])


def _title_from_path(rel: str) -> str:
    return PurePosixPath(rel).stem.replace("-", " ").replace("_", " ").strip().capitalize()
