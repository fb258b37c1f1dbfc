"""Operators' endpoints: Prometheus metrics."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST

router = APIRouter(tags=["operations"])


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    body = request.app.state.container.metrics.render()
    return Response(body, media_type=CONTENT_TYPE_LATEST)
