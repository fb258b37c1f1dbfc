"""A shopper in headless Chromium sends messages faster than their per-address turn allowance
(issue 16): the turns within it are answered; the one past it keeps its text in the box, gets no
answer and the "very quickly" notice, and never reaches the service (the server's metrics, its
transcript and `GET /api/sessions/{id}/messages` hold only the allowed turns).

A server of its own, with an allowance of 2 turns refilled at one every 100 minutes, so the
limit falls on the third message however slowly the machine answers (its vLLM engine takes a
minute or two to start on two CPU cores)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest

from tests.conftest import KNOWLEDGE
from tests.e2e.servers import app_server

if TYPE_CHECKING:
    from playwright.sync_api import Page

ALLOWANCE = 2
LIMITED_ENV = {
    "SHOPDESK_CLIENT_TURN_BURST": str(ALLOWANCE),
    "SHOPDESK_CLIENT_TURNS_PER_MINUTE": "0.01",  # one turn back every 100 minutes
    "SHOPDESK_MAX_ANSWER_TOKENS": "24",  # generation stays short: this test is not about it
}
ALLOWED = ("How long do I have to return an item?", "Do you ship to Canada?")
PAST_THE_LIMIT = "Is the Stormhollow 3 tent waterproof?"
NOTICE = "You are sending messages very quickly; please wait a moment and try again."
ANSWER_S = 300.0

# The chat as the shopper sees it: bubbles, the message box, the notice, whether Gradio is still
# streaming an event (its status trackers carry `generating` until the handler has finished).
PAGE_STATE = """() => ({
    users: [...document.querySelectorAll('[data-testid=user]')].map(e => e.innerText),
    bots: [...document.querySelectorAll('[data-testid=bot]')].map(e => e.innerText),
    box: document.querySelector('#shopper-message textarea').value,
    notice: document.querySelector('#shopper-notice').innerText,
    generating: document.querySelectorAll('.generating').length,
})"""

# Every state the chat passes through from now on, however briefly (a MutationObserver): the
# number of the shopper's bubbles and the answers' texts.
WATCH_BOTS = """() => {
    window.botsSeen = [];
    const record = () => window.botsSeen.push({
        users: document.querySelectorAll('[data-testid=user]').length,
        bots: [...document.querySelectorAll('[data-testid=bot]')].map(e => e.innerText)});
    new MutationObserver(record).observe(
        document.body, {subtree: true, childList: true, characterData: true});
}"""


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Path:
    from app.settings import Settings
    from ingest.pipeline import run_ingest

    data_dir = tmp_path_factory.mktemp("rate-limited-data")
    run_ingest(Settings(knowledge_dir=KNOWLEDGE, data_dir=data_dir, embed_device="cpu"), embedder)
    return data_dir


@pytest.fixture(scope="module")
def limited_server(published: Path) -> Iterator[str]:
    """`python -m app serve` with the small allowance; its SQLite transcript is in ``published``."""
    with app_server(published, LIMITED_ENV) as (url, _, _):
        yield url


def metrics(url: str) -> dict[str, float]:
    text = httpx.get(f"{url}/metrics", timeout=30).text
    return {
        line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
        for line in text.splitlines()
        if line and not line.startswith("#")
    }


def turns_answered(url: str) -> float:
    """Turns the service has finished (answered or not), from its Prometheus counters."""
    return sum(v for k, v in metrics(url).items() if k.startswith("shopdesk_turns_total{"))


def stored_turns(data_dir: Path) -> list[tuple[str, int, str]]:
    """(session id, turn index, question) of every turn in the server's SQLite transcript."""
    with sqlite3.connect(data_dir / "transcripts.sqlite3") as db:
        rows = db.execute(
            "SELECT c.session_id, m.turn_index, m.question FROM message m "
            "JOIN conversation c ON c.id = m.conversation_id ORDER BY m.id"
        ).fetchall()
    return [(str(s), int(i), str(q)) for s, i, q in rows]


def wait_until(what: str, check: Any, timeout_s: float = 60.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.2)


def wait_for_answer(page: Page, answers: int) -> dict[str, Any]:
    """Waits until the chat shows ``answers`` bot bubbles, the last one with text, and Gradio has
    finished streaming; returns the page's state then."""
    page.wait_for_function(
        f"""() => {{
            const bots = document.querySelectorAll('[data-testid=bot]');
            return bots.length === {answers} && bots[bots.length - 1].innerText.trim() !== ''
                && document.querySelectorAll('.generating').length === 0;
        }}""",
        timeout=ANSWER_S * 1000,
    )
    state: dict[str, Any] = page.evaluate(PAGE_STATE)
    return state


def test_the_page_past_its_turn_allowance_keeps_the_message_and_asks_to_wait(
    browser: Any, limited_server: str, published: Path, tmp_path: Path
) -> None:
    url = limited_server
    page = browser.new_page(viewport={"width": 1100, "height": 900})
    page.goto(f"{url}/")
    box = page.locator("#shopper-message textarea")
    box.wait_for(timeout=60_000)

    # Within the allowance: typed and sent as a shopper would, once with Enter, once with Send.
    for number, question in enumerate(ALLOWED, start=1):
        box.fill(question)
        if number == 1:
            box.press("Enter")
        else:
            page.locator("#shopper-send").click()
        state = wait_for_answer(page, answers=number)
        assert state["users"] == list(ALLOWED[:number])
        assert "Sources" in state["bots"][-1], state["bots"][-1]
        assert state["box"] == "" and state["notice"].strip() == ""
        wait_until(f"turn {number} in the metrics", lambda n=number: turns_answered(url) == n)
    before = page.evaluate(PAGE_STATE)

    # Past it: the shopper is asked to wait and keeps the message; no answer comes.
    page.evaluate(WATCH_BOTS)
    box.fill(PAST_THE_LIMIT)
    box.press("Enter")
    page.wait_for_function(
        "() => document.querySelector('#shopper-notice').innerText.includes('very quickly')"
        " && document.querySelectorAll('.generating').length === 0",
        timeout=60_000,
    )
    page.screenshot(path=str(tmp_path / "at-the-limit.png"), full_page=True)
    state = page.evaluate(PAGE_STATE)
    assert state["notice"].strip() == f"⏳ {NOTICE}"
    assert state["box"] == PAST_THE_LIMIT  # nothing lost: ready to send again
    assert state["users"] == before["users"] == list(ALLOWED)
    assert state["bots"] == before["bots"]  # no answer bubble for it
    seen: list[dict[str, Any]] = page.evaluate("window.botsSeen")
    assert seen, "the page did not react to the third message"
    # never shown as sent, not even for a moment before the limit was checked
    assert max(state["users"] for state in seen) == ALLOWANCE
    assert max(len(state["bots"]) for state in seen) == ALLOWANCE

    # The service was not asked: two turns finished, one refused for the rate, two recorded.
    counters = metrics(url)
    assert turns_answered(url) == ALLOWANCE
    assert counters['shopdesk_refusals_total{reason="client_turn_rate"}'] == 1
    wait_until("the transcript", lambda: len(stored_turns(published)) >= ALLOWANCE)
    stored = stored_turns(published)
    assert [(i, q) for _, i, q in stored] == [(0, ALLOWED[0]), (1, ALLOWED[1])]
    (session,) = {s for s, _, _ in stored}
    history = httpx.get(f"{url}/api/sessions/{session}/messages", timeout=30)
    assert history.status_code == 200, history.text
    assert [t["question"] for t in history.json()] == list(ALLOWED)
    page.close()
