"""What every staff page shares: who is signed in (the signed cookie ``app.web.staff_sign_in``
sets), the dependencies that keep everyone else out, and rendering a template with the pages'
security headers. The pages are ``app.web.staff``; signing in and out, ``app.web.staff_sign_in``."""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

import jinja2
from fastapi import Depends, HTTPException, Request
from fastapi.responses import Response
from fastapi.templating import Jinja2Templates

from app.dependencies import SettingsDep
from app.settings import Settings
from app.web.staff_auth import read_session

COOKIE = "shopdesk_staff"
STAGES = ("embed", "search", "queue", "prefill", "first_token", "generate", "decode", "persist")
_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
}


# --- who is signed in ------------------------------------------------------------------------


def signed_in(request: Request, settings: Settings) -> str | None:
    """The staff user the request's cookie proves, or ``None`` (missing, forged, expired)."""
    cookie = request.cookies.get(COOKIE)
    user = read_session(cookie, secret=settings.secret_key, now=time.time())
    return user if user == settings.staff_user else None


async def page_user(request: Request, settings: SettingsDep) -> str:
    """The signed-in staff member; anyone else is sent (303) to the sign-in form."""
    user = signed_in(request, settings)
    if user is None:
        wanted = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        target = "/staff/login?" + urlencode({"next": wanted}) if request.method == "GET" else ""
        raise HTTPException(303, "sign in first", headers={"Location": target or "/staff/login"})
    return user


async def api_user(request: Request, settings: SettingsDep) -> str:
    """The signed-in staff member; anyone else gets 401 (for exports and other data routes)."""
    user = signed_in(request, settings)
    if user is None:
        raise HTTPException(401, "sign in at /staff/login first")
    return user


PageUser = Annotated[str, Depends(page_user)]
ApiUser = Annotated[str, Depends(api_user)]


# --- rendering -------------------------------------------------------------------------------


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


def render(
    request: Request,
    settings: Settings,
    name: str,
    context: dict[str, Any],
    status: int = 200,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The staff template ``name`` filled from ``context``, with the pages' security headers."""
    defaults = {"user": None, "error": None, "floor": settings.min_groundedness}
    context = {**defaults, "shop": settings.shop_name, **context}
    headers = {**_HEADERS, **(headers or {})}
    return _templates.TemplateResponse(request, name, context, status_code=status, headers=headers)
