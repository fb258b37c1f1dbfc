"""The knowledge-gaps page and its CSV on the real routers, a real SQLite transcript file and
the real packaged MiniLM, with a stand-in for the container (the pages read only the settings,
the transcripts and the gaps): signed in or not, the groups, the date filter, the export."""

from __future__ import annotations

import asyncio
import csv
import io
import re
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.gaps.service import KnowledgeGaps
from app.settings import Settings
from app.transcripts.db import make_engine, session_factory, upgrade
from app.transcripts.review import TranscriptReview
from app.web import staff, staff_gaps, staff_pages
from app.web.staff_auth import sign_session
from tests.gap_transcripts import GAPS, NOT_GAPS, TOPIC, seed


@pytest.fixture
def app(tmp_path: Path, embedder: Any) -> Iterator[FastAPI]:
    url = f"sqlite:///{tmp_path / 'transcripts.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    sessions = session_factory(engine)
    with sessions() as session:
        seed(session)
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    app = FastAPI()
    app.include_router(staff.router)
    app.include_router(staff_gaps.router)
    app.state.container = SimpleNamespace(
        settings=settings,
        transcript_review=TranscriptReview(sessions),
        gaps=KnowledgeGaps(sessions, embedder, floor=settings.min_groundedness),
    )
    yield app
    engine.dispose()


def _get(app: FastAPI, path: str, *, signed_in: bool = True) -> httpx.Response:
    settings: Settings = app.state.container.settings
    cookies = {}
    if signed_in:
        expires = int(time.time()) + 600
        cookies[staff_pages.COOKIE] = sign_session(
            settings.staff_user, secret=settings.secret_key, expires_at=expires
        )

    async def run() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://shop", cookies=cookies
        ) as client:
            return await client.get(path)

    return asyncio.run(run())


def _groups(html: str) -> list[set[str]]:
    """Each group row's questions (its label and examples), in page order."""
    rows = re.findall(r'<tr class="group" id="group-\d+">(.*?)</tr>', html, flags=re.S)
    return [set(re.findall(r'(?:class="label">|<li>)([^<]+)<', row)) for row in rows]


def test_signed_out_visitors_are_sent_to_sign_in_and_get_no_csv(app: FastAPI) -> None:
    page = _get(app, "/staff/gaps?since=2026-12-01", signed_in=False)
    assert page.status_code == 303
    assert page.headers["location"] == "/staff/login?next=%2Fstaff%2Fgaps%3Fsince%3D2026-12-01"
    assert _get(app, "/staff/gaps.csv", signed_in=False).status_code == 401


def test_the_page_groups_the_unanswered_questions_by_meaning(app: FastAPI) -> None:
    page = _get(app, "/staff/gaps")
    assert page.status_code == 200
    assert re.search(
        r'<strong id="total">10</strong> questions in <strong id="groups">4<', page.text
    )
    groups = _groups(page.text)
    assert sorted(map(frozenset, groups), key=sorted) == sorted(
        (frozenset(asked) for asked in GAPS.values()), key=sorted
    )
    counts = [int(c) for c in re.findall(r'<td class="num count">(\d+)</td>', page.text)]
    assert counts == [3, 3, 2, 2]  # largest first
    assert not any(question in page.text for question in NOT_GAPS)
    australia = page.text[page.text.index("Sydney") :]
    australia = australia[: australia.index("</tr>")]
    assert "Declined 1" in australia and "Thumbs down 1" in australia and "Hand-off 1" in australia
    assert re.search(r'href="/staff/conversations/\d+">#\d+</a>', australia)


def test_the_date_filter_keeps_the_questions_asked_on_those_days(app: FastAPI) -> None:
    page = _get(app, "/staff/gaps?since=2026-12-03&until=2026-12-03")
    assert page.status_code == 200
    assert _groups(page.text) == [set(GAPS["repair"])]
    assert 'value="2026-12-03"' in page.text
    assert 'href="/staff/gaps.csv?since=2026-12-03&amp;until=2026-12-03"' in page.text

    wrong = _get(app, "/staff/gaps?since=2026-12-03&until=2026-12-01")
    assert wrong.status_code == 400 and "“To” is before “From”." in wrong.text
    assert _get(app, "/staff/gaps.csv?since=yesterday").status_code == 400


def test_the_csv_has_one_row_per_question_with_its_group(app: FastAPI) -> None:
    export = _get(app, "/staff/gaps.csv?until=2026-12-01")
    assert export.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(export.text)))
    asked_first_day = {"Do you offer gift wrapping?", "Can you gift wrap my order?"}
    asked_first_day |= {"Can I pay with Bitcoin?", "Do you accept cryptocurrency?"}
    assert {r["question"] for r in rows} == asked_first_day
    by_group: dict[str, set[str]] = {}
    for row in rows:
        by_group.setdefault(row["group"], set()).add(TOPIC[row["question"]])
        assert row["group_label"] in asked_first_day and row["group_size"] == "2"
        assert row["conversation"] == f"/staff/conversations/{row['conversation_id']}"
    assert sorted(by_group.values(), key=sorted) == [{"crypto"}, {"gift"}]
    declined = {r["question"]: (r["reasons"], r["declined"]) for r in rows}
    assert declined["Do you offer gift wrapping?"] == ("declined", "floor")
    assert declined["Can I pay with Bitcoin?"] == ("thumbs_down", "")

    empty = _get(app, "/staff/gaps.csv?since=2027-01-01")
    assert empty.text.splitlines() == [
        "group,group_label,group_size,message_id,conversation_id,conversation,asked_at,"
        "question,reasons,declined"
    ]


def test_the_conversation_list_links_to_the_gaps_page(app: FastAPI) -> None:
    assert 'href="/staff/gaps"' in _get(app, "/staff").text
