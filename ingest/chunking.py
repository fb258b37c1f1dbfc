"""Split documents into passages that respect headings and records and fit the embedder.

Pure functions: the only outside thing is ``count_tokens``, the embedder tokenizer's counter.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from app.index.passage import HEADING_JOIN, TABLE_RULE, Passage
from ingest.documents import Document, Section, content_hash

TokenCounter = Callable[[str], int]
# The version of the rules below, recorded in each index version's manifest: a served version
# cut by other rules is cut again, not reused (2: a line split from its paragraph keeps its indent)
RULES = 2

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(£€$])")


@dataclass(frozen=True)
class ChunkingPolicy:
    max_tokens: int = 200
    overlap_tokens: int = 40
    rules: int = RULES


def chunk_documents(
    documents: Sequence[Document], count_tokens: TokenCounter, policy: ChunkingPolicy
) -> list[Passage]:
    """Every document's passages, in document order."""
    return [p for d in documents for p in chunk_document(d, count_tokens, policy)]


def chunk_document(
    document: Document, count_tokens: TokenCounter, policy: ChunkingPolicy
) -> list[Passage]:
    passages: list[Passage] = []
    for section_number, section in enumerate(document.sections):
        header = section_header(document.title, section)
        budget = max(16, policy.max_tokens - count_tokens(header) - 1)
        bodies = pack(section.text, count_tokens, budget, policy.overlap_tokens)
        for part, body in enumerate(bodies):
            embed_text = f"{header}\n{body}"
            passages.append(
                Passage(
                    id=f"{document.id}::{section_number}.{part}",
                    document_id=document.id,
                    source=document.source,
                    title=document.title,
                    section=HEADING_JOIN.join(section.heading),
                    url=document.url,
                    anchor=section.anchor,
                    kind=document.kind,
                    text=body,
                    embed_text=embed_text,
                    hash=content_hash(embed_text),
                    tokens=count_tokens(embed_text),
                )
            )
    return passages


def section_header(title: str, section: Section) -> str:
    """The title and heading path, said once, so that every chunk knows where it comes from."""
    path = [title, *(h for h in section.heading if h != title)]
    return HEADING_JOIN.join(path)


def pack(text: str, count_tokens: TokenCounter, budget: int, overlap: int) -> list[str]:
    """Greedy packing of paragraphs (or smaller units) under ``budget`` tokens with overlap."""
    units = [(u, count_tokens(u)) for u in split_units(text, count_tokens, budget)]
    chunks: list[list[tuple[str, int]]] = []
    current: list[tuple[str, int]] = []
    used = 0
    header: list[tuple[str, int]] = []  # the header row and rule of the table being packed
    for number, (unit, tokens) in enumerate(units):
        row = unit.startswith("|")
        if TABLE_RULE.match(unit) and number and units[number - 1][0].startswith("|"):
            header = [units[number - 1], (unit, tokens)]
        elif not row:
            header = []
        if current and used + tokens > budget:
            chunks.append(current)
            # a table's rows go on under their header: a row alone does not say what it is
            carried = header if row and header and header[-1][0] != unit else []
            room = budget - tokens - sum(t for _, t in carried)
            current = _tail(current, overlap, room)
            if carried and carried[0] not in current:
                current = [*carried, *current]
            used = sum(t for _, t in current)
        current.append((unit, tokens))
        used += tokens
    if current:
        chunks.append(current)
    return [_join(chunk) for chunk in chunks]


def split_units(text: str, count_tokens: TokenCounter, budget: int) -> list[str]:
    """Paragraphs, broken into lines, sentences and finally word windows until each fits."""
    units: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        paragraph = paragraph.strip()
        if paragraph:
            units.extend(_fit(paragraph, count_tokens, budget, level=0))
    return units


_SPLITTERS: tuple[Callable[[str], list[str]], ...] = (
    lambda text: text.split("\n"),
    lambda text: _SENTENCE_END.split(text),
)


def _fit(text: str, count_tokens: TokenCounter, budget: int, level: int) -> list[str]:
    if count_tokens(text) <= budget:
        return [text]
    if level < len(_SPLITTERS):
        # a line keeps its indent: a list nested in another stays nested ("- Bronze members:"
        # over its own items)
        pieces = [p.rstrip() if level == 0 else p.strip() for p in _SPLITTERS[level](text)]
        pieces = [p for p in pieces if p.strip()]
        if len(pieces) > 1:
            return [u for p in pieces for u in _fit(p, count_tokens, budget, level)]
        return _fit(text, count_tokens, budget, level + 1)
    return _word_windows(text, count_tokens, budget)


def _word_windows(text: str, count_tokens: TokenCounter, budget: int) -> list[str]:
    words, windows, current = text.split(), [], []  # type: ignore[var-annotated]
    for word in words:
        if current and count_tokens(" ".join([*current, word])) > budget:
            windows.append(" ".join(current))
            current = []
        current.append(word)
    if current:
        windows.append(" ".join(current))
    return windows


def _tail(units: list[tuple[str, int]], overlap: int, room: int) -> list[tuple[str, int]]:
    """The last units of a chunk, at most ``overlap`` tokens, to repeat at the next one's start."""
    limit = min(overlap, room)
    tail: list[tuple[str, int]] = []
    used = 0
    for unit, tokens in reversed(units):
        if used + tokens > limit:
            break
        tail.insert(0, (unit, tokens))
        used += tokens
    return tail


def _join(units: list[tuple[str, int]]) -> str:
    return "\n".join(u for u, _ in units)
