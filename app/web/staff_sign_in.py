"""Signing support staff in and out of the review pages (``/staff/login``, ``/staff/logout``).

Failed sign-ins are counted per client address and, for the real staff user, per user name;
past the limit the form answers 429 without checking the password. A success sets the signed
session cookie that ``app.web.staff_pages`` reads on every page.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import time
from typing import Annotated, Any

from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.dependencies import ClientAddressDep, GuardsDep, SettingsDep
from app.passwords import verify_password
from app.settings import Settings
from app.traffic.guards import retry_after
from app.web.staff_auth import sign_session
from app.web.staff_pages import COOKIE, render, signed_in

logger = logging.getLogger(__name__)

router = APIRouter(prefix="/staff", tags=["staff"], include_in_schema=False)


@router.get("/login", response_class=HTMLResponse)
async def login_form(request: Request, settings: SettingsDep, next: str = "/staff") -> Response:
    if signed_in(request, settings):
        return RedirectResponse(_safe_next(next), 303)
    return render(request, settings, "staff_login.html", {"next": _safe_next(next), "name": ""})


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
        return render(request, settings, "staff_login.html", page, status=401)
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


@router.post("/logout")
async def logout(settings: SettingsDep) -> Response:
    response = RedirectResponse("/staff/login", 303)
    secure = _secure_cookie(settings)
    response.delete_cookie(COOKIE, path="/staff", secure=secure, httponly=True, samesite="strict")
    return response


def _safe_next(target: str) -> str:
    """Only a path inside /staff is a place to go after signing in (no open redirect)."""
    inside = target == "/staff" or target.startswith(("/staff/", "/staff?"))
    ok = inside and not target.startswith("/staff/login") and "\\" not in target
    return target if ok else "/staff"


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
    return render(request, settings, "staff_login.html", page, 429, headers)


def _sign_in_keys(client: str, user: str, settings: Settings) -> list[str]:
    """Failures count against the client address and, for the real staff user, the user name
    (other names can never succeed, so only their client is counted)."""
    keys = [f"client:{client}"]
    if user == settings.staff_user:
        keys.append(f"user:{user}")
    return keys


def _secure_cookie(settings: Settings) -> bool:
    return settings.staff_cookie_secure or settings.mode == "production"
