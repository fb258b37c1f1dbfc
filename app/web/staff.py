"""The support staff's review pages at ``/staff``: the filtered conversation list, one
conversation with its passages, each answer's parts (the model's own words, the quoted
evidence, the service's note, what the checks dropped) and notes, and exports of the current
filter. Signing in and out is ``app.web.staff_sign_in``."""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

import jinja2
from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import (
    HTMLResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from fastapi.templating import Jinja2Templates

from app.chat.messages import readable_text
from app.dependencies import SettingsDep, TranscriptReviewDep
from app.settings import Settings
from app.transcripts.review import ExportBatch, TranscriptReview
from app.web.staff_auth import read_session
from app.web.staff_export import csv_chunks, jsonl_chunks
from app.web.staff_filters import parse_list_query

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/staff", tags=["staff"], include_in_schema=False)

COOKIE = "shopdesk_staff"
PAGE_SIZE = 25
STAGES = ("embed", "search", "queue", "prefill", "first_token", "generate", "decode", "persist")
_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
}


def _stages(timings: Mapping[str, float]) -> list[tuple[str, float]]:
    """Timings in pipeline order, unknown stages next, ``total`` last."""
    rest = sorted(k for k in timings if k not in STAGES and k != "total")
    order = [*STAGES, *rest, "total"]
    return [(k, timings[k]) for k in order if k in timings]


_env = jinja2.Environment(
    loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
)
_env.filters["when"] = lambda at: at.astimezone(UTC).strftime("%Y-%m-%d %H:%M") if at else "—"
_env.filters["ms"] = lambda seconds: f"{seconds * 1000:,.0f} ms"
_env.filters["stages"] = _stages
_templates = Jinja2Templates(env=_env)


# --- who is signed in ------------------------------------------------------------------------


def _signed_in(request: Request, settings: Settings) -> str | None:
    cookie = request.cookies.get(COOKIE)
    user = read_session(cookie, secret=settings.secret_key, now=time.time())
    return user if user == settings.staff_user else None


async def page_user(request: Request, settings: SettingsDep) -> str:
    """The signed-in staff member; anyone else is sent (303) to the sign-in form."""
    user = _signed_in(request, settings)
    if user is None:
        wanted = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        target = "/staff/login?" + urlencode({"next": wanted}) if request.method == "GET" else ""
        raise HTTPException(303, "sign in first", headers={"Location": target or "/staff/login"})
    return user


async def api_user(request: Request, settings: SettingsDep) -> str:
    """The signed-in staff member; anyone else gets 401 (for exports and other data routes)."""
    user = _signed_in(request, settings)
    if user is None:
        raise HTTPException(401, "sign in at /staff/login first")
    return user


PageUser = Annotated[str, Depends(page_user)]
ApiUser = Annotated[str, Depends(api_user)]


# --- plumbing --------------------------------------------------------------------------------


def _render(
    request: Request,
    settings: Settings,
    name: str,
    context: dict[str, Any],
    status: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Response:
    defaults = {"user": None, "error": None, "floor": settings.min_groundedness}
    context = {**defaults, "shop": settings.shop_name, **context}
    headers = {**_HEADERS, **(headers or {})}
    return _templates.TemplateResponse(request, name, context, status_code=status, headers=headers)


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
        return _render(request, settings, "staff_list.html", context, status=400)
    rows, total = await review.conversations(query.filters, page=query.page, page_size=PAGE_SIZE)
    pages = -(-total // PAGE_SIZE)
    context.update(rows=rows, total=total, pages=pages)
    return _render(request, settings, "staff_list.html", context)


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
    return _render(request, settings, "staff_conversation.html", context, status=status)


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
