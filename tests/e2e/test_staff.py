"""The staff review pages against the running server: sign-in, filters, one conversation with
its passages, notes, exports of exactly the filtered rows, and a staff member in Chromium."""

from __future__ import annotations

import csv
import io
import json
import random
import re
import string
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import REPO
from tests.e2e.conftest import LiveServer

USER, PASSWORD = "staff", "shopdesk-staff"  # the development defaults
DOCS = REPO / "docs"


@dataclass(frozen=True)
class Seeded:
    """Two conversations carrying one made-up word: A with two turns, B rated down and escalated."""

    marker: str
    a: int
    b: int
    a_messages: tuple[int, ...]


def _start(server: LiveServer) -> str:
    response = httpx.post(f"{server.url}/api/sessions", timeout=10)
    assert response.status_code == 201
    return str(response.json()["session_id"])


def _ask(server: LiveServer, session: str, message: str) -> dict[str, Any]:
    """Ask over the public API, read the event stream to its end, return the `done` payload."""
    events: list[tuple[str, dict[str, Any]]] = []
    url = f"{server.url}/api/sessions/{session}/messages"
    with httpx.stream("POST", url, json={"message": message}, timeout=300) as response:
        assert response.status_code == 200, response.read()
        kind = ""
        for line in response.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                events.append((kind, json.loads(line[6:])))
    assert events and events[-1][0] == "done", events[-1:]
    return events[-1][1]


def _transcripts(server: LiveServer) -> Any:
    from app.transcripts.db import make_engine

    return make_engine(f"sqlite:///{server.data_dir / 'transcripts.sqlite3'}")


def _matching_ids(server: LiveServer, **criteria: Any) -> list[int]:
    """The conversation ids the transcript queries themselves give for a filter."""
    from app.transcripts import reads
    from app.transcripts.db import session_factory
    from app.transcripts.reads import TranscriptFilter

    engine = _transcripts(server)
    try:
        with session_factory(engine)() as db:
            found, total = reads.list_conversations(
                session=db, filters=TranscriptFilter(**criteria), page_size=100
            )
    finally:
        engine.dispose()
    assert total == len(found)
    return [c.id for c in found]


def _export_rows(server: LiveServer, **criteria: Any) -> list[dict[str, Any]]:
    """The rows the transcript queries themselves export for a filter, as JSON gives them back."""
    from app.transcripts import reads
    from app.transcripts.db import session_factory
    from app.transcripts.reads import TranscriptFilter

    engine = _transcripts(server)
    try:
        with session_factory(engine)() as db:
            rows = list(reads.export_rows(session=db, filters=TranscriptFilter(**criteria)))
    finally:
        engine.dispose()
    return [json.loads(json.dumps(row)) for row in rows]


@pytest.fixture(scope="module")
def seeded(live_server: LiveServer) -> Seeded:
    marker = "zq" + "".join(random.choices(string.ascii_lowercase, k=8))
    a = _start(live_server)
    a1 = _ask(live_server, a, f"How much does the return label cost? (ref {marker})")
    a2 = _ask(live_server, a, "And how long does the refund take after that?")
    b = _start(live_server)
    b1 = _ask(live_server, b, f"Do you deliver to Northern Ireland? (ref {marker})")
    rated = httpx.post(
        f"{live_server.url}/api/sessions/{b}/feedback",
        json={"message_id": b1["message_id"], "rating": -1, "comment": "did not say the price"},
    )
    assert rated.status_code == 201
    escalated = httpx.post(
        f"{live_server.url}/api/sessions/{b}/escalate", json={"reason": "wants a courier quote"}
    )
    assert escalated.status_code == 200
    ids = _matching_ids(live_server, text=marker)
    escalated_ids = _matching_ids(live_server, text=marker, escalated=True)
    assert len(ids) == 2 and len(escalated_ids) == 1
    (b_id,) = escalated_ids
    (a_id,) = set(ids) - {b_id}
    return Seeded(marker, a_id, b_id, (a1["message_id"], a2["message_id"]))


@pytest.fixture
def staff(live_server: LiveServer) -> Iterator[httpx.Client]:
    """An httpx client signed in as the development staff user."""
    with httpx.Client(base_url=live_server.url, timeout=30) as client:
        response = client.post("/staff/login", data={"user": USER, "password": PASSWORD})
        assert response.status_code == 303 and response.headers["location"] == "/staff"
        yield client


def _conversation_links(html: str) -> list[int]:
    return list(dict.fromkeys(int(i) for i in re.findall(r"/staff/conversations/(\d+)", html)))


def test_pages_need_sign_in(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.url, timeout=30) as anonymous:
        for path in ("/staff", "/staff/?q=x", "/staff/conversations/1"):
            response = anonymous.get(path)
            assert response.status_code == 303, path
            assert response.headers["location"].startswith("/staff/login?next=%2Fstaff")
        note = anonymous.post("/staff/conversations/1/notes", data={"text": "sneaky"})
        assert note.status_code == 303 and note.headers["location"] == "/staff/login"
        for path in ("/staff/export.csv", "/staff/export.jsonl?q=x"):
            assert anonymous.get(path).status_code == 401, path
        form = anonymous.get("/staff/login")
        assert form.status_code == 200 and 'name="password"' in form.text
        forged = {"Cookie": "shopdesk_staff=c3RhZmY.9999999999.forged"}
        assert anonymous.get("/staff", headers=forged).status_code == 303
        assert anonymous.get("/staff/export.csv", headers=forged).status_code == 401


