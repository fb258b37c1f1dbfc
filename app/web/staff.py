"""The support staff's review pages at ``/staff``: the filtered conversation list, one
conversation with its passages, each answer's parts (the model's own words, the quoted
evidence, the service's note, what the checks dropped) and notes, and exports of the current
filter. Signing in and out is ``app.web.staff_sign_in``; what both share (who is signed in,
rendering) is ``app.web.staff_pages``."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import (
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)

from app.chat.messages import readable_text
from app.dependencies import SettingsDep, TranscriptReviewDep
from app.settings import Settings
from app.transcripts.review import ExportBatch, TranscriptReview
from app.web.staff_export import csv_chunks, jsonl_chunks
from app.web.staff_filters import parse_list_query
from app.web.staff_pages import ApiUser, PageUser, render

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/staff", tags=["staff"], include_in_schema=False)

PAGE_SIZE = 25


# --- plumbing --------------------------------------------------------------------------------


def _readable(text: str) -> bool:
    try:
        readable_text(text)
    except ValueError:
        return False
    return True


def _conversation_id(text: str) -> int | None:
    return int(text) if text.isdigit() and len(text) < 16 else None


# --- pages -----------------------------------------------------------------------------------


@router.get("", response_class=HTMLResponse)
@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def conversation_list(
    request: Request, user: PageUser, settings: SettingsDep, review: TranscriptReviewDep
) -> Response:
    query = parse_list_query(request.query_params)
    context: dict[str, Any] = {"user": user, "query": query, "rows": [], "total": 0, "pages": 0}
    if query.errors:
        return render(request, settings, "staff_list.html", context, status=400)
    rows, total = await review.conversations(query.filters, page=query.page, page_size=PAGE_SIZE)
    pages = -(-total // PAGE_SIZE)
    context.update(rows=rows, total=total, pages=pages)
    return render(request, settings, "staff_list.html", context)


@router.get("/conversations/{conversation_id}", response_class=HTMLResponse)
async def conversation(
    request: Request,
    conversation_id: str,
    user: PageUser,
    settings: SettingsDep,
    review: TranscriptReviewDep,
) -> Response:
    return await _conversation_page(request, settings, review, conversation_id, user)


@router.post("/conversations/{conversation_id}/notes", response_class=HTMLResponse)
async def add_note(
    request: Request,
    conversation_id: str,
    user: PageUser,
    settings: SettingsDep,
    review: TranscriptReviewDep,
    text: Annotated[str, Form()] = "",
    label: Annotated[str, Form()] = "",
) -> Response:
    number = _conversation_id(conversation_id)
    text, label = text.strip(), label.strip()
    error = None
    if not text or len(text) > 4000:
        error = "A note needs some text (at most 4000 characters)."
    elif len(label) > 40:
        error = "A label is at most 40 characters."
    elif not _readable(text + label):
        error = "The note contains characters that can't be stored (control characters)."
    if number is None or error:
        draft = {"text": text, "label": label}
        return await _conversation_page(
            request, settings, review, conversation_id, user, error, draft
        )
    # no such conversation: TranscriptNotFoundError, answered 404 by the app's error handler
    await review.add_note(conversation_id=number, author=user, text=text, label=label or None)
    back = parse_list_query(request.query_params)
    return RedirectResponse(back.link(f"/staff/conversations/{number}") + "#notes", 303)


async def _conversation_page(
    request: Request,
    settings: Settings,
    review: TranscriptReview,
    conversation_id: str,
    user: str,
    error: str | None = None,
    draft: dict[str, str] | None = None,
) -> Response:
    number = _conversation_id(conversation_id)
    detail = None
    if number is not None:
        detail = await review.conversation(number)
    context = {
        "user": user,
        "detail": detail,
        "wanted": conversation_id[:40],
        "back": parse_list_query(request.query_params),
        "error": error,
        "draft": draft or {"text": "", "label": ""},
    }
    status = 404 if detail is None else 400 if error else 200
    return render(request, settings, "staff_conversation.html", context, status=status)


# --- exports ---------------------------------------------------------------------------------


def _export(
    request: Request,
    review: TranscriptReview,
    kind: str,
    chunks: Callable[[AsyncIterator[ExportBatch]], AsyncIterator[str]],
) -> Response:
    query = parse_list_query(request.query_params)
    if query.errors:
        return PlainTextResponse(" ".join(query.errors), status_code=400)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    media = "text/csv; charset=utf-8" if kind == "csv" else "application/x-ndjson"
    headers = {
        "Content-Disposition": f'attachment; filename="shopdesk-conversations-{stamp}.{kind}"',
        "Cache-Control": "no-store",
    }
    body = chunks(review.export_rows(query.filters))
    return StreamingResponse(body, media_type=media, headers=headers)


@router.get("/export.csv")
async def export_csv(request: Request, user: ApiUser, review: TranscriptReviewDep) -> Response:
    return _export(request, review, "csv", csv_chunks)


@router.get("/export.jsonl")
async def export_jsonl(request: Request, user: ApiUser, review: TranscriptReviewDep) -> Response:
    return _export(request, review, "jsonl", jsonl_chunks)
