"""The support staff's review pages at ``/staff``: sign-in, the filtered conversation list,
one conversation with its passages, each answer's parts (the model's own words, the quoted
evidence, the service's note, what the checks dropped) and notes, and exports of the current
filter."""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, TypeVar
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
from sqlalchemy.orm import Session, sessionmaker

from app.chat.messages import readable_text
from app.dependencies import ClientAddressDep, GuardsDep, SettingsDep, TranscriptSessionsDep
from app.settings import Settings
from app.traffic.guards import retry_after
from app.transcripts import queries
from app.web.staff_auth import read_session, sign_session, verify_password
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
T = TypeVar("T")


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


def _safe_next(target: str) -> str:
    """Only a path inside /staff is a place to go after signing in (no open redirect)."""
    inside = target == "/staff" or target.startswith(("/staff/", "/staff?"))
    ok = inside and not target.startswith("/staff/login") and "\\" not in target
    return target if ok else "/staff"


# --- plumbing --------------------------------------------------------------------------------


async def _query(sessions: sessionmaker[Session], query: Callable[..., T], **arguments: Any) -> T:
    """Run one keyword-only transcript query on a worker thread, in its own session."""

    def run() -> T:
        with sessions() as session:
            return query(session=session, **arguments)

    return await asyncio.to_thread(run)


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


@router.get("/login", response_class=HTMLResponse)
async def login_form(request: Request, settings: SettingsDep, next: str = "/staff") -> Response:
    if _signed_in(request, settings):
        return RedirectResponse(_safe_next(next), 303)
    return _render(request, settings, "staff_login.html", {"next": _safe_next(next), "name": ""})


@router.post("/login", response_class=HTMLResponse)
async def login(
    request: Request,
    settings: SettingsDep,
    guards: GuardsDep,
    client: ClientAddressDep,
    user: Annotated[str, Form()] = "",
    password: Annotated[str, Form()] = "",
    next: Annotated[str, Form()] = "/staff",
) -> Response:
    context = {"next": _safe_next(next), "name": user}
    keys = _sign_in_keys(client, user, settings)
    wait = guards.sign_in.retry_after(*keys)
    if wait > 0:  # refused without checking the password: no guess counts while locked
        guards.refused("sign_in_locked")
        logger.warning("staff sign-in locked for %r from %s", user[:60], keys[0])
        return _locked_out(request, settings, context, wait)
    password_ok = await asyncio.to_thread(verify_password, password, settings.staff_password_hash)
    if not (hmac.compare_digest(user.encode(), settings.staff_user.encode()) and password_ok):
        guards.sign_in.fail(*keys)
        logger.warning("staff sign-in refused for %r from %s", user[:60], keys[0])
        error = "That user name and password do not match. Please try again."
        page = {**context, "error": error}
        return _render(request, settings, "staff_login.html", page, status=401)
    guards.sign_in.clear(*keys)
    lifetime = settings.staff_session_hours * 3600
    cookie = sign_session(user, secret=settings.secret_key, expires_at=int(time.time()) + lifetime)
    response = RedirectResponse(_safe_next(next), 303)
    response.set_cookie(
        COOKIE, cookie, max_age=lifetime, path="/staff", httponly=True, samesite="strict",
        secure=_secure_cookie(settings),
    )  # fmt: skip
    logger.info("staff %s signed in", user)
    return response


def _locked_out(
    request: Request, settings: Settings, context: dict[str, Any], wait: float
) -> Response:
    """The sign-in form again, with 429, ``Retry-After`` and when to try again, in words."""
    minutes = max(1, -(-int(wait) // 60))
    error = (
        "Too many failed sign-ins. For your account's safety, sign-in is paused: "
        f"please try again in {minutes} minute{'s' if minutes > 1 else ''}."
    )
    headers = retry_after(wait)
    page = {**context, "error": error}
    return _render(request, settings, "staff_login.html", page, 429, headers)


def _sign_in_keys(client: str, user: str, settings: Settings) -> list[str]:
    """Failures count against the client address and, for the real staff user, the user name
    (other names can never succeed, so only their client is counted)."""
    keys = [f"client:{client}"]
    if user == settings.staff_user:
        keys.append(f"user:{user}")
    return keys


def _secure_cookie(settings: Settings) -> bool:
    return settings.staff_cookie_secure or settings.mode == "production"


@router.post("/logout")
async def logout(settings: SettingsDep) -> Response:
    response = RedirectResponse("/staff/login", 303)
    secure = _secure_cookie(settings)
    response.delete_cookie(COOKIE, path="/staff", secure=secure, httponly=True, samesite="strict")
    return response


@router.get("", response_class=HTMLResponse)
@router.get("/", response_class=HTMLResponse, include_in_schema=False)
async def conversation_list(
    request: Request, user: PageUser, settings: SettingsDep, sessions: TranscriptSessionsDep
) -> Response:
    query = parse_list_query(request.query_params)
    context: dict[str, Any] = {"user": user, "query": query, "rows": [], "total": 0, "pages": 0}
    if query.errors:
        return _render(request, settings, "staff_list.html", context, status=400)
    rows, total = await _query(
        sessions,
        queries.list_conversations,
        filters=query.filters,
        page=query.page,
        page_size=PAGE_SIZE,
    )
    pages = -(-total // PAGE_SIZE)
    context.update(rows=rows, total=total, pages=pages)
    return _render(request, settings, "staff_list.html", context)


@router.get("/conversations/{conversation_id}", response_class=HTMLResponse)
async def conversation(
    request: Request,
    conversation_id: str,
    user: PageUser,
    settings: SettingsDep,
    sessions: TranscriptSessionsDep,
) -> Response:
    return await _conversation_page(request, settings, sessions, conversation_id, user)


@router.post("/conversations/{conversation_id}/notes", response_class=HTMLResponse)
async def add_note(
    request: Request,
    conversation_id: str,
    user: PageUser,
    settings: SettingsDep,
    sessions: TranscriptSessionsDep,
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
            request, settings, sessions, conversation_id, user, error, draft
        )
    try:
        await _query(
            sessions, queries.add_note, conversation_id=number, author=user, text=text,
            label=label or None,
        )  # fmt: skip
    except LookupError:
        return await _conversation_page(request, settings, sessions, conversation_id, user)
    back = parse_list_query(request.query_params)
    return RedirectResponse(back.link(f"/staff/conversations/{number}") + "#notes", 303)


async def _conversation_page(
    request: Request,
    settings: Settings,
    sessions: sessionmaker[Session],
    conversation_id: str,
    user: str,
    error: str | None = None,
    draft: dict[str, str] | None = None,
) -> Response:
    number = _conversation_id(conversation_id)
    detail = None
    if number is not None:
        detail = await _query(sessions, queries.get_conversation, conversation_id=number)
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
    sessions: sessionmaker[Session],
    kind: str,
    chunks: Callable[..., Iterator[str]],
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
    body = chunks(sessions, query.filters)
    return StreamingResponse(body, media_type=media, headers=headers)


@router.get("/export.csv")
def export_csv(request: Request, user: ApiUser, sessions: TranscriptSessionsDep) -> Response:
    return _export(request, sessions, "csv", csv_chunks)


@router.get("/export.jsonl")
def export_jsonl(request: Request, user: ApiUser, sessions: TranscriptSessionsDep) -> Response:
    return _export(request, sessions, "jsonl", jsonl_chunks)
