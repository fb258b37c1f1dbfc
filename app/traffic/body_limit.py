"""A cap on request bodies, enforced before anything reads or parses them.

A body that declares a larger ``Content-Length`` is refused at once, unread; one sent without a
length (chunked) is counted as it arrives and refused as soon as it passes the cap. Either way the
service never holds more than the cap of one request in memory.
"""

from __future__ import annotations

import json
from collections.abc import Callable

from fastapi import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send


class RequestBodyTooLarge(HTTPException):
    """Raised while the body is read; FastAPI answers it as a 413 like any HTTPException."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(413, detail=too_large_detail(max_bytes))


def too_large_detail(max_bytes: int) -> str:
    return f"The request is too large: send at most {max_bytes:,} bytes."


class BodyLimit:
    """ASGI middleware refusing request bodies over ``max_bytes`` with 413."""

    def __init__(
        self, app: ASGIApp, *, max_bytes: int, on_refused: Callable[[], None] = lambda: None
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.on_refused = on_refused

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_bytes:
            self.on_refused()
            await self._refuse(send)
            return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    self.on_refused()
                    raise RequestBodyTooLarge(self.max_bytes)
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted_receive, watched_send)
        except RequestBodyTooLarge:
            if started:
                raise
            await self._refuse(send)

    async def _refuse(self, send: Send) -> None:
        body = json.dumps({"detail": too_large_detail(self.max_bytes)}).encode()
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            (b"connection", b"close"),
        ]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": body})
