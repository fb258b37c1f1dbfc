"""Which web pages may use the assistant: shopdesk's own, and the shop sites named in
``SHOPDESK_WIDGET_ORIGINS``.

Browsers send ``Origin`` with every cross-origin fetch (and with same-origin POSTs). On ``/api/``
and ``/widget.js`` a request from an allowed shop gets CORS headers (and its preflight an
answer); one from any other site is refused with 403 before anything runs, preflight included,
and without CORS headers, so the browser does not let that page read anything either. Same-origin
requests and requests without ``Origin`` (curl, server-to-server) are not cross-origin and pass.
HTML pages (the shopper page at ``/``) may be framed only by shopdesk itself and those shops
(``Content-Security-Policy: frame-ancestors``); a page that sets its own policy keeps it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from enum import Enum
from urllib.parse import urlsplit

from starlette.datastructures import Headers, MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CORS_PATHS = ("/api/", "/widget.js")
REFUSED_DETAIL = (
    "This site may not use the assistant: its origin is not one of the shop sites "
    "in SHOPDESK_WIDGET_ORIGINS."
)
PREFLIGHT_MAX_AGE_S = 600


class Verdict(Enum):
    NO_ORIGIN = "no origin"  # not a browser's cross-origin request (curl, tests, servers)
    SAME_ORIGIN = "same origin"
    ALLOWED = "allowed"
    REFUSED = "refused"


def judge_origin(origin: str | None, host: str | None, allowed: frozenset[str]) -> Verdict:
    """What a request carrying ``Origin: origin`` to ``Host: host`` is, for ``allowed`` shops."""
    if origin is None:
        return Verdict.NO_ORIGIN
    origin = origin.strip().lower()
    if origin in allowed:
        return Verdict.ALLOWED
    parts = urlsplit(origin)
    if host and parts.scheme in ("http", "https") and parts.netloc == host.strip().lower():
        return Verdict.SAME_ORIGIN
    return Verdict.REFUSED  # another site, or "null" (sandboxed frames, file: pages)


def frame_policy(allowed: Iterable[str]) -> dict[str, str]:
    """The headers that let only shopdesk itself and the ``allowed`` shops frame a page."""
    origins = sorted(allowed)
    headers = {"Content-Security-Policy": " ".join(["frame-ancestors 'self'", *origins])}
    if not origins:  # for browsers without CSP; it cannot name other sites
        headers["X-Frame-Options"] = "SAMEORIGIN"
    return headers


class ShopOrigins:
    """ASGI middleware: CORS for the allowed shops on the API and the widget, 403 for other
    sites, and the framing policy on HTML pages."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed: Iterable[str],
        on_refused: Callable[[], None] = lambda: None,
    ) -> None:
        self.app = app
        self.allowed = frozenset(allowed)
        self.on_refused = on_refused
        self.framing = frame_policy(self.allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if not scope["path"].startswith(CORS_PATHS):
            await self.app(scope, receive, self._framed(send))
            return
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        verdict = judge_origin(origin, headers.get("host"), self.allowed)
        if verdict is Verdict.REFUSED:
            self.on_refused()
            await _answer(send, 403, json.dumps({"detail": REFUSED_DETAIL}).encode())
            return
        if verdict is not Verdict.ALLOWED or origin is None:
            await self.app(scope, receive, _varying(send, {}))
            return
        cors = {
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Expose-Headers": "Retry-After",
        }
        if scope["method"] == "OPTIONS" and "access-control-request-method" in headers:
            preflight = {
                **cors,
                "Access-Control-Allow-Methods": "GET, POST",
                "Access-Control-Allow-Headers": "Content-Type",
                "Access-Control-Max-Age": str(PREFLIGHT_MAX_AGE_S),
            }
            await _answer(send, 204, b"", preflight)
            return
        await self.app(scope, receive, _varying(send, cors))

    def _framed(self, send: Send) -> Send:
        async def framed(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                html = headers.get("content-type", "").startswith("text/html")
                if html and "content-security-policy" not in headers:
                    headers.update(self.framing)
            await send(message)

        return framed


def _varying(send: Send, extra: dict[str, str]) -> Send:
    """``send`` adding ``extra`` and ``Vary: Origin`` (the answer depends on who asks)."""

    async def varying(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = MutableHeaders(scope=message)
            headers.update(extra)
            headers.add_vary_header("Origin")
        await send(message)

    return varying


async def _answer(
    send: Send, status: int, body: bytes, extra: dict[str, str] | None = None
) -> None:
    headers = [(b"vary", b"Origin"), (b"content-length", str(len(body)).encode())]
    if body:
        headers.append((b"content-type", b"application/json"))
    headers += [(k.lower().encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
