"""Soak: many shoppers chatting at once for minutes against a real server set up as in production
(Redis sessions, PostgreSQL transcripts). Every turn sent is accounted for (answered, refused with
503/429, or failed), every answered turn is a transcript row, and the resident memory of the server
and its engine process stays bounded. Prints the figures.

    HF_HUB_OFFLINE=1 flock /tmp/shopdesk-vllm.lock .venv/bin/python -m pytest -m slow -s \
        tests/e2e/test_soak.py

``SHOPDESK_SOAK_SHOPPERS`` (default 48) and ``SHOPDESK_SOAK_SECONDS`` (default 180) size the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import psutil
import pytest

from tests.e2e.conftest import LiveServer
from tests.e2e.servers import GuardedServer, client_headers, serve

SHOPPERS = int(os.environ.get("SHOPDESK_SOAK_SHOPPERS", "48"))
SECONDS = float(os.environ.get("SHOPDESK_SOAK_SECONDS", "180"))
QUESTIONS = [
    "How long does standard delivery take?",
    "Can I return walking boots I have worn outside?",
    "Do you offer a student discount?",
    "What is the warranty on backpacks?",
    "Is live chat open on Sunday?",
    "And how much does the return label cost?",
    "Do you deliver to Northern Ireland?",
    "Can I pay with Klarna?",
]
# Production-like limits: eight turns answered at once, sixteen queued; the rest told to retry.
SOAK_ENV = {
    "SHOPDESK_MAX_TURNS_IN_FLIGHT": "8",
    "SHOPDESK_MAX_TURNS_WAITING": "16",
    "SHOPDESK_TURN_QUEUE_TIMEOUT_S": "60",
    "SHOPDESK_BUSY_RETRY_AFTER_S": "2",
    "SHOPDESK_FORWARDED_PROXY_HOPS": "1",
    "SHOPDESK_VLLM_MAX_NUM_SEQS": "8",
    "SHOPDESK_MAX_ANSWER_TOKENS": "48",
}


@dataclass
class Tally:
    sent: int = 0
    answered: int = 0
    refused: Counter[int] = field(default_factory=Counter)
    failed: Counter[str] = field(default_factory=Counter)  # stream errors, 5xx, transport errors
    sessions: set[str] = field(default_factory=set)


@pytest.fixture(scope="module")
def soak_server(
    live_server: LiveServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[GuardedServer]:
    with serve(tmp_path_factory.mktemp("soak"), live_server.data_dir / "index", SOAK_ENV) as s:
        yield s


def _rss_mib(pid: int) -> float:
    """Resident memory of the server and its children (the vLLM engine core), in MiB."""
    process = psutil.Process(pid)
    total = process.memory_info().rss
    for child in process.children(recursive=True):
        with contextlib.suppress(psutil.NoSuchProcess):  # it ended between the two calls
            total += child.memory_info().rss
    return total / 2**20


async def _shopper(number: int, server: GuardedServer, until: float, tally: Tally) -> None:
    headers = client_headers(number)
    rng = random.Random(number)
    async with httpx.AsyncClient(base_url=server.url, headers=headers, timeout=300) as client:
        session = ""
        while time.monotonic() < until:
            if not session:
                created = await client.post("/api/sessions")
                if created.status_code != 201:
                    await asyncio.sleep(float(created.headers.get("retry-after", "1")))
                    continue
                session = created.json()["session_id"]
            tally.sent += 1
            try:
                wait = await _turn(client, session, rng.choice(QUESTIONS), tally)
            except httpx.HTTPError as exc:
                tally.failed[type(exc).__name__] += 1
                wait = 1.0
            await asyncio.sleep(wait or rng.uniform(0.2, 2.0))  # told to wait, or thinking
            if rng.random() < 0.15:
                session = ""  # a new shopper arrives in this seat


async def _turn(client: httpx.AsyncClient, session: str, question: str, tally: Tally) -> float:
    """One turn; returns how long the server asked us to wait (0 when it answered)."""
    url = f"/api/sessions/{session}/messages"
    async with client.stream("POST", url, json={"message": question}) as response:
        if response.status_code in (429, 503):
            tally.refused[response.status_code] += 1
            return float(response.headers["retry-after"])
        if response.status_code != 200:
            tally.failed[f"HTTP {response.status_code}"] += 1
            return 1.0
        last = ""
        async for line in response.aiter_lines():
            if line.startswith("event: "):
                last = line[7:]
        if last == "done":
            tally.answered += 1
            tally.sessions.add(session)
        else:
            tally.failed[f"stream ended with {last or 'nothing'}"] += 1
        return 0.0


async def _soak(server: GuardedServer, samples: list[tuple[float, float]]) -> Tally:
    tally = Tally()
    started = time.monotonic()
    until = started + SECONDS

    async def sample() -> None:
        while time.monotonic() < until:
            samples.append((time.monotonic() - started, _rss_mib(server.pid)))
            await asyncio.sleep(5)

    await asyncio.gather(
        sample(), *(_shopper(40_000 + n, server, until, tally) for n in range(SHOPPERS))
    )
    return tally


@pytest.mark.slow
def test_many_shoppers_for_minutes(soak_server: GuardedServer) -> None:
    samples: list[tuple[float, float]] = []
    baseline = _rss_mib(soak_server.pid)
    tally = asyncio.run(_soak(soak_server, samples))
    rows = soak_server.transcript_rows(sorted(tally.sessions))
    metrics: dict[str, Any] = soak_server.metrics()
    third = max(1, len(samples) // 3)
    early = max(rss for _, rss in samples[:third])
    late = max(rss for _, rss in samples[-third:])
    print(
        f"\nsoak: {SHOPPERS} shoppers for {SECONDS:.0f} s\n"
        f"  turns sent {tally.sent}, answered {tally.answered}, "
        f"refused 503 {tally.refused[503]}, refused 429 {tally.refused[429]}, "
        f"failed {sum(tally.failed.values())} {dict(tally.failed)}\n"
        f"  transcript rows for the answered turns: {rows}\n"
        f"  server+engine RSS MiB: before {baseline:.0f}, max first third {early:.0f}, "
        f"max last third {late:.0f}, max {max(r for _, r in samples):.0f}\n"
        f"  refusals counted by /metrics: "
        f"{ {k: v for k, v in metrics.items() if k.startswith('shopdesk_refusals_total')} }"
    )
    assert tally.sent == tally.answered + sum(tally.refused.values()) + sum(tally.failed.values())
    assert not tally.failed, tally.failed
    assert tally.answered > 0 and rows == tally.answered  # no answered turn lost
    assert metrics["shopdesk_turns_in_flight"] == 0 and metrics["shopdesk_turns_waiting"] == 0
    # bounded: the last third of the run holds no more than the first third plus a tenth
    assert late <= early * 1.10, (early, late)
