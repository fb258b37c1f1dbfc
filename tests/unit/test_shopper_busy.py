"""The shopper page shares the API's admission: when every slot is taken, the chat window says
so in words and keeps the message in the box to send again (no traceback, nothing lost)."""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

from app.chat.session_ids import new_session_id
from app.observability.metrics import ChatMetrics
from app.settings import Settings
from app.traffic.admission import TurnAdmission
from app.traffic.guards import Guards, build_guards
from app.web.shopper import build_shopper_page


def test_a_full_house_gets_a_friendly_busy_notice() -> None:
    admission = TurnAdmission(max_active=1, max_waiting=0, wait_s=1, retry_after_s=5)
    guards = replace(build_guards(Settings(), ChatMetrics()), admission=admission)

    def provider() -> tuple[Any, Guards, str, str]:
        return None, guards, "secret", "Fernhill"  # the service is never reached

    page = build_shopper_page(provider, "Fernhill")
    (respond,) = {f.fn for f in page.fns.values() if f.name == "respond"}

    async def scenario() -> list[tuple[Any, ...]]:
        held = await admission.enter()  # someone else's turn holds the only slot
        try:
            return [u async for u in respond("Where is my parcel?", [], None, {})]
        finally:
            held.release()

    updates = asyncio.run(scenario())
    history, box, session, _, notice = updates[-1]
    assert history == [] and box == "Where is my parcel?"
    assert "lot of shoppers" in notice and "try again" in notice
    assert session and session.count(".") == 1 and len(session) == len(new_session_id("s"))
