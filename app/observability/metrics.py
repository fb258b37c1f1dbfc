"""Prometheus metrics of the chat service, in a registry of its own (one per app); a turn is
observed through its record, ``FinishedTurn``."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from app.chat.turn import FinishedTurn

_STAGE_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64)


class ChatMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.turns = Counter(
            "shopdesk_turns", "Chat turns answered", ["answered"], registry=self.registry
        )
        self.stage_seconds = Histogram(
            "shopdesk_turn_stage_seconds",
            "Time per stage of a chat turn",
            ["stage"],
            buckets=_STAGE_BUCKETS,
            registry=self.registry,
        )
        self.tokens = Counter(
            "shopdesk_tokens", "Tokens per kind", ["kind"], registry=self.registry
        )
        self.groundedness = Histogram(
            "shopdesk_answer_groundedness",
            "Share of answer words supported by the passages",
            buckets=(0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
            registry=self.registry,
        )
        self.in_flight = Gauge(
            "shopdesk_turns_in_flight", "Turns being answered now (queue depth)",
            registry=self.registry,
        )  # fmt: skip
        self.errors = Counter(
            "shopdesk_errors", "Turns that failed, by kind", ["kind"], registry=self.registry
        )
        self.feedback = Counter(
            "shopdesk_feedback", "Ratings given by shoppers", ["rating"], registry=self.registry
        )
        self.blocked = Counter(
            "shopdesk_blocked_turns",
            "Messages declined or answers withheld by the injection defences, by reason",
            ["reason"],
            registry=self.registry,
        )
        self.escalations = Counter(
            "shopdesk_escalations", "Conversations handed to a person", registry=self.registry
        )
        self.turns_waiting = Gauge(
            "shopdesk_turns_waiting", "Turns queued for a free answering slot",
            registry=self.registry,
        )  # fmt: skip
        self.refusals = Counter(
            "shopdesk_refusals",
            "Requests refused to protect the service (busy, rate limits, lock-outs, sizes)",
            ["reason"],
            registry=self.registry,
        )

    def observe_turn(self, turn: FinishedTurn) -> None:
        self.turns.labels(answered=str(turn.answered).lower()).inc()
        for stage, seconds in turn.timings.items():
            self.stage_seconds.labels(stage=stage).observe(seconds)
        self.tokens.labels(kind="prompt").inc(turn.prompt_tokens)
        self.tokens.labels(kind="cached").inc(turn.cached_tokens)
        self.tokens.labels(kind="generated").inc(turn.generated_tokens)
        if turn.answered:
            self.groundedness.observe(turn.groundedness)
        if turn.blocked is not None:
            self.blocked.labels(reason=turn.blocked).inc()
        if turn.failure is not None:  # the engine timed out or went away mid-answer
            self.errors.labels(kind=turn.failure).inc()

    def render(self) -> bytes:
        return bytes(generate_latest(self.registry))
