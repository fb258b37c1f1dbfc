"""The load generator: N shoppers in a closed loop over the chat API, bounded in turns and time.

Each shopper opens a session, sends its conversation's messages one after another (the next as
soon as the previous answer is complete, no think time) and starts a new conversation when one
ends. Turns start during the first ``seconds``, and after that only while fewer than
``min_turns`` are answered or running (so that a slow system still answers enough turns for a
stable figure), never once ``max_turns`` have started nor after ``cap_seconds``. Turns still
running ``drain_seconds`` after the window (and once ``min_turns`` are answered, or the cap is
reached) are cut and kept as unfinished, their elapsed time a lower bound on their latency.

A *steady* level keeps every shopper busy instead: after the window, turns go on starting
until ``min_turns`` are answered, and the level ends at that answer, the turns still running
cut. Its turns/s is then measured with all its shoppers in flight the whole time; the other way,
the level's last turns run with fewer and fewer (a level of 16 shoppers and 30 turns ends with
one), which flatters whichever system has the longer turns less than the other.
Only loopback URLs are accepted.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlparse

import httpx

from .conversations import Conversation

LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}
_POLL_S = 0.1  # how often a level checks whether its stop has come


class TurnFailed(Exception):
    """A turn the service did not answer: a bad status, an `error` event, a cut-off stream."""


@dataclass(frozen=True)
class LevelPlan:
    concurrency: int
    max_turns: int
    seconds: float
    drain_seconds: float
    min_turns: int = 0  # turns go on starting after the window until this many are answered
    cap_seconds: float = 0.0  # no turn starts after this, whatever min_turns says (0: no cap)
    steady: bool = False  # every shopper kept busy until min_turns are answered, then cut

    def stops(self, now: float, answered: int) -> bool:
        """Whether the turns still running at ``now`` are cut."""
        if self.cap_seconds and now >= self.cap_seconds + self.drain_seconds:
            return True
        if self.steady and self.min_turns and now >= self.seconds:
            return answered >= self.min_turns
        return now >= self.seconds + self.drain_seconds and answered >= self.min_turns


@dataclass
class TurnResult:
    shopper: int
    turn_number: int  # 1-based position in its conversation
    started_s: float  # since the level started
    latency_s: float  # for an unfinished turn: how long it had run when it was cut
    ttft_s: float | None = None
    finished: bool = True
    error: str | None = None
    generated_tokens: int = 0
    streamed_chars: int = 0  # answer text received: how much of its answer a cut turn had got
    prompt_tokens: int = 0
    cached_tokens: int = 0
    timings: dict[str, float] = field(default_factory=dict)


@dataclass
class LevelRun:
    plan: LevelPlan
    wall_s: float  # from the level's start until its last turn ended or was cut
    turns: list[TurnResult]


def require_loopback(url: str) -> str:
    host = urlparse(url).hostname or ""
    if host not in LOOPBACK_HOSTS and not host.startswith("127."):
        raise ValueError(f"{url}: the load generator only targets this machine (loopback)")
    return url.rstrip("/")


async def new_session(client: httpx.AsyncClient, url: str) -> str:
    response = await client.post(f"{url}/api/sessions")
    if response.status_code != 201:
        raise TurnFailed(f"POST /api/sessions: HTTP {response.status_code}")
    return str(response.json()["session_id"])


async def ask(
    client: httpx.AsyncClient, url: str, session: str, message: str, turn: TurnResult
) -> tuple[float | None, dict[str, Any]]:
    """Send one message; return the time to the first text and the `done` event's payload.

    Counts the streamed text into ``turn.streamed_chars`` as it arrives, so a turn cut at the
    level's stop still shows how much of its answer it had received.
    """
    started = time.perf_counter()
    first: float | None = None
    async with client.stream(
        "POST", f"{url}/api/sessions/{session}/messages", json={"message": message}
    ) as response:
        if response.status_code != 200:
            body = (await response.aread())[:200].decode(errors="replace")
            raise TurnFailed(f"HTTP {response.status_code}: {body}")
        event = ""
        async for line in response.aiter_lines():
            if line.startswith("event:"):
                event = line.removeprefix("event:").strip()
            elif line.startswith("data:"):
                data = json.loads(line.removeprefix("data:").strip())
                if event == "delta" and data.get("text"):
                    turn.streamed_chars += len(data["text"])
                    if first is None:
                        first = time.perf_counter() - started
                elif event == "done":
                    return first, data
                elif event == "error":
                    raise TurnFailed(f"error event: {data.get('detail')}")
    raise TurnFailed("the stream ended without a done event")


class _Level:
    """The shared state of one level: its clock, its turn budget and its results."""

    def __init__(
        self, client: httpx.AsyncClient, url: str, plan: LevelPlan, pool: Iterator[Conversation]
    ) -> None:
        self.client, self.url, self.plan, self.pool = client, url, plan, pool
        self.started = time.perf_counter()
        self.turns_started = 0
        self.turns_ended = 0
        self.answered = 0
        self.results: list[TurnResult] = []

    def now(self) -> float:
        return time.perf_counter() - self.started

    def may_start(self) -> bool:
        plan, now = self.plan, self.now()
        if self.turns_started >= plan.max_turns or (plan.cap_seconds and now >= plan.cap_seconds):
            return False
        running = 0 if plan.steady else self.turns_started - self.turns_ended
        if now >= plan.seconds and self.answered + running >= plan.min_turns:
            return False
        self.turns_started += 1
        return True

    async def shopper(self, number: int) -> None:
        session, position = "", 0
        messages: Iterator[str] = iter(())
        while self.may_start():
            message = next(messages, None)
            if message is None:
                messages, position, session = iter(next(self.pool).messages), 0, ""
                message = next(messages)
            position += 1
            turn = TurnResult(number, position, self.now(), 0.0)
            self.results.append(turn)
            try:
                session = session or await new_session(self.client, self.url)
                turn.ttft_s, done = await ask(self.client, self.url, session, message, turn)
                _fill(turn, done)
                if done.get("failure"):  # the service apologised instead of answering
                    raise TurnFailed(f"answer failed: {done['failure']}")
                self.answered += 1
            except asyncio.CancelledError:
                turn.finished = False
                raise
            except (TurnFailed, httpx.HTTPError, ValueError, KeyError) as exc:
                turn.error = f"{type(exc).__name__}: {exc}"[:300]
                messages = iter(())  # the next turn starts a fresh conversation
            finally:
                turn.latency_s = self.now() - turn.started_s
                self.turns_ended += 1


def _fill(turn: TurnResult, done: dict[str, Any]) -> None:
    tokens = done.get("tokens", {})
    turn.generated_tokens = int(tokens.get("generated", 0))
    turn.prompt_tokens = int(tokens.get("prompt", 0))
    turn.cached_tokens = int(tokens.get("cached", 0))
    turn.timings = {k: float(v) for k, v in done.get("timings", {}).items()}


async def run_level(url: str, plan: LevelPlan, pool: Iterator[Conversation]) -> LevelRun:
    """Drive ``plan.concurrency`` shoppers against ``url`` until the plan's bounds."""
    url = require_loopback(url)
    limits = httpx.Limits(max_connections=plan.concurrency + 4, max_keepalive_connections=None)
    longest = max(plan.seconds, plan.cap_seconds) + plan.drain_seconds
    timeout = httpx.Timeout(longest + 60, connect=10)
    async with httpx.AsyncClient(limits=limits, timeout=timeout) as client:
        level = _Level(client, url, plan, pool)
        shoppers = [asyncio.create_task(level.shopper(n)) for n in range(plan.concurrency)]
        pending: set[asyncio.Task[None]] = set(shoppers)
        while pending and not plan.stops(level.now(), level.answered):
            _, pending = await asyncio.wait(pending, timeout=_POLL_S)
        for task in pending:
            task.cancel()
        outcomes = await asyncio.gather(*shoppers, return_exceptions=True)
        wall_s = level.now()
    for outcome in outcomes:
        if isinstance(outcome, BaseException) and not isinstance(outcome, asyncio.CancelledError):
            raise outcome
    return LevelRun(plan, wall_s, sorted(level.results, key=lambda t: t.started_s))
