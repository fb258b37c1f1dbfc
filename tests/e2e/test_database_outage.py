"""The real server started while its PostgreSQL cannot be reached (a TCP proxy in the test, cut
before the start, on an empty database): it starts degraded, answers, takes a rating by turn key
with 202, and once the proxy is restored migrates the database, stores both and says ready.

A server of its own (its vLLM engine takes a minute or two to start on two CPU cores)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from tests.conftest import KNOWLEDGE
from tests.e2e.servers import app_server, read_turn
from tests.faults import TcpProxy, fresh_postgres_database, through


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory, embedder: Any) -> Path:
    from app.settings import Settings
    from ingest.pipeline import run_ingest

    data_dir = tmp_path_factory.mktemp("outage-data")
    run_ingest(Settings(knowledge_dir=KNOWLEDGE, data_dir=data_dir, embed_device="cpu"), embedder)
    return data_dir


def stored(database_url: str, session_id: str) -> list[tuple[int, str, int | None, str | None]]:
    """(turn index, answer, rating, comment) of the session's stored turns, read directly."""
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text(
                    "SELECT m.turn_index, m.answer, f.rating, f.comment FROM message m "
                    "JOIN conversation c ON c.id = m.conversation_id "
                    "LEFT JOIN feedback f ON f.message_id = m.id "
                    "WHERE c.session_id = :s ORDER BY m.turn_index"
                ),
                {"s": session_id},
            ).all()
    finally:
        engine.dispose()
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def has_schema(database_url: str) -> bool:
    engine = create_engine(database_url)
    try:
        with engine.connect() as connection:
            return connection.scalar(text("SELECT to_regclass('message') IS NOT NULL")) is True
    finally:
        engine.dispose()


@pytest.fixture()
def cut_off_server(published: Path) -> Iterator[tuple[str, TcpProxy, str, Path]]:
    with (
        fresh_postgres_database(migrated=False) as database_url,
        TcpProxy("127.0.0.1", 5432) as proxy,
    ):
        proxy.cut()
        env = {
            "SHOPDESK_DATABASE_URL": through(database_url, proxy.port),
            "SHOPDESK_TRANSCRIPT_RETRY_MAX_S": "1",
            "SHOPDESK_MAX_ANSWER_TOKENS": "24",
        }
        with app_server(published, env) as (url, log, _):
            yield url, proxy, database_url, log


def test_started_without_its_database_it_answers_takes_ratings_and_catches_up(
    cut_off_server: tuple[str, TcpProxy, str, Path],
) -> None:
    url, proxy, database_url, log = cut_off_server
    session = httpx.post(f"{url}/api/sessions", timeout=30).json()["session_id"]
    with httpx.stream(
        "POST",
        f"{url}/api/sessions/{session}/messages",
        json={"message": "How long do I have to return an item?"},
        timeout=300,
    ) as response:
        assert response.status_code == 200
        events = read_turn(response)
    (done,) = [d for k, d in events if k == "done"]
    assert done["answer"] and done["recorded"] is False and done["message_id"] is None
    assert done["turn_index"] == 0

    rated = httpx.post(
        f"{url}/api/sessions/{session}/feedback",
        json={"turn_index": done["turn_index"], "rating": -1, "comment": "too vague"},
        timeout=30,
    )
    assert rated.status_code == 202, rated.text
    assert rated.json()["recorded"] is False and "will be saved" in rated.json()["detail"]
    neither = httpx.post(f"{url}/api/sessions/{session}/feedback", json={"rating": 1}, timeout=30)
    assert neither.status_code == 422
    assert "exactly one of turn_index and message_id" in neither.json()["detail"][0]["msg"]

    degraded = httpx.get(f"{url}/readyz", timeout=30)
    assert degraded.status_code == 200
    assert degraded.json()["status"] == "degraded"
    assert "transcript database is unreachable" in degraded.json()["reason"]
    assert "(2 queued)" in degraded.json()["reason"]
    assert not has_schema(database_url)  # nothing reached it, not even the migrations

    proxy.restore()
    deadline = time.monotonic() + 120
    while (ready := httpx.get(f"{url}/readyz", timeout=30).json())["status"] != "ready":
        assert time.monotonic() < deadline, f"not ready again: {ready}"
        time.sleep(1)
    deadline = time.monotonic() + 60
    while not (rows := stored(database_url, session)) or rows[0][2] is None:
        assert time.monotonic() < deadline, f"not flushed: {rows}"
        time.sleep(0.5)
    assert rows == [(0, done["answer"], -1, "too vague")]
    server_log = log.read_text(errors="replace")
    assert "unreachable at start" in server_log and "transcript database migrated" in server_log
    assert "Traceback" not in server_log
    print(f"\nstart-while-postgres-down (server): answered, rated 202, then stored: {rows[0][2:]}")
