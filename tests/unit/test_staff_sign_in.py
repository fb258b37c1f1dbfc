"""Staff sign-in on the real router and real scrypt, with a stand-in for the container (sign-in
reads only the settings and the guards): lock-outs per client and per user, and cookie flags."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import httpx
from fastapi import FastAPI

from app.observability.metrics import ChatMetrics
from app.settings import Settings
from app.traffic.guards import build_guards
from app.web import staff, staff_sign_in

USER, PASSWORD = "staff", "shopdesk-staff"  # the development defaults


def _app(**overrides: Any) -> FastAPI:
    settings = Settings(staff_max_failures=3, forwarded_proxy_hops=1, _env_file=None, **overrides)  # type: ignore[call-arg]
    app = FastAPI()
    app.include_router(staff_sign_in.router)
    app.include_router(staff.router)
    app.state.container = SimpleNamespace(
        settings=settings, guards=build_guards(settings, ChatMetrics())
    )
    return app


def _sign_in(app: FastAPI, attempts: list[tuple[str, str, str]]) -> list[httpx.Response]:
    """POST each (client address, user, password) to /staff/login, in order."""

    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://shop") as client:
            return [
                await client.post(
                    "/staff/login",
                    data={"user": user, "password": password},
                    headers={"X-Forwarded-For": address},
                )
                for address, user, password in attempts
            ]

    return asyncio.run(run())


def _refusals(app: FastAPI) -> float:
    metrics: ChatMetrics = app.state.container.guards.metrics
    return metrics.refusals.labels(reason="sign_in_locked")._value.get()


def test_a_client_that_keeps_failing_is_locked_out_even_with_the_right_password() -> None:
    app = _app()
    wrong = [("198.51.100.1", "admin", f"guess{n}") for n in range(3)]
    responses = _sign_in(
        app, [*wrong, ("198.51.100.1", USER, PASSWORD), ("198.51.100.2", USER, PASSWORD)]
    )
    assert [r.status_code for r in responses] == [401, 401, 401, 429, 303]
    locked = responses[3]
    assert 1 <= int(locked.headers["retry-after"]) <= 900
    assert "Too many failed sign-ins" in locked.text and "15 minutes" in locked.text
    assert "set-cookie" not in locked.headers
    assert _refusals(app) == 1


def test_guessing_one_user_from_many_addresses_locks_that_user() -> None:
    app = _app()
    guesses = [(f"203.0.113.{n}", USER, f"guess{n}") for n in range(3)]
    responses = _sign_in(app, [*guesses, ("203.0.113.99", USER, PASSWORD)])
    assert [r.status_code for r in responses] == [401, 401, 401, 429]


def test_a_successful_sign_in_clears_the_count() -> None:
    app = _app()
    two_wrong = [("192.0.2.7", USER, "nope"), ("192.0.2.7", USER, "still no")]
    responses = _sign_in(app, [*two_wrong, ("192.0.2.7", USER, PASSWORD), *two_wrong])
    assert [r.status_code for r in responses] == [401, 401, 303, 401, 401]


def test_the_cookie_is_http_only_strict_and_secure_when_configured() -> None:
    (plain,) = _sign_in(_app(), [("192.0.2.8", USER, PASSWORD)])
    cookie = plain.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "secure" not in cookie
    (secure,) = _sign_in(_app(staff_cookie_secure=True), [("192.0.2.8", USER, PASSWORD)])
    cookie = secure.headers["set-cookie"].lower()
    assert "httponly" in cookie and "samesite=strict" in cookie and "; secure" in cookie
