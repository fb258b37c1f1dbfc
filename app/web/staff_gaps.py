"""The staff's knowledge-gaps page at ``/staff/gaps``: what shoppers asked and got no good
answer to, grouped by meaning, in a date window; and its CSV (``/staff/gaps.csv``)."""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse

from app.dependencies import KnowledgeGapsDep, SettingsDep
from app.web.staff_export import GAP_COLUMNS, csv_chunks, gap_rows
from app.web.staff_filters import parse_gap_query
from app.web.staff_pages import ApiUser, PageUser, render

router = APIRouter(prefix="/staff", tags=["staff"], include_in_schema=False)

REASONS = {
    "declined": "Declined",
    "low_groundedness": "Low groundedness",
    "thumbs_down": "Thumbs down",
    "handoff": "Hand-off",
}


@router.get("/gaps", response_class=HTMLResponse)
async def gaps_page(
    request: Request, user: PageUser, settings: SettingsDep, gaps: KnowledgeGapsDep
) -> Response:
    query = parse_gap_query(request.query_params)
    context = {"user": user, "query": query, "report": None, "reasons": REASONS}
    if query.errors:
        return render(request, settings, "staff_gaps.html", context, status=400)
    context["report"] = await gaps.report(since=query.since, until=query.until)
    return render(request, settings, "staff_gaps.html", context)


@router.get("/gaps.csv")
async def gaps_csv(request: Request, user: ApiUser, gaps: KnowledgeGapsDep) -> Response:
    query = parse_gap_query(request.query_params)
    if query.errors:
        return PlainTextResponse(" ".join(query.errors), status_code=400)
    report = await gaps.report(since=query.since, until=query.until)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    headers = {
        "Content-Disposition": f'attachment; filename="shopdesk-gaps-{stamp}.csv"',
        "Cache-Control": "no-store",
    }
    return StreamingResponse(
        csv_chunks(gap_rows(report), GAP_COLUMNS),
        media_type="text/csv; charset=utf-8",
        headers=headers,
    )
