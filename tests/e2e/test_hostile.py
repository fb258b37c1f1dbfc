"""Hostile input against the running server: every case gets a clear 4xx or an answer, never a
500. Each case says how it was sent; the table of outcomes is printed (``-s`` shows it).

The longer schema fuzz (1,000 cases per operation and mode) is marked slow:

    HF_HUB_OFFLINE=1 flock /tmp/shopdesk-vllm.lock .venv/bin/python -m pytest -m slow -s \
        tests/e2e/test_hostile.py
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.servers import GuardedServer, a_new_client, read_turn

JSON = {"content-type": "application/json"}
MEGABYTE = 1024 * 1024


def _start(server: GuardedServer) -> str:
    response = httpx.post(f"{server.url}/api/sessions", headers=a_new_client(), timeout=30)
    assert response.status_code == 201
    return str(response.json()["session_id"])


def _streamed_megabyte() -> Iterator[bytes]:
    """A 1 MiB JSON body sent in chunks without a Content-Length."""
    yield b'{"message": "'
    for _ in range(64):
        yield b"x" * 16384
    yield b'"}'


# (case, how it is sent, expected status, words the detail must contain)
BODY_CASES: list[tuple[str, dict[str, Any], int, str]] = [
    ("no body at all", {"content": b"", "headers": JSON}, 422, "Field required"),
    ("whitespace message", {"json": {"message": " \n\t "}}, 422, "empty"),
    ("zero-width spaces only", {"json": {"message": "\u200b\u200b"}}, 422, "empty"),
    ("2,001 characters", {"json": {"message": "x" * 2001}}, 422, "2,001 characters"),
    ("1 MiB body, Content-Length", {"json": {"message": "x" * MEGABYTE}}, 413, "at most"),
    ("1 MiB body, chunked", {"content": _streamed_megabyte, "headers": JSON}, 413, "at most"),
    ("NUL byte", {"json": {"message": "where\x00is my order"}}, 422, "control characters"),
    ("terminal escape", {"json": {"message": "hi \x1b[31mred"}}, 422, "control characters"),
    ("lone surrogate", {"content": b'{"message": "\\ud800"}', "headers": JSON}, 422,
     "valid string"),
    ("invalid UTF-8", {"content": b'{"message": "\xff\xfe"}', "headers": JSON}, 400, "parsing"),
    ("JSON nested 100,000 deep", {"content": b"[" * 10**5 + b"]" * 10**5, "headers": JSON},
     400, "parsing"),
    ("truncated JSON", {"content": b'{"message": "hi"', "headers": JSON}, 422, "not valid JSON"),
    ("JSON array", {"json": ["hi"]}, 422, "valid dictionary"),
    ("JSON string", {"json": "hi"}, 422, "valid dictionary"),
    ("message is a number", {"json": {"message": 42}}, 422, "valid string"),
    ("message is null", {"json": {"message": None}}, 422, "valid string"),
    ("form-encoded body", {"data": {"message": "hi"}}, 422, ""),
    ("JSON sent as text/plain", {"content": b'{"message": "hi"}',
                                 "headers": {"content-type": "text/plain"}}, 422, ""),
]  # fmt: skip


def _send(url: str, how: dict[str, Any]) -> httpx.Response:
    how = dict(how)
    if callable(how.get("content")):
        how["content"] = how["content"]()
    headers = {**how.pop("headers", {}), **a_new_client()}
    return httpx.post(url, headers=headers, timeout=60, **how)


def test_hostile_bodies_get_a_clear_4xx(guarded_server: GuardedServer) -> None:
    session = _start(guarded_server)
    url = f"{guarded_server.url}/api/sessions/{session}/messages"
    seen = []
    for case, how, status, words in BODY_CASES:
        response = _send(url, how)
        detail = response.json()["detail"]
        text = detail if isinstance(detail, str) else " ".join(d["msg"] for d in detail)
        seen.append((case, response.status_code, text[:70]))
        assert response.status_code == status, (case, response.status_code, text)
        assert words in text, (case, text)
    print("\nhostile bodies -> POST /api/sessions/{id}/messages")
    for case, status, text in seen:
        print(f"  {case:28} {status}  {text}")
    # nothing of it reached the conversation
    history = httpx.get(url, headers=a_new_client(), timeout=30)
    assert history.status_code == 200 and history.json() == []


def test_forged_and_unknown_session_ids_are_404_on_every_route(
    guarded_server: GuardedServer,
) -> None:
    from app.chat.session_ids import new_session_id

    real = _start(guarded_server)
    nonce, tag = real.split(".")
    forged = {
        "forged signature": f"{nonce}.{'A' * len(tag)}",
        "signed with another secret": new_session_id("not-the-server-secret"),
        "non-ASCII": f"{nonce}.{'é' * 16}",
        "NUL": "%00",
        "guessed": "guess",
        "emoji": "😀" * 10,
    }
    routes = [
        ("GET", "messages", None),
        ("POST", "messages", {"message": "Where is my parcel?"}),
        ("POST", "feedback", {"message_id": 1, "rating": 1}),
        ("POST", "escalate", {"reason": "hello"}),
    ]
    statuses = []
    for name, session in forged.items():
        for method, route, body in routes:
            url = f"{guarded_server.url}/api/sessions/{session}/{route}"
            response = httpx.request(method, url, json=body, headers=a_new_client(), timeout=30)
            statuses.append(response.status_code)
            assert response.status_code == 404, (name, method, route, response.text)
            assert "POST /api/sessions" in response.json()["detail"]
    too_long = httpx.get(
        f"{guarded_server.url}/api/sessions/{'x' * 80}/messages", headers=a_new_client()
    )
    assert too_long.status_code == 422
    print(f"\nforged or unknown session ids: {len(statuses)} requests, all 404; too long: 422")


def test_ratings_and_hand_offs_refuse_what_the_database_cannot_store(
    guarded_server: GuardedServer,
) -> None:
    """A NUL byte in PostgreSQL text, an id beyond its INTEGER: refused before the database."""
    session = _start(guarded_server)
    base = f"{guarded_server.url}/api/sessions/{session}"
    escalate = httpx.post(
        f"{base}/escalate", json={"reason": "lost\x00parcel"}, headers=a_new_client()
    )
    rate = httpx.post(
        f"{base}/feedback",
        json={"message_id": 1, "rating": 1, "comment": "\x1b[2J"},
        headers=a_new_client(),
    )
    for response in (escalate, rate):
        assert response.status_code == 422
        assert "control characters" in response.json()["detail"][0]["msg"]
    huge = httpx.post(  # found by the schema fuzz: a 500 (integer out of range) before the bound
        f"{base}/feedback",
        json={"message_id": 3740088759420109312, "rating": -1},
        headers=a_new_client(),
    )
    assert huge.status_code == 422 and huge.json()["detail"][0]["loc"] == ["body", "message_id"]


def test_odd_but_real_text_is_answered_and_recorded(guarded_server: GuardedServer) -> None:
    session = _start(guarded_server)
    url = f"{guarded_server.url}/api/sessions/{session}/messages"
    messages = ["Do you ship to Zürich? 🇨🇭", "هل يمكنني إرجاع الحذاء؟ returns \u202eplease"]
    for message in messages:
        with httpx.stream(
            "POST", url, json={"message": message}, headers=a_new_client(), timeout=300
        ) as response:
            assert response.status_code == 200
            events = read_turn(response)
        assert events[-1][0] == "done", events[-1:]
    assert guarded_server.transcript_rows([session]) == len(messages)
    history = httpx.get(url, headers=a_new_client(), timeout=30).json()
    assert [turn["question"] for turn in history] == messages


# --- fuzzing from the OpenAPI schema ---------------------------------------------------------


@pytest.fixture(scope="module")
def api_schema(guarded_server: GuardedServer) -> Any:
    import schemathesis

    schema = schemathesis.openapi.from_url(f"{guarded_server.url}/openapi.json")
    schema.config.update(base_url=guarded_server.url, request_timeout=300)
    # A body over the size cap is refused unread with 413, before its fields are looked at.
    rejection = schema.config.checks.negative_data_rejection
    rejection.expected_statuses = [*rejection.expected_statuses, "413"]
    return schema


def _checks() -> list[Any]:
    from schemathesis.checks import not_a_server_error
    from schemathesis.specs.openapi.checks import (
        content_type_conformance,
        negative_data_rejection,
        response_headers_conformance,
        response_schema_conformance,
        status_code_conformance,
    )

    # Not `positive_data_acceptance`: a schema-valid message can still be unanswerable (only
    # control characters, say) and a schema-valid session id unknown; both rightly get 4xx.
    return [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_headers_conformance,
        response_schema_conformance,
        negative_data_rejection,
    ]


def _fuzz(api_schema: Any, server: GuardedServer, mode: str, examples: int) -> Counter[str]:
    """Every operation's generated cases, each from a client address of its own."""
    real_session = _start(server)
    outcomes: Counter[str] = Counter()
    try:
        for result in api_schema.get_all_operations():
            _fuzz_operation(result.ok(), mode, examples, real_session, outcomes)
    finally:  # the tally, also when a case failed
        print(f"\nschemathesis, {mode} cases (at most {examples} per operation):")
        for outcome, count in sorted(outcomes.items()):
            print(f"  {outcome:55} {count}")
    return outcomes


