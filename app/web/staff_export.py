"""Exports of the staff list's current filter, streamed as CSV or JSON Lines (an answer's parts
nested in JSON Lines, JSON-encoded in a CSV cell), from batches of the transcript review's rows."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import AsyncIterator

from app.transcripts.review import ExportBatch


async def csv_chunks(batches: AsyncIterator[ExportBatch]) -> AsyncIterator[str]:
    buffer = io.StringIO()
    writer: csv.DictWriter[str] | None = None
    async for rows in batches:
        for row in rows:
            if writer is None:
                writer = csv.DictWriter(buffer, fieldnames=list(row))
                writer.writeheader()
            writer.writerow({k: _cell(v) for k, v in row.items()})
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()


def _cell(value: object) -> object:
    """Nested values (an answer's parts) as JSON; shopper text that a spreadsheet would run as a
    formula prefixed with a quote."""
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    if isinstance(value, str) and value.startswith(("=", "+", "-", "@", "\t", "\r")):
        return "'" + value
    return value


async def jsonl_chunks(batches: AsyncIterator[ExportBatch]) -> AsyncIterator[str]:
    async for rows in batches:
        yield "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
