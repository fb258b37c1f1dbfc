"""A shopper in headless Chromium: asks, sees a sourced answer, rates it, asks for a person."""

from __future__ import annotations

from typing import Any

from tests.conftest import REPO
from tests.e2e.conftest import LiveServer


def test_shopper_asks_rates_and_reaches_a_person(browser: Any, live_server: LiveServer) -> None:
    from app.transcripts import reads
    from app.transcripts.db import make_engine, session_factory
    from app.transcripts.reads import TranscriptFilter

    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.goto(f"{live_server.url}/")
    box = page.locator("#shopper-message textarea")
    box.fill("Does the Stormhollow 2 footprint fit the Stormhollow 3 tent?")
    box.press("Enter")
    bot = page.locator(".message.bot, [data-testid='bot']").last
    bot.wait_for(timeout=60_000)
    page.wait_for_function("document.body.innerText.includes('Sources')", timeout=120_000)
    assert "Stormhollow" in page.inner_text("body")
    if (REPO / "docs").is_dir():  # keeps the README's picture of the page true
        page.screenshot(path=str(REPO / "docs" / "shopper.png"), full_page=True)

    page.locator("#shopper-comment textarea").fill("clear, thanks")
    page.get_by_label("Like").last.click()
    page.wait_for_function("document.body.innerText.includes('Thanks for the feedback')")

    page.locator("#shopper-human").click()
    page.wait_for_function("document.body.innerText.includes('support team')", timeout=30_000)

    engine = make_engine(f"sqlite:///{live_server.data_dir / 'transcripts.sqlite3'}")
    try:
        with session_factory(engine)() as db:
            found, _ = reads.list_conversations(
                session=db, filters=TranscriptFilter(text="Stormhollow 2 footprint", escalated=True)
            )
            assert found, "the conversation was not recorded as escalated"
            detail = reads.get_conversation(session=db, conversation_id=found[0].id)
            assert detail is not None
            assert any(m.feedback is not None and m.feedback.rating == 1 for m in detail.messages)
    finally:
        engine.dispose()
