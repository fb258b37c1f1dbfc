"""One record of a finished turn: made once from the chat service's outcome, stored by field
name, presented to the shopper through an explicit list of what they may see, observed by the
metrics, and a missing answer a 404 in the one error handler."""

from __future__ import annotations

import asyncio
from dataclasses import fields, replace

import httpx
from fastapi import FastAPI

from app.api.problems import add_problem_handlers
from app.chat.citations import Citation
from app.chat.claims import Dropped
from app.chat.evidence import Evidence
from app.chat.outcome import TurnOutcome
from app.chat.turn import FinishedTurn, PassageRecord
from app.engine.base import GenerationStats
from app.errors import TranscriptNotFoundError
from app.observability.metrics import ChatMetrics
from app.presentation.turns import done_payload
from app.retrieval.published_index import ScoredPassage
from app.transcripts.models import Message, RetrievedPassage
from app.transcripts.rows import MESSAGE_COLUMNS, PASSAGE_COLUMNS
from tests.unit.passages import JACKET, RETURNS, TENT


def outcome(**timings: float) -> TurnOutcome:
    """A turn over three passages that cites the first and the third."""
    hits = [
        ScoredPassage(h.passage, s) for h, s in ((TENT, 0.81234), (RETURNS, 0.5), (JACKET, 0.4))
    ]
    return TurnOutcome(
        session_id="s-1",
        question="How heavy is the tent?",
        answer="It weighs 1,550 g [1]; see also [3].",
        answered=True,
        passages=hits,
        citations=[Citation(1, hits[0]), Citation(3, hits[2])],
        groundedness=0.91234,
        index_version="v7",
        engine="vllm",
        turn_index=2,
        stats=GenerationStats(prompt_tokens=900, cached_tokens=512, generated_tokens=12),
        timings={"embed": 0.0123456, **timings},
        blocked=None,
        model_text="It weighs 1,550 g [1].",
        evidence=(Evidence(1, "Minimum weight: 1,550 g", 0.7),),
        note="",
        dropped=[Dropped("It is the lightest tent.", "unsupported_claim")],
        answer_policy="verified",
        composed=True,
        declined=None,
    )


def test_the_outcome_ends_as_one_record_with_what_the_checks_cost() -> None:
    turn = outcome(evidence=0.0105, claims=0.002).finished(model="smollm2")
    assert (turn.session_id, turn.turn_index, turn.model, turn.engine) == (
        "s-1",
        2,
        "smollm2",
        "vllm",
    )
    assert turn.check_ms == 12.5  # evidence and claims, in milliseconds
    assert [p.cited for p in turn.passages] == [True, False, True]
    assert turn.passages[0].section == TENT.passage.section
    assert turn.passages[0].snippet == TENT.passage.text[:240]
    assert turn.parts is not None and turn.parts.dropped[0].reason == "unsupported_claim"
    assert (turn.prompt_tokens, turn.cached_tokens, turn.generated_tokens) == (900, 512, 12)
    assert turn.created_at.tzinfo is not None
    assert outcome().finished(model="m").check_ms is None  # no check ran (declined up front)


def test_the_stored_columns_are_the_records_fields_by_name() -> None:
    """Every message column but the keys and the parts' own is a field of the record, and every
    stored field has its column: a field added to one and not the other fails here."""
    columns = set(Message.__table__.columns.keys())
    parts_columns = {"model_text", "answer_policy", "answer_parts", "declined"}
    assert set(MESSAGE_COLUMNS) == columns - {"id", "conversation_id"} - parts_columns
    assert set(PASSAGE_COLUMNS) == set(RetrievedPassage.__table__.columns.keys()) - {
        "id",
        "message_id",
        "rank",
    }
    assert set(MESSAGE_COLUMNS) < {f.name for f in fields(FinishedTurn)}
    assert set(PASSAGE_COLUMNS) < {f.name for f in fields(PassageRecord)}


def test_the_done_payload_shows_the_shopper_only_what_it_names() -> None:
    turn = outcome(evidence=0.0105, claims=0.002).finished(model="smollm2")
    payload = done_payload(turn, 41)
    assert (
        payload
        == {
            "turn_index": 2,  # what a rating names the answer by, stored or not
            "message_id": 41,
            "recorded": True,
            "failure": None,
            "answer": "It weighs 1,550 g [1]; see also [3].",
            "answered": True,
            "groundedness": 0.912,
            "sources": [
                {
                    "number": n,
                    "title": h.passage.title,
                    "section": h.passage.section,
                    "citation": h.passage.citation_target,
                    "snippet": h.passage.text[:240],
                    "score": s,
                }
                for n, h, s in ((1, TENT, 0.812), (None, RETURNS, 0.5), (3, JACKET, 0.4))
            ],
            "timings": {"embed": 0.012, "evidence": 0.011, "claims": 0.002},
            "tokens": {"prompt": 900, "cached": 512, "generated": 12},
            "index_version": "v7",
            "parts": {
                "policy": "verified",
                "model_text": "It weighs 1,550 g [1].",
                "evidence": [{"number": 1, "text": "Minimum weight: 1,550 g"}],
                "note": "",
                "composed": True,
                "declined": None,
                "dropped": 1,
            },
        }
    )
    assert "check_ms" not in str(payload) and "smollm2" not in str(payload)
    assert done_payload(turn, None)["recorded"] is False


def test_the_metrics_observe_the_record() -> None:
    metrics = ChatMetrics()
    turn = outcome(claims=0.25).finished(model="m")
    metrics.observe_turn(turn)
    metrics.observe_turn(replace(turn, answered=False, blocked="prompt_extraction"))
    metrics.observe_turn(replace(turn, answered=False, failure="engine_timeout"))
    text = metrics.render().decode()
    assert 'shopdesk_turns_total{answered="true"} 1.0' in text
    assert 'shopdesk_turns_total{answered="false"} 2.0' in text
    assert 'shopdesk_blocked_turns_total{reason="prompt_extraction"} 1.0' in text
    assert 'shopdesk_errors_total{kind="engine_timeout"} 1.0' in text
    assert 'shopdesk_tokens_total{kind="cached"} 1536.0' in text
    assert 'shopdesk_turn_stage_seconds_count{stage="claims"} 3.0' in text


def test_a_missing_answer_is_a_404_from_the_one_error_handler() -> None:
    app = FastAPI()
    add_problem_handlers(app)

    @app.post("/feedback")
    async def rate() -> None:
        raise TranscriptNotFoundError("no such answer in this conversation")

    async def run() -> httpx.Response:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://shop") as client:
            return await client.post("/feedback")

    response = asyncio.run(run())
    assert response.status_code == 404
    assert response.json() == {"detail": "no such answer in this conversation"}
