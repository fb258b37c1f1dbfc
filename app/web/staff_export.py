"""Exports of the staff list's current filter, streamed as CSV or JSON Lines (an answer's parts
nested in JSON Lines, JSON-encoded in a CSV cell)."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from typing import Any

from sqlalchemy.orm import Session, sessionmaker

from app.transcripts import queries
from app.transcripts.queries import TranscriptFilter


def _rows(sessions: sessionmaker[Session], filters: TranscriptFilter) -> Iterator[dict[str, Any]]:
    with sessions() as session:
        yield from queries.export_rows(session=session, filters=filters)


def csv_chunks(sessions: sessionmaker[Session], filters: TranscriptFilter) -> Iterator[str]:
    buffer = io.StringIO()
    writer: csv.DictWriter[str] | None = None
    for count, row in enumerate(_rows(sessions, filters), start=1):
        if writer is None:
            writer = csv.DictWriter(buffer, fieldnames=list(row))
            writer.writeheader()
        writer.writerow({k: _cell(v) for k, v in row.items()})
        if count % 200 == 0:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def _cell(value: object) -> object:
    """Nested values (an answer's parts) as JSON; shopper text that a spreadsheet would run as a
    formula prefixed with a quote."""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    if isinstance(value, str) and value.startswith(("=", "+", "-", "@", "\t", "\r")):
        return "'" + value
    return value


def jsonl_chunks(sessions: sessionmaker[Session], filters: TranscriptFilter) -> Iterator[str]:
    lines: list[str] = []
    for row in _rows(sessions, filters):
        lines.append(json.dumps(row, ensure_ascii=False) + "\n")
        if len(lines) == 200:
            yield "".join(lines)
            lines.clear()
    yield "".join(lines)