def _fuzz_operation(
    operation: Any, mode: str, examples: int, real_session: str, outcomes: Counter[str]
) -> None:
    """Half of the generated session ids are swapped for a real one, so that generated messages
    really start turns (and ratings and hand-offs reach a real conversation)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis.errors import Unsatisfiable
    from schemathesis import GenerationMode

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=GenerationMode(mode)))
    def call(case: Any) -> None:
        generated = (case.path_parameters or {}).get("session")
        if generated is not None and len(str(generated)) % 2 == 0:
            case.path_parameters["session"] = real_session
        response = case.call(headers=a_new_client())
        outcomes[f"{operation.label} -> {response.status_code}"] += 1
        if response.headers.get("content-type", [""])[0].startswith("text/event-stream"):
            kinds = [x for x in response.text.splitlines() if x.startswith("event: ")]
            assert kinds and kinds[-1] in ("event: done", "event: error"), kinds[-3:]
            outcomes["turns answered" if kinds[-1] == "event: done" else "turn errors"] += 1
        case.validate_response(response, checks=_checks())

    try:
        call()
    except Unsatisfiable:  # negative mode, and the operation takes no input that could be wrong
        outcomes[f"{operation.label}: no input to break"] += 1


@pytest.mark.parametrize("mode", ["positive", "negative"])
def test_fuzz_every_operation_from_the_openapi_schema(
    guarded_server: GuardedServer, api_schema: Any, mode: str
) -> None:
    """Cases that fit the schema and cases that break it: no 5xx, every answer as documented."""
    outcomes = _fuzz(api_schema, guarded_server, mode, examples=20)
    assert not [o for o in outcomes if o.rsplit(" ", 1)[-1].startswith("5")]


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["positive", "negative"])
def test_fuzz_longer(guarded_server: GuardedServer, api_schema: Any, mode: str) -> None:
    """The same with 1,000 cases per operation."""
    outcomes = _fuzz(api_schema, guarded_server, mode, examples=1000)
    assert not [o for o in outcomes if o.rsplit(" ", 1)[-1].startswith("5")]
