"""The widget on a shop's own site, in headless Chromium: the sample shop (examples/shop-site)
served from one origin embeds /widget.js from the real server on another. A shopper asks on the
tent's page (a repair price comes as the page's table), moves to the filter bottle's page and
finds the conversation there, asks again, and gets each product's answer with its source; a
site that is not allowed cannot use the assistant.
Takes the README's screenshots of the widget (desktop and phone width) into docs/."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from bench.loadbench.systems import process, wait_ready
from tests.conftest import REPO
from tests.e2e.conftest import LiveServer

pytestmark = pytest.mark.slow

SHOP_SITE = REPO / "examples" / "shop-site"
TURN_S = 240_000  # ms: one answer on a busy 2-core CPU, queueing included
TENT = "/products/stormhollow-2-tent/"
BOTTLE = "/products/clearflow-750-filter-bottle/"


@pytest.fixture(scope="module")
def shop_site(live_server: LiveServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The sample shop on the origin the live server allows, its script tags pointing at it."""
    site = tmp_path_factory.mktemp("shop") / "site"
    shutil.copytree(SHOP_SITE, site)
    for page in site.rglob("*.html"):
        page.write_text(page.read_text().replace("http://127.0.0.1:8000", live_server.url))
    port = str(urlsplit(live_server.shop_origin).port)
    command = [sys.executable, "-m", "http.server", port, "--bind", "127.0.0.1"]
    command += ["--directory", str(site)]
    log = site.parent / "http.log"
    with process(command, env={"PATH": "/usr/bin:/bin"}, log=log) as server:
        wait_ready(server, f"{live_server.shop_origin}/", log, timeout_s=30)
        yield live_server.shop_origin


def _ask(page: Any, question: str) -> Any:
    """Type ``question`` into the open panel, press Enter, and wait for the finished answer."""
    from playwright.sync_api import expect

    answers = page.locator(".msg.bot")
    before = answers.count()
    box = page.get_by_label("Your question")
    box.fill(question)
    box.press("Enter")
    answer = answers.nth(before)
    expect(answer).to_have_attribute("data-state", "finished", timeout=TURN_S)
    return answer


def _focused_id(page: Any) -> str:
    return str(page.evaluate("document.activeElement.shadowRoot?.activeElement?.id ?? ''"))


def test_a_shopper_asks_on_two_product_pages_of_an_allowed_shop(
    browser: Any, live_server: LiveServer, shop_site: str
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 800})
    page = context.new_page()
    page.goto(f"{shop_site}{TENT}")
    launcher = page.get_by_role("button", name="Ask us")
    launcher.focus()
    page.keyboard.press("Enter")  # a keyboard opens it, and the question box has the focus
    assert launcher.get_attribute("aria-expanded") == "true"
    assert _focused_id(page) == "message"

    tent = _ask(page, "is this waterproof?")
    assert "3,000 mm" in tent.locator(".text").inner_text()
    source = tent.locator(".sources li").first.inner_text()
    assert "Stormhollow 2 Tent" in source, source
    _screenshot(page, "widget-desktop.png")  # the question and its answer in view
    tent.get_by_role("button", name="Helpful", exact=True).click()
    tent.get_by_text("Thanks for the feedback!").wait_for(timeout=30_000)
    repair = _ask(page, "how much to replace a tent pole section?")
    # the repair prices are the page's table: its header row and the row asked about, as a table
    assert repair.locator("table th").first.inner_text() == "Repair"
    assert repair.locator("table td").filter(has_text="£12 per section").count() == 1

    page.goto(f"{shop_site}{BOTTLE}")  # another page of the shop: the conversation follows
    page.locator(".msg.user").get_by_text("is this waterproof?").wait_for(timeout=30_000)
    restored = page.locator(".msg.bot").filter(has_text="3,000 mm").first
    # restored as it was shown: with its sources, and thumbs that still rate it
    assert "Stormhollow 2 Tent" in restored.locator(".sources li").first.inner_text()
    assert restored.get_by_role("button", name="Not helpful", exact=True).is_visible()
    bottle = _ask(page, "how much is it?")
    text = bottle.locator(".text").inner_text()
    assert "42" in text and "289" not in text, text
    page.set_viewport_size({"width": 390, "height": 844})  # full screen at phone width
    panel = page.get_by_role("dialog").bounding_box()
    assert panel is not None and panel["width"] == 390 and panel["height"] == 844
    _screenshot(page, "widget-phone.png")

    page.get_by_role("button", name="Talk to a person").click()
    page.locator(".msg.handoff").wait_for(timeout=30_000)
    assert "support team" in page.locator(".msg.handoff").inner_text()
    page.get_by_label("Your question").press("Escape")
    assert launcher.get_attribute("aria-expanded") == "false"
    context.close()


def test_a_site_that_is_not_allowed_cannot_use_it(
    browser: Any, live_server: LiveServer, shop_site: str
) -> None:
    other = shop_site.replace("127.0.0.1", "localhost")  # the same pages, another origin
    refused = httpx.post(f"{live_server.url}/api/sessions", headers={"Origin": other}, timeout=30)
    assert refused.status_code == 403 and "access-control-allow-origin" not in refused.headers

    page = browser.new_page(viewport={"width": 1280, "height": 800})
    page.goto(f"{other}{TENT}")
    page.get_by_role("button", name="Ask us").click()
    page.get_by_label("Your question").fill("is this waterproof?")
    page.get_by_label("Your question").press("Enter")
    alert = page.get_by_role("alert")
    alert.wait_for(timeout=30_000)
    assert "can't reach our assistant" in alert.inner_text()
    assert page.locator(".msg").count() == 0  # nothing was asked; the question stays in the box
    assert page.get_by_label("Your question").input_value() == "is this waterproof?"
    blocked = page.evaluate(
        "url => fetch(url, {method: 'POST'}).then(() => 'read', () => 'blocked')",
        f"{live_server.url}/api/sessions",
    )
    assert blocked == "blocked"
    page.close()


def _screenshot(page: Any, name: str) -> None:
    docs = REPO / "docs"
    if docs.is_dir():  # keeps the README's pictures of the widget true
        page.screenshot(path=str(Path(docs, name)))