def test_a_wrong_password_is_refused_with_a_clear_message(live_server: LiveServer) -> None:
    with httpx.Client(base_url=live_server.url, timeout=30) as client:
        for user, password in [(USER, "guess"), ("admin", PASSWORD), (USER, "")]:
            response = client.post("/staff/login", data={"user": user, "password": password})
            assert response.status_code == 401
            assert "do not match" in response.text and 'name="password"' in response.text
            assert "set-cookie" not in response.headers
        assert client.get("/staff").status_code == 303


def test_signing_in_sets_a_strict_cookie_and_signing_out_clears_it(
    live_server: LiveServer,
) -> None:
    with httpx.Client(base_url=live_server.url, timeout=30) as client:
        wanted = "/staff/conversations/1?q=x"
        response = client.post(
            "/staff/login", data={"user": USER, "password": PASSWORD, "next": wanted}
        )
        assert response.status_code == 303 and response.headers["location"] == wanted
        cookie = response.headers["set-cookie"].lower()
        assert cookie.startswith("shopdesk_staff=")
        for attribute in ("httponly", "samesite=strict", "path=/staff", "max-age=28800"):
            assert attribute in cookie
        assert "secure" not in cookie  # development mode serves plain HTTP
        assert client.get("/staff").status_code == 200
        assert client.post("/staff/logout").status_code == 303
        assert client.get("/staff").status_code == 303
        elsewhere = client.post(
            "/staff/login",
            data={"user": USER, "password": PASSWORD, "next": "https://evil.example/"},
        )
        assert elsewhere.headers["location"] == "/staff"


def test_the_text_filter_finds_exactly_the_conversations(
    staff: httpx.Client, seeded: Seeded
) -> None:
    page = staff.get("/staff", params={"q": seeded.marker.upper()})
    assert page.status_code == 200
    assert re.search(r'id="total">2<', page.text)
    assert sorted(_conversation_links(page.text)) == sorted([seeded.a, seeded.b])
    assert "Escalated" in page.text and "Low rating" in page.text
    assert f"q={seeded.marker.upper()}" in page.text  # the export links carry the filter
    narrowed = staff.get("/staff", params={"q": seeded.marker, "escalated": "on"})
    assert _conversation_links(narrowed.text) == [seeded.b]
    rated = staff.get("/staff", params={"q": seeded.marker, "low_rating": "on"})
    assert _conversation_links(rated.text) == [seeded.b]
    nothing = staff.get("/staff", params={"q": seeded.marker, "until": "2000-01-01"})
    assert re.search(r'id="total">0<', nothing.text) and "No conversations match" in nothing.text


def test_bad_filter_values_get_a_readable_page(staff: httpx.Client) -> None:
    response = staff.get(
        "/staff", params={"since": "yesterday", "max_groundedness": "lots", "page": "-1"}
    )
    assert response.status_code == 400
    assert response.headers["content-type"].startswith("text/html")
    assert "YYYY-MM-DD" in response.text and "number from 0 to 1" in response.text
    assert "Page must be a whole number" in response.text
    assert staff.get("/staff/export.csv", params={"since": "soon"}).status_code == 400


def test_paging_keeps_the_filter(staff: httpx.Client, seeded: Seeded) -> None:
    beyond = staff.get("/staff", params={"q": seeded.marker, "page": "7"})
    assert beyond.status_code == 200 and "back to the first page" in beyond.text
    assert f"/staff?q={seeded.marker}" in beyond.text


def test_a_conversation_shows_every_turn_with_its_passages(
    live_server: LiveServer, staff: httpx.Client, seeded: Seeded
) -> None:
    from app.transcripts import reads
    from app.transcripts.db import session_factory

    engine = _transcripts(live_server)
    try:
        with session_factory(engine)() as db:
            detail = reads.get_conversation(session=db, conversation_id=seeded.a)
    finally:
        engine.dispose()
    assert detail is not None and len(detail.messages) == 2
    page = staff.get(f"/staff/conversations/{seeded.a}")
    assert page.status_code == 200
    html = page.text
    assert f"ref {seeded.marker}" in html and "refund take" in html
    assert html.count('class="card turn"') == 2
    for message in detail.messages:
        assert message.passages
        rows = re.findall(r'<tr class="passage">(.*?)</tr>', html, flags=re.S)
        for passage in message.passages:
            assert f"{passage.score:.3f}" in html
            assert any(passage.source in row for row in rows)
        for stage in message.timings:
            assert stage.replace("_", " ") in html
        assert message.model in html and message.index_version in html
    assert html.count('<tr class="passage">') == sum(len(m.passages) for m in detail.messages)

    escalated = staff.get(f"/staff/conversations/{seeded.b}").text
    assert "wants a courier quote" in escalated and "did not say the price" in escalated
    assert "Escalated" in escalated and "rated down" in escalated
    for missing in ("999999", "abc"):
        response = staff.get(f"/staff/conversations/{missing}")
        assert response.status_code == 404 and "No such conversation" in response.text


