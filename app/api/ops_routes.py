"""Operators' endpoints: liveness, readiness and Prometheus metrics."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST

from app.api.problems import PROBLEM_RESPONSES
from app.dependencies import ContainerDep, MetricsDep
from app.errors import EngineUnavailableError

router = APIRouter(tags=["operations"])


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz", responses={503: PROBLEM_RESPONSES[503]})
async def readyz(container: ContainerDep) -> dict[str, str]:
    """Ready once an index version is served and the engine answers; else 503 saying which.
    Shoppers are answered while the transcript database is down, so that is 200 with status
    "degraded" and the reason (as last seen by a write or the outbox flusher)."""
    served = await asyncio.to_thread(container.index.current)  # 503 until one is published
    if not await container.engine.healthy():
        raise EngineUnavailableError("the generation engine is not healthy")
    ready = {
        "status": "ready",
        "index_version": served.version.id,
        "engine": container.engine.description,
    }
    writes = container.transcript_writes
    if writes.database_up:
        return ready
    return {
        **ready,
        "status": "degraded",
        "reason": "the transcript database is unreachable; transcript writes wait in the "
        f"outbox ({writes.depth} queued)"
        + ("" if writes.schema_current else "; its schema is migrated once it answers"),
    }


@router.get("/metrics", include_in_schema=False)
async def metrics(metrics: MetricsDep) -> Response:
    return Response(metrics.render(), media_type=CONTENT_TYPE_LATEST)
