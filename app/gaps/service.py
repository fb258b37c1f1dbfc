"""Knowledge gaps on demand: the window's gap questions read, embedded with the service's own
embedder (each question once per model, cached in the transcript database), grouped by meaning.

A report is recomputed when the page asks for it; the last few are kept, keyed by the window
and the exact questions and reasons read, so opening the page again after nothing changed (or
exporting what it shows) costs one read. Reports are computed one at a time, off the event loop.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from collections.abc import Hashable
from datetime import UTC, datetime

import numpy as np
from sqlalchemy.orm import Session, sessionmaker

from app.embedding.embedder import Embedder
from app.gaps.clustering import GROUP_DISTANCE, group_vectors
from app.gaps.groups import GapReport, build_groups
from app.transcripts import gaps
from app.transcripts.gaps import GapWindow
from app.transcripts.records import GapQuestion

logger = logging.getLogger(__name__)

EMBED_BATCH = 1024  # questions embedded, then cached, at a time: progress survives a restart
REPORTS_KEPT = 4
STORED = np.dtype("<f2")  # half precision: plenty for grouping, half the bytes


class KnowledgeGaps:
    def __init__(
        self,
        sessions: sessionmaker[Session],
        embedder: Embedder,
        *,
        floor: float,
        distance: float = GROUP_DISTANCE,
    ) -> None:
        self._sessions = sessions
        self._embedder = embedder
        self._floor = floor
        self._distance = distance
        self._reports: OrderedDict[Hashable, GapReport] = OrderedDict()
        self._lock = asyncio.Lock()

    async def report(self, *, since: datetime | None, until: datetime | None) -> GapReport:
        """The gap questions asked in ``[since, until)``, grouped, largest group first."""
        window = GapWindow(self._floor, since, until)
        async with self._lock:
            return await asyncio.to_thread(self._report, window)

    def _report(self, window: GapWindow) -> GapReport:
        started = time.perf_counter()
        with self._sessions() as session:
            questions = gaps.gap_questions(session=session, window=window)
        key = (window, hash(tuple((q.message_id, q.reasons) for q in questions)))
        if (kept := self._reports.get(key)) is not None:
            self._reports.move_to_end(key)
            return kept
        vectors, embedded = self._vectors(window, questions)
        labels = group_vectors(vectors, distance=self._distance)
        report = GapReport(
            groups=build_groups(questions, vectors, labels),
            embedded=embedded,
            computed_at=datetime.now(UTC),
            seconds=time.perf_counter() - started,
        )
        logger.info(
            "knowledge gaps: %d questions in %d groups (%d embedded) in %.2f s",
            len(questions),
            len(report.groups),
            embedded,
            report.seconds,
        )
        self._reports[key] = report
        while len(self._reports) > REPORTS_KEPT:
            self._reports.popitem(last=False)
        return report

    def _vectors(self, window: GapWindow, questions: list[GapQuestion]) -> tuple[np.ndarray, int]:
        """The questions' vectors in order (float32), and how many had to be embedded."""
        model = self._embedder.model_id
        with self._sessions() as session:
            cached = gaps.question_vectors(session=session, window=window, model_id=model)
        missing = [q for q in questions if q.message_id not in cached]
        for start in range(0, len(missing), EMBED_BATCH):
            batch = missing[start : start + EMBED_BATCH]
            texts = list(dict.fromkeys(q.question for q in batch))  # a repeat embedded once
            rows = dict(zip(texts, self._embedder.embed(texts).astype(STORED), strict=True))
            new = {q.message_id: rows[q.question].tobytes() for q in batch}
            with self._sessions() as session:
                gaps.store_question_vectors(session=session, model_id=model, vectors=new)
            cached.update(new)
        stored = b"".join(cached[q.message_id] for q in questions)
        vectors = np.frombuffer(stored, dtype=STORED).reshape(
            len(questions), self._embedder.dimension
        )
        return vectors.astype(np.float32), len(missing)