def test_a_note_is_added_by_the_signed_in_user(staff: httpx.Client, seeded: Seeded) -> None:
    url = f"/staff/conversations/{seeded.a}/notes"
    text = "Answer missed the <free> label for faulty items"
    added = staff.post(url, params={"q": seeded.marker}, data={"text": text, "label": "retrieval"})
    assert added.status_code == 303
    assert added.headers["location"] == f"/staff/conversations/{seeded.a}?q={seeded.marker}#notes"
    page = staff.get(added.headers["location"]).text
    assert "Answer missed the &lt;free&gt; label" in page and "<free>" not in page
    notes = page[page.index('id="notes"') :]
    assert "<strong>staff</strong>" in notes and "retrieval" in notes
    empty = staff.post(url, data={"text": "   "})
    assert empty.status_code == 400 and "A note needs some text" in empty.text
    long_label = staff.post(url, data={"text": "fine", "label": "x" * 41})
    assert long_label.status_code == 400
    assert staff.post("/staff/conversations/999999/notes", data={"text": "x"}).status_code == 404


def test_exports_hold_exactly_the_filtered_rows(
    live_server: LiveServer, staff: httpx.Client, seeded: Seeded
) -> None:
    csv_response = staff.get("/staff/export.csv", params={"q": seeded.marker})
    assert csv_response.status_code == 200
    assert csv_response.headers["content-type"].startswith("text/csv")
    disposition = csv_response.headers["content-disposition"]
    assert disposition.startswith("attachment;") and '.csv"' in disposition
    rows = list(csv.DictReader(io.StringIO(csv_response.text)))
    assert [(int(r["conversation_id"]), int(r["turn"])) for r in rows] == [
        (seeded.b, 0),
        (seeded.a, 0),
        (seeded.a, 1),
    ]
    assert [int(r["conversation_id"]) for r in rows if r["rating"] == "-1"] == [seeded.b]
    assert all(r["passages"] and r["index_version"] for r in rows)

    jsonl = staff.get("/staff/export.jsonl", params={"q": seeded.marker, "escalated": "on"})
    assert jsonl.status_code == 200 and '.jsonl"' in jsonl.headers["content-disposition"]
    lines = [json.loads(line) for line in jsonl.text.splitlines()]
    assert [(r["conversation_id"], r["turn"]) for r in lines] == [(seeded.b, 0)]
    assert lines[0]["escalated"] is True and lines[0]["rating"] == -1

    for criteria, params in [({}, {}), ({"text": seeded.marker}, {"q": seeded.marker})]:
        exported = staff.get("/staff/export.jsonl", params=params).text.splitlines()
        assert [json.loads(line) for line in exported] == _export_rows(live_server, **criteria)


# --- in a real browser ------------------------------------------------------------------------


def _screenshot(page: Any, name: str) -> None:
    if DOCS.is_dir():
        page.screenshot(path=str(DOCS / name), full_page=True)


def test_staff_member_reviews_a_conversation_in_chromium(
    browser: Any, live_server: LiveServer, seeded: Seeded, tmp_path: Path
) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900}, accept_downloads=True)
    page = context.new_page()
    try:
        page.goto(f"{live_server.url}/staff")
        assert "/staff/login" in page.url
        page.fill("#user", USER)
        page.fill("#password", PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(f"{live_server.url}/staff")

        page.fill("#q", seeded.marker)
        page.get_by_role("button", name="Apply").click()
        page.wait_for_url(re.compile(rf".*q={seeded.marker}.*"))
        assert page.inner_text("#total") == "2"
        _screenshot(page, "staff-list.png")

        page.locator(f"td.question a[href^='/staff/conversations/{seeded.a}?']").click()
        page.wait_for_url(re.compile(rf".*/staff/conversations/{seeded.a}\?.*"))
        assert page.locator("tr.passage").count() >= 2
        assert re.search(r"\d\.\d{3}", page.locator("tr.passage").first.inner_text())
        assert "stage timings" in page.inner_text("body").lower()
        _screenshot(page, "staff.png")

        page.get_by_role("link", name="← Conversations").click()
        page.wait_for_url(re.compile(rf".*/staff\?q={seeded.marker}$"))
        with page.expect_download() as download_info:
            page.click("#export-csv")
        download = download_info.value
        assert download.suggested_filename.endswith(".csv")
        saved = tmp_path / download.suggested_filename
        download.save_as(saved)
        rows = list(csv.DictReader(saved.open(newline="", encoding="utf-8")))
        assert {int(r["conversation_id"]) for r in rows} == {seeded.a, seeded.b}
        assert len(rows) == 3
    finally:
        context.close()
