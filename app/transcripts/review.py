"""What support staff read and annotate, async: the filtered list, one conversation, notes and
exports. Each call runs its SQL on a worker thread in a session of its own, so the staff pages
never hold a database session or a thread themselves."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Generator
from itertools import islice
from typing import TypeVar

from sqlalchemy.orm import Session, sessionmaker

from app.transcripts import reads, writes
from app.transcripts.reads import TranscriptFilter
from app.transcripts.records import ConversationDetail, ConversationSummary

T = TypeVar("T")
ExportBatch = list[dict[str, object]]


class TranscriptReview:
    def __init__(self, sessions: sessionmaker[Session]) -> None:
        self._sessions = sessions

    async def conversations(
        self, filters: TranscriptFilter, *, page: int, page_size: int
    ) -> tuple[list[ConversationSummary], int]:
        """One page of the matching conversations, newest first, and how many match in all."""
        return await self._run(
            lambda session: reads.list_conversations(
                session=session, filters=filters, page=page, page_size=page_size
            )
        )

    async def conversation(self, conversation_id: int) -> ConversationDetail | None:
        """Everything stored about one conversation; None when there is no such id."""
        return await self._run(
            lambda session: reads.get_conversation(session=session, conversation_id=conversation_id)
        )

    async def add_note(
        self, *, conversation_id: int, author: str, text: str, label: str | None
    ) -> int:
        """Add a note; ``TranscriptNotFoundError`` when there is no such conversation."""
        return await self._run(
            lambda session: writes.add_note(
                session=session,
                conversation_id=conversation_id,
                author=author,
                text=text,
                label=label,
            )
        )

    async def export_rows(
        self, filters: TranscriptFilter, *, batch: int = 200
    ) -> AsyncIterator[ExportBatch]:
        """The export rows of ``filters`` in batches, streamed: each batch is read on a worker
        thread, from one session that is closed however the export ends."""
        batches = self._export_batches(filters, batch)
        loop = asyncio.get_running_loop()
        reading: asyncio.Future[ExportBatch | None] | None = None
        try:
            while True:
                reading = loop.run_in_executor(None, next, batches, None)
                # shielded: a cancelled export leaves the read to finish before the close below
                rows = await asyncio.shield(reading)
                if rows is None:
                    return
                yield rows
        finally:
            if reading is not None and not reading.done():
                reading.add_done_callback(lambda _: loop.run_in_executor(None, batches.close))
            else:
                batches.close()

    def _export_batches(
        self, filters: TranscriptFilter, size: int
    ) -> Generator[ExportBatch, None, None]:
        with self._sessions() as session:
            rows = reads.export_rows(session=session, filters=filters)
            try:
                while chunk := list(islice(rows, size)):
                    yield chunk
            finally:
                rows.close()

    async def _run(self, query: Callable[[Session], T]) -> T:
        def run() -> T:
            with self._sessions() as session:
                return query(session)

        return await asyncio.to_thread(run)
