"""Exports of the staff list's current filter, streamed as CSV or JSON Lines (an answer's parts
nested in JSON Lines, JSON-encoded in a CSV cell), from batches of the transcript review's rows;
and the knowledge-gaps groups as CSV."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import AsyncIterator, Sequence

from app.gaps.groups import GapReport
from app.transcripts.review import ExportBatch


async def csv_chunks(
    batches: AsyncIterator[ExportBatch], columns: Sequence[str] | None = None
) -> AsyncIterator[str]:
    """CSV text per batch; the columns are the first row's keys unless given (then the header
    is written even when there are no rows)."""
    buffer = io.StringIO()
    writer: csv.DictWriter[str] | None = None
    if columns is not None:
        writer = csv.DictWriter(buffer, fieldnames=list(columns))
        writer.writeheader()
        yield buffer.getvalue()
        buffer.seek(0)
        buffer.truncate()
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


GAP_COLUMNS = (
    "group",
    "group_label",
    "group_size",
    "message_id",
    "conversation_id",
    "conversation",
    "asked_at",
    "question",
    "reasons",
    "declined",
)


async def gap_rows(report: GapReport) -> AsyncIterator[ExportBatch]:
    """The knowledge-gaps CSV's rows, one per question with its group: a spreadsheet can then
    filter, count and re-sort them; a group's rows come together, the most central first."""
    for group in report.groups:
        yield [
            dict(
                zip(
                    GAP_COLUMNS,
                    (
                        group.number,
                        group.label,
                        group.count,
                        q.message_id,
                        q.conversation_id,
                        f"/staff/conversations/{q.conversation_id}",
                        q.asked_at.isoformat(),
                        q.question,
                        ";".join(q.reasons),
                        q.declined or "",
                    ),
                    strict=True,
                )
            )
            for q in group.questions
        ]
