"""A conversation's page and the exports on the real router and a real SQLite transcript file,
with a stand-in for the container (the pages read only the settings and the transcripts): each
answer's parts, the sentences the checks dropped with their reasons, and the parts exported."""

from __future__ import annotations

import asyncio
import csv
import io
import json
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
from fastapi import FastAPI

from app.chat.turn import AnswerParts, DroppedRecord, EvidenceRecord, FinishedTurn, PassageRecord
from app.settings import Settings
from app.transcripts.db import make_engine, session_factory, upgrade
from app.transcripts.reads import TranscriptFilter
from app.transcripts.review import TranscriptReview
from app.transcripts.writes import record_turn
from app.web import staff, staff_pages
from app.web.staff_auth import sign_session

AT = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
NO_PARTS = None  # a turn recorded without parts, as before answers had them
PARTS = AnswerParts(
    model_text="The tent weighs 2.1 kg [1].",
    evidence=(EvidenceRecord(1, "Weight: 2.1 kg (packed)", 0.8125),),
    note="(I'm not fully certain of this answer: please check the sources below.)",
    dropped=(DroppedRecord("It is <b>the lightest</b> tent on the market.", "unsupported_claim"),),
    policy="verified",
)


def _turn(
    index: int, *, answer: str, parts: AnswerParts | None = NO_PARTS, check_ms: float | None = None
) -> FinishedTurn:
    return FinishedTurn(
        session_id="s-review",
        turn_index=index,
        question=f"Question {index}?",
        answer=answer,
        answered=True,
        groundedness=0.9,
        engine="vllm",
        model="m",
        index_version="v1",
        timings={"total": 1.0},
        prompt_tokens=10,
        cached_tokens=0,
        generated_tokens=5,
        passages=(PassageRecord("tent.md#0", "Tent", "tent.md", "/p/tent", 0.81, True),),
        created_at=AT + timedelta(minutes=index),
        parts=parts,
        check_ms=check_ms,
    )


@pytest.fixture
def app(tmp_path: Path) -> Iterator[FastAPI]:
    """The staff router over a transcript file holding one conversation: an answer stored
    before answers had parts, then one with every part."""
    url = f"sqlite:///{tmp_path / 'transcripts.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    sessions = session_factory(engine)
    with sessions() as session:
        record_turn(session=session, turn=_turn(0, answer="Yes, it does."))
        shown = f"{PARTS.model_text}\n> Weight: 2.1 kg (packed) [1]\n\n{PARTS.note}"
        record_turn(session=session, turn=_turn(1, answer=shown, parts=PARTS, check_ms=1234.5))
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    app = FastAPI()
    app.include_router(staff.router)
    app.state.container = SimpleNamespace(
        settings=settings, transcript_review=TranscriptReview(sessions)
    )
    yield app
    engine.dispose()


def _get(app: FastAPI, path: str) -> httpx.Response:
    """GET ``path`` signed in as the staff user."""
    settings: Settings = app.state.container.settings
    cookie = sign_session(
        settings.staff_user, secret=settings.secret_key, expires_at=int(time.time()) + 600
    )

    async def run() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(
            transport=transport, base_url="http://shop", cookies={staff_pages.COOKIE: cookie}
        ) as client:
            return await client.get(path)

    return asyncio.run(run())


def _turn_html(html: str, number: int) -> str:
    start = html.index(f'id="turn-{number}"')
    end = html.find('<section class="card turn"', start)
    return html[start : end if end != -1 else html.index('id="notes"')]


def test_each_answer_shows_its_parts_and_what_the_checks_dropped(app: FastAPI) -> None:
    page = _get(app, "/staff/conversations/1")
    assert page.status_code == 200
    old, new = _turn_html(page.text, 1), _turn_html(page.text, 2)

    assert "Not recorded: this turn was stored before answers were kept in parts." in old
    assert "Dropped by the checks" not in old

    assert "The model's own words" in new and "The tent weighs 2.1 kg [1]." in new
    assert "Added by the service" in new and "please check the sources below" in new
    assert re.search(r"<dt>Answer policy</dt><dd[^>]*>verified</dd>", new)
    (evidence,) = re.findall(r'<tr class="evidence">(.*?)</tr>', new, flags=re.S)
    assert "[1]" in evidence and "0.812" in evidence and "Weight: 2.1 kg (packed)" in evidence
    assert "Dropped by the checks (1)" in new
    (dropped,) = re.findall(r'<tr class="dropped">(.*?)</tr>', new, flags=re.S)
    assert "It is &lt;b&gt;the lightest&lt;/b&gt; tent on the market." in dropped
    assert "unsupported_claim" in dropped
    assert "<b>the lightest</b>" not in page.text  # the model's words are escaped
    # the passages table is unchanged: one row per retrieved passage
    assert page.text.count('<tr class="passage">') == 2


def test_each_answer_shows_what_its_checks_cost(app: FastAPI) -> None:
    page = _get(app, "/staff/conversations/1")
    old, new = _turn_html(page.text, 1), _turn_html(page.text, 2)
    assert re.search(r"<dt>Answer checks</dt><dd[^>]*>1,234.5 ms</dd>", new)
    assert re.search(r"<dt>Answer checks</dt><dd[^>]*><span[^>]*>not recorded</span></dd>", old)


def test_exports_carry_each_answers_parts(app: FastAPI) -> None:
    lines = _get(app, "/staff/export.jsonl").text.splitlines()
    old, new = (json.loads(line) for line in lines)
    assert (old["model_text"], old["answer_policy"], old["answer_parts"]) == (None, None, None)
    assert (new["model_text"], new["answer_policy"]) == (PARTS.model_text, "verified")
    assert new["answer_parts"] == {
        "evidence": [{"number": 1, "text": "Weight: 2.1 kg (packed)", "score": 0.8125}],
        "note": PARTS.note,
        "dropped": [
            {"text": "It is <b>the lightest</b> tent on the market.", "reason": "unsupported_claim"}
        ],
        "composed": False,
    }

    rows = list(csv.DictReader(io.StringIO(_get(app, "/staff/export.csv").text)))
    assert [(r["model_text"], r["answer_policy"], r["answer_parts"]) for r in rows[:1]] == [
        ("", "", "")
    ]
    assert rows[1]["model_text"] == PARTS.model_text and rows[1]["answer_policy"] == "verified"
    assert json.loads(rows[1]["answer_parts"]) == new["answer_parts"]


def test_an_abandoned_export_gives_its_database_session_back(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'transcripts.sqlite3'}"
    upgrade(url)
    engine = make_engine(url)
    sessions = session_factory(engine)
    with sessions() as session:
        for index in range(3):
            record_turn(session=session, turn=_turn(index, answer=f"Answer {index}."))
    review = TranscriptReview(sessions)

    async def first_batch_only() -> list[object]:
        batches = review.export_rows(TranscriptFilter(), batch=2)
        first = await anext(batches)
        assert engine.pool.checkedout() == 1  # the export holds its session while it streams
        await batches.aclose()  # the client went away
        return [row["turn"] for row in first]

    async def everything() -> list[object]:
        return [
            row["turn"] async for rows in review.export_rows(TranscriptFilter()) for row in rows
        ]

    try:
        assert asyncio.run(first_batch_only()) == [0, 1]
        assert engine.pool.checkedout() == 0
        assert asyncio.run(everything()) == [0, 1, 2]
        assert engine.pool.checkedout() == 0
    finally:
        engine.dispose()
