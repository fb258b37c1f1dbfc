"""``/widget.js``: the script a shop puts on its own pages to add the assistant to them (a
launcher and a chat panel over the JSON/SSE API; see README "On the shop's own site")."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import FileResponse

SCRIPT = Path(__file__).parent / "static" / "widget.js"

router = APIRouter(include_in_schema=False)


@router.get("/widget.js")
async def widget_script() -> FileResponse:
    return FileResponse(
        SCRIPT,
        media_type="text/javascript; charset=utf-8",
        headers={
            "Cache-Control": "public, max-age=300",
            "X-Content-Type-Options": "nosniff",
            "Cross-Origin-Resource-Policy": "cross-origin",  # shops may isolate their pages
        },
    )
