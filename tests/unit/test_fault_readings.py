"""The fault counters the backends keep reach Prometheus as they are at scrape time."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest

from app.engine.supervisor import SupervisionStats
from app.observability.faults import FaultReadings
from app.sessions.resilient import SessionFallbackStats
from app.transcripts.durable import OutboxStats


def test_readings_follow_the_live_counters() -> None:
    outbox, sessions, engine = OutboxStats(), SessionFallbackStats(), SupervisionStats()
    registry = CollectorRegistry()
    registry.register(FaultReadings(outbox=outbox, sessions=sessions, engine=engine))
    outbox.depth, outbox.queued, outbox.database_up = 3, 4, False
    sessions.fallbacks["turns"] += 2
    engine.timeouts, engine.restarts = 1, 1
    text = generate_latest(registry).decode()
    for line in (
        "shopdesk_transcript_outbox_depth 3.0",
        "shopdesk_transcript_outbox_queued_total 4.0",
        "shopdesk_transcript_database_up 0.0",
        'shopdesk_session_store_fallbacks_total{operation="turns"} 2.0',
        "shopdesk_engine_timeouts_total 1.0",
        "shopdesk_engine_restarts_total 1.0",
    ):
        assert line in text, line
    outbox.depth, outbox.database_up = 0, True
    text = generate_latest(registry).decode()
    assert "shopdesk_transcript_outbox_depth 0.0" in text
    assert "shopdesk_transcript_database_up 1.0" in text
