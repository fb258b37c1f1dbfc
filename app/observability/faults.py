"""Prometheus readings of the fault handling, taken from the backends' own counters at scrape
time: the transcript outbox, the session store's fallbacks, the engine's time-outs and restarts."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from app.engine.supervisor import SupervisionStats
from app.sessions.resilient import SessionFallbackStats
from app.transcripts.durable import OutboxStats


class FaultReadings(Collector):
    def __init__(
        self, *, outbox: OutboxStats, sessions: SessionFallbackStats, engine: SupervisionStats
    ) -> None:
        self._outbox = outbox
        self._sessions = sessions
        self._engine = engine

    def collect(self) -> Iterator[Metric]:
        outbox, sessions, engine = self._outbox, self._sessions, self._engine
        yield GaugeMetricFamily(
            "shopdesk_transcript_outbox_depth",
            "Transcript writes waiting in the local outbox for the database",
            value=outbox.depth,
        )
        yield CounterMetricFamily(
            "shopdesk_transcript_outbox_queued",
            "Transcript writes that had to wait in the outbox",
            value=outbox.queued,
        )
        yield CounterMetricFamily(
            "shopdesk_transcript_outbox_flushed",
            "Queued transcript writes stored in the database later",
            value=outbox.flushed,
        )
        yield GaugeMetricFamily(
            "shopdesk_transcript_database_up",
            "1 while the transcript database takes writes, 0 while they are queued",
            value=1 if outbox.database_up else 0,
        )
        fallbacks = CounterMetricFamily(
            "shopdesk_session_store_fallbacks",
            "Session store (Redis) operations that failed and fell back, by operation",
            labels=["operation"],
        )
        for operation, count in sorted(sessions.fallbacks.items()):
            fallbacks.add_metric([operation], count)
        yield fallbacks
        yield CounterMetricFamily(
            "shopdesk_session_store_restores",
            "Sessions refilled from the transcripts after the session store lost them",
            value=sessions.restored,
        )
        yield CounterMetricFamily(
            "shopdesk_engine_timeouts",
            "Answers abandoned at the generation time limit",
            value=engine.timeouts,
        )
        yield CounterMetricFamily(
            "shopdesk_engine_failures", "Answers the engine failed", value=engine.failures
        )
        yield CounterMetricFamily(
            "shopdesk_engine_restarts",
            "Generation engines started again after dying",
            value=engine.restarts,
        )
