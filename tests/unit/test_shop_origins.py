"""Which web pages may use the assistant (app.traffic.origins), on a small app of its own and on
the assembled service: allowed shop sites get CORS, other sites 403, same-origin pages and clients
without ``Origin`` pass; HTML pages may be framed only by shopdesk itself and the allowed shops."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from app.settings import Settings
from app.traffic.origins import ShopOrigins
from app.web import widget

SHOP = "https://shop.example"
SELF = "http://shopdesk.test"


def _app(allowed: list[str], reached: list[str], refused: list[str]) -> FastAPI:
    app = FastAPI()
    app.add_middleware(ShopOrigins, allowed=allowed, on_refused=lambda: refused.append("403"))

    @app.post("/api/sessions", status_code=201)
    async def start() -> dict[str, str]:
        reached.append("start")
        return {"session_id": "s"}

    @app.get("/")
    async def page() -> HTMLResponse:
        return HTMLResponse("<p>shopper page</p>")

    @app.get("/staff")
    async def staff() -> HTMLResponse:
        return HTMLResponse(
            "<p>staff</p>", headers={"Content-Security-Policy": "frame-ancestors 'none'"}
        )

    app.include_router(widget.router)
    return app


def _call(
    app: FastAPI, method: str, path: str, headers: dict[str, str] | None = None
) -> httpx.Response:
    async def call() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=SELF) as client:
            return await client.request(method, path, headers=headers)

    return asyncio.run(call())


@pytest.fixture
def seen() -> dict[str, Any]:
    reached: list[str] = []
    refused: list[str] = []
    return {"app": _app([SHOP], reached, refused), "reached": reached, "refused": refused}


def test_an_allowed_shop_gets_cors_headers(seen: dict[str, Any]) -> None:
    response = _call(seen["app"], "POST", "/api/sessions", {"Origin": SHOP})
    assert response.status_code == 201
    assert response.headers["access-control-allow-origin"] == SHOP
    assert "Origin" in response.headers["vary"]
    assert "access-control-allow-credentials" not in response.headers


def test_an_allowed_shops_preflight_is_answered(seen: dict[str, Any]) -> None:
    response = _call(
        seen["app"],
        "OPTIONS",
        "/api/sessions/abc/messages",
        {"Origin": SHOP, "Access-Control-Request-Method": "POST",
         "Access-Control-Request-Headers": "content-type"},
    )  # fmt: skip
    assert response.status_code == 204
    assert response.headers["access-control-allow-origin"] == SHOP
    assert "POST" in response.headers["access-control-allow-methods"]
    assert response.headers["access-control-allow-headers"].lower() == "content-type"
    assert seen["reached"] == []


@pytest.mark.parametrize("origin", ["https://evil.example", "http://shop.example", "null"])
def test_another_site_is_refused_before_anything_runs(seen: dict[str, Any], origin: str) -> None:
    response = _call(seen["app"], "POST", "/api/sessions", {"Origin": origin})
    assert response.status_code == 403
    assert "SHOPDESK_WIDGET_ORIGINS" in response.json()["detail"]
    assert "access-control-allow-origin" not in response.headers
    assert seen["reached"] == [] and seen["refused"] == ["403"]


def test_another_sites_preflight_gets_no_cors_headers(seen: dict[str, Any]) -> None:
    response = _call(
        seen["app"],
        "OPTIONS",
        "/api/sessions",
        {"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"},
    )
    assert response.status_code == 403
    assert not any(name.startswith("access-control-") for name in response.headers)


def test_shopdesks_own_pages_and_clients_without_origin_pass(seen: dict[str, Any]) -> None:
    same = _call(seen["app"], "POST", "/api/sessions", {"Origin": SELF})
    plain = _call(seen["app"], "POST", "/api/sessions")
    assert same.status_code == plain.status_code == 201
    assert "access-control-allow-origin" not in same.headers
    assert "access-control-allow-origin" not in plain.headers
    assert seen["reached"] == ["start", "start"] and seen["refused"] == []


def test_the_widget_script_is_served_to_the_shops(seen: dict[str, Any]) -> None:
    response = _call(seen["app"], "GET", "/widget.js", {"Origin": SHOP})
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/javascript")
    assert response.headers["access-control-allow-origin"] == SHOP
    assert "attachShadow" in response.text


def test_the_shopper_page_may_be_framed_only_by_the_allowed_shops(seen: dict[str, Any]) -> None:
    page = _call(seen["app"], "GET", "/")
    assert page.headers["content-security-policy"] == f"frame-ancestors 'self' {SHOP}"
    assert "x-frame-options" not in page.headers
    alone = _call(_app([], [], []), "GET", "/")
    assert alone.headers["content-security-policy"] == "frame-ancestors 'self'"
    assert alone.headers["x-frame-options"] == "SAMEORIGIN"
    staff = _call(seen["app"], "GET", "/staff")  # a page with its own policy keeps it
    assert staff.headers["content-security-policy"] == "frame-ancestors 'none'"


def test_the_assembled_service_applies_the_setting() -> None:
    from app.server import create_app

    app = create_app(Settings(widget_origins=[SHOP], _env_file=None))  # type: ignore[call-arg]
    refused = _call(app, "POST", "/api/sessions", {"Origin": "https://evil.example"})
    script = _call(app, "GET", "/widget.js", {"Origin": SHOP})
    assert refused.status_code == 403
    assert script.status_code == 200 and script.headers["access-control-allow-origin"] == SHOP


@pytest.mark.parametrize(
    ("given", "origins"),
    [
        ("https://shop.example, http://127.0.0.1:8001", [SHOP, "http://127.0.0.1:8001"]),
        ('["HTTPS://Shop.Example:443/"]', [SHOP]),
        ("", []),
    ],
)
def test_origins_are_read_as_browsers_send_them(
    monkeypatch: pytest.MonkeyPatch, given: str, origins: list[str]
) -> None:
    monkeypatch.setenv("SHOPDESK_WIDGET_ORIGINS", given)
    assert Settings(_env_file=None).widget_origins == origins  # type: ignore[call-arg]


@pytest.mark.parametrize("bad", ["*", "shop.example", "https://shop.example/help", "ftp://shop"])
def test_anything_but_an_origin_is_refused_with_the_variable_named(bad: str) -> None:
    with pytest.raises(ValueError, match="SHOPDESK_WIDGET_ORIGINS"):
        Settings(widget_origins=[bad], _env_file=None)  # type: ignore[call-arg]


def test_the_widget_sets_server_text_only_as_text_and_calls_only_its_own_host() -> None:
    script = widget.SCRIPT.read_text().split("(function", 1)[1]  # the code, after its usage note
    assert "innerHTML" not in script and "insertAdjacentHTML" not in script
    assert script.count("fetch(") == 1 and "fetch(API + path" in script
    urls = {word for word in script.split('"') if word.startswith(("http://", "https://"))}
    assert urls == {"http://www.w3.org/2000/svg"}  # the SVG namespace, never fetched
