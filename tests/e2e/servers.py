"""A second real server, set up as in production (Redis sessions, a PostgreSQL transcript database
of its own) with small limits, for the hostile-input, back-pressure and soak tests.

The default ``live_server`` keeps its generous defaults for the other tests; these tests need
tiny admission limits, a trusted proxy hop (so one test machine can act as many shoppers through
``X-Forwarded-For``) and lock-outs that must not lock the other tests out.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, text

from bench.loadbench.systems import free_port, process, wait_ready
from tests.conftest import KNOWLEDGE
from tests.e2e.conftest import SERVER_START_S, LiveServer

POSTGRES_ADMIN_URL = os.environ.get(
    "SHOPDESK_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)
REDIS_URL = os.environ.get("SHOPDESK_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")

# The guarded server's limits, which the tests reason about.
GUARDED_ENV = {
    "SHOPDESK_MAX_TURNS_IN_FLIGHT": "1",
    "SHOPDESK_MAX_TURNS_WAITING": "2",
    "SHOPDESK_TURN_QUEUE_TIMEOUT_S": "300",  # queued turns are answered, never timed out here
    "SHOPDESK_BUSY_RETRY_AFTER_S": "2",
    "SHOPDESK_CLIENT_TURNS_PER_MINUTE": "2",
    "SHOPDESK_CLIENT_TURN_BURST": "2",
    "SHOPDESK_CLIENT_REQUESTS_PER_MINUTE": "30",
    "SHOPDESK_CLIENT_REQUEST_BURST": "20",
    "SHOPDESK_STAFF_MAX_FAILURES": "3",
    "SHOPDESK_FORWARDED_PROXY_HOPS": "1",
    "SHOPDESK_MAX_ANSWER_TOKENS": "24",  # generation stays short: these tests are not about it
}


@dataclass
class GuardedServer:
    url: str
    data_dir: Path
    database_url: str
    log: Path
    pid: int

    def transcript_rows(self, session_ids: list[str]) -> int:
        """Transcript messages stored for these sessions, counted in the database itself."""
        if not session_ids:
            return 0
        engine = create_engine(self.database_url)
        try:
            with engine.connect() as connection:
                count = connection.execute(
                    text(
                        "SELECT count(*) FROM message m JOIN conversation c "
                        "ON c.id = m.conversation_id WHERE c.session_id = ANY(:ids)"
                    ),
                    {"ids": session_ids},
                ).scalar_one()
        finally:
            engine.dispose()
        return int(count)

    def metrics(self) -> dict[str, float]:
        text_ = httpx.get(f"{self.url}/metrics", timeout=30).text
        return {
            line.rsplit(" ", 1)[0]: float(line.rsplit(" ", 1)[1])
            for line in text_.splitlines()
            if line and not line.startswith("#")
        }


def client_headers(number: int) -> dict[str, str]:
    """Headers that make a request come from shopper ``number`` (through the trusted proxy)."""
    return {"X-Forwarded-For": f"10.{number // 65536 % 256}.{number // 256 % 256}.{number % 256}"}


def a_new_client() -> dict[str, str]:
    """Headers of a client address no other request of this run has used (with odds of 2^-24)."""
    return client_headers(secrets.randbelow(2**24))


@contextmanager
def postgres_database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one server, dropped afterwards."""
    admin = create_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    name = f"shopdesk_guarded_{secrets.token_hex(6)}"
    with admin.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield admin.url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@contextmanager
def app_server(data_dir: Path, env: dict[str, str]) -> Iterator[tuple[str, Path, int]]:
    """`python -m app serve` over ``data_dir`` on a free port, with the tests' defaults and
    ``env`` over them, once it answers `/readyz`; yields its URL, log file and process id."""
    port = free_port()
    log = data_dir / "server.log"
    environment = {
        **os.environ,
        "SHOPDESK_DATA_DIR": str(data_dir),
        "SHOPDESK_KNOWLEDGE_DIR": str(KNOWLEDGE),
        "SHOPDESK_INDEX_POLL_SECONDS": "0",
        "SHOPDESK_EMBED_DEVICE": "cpu",
        "VLLM_LOGGING_LEVEL": "WARNING",
        # these servers test limits and outages, not the engine: eager starts 45 s sooner (the
        # live server and the integration stack start compiled, the default)
        "SHOPDESK_VLLM_ENFORCE_EAGER": "true",
        **env,
    }
    command = [sys.executable, "-m", "app", "serve", "--port", str(port)]
    with process(command, env=environment, log=log) as server:
        url = f"http://127.0.0.1:{port}"
        wait_ready(server, f"{url}/readyz", log, timeout_s=SERVER_START_S)
        yield url, log, server.pid


@contextmanager
def serve(data_dir: Path, index_dir: Path, env: dict[str, str]) -> Iterator[GuardedServer]:
    """`python -m app serve` over a copy of a published index, until the block ends."""
    shutil.copytree(index_dir, data_dir / "index")
    with postgres_database() as database_url:
        databases = {"SHOPDESK_DATABASE_URL": database_url, "SHOPDESK_REDIS_URL": REDIS_URL}
        with app_server(data_dir, {**databases, **env}) as (url, log, pid):
            yield GuardedServer(url, data_dir, database_url, log, pid)


@pytest.fixture(scope="session")
def guarded_server(
    live_server: LiveServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[GuardedServer]:
    """The guarded server, over a copy of the index the live server's ingest published."""
    with serve(
        tmp_path_factory.mktemp("guarded"), live_server.data_dir / "index", GUARDED_ENV
    ) as s:
        yield s


def read_turn(response: httpx.Response) -> list[tuple[str, dict[str, Any]]]:
    """The server-sent events of one streamed turn, in order."""
    events: list[tuple[str, dict[str, Any]]] = []
    kind = ""
    for line in response.iter_lines():
        if line.startswith("event: "):
            kind = line[7:]
        elif line.startswith("data: "):
            events.append((kind, json.loads(line[6:])))
    return events
