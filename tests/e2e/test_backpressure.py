"""Back-pressure on the running server: a crowd larger than its slots and queue gets answers or
an immediate 503 with ``Retry-After``, never a 500, and every answered turn is in the transcripts.

The guarded server answers one turn at a time and queues two (tests/e2e/servers.py).
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import httpx

from tests.e2e.servers import GuardedServer, client_headers, read_turn

CROWD = 8


@dataclass
class Attempt:
    status: int
    retry_after: str = ""
    detail: str = ""
    last_event: str = ""


def _ask(server: GuardedServer, session: str, client: dict[str, str], question: str) -> Attempt:
    url = f"{server.url}/api/sessions/{session}/messages"
    with httpx.stream(
        "POST", url, json={"message": question}, headers=client, timeout=300
    ) as response:
        if response.status_code != 200:
            response.read()
            return Attempt(
                response.status_code,
                response.headers.get("retry-after", ""),
                str(response.json().get("detail", "")),
            )
        return Attempt(200, last_event=read_turn(response)[-1][0])


def test_a_crowd_gets_answers_or_a_clear_busy_and_nothing_is_lost(
    guarded_server: GuardedServer,
) -> None:
    base = 7_000_000 + int(time.time()) % 100_000 * 10  # client addresses of this run alone
    clients = [client_headers(base + n) for n in range(CROWD)]
    sessions = [
        httpx.post(f"{guarded_server.url}/api/sessions", headers=c, timeout=30).json()["session_id"]
        for c in clients
    ]
    before = guarded_server.metrics()
    start = threading.Barrier(CROWD)

    def shopper(n: int) -> Attempt:
        start.wait()
        return _ask(guarded_server, sessions[n], clients[n], "How long does delivery take?")

    with ThreadPoolExecutor(CROWD) as pool:
        first = list(pool.map(shopper, range(CROWD)))

    statuses = [a.status for a in first]
    answered = [n for n, a in enumerate(first) if a.status == 200]
    busy = [n for n, a in enumerate(first) if a.status == 503]
    assert set(statuses) <= {200, 503}, statuses
    assert busy, "eight at once against one slot and two queue places: some must be refused"
    assert all(first[n].last_event == "done" for n in answered)
    for n in busy:
        assert first[n].retry_after.isdigit() and int(first[n].retry_after) >= 1
        assert "try again" in first[n].detail
    assert guarded_server.transcript_rows([sessions[n] for n in answered]) == len(answered)

    # The refused shoppers do as told: wait Retry-After, then send the same message again.
    retried = []
    for n in busy:
        time.sleep(int(first[n].retry_after))
        retried.append(
            _ask(guarded_server, sessions[n], clients[n], "How long does delivery take?")
        )
    assert [a.status for a in retried] == [200] * len(busy)
    assert guarded_server.transcript_rows(sessions) == CROWD  # every shopper answered, once

    after = guarded_server.metrics()
    refused = after.get('shopdesk_refusals_total{reason="busy"}', 0) - before.get(
        'shopdesk_refusals_total{reason="busy"}', 0
    )
    assert refused == len(busy)
    assert after["shopdesk_turns_waiting"] == 0 and after["shopdesk_turns_in_flight"] == 0
    print(
        f"\nback-pressure: {CROWD} turns at once -> {len(answered)} answered, "
        f"{len(busy)} x 503 (Retry-After {first[busy[0]].retry_after} s), 0 x 5xx; "
        f"retried after Retry-After: {len(retried)} answered; transcript rows {CROWD}/{CROWD}"
    )
