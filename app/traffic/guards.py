"""The service's guards against crowds and abuse, built once from the settings.

A refusal is a domain error (``RateLimitedError``, ``ServerBusyError``) that says how long to
wait; the HTTP edge answers it with 429/503 and ``Retry-After``, the chat window in words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from starlette.requests import Request

from app.errors import RateLimitedError
from app.observability.metrics import ChatMetrics
from app.settings import Settings
from app.traffic.admission import TurnAdmission
from app.traffic.ratelimit import FailureLockout, TokenBuckets

_MAX_ADDRESS_CHARS = 64


@dataclass
class Guards:
    admission: TurnAdmission  # turns answered at once, and queued
    turns: TokenBuckets  # chat turns per client address
    requests: TokenBuckets  # any /api request per client address
    sign_in: FailureLockout  # failed staff sign-ins per user name and per client address
    proxy_hops: int
    metrics: ChatMetrics

    def refused(self, reason: str) -> None:
        self.metrics.refusals.labels(reason=reason).inc()

    def within_request_rate(self, client: str) -> None:
        """Count one ``/api`` request; ``RateLimitedError`` once the client exceeds its share."""
        self._within_rate(
            self.requests,
            client,
            "client_request_rate",
            "Too many requests from your address; please slow down and try again shortly.",
        )

    def within_turn_rate(self, client: str) -> None:
        """Count one chat turn; ``RateLimitedError`` once the client starts them too fast."""
        self._within_rate(
            self.turns,
            client,
            "client_turn_rate",
            "You are sending messages very quickly; please wait a moment and try again.",
        )

    def _within_rate(self, buckets: TokenBuckets, client: str, reason: str, detail: str) -> None:
        """Take one from the client's bucket; refuse with ``detail`` when it is empty."""
        wait = buckets.take(client)
        if wait > 0:
            self.refused(reason)
            raise RateLimitedError(detail, retry_after_s=wait)


def build_guards(settings: Settings, metrics: ChatMetrics) -> Guards:
    return Guards(
        admission=TurnAdmission(
            max_active=settings.max_turns_in_flight,
            max_waiting=settings.max_turns_waiting,
            wait_s=settings.turn_queue_timeout_s,
            retry_after_s=settings.busy_retry_after_s,
            on_refused=lambda reason: metrics.refusals.labels(reason=reason).inc(),
            on_queue_change=metrics.turns_waiting.set,
        ),
        turns=TokenBuckets(
            per_minute=settings.client_turns_per_minute, burst=settings.client_turn_burst
        ),
        requests=TokenBuckets(
            per_minute=settings.client_requests_per_minute, burst=settings.client_request_burst
        ),
        sign_in=FailureLockout(
            max_failures=settings.staff_max_failures, window_s=settings.staff_lockout_s
        ),
        proxy_hops=settings.forwarded_proxy_hops,
        metrics=metrics,
    )


def client_address(request: Request, proxy_hops: int) -> str:
    """The address limits are keyed by: the peer, or with ``proxy_hops`` trusted proxies in front,
    the entry that many hops from the right of ``X-Forwarded-For`` (entries further left are
    whatever the client chose to send, so they are never trusted)."""
    peer = request.client.host if request.client else "unknown"
    if proxy_hops == 0:
        return peer
    forwarded = [
        address.strip()
        for header in request.headers.getlist("x-forwarded-for")
        for address in header.split(",")
        if address.strip()
    ]
    chain = [*forwarded, peer]
    return chain[max(0, len(chain) - 1 - proxy_hops)][:_MAX_ADDRESS_CHARS]


def retry_after(seconds: float) -> dict[str, str]:
    """The ``Retry-After`` header for a wait, in whole seconds (at least one)."""
    return {"Retry-After": str(max(1, math.ceil(seconds)))}
