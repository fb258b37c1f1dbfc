"""The service's guards against crowds and abuse, built once from the settings, and the HTTP edge
that turns their refusals into 429/503 answers with ``Retry-After``."""

from __future__ import annotations

import math
from dataclasses import dataclass

from fastapi import HTTPException, Request

from app.api.admission import TurnAdmission
from app.api.ratelimit import FailureLockout, TokenBuckets
from app.errors import ServerBusyError
from app.observability.metrics import ChatMetrics
from app.settings import Settings

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


def guards_of(request: Request) -> Guards:
    guards: Guards = request.app.state.container.guards
    return guards


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


async def limit_requests(request: Request) -> None:
    """Route dependency: 429 once a client exceeds its share of ``/api`` requests."""
    guards = guards_of(request)
    _within_rate(
        request,
        guards,
        guards.requests,
        "client_request_rate",
        "Too many requests from your address; please slow down and try again shortly.",
    )


def limit_turns(request: Request) -> None:
    """429 once a client starts chat turns faster than its rate."""
    guards = guards_of(request)
    _within_rate(
        request,
        guards,
        guards.turns,
        "client_turn_rate",
        "You are sending messages very quickly; please wait a moment and try again.",
    )


def _within_rate(
    request: Request, guards: Guards, buckets: TokenBuckets, reason: str, detail: str
) -> None:
    """Take one from the client's bucket; 429 with ``detail`` when it is empty."""
    wait = buckets.take(client_address(request, guards.proxy_hops))
    if wait > 0:
        guards.refused(reason)
        raise HTTPException(429, detail=detail, headers=retry_after(wait))


def busy(exc: ServerBusyError) -> HTTPException:
    """The 503 a shopper's client gets when every answering slot and queue place is taken."""
    return HTTPException(503, detail=str(exc), headers=retry_after(exc.retry_after_s))
