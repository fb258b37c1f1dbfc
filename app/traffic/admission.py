"""Admission of chat turns: a bounded number answered at once, a bounded queue, then "busy".

Without a bound, a crowd of shoppers turns into ever-growing latency for all of them and memory
that grows with the crowd. Here a turn either gets a slot at once, waits in a queue of fixed length
for at most ``wait_s`` seconds, or is refused at once with ``ServerBusyError`` (HTTP 503 with
``Retry-After``, a friendly line in the chat window). Slots pass first come, first served.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from app.errors import ServerBusyError

BUSY_MESSAGE = (
    "Our assistant is helping a lot of shoppers right now. Please try again in a few seconds."
)


class TurnSlot:
    """The right to run one turn; ``release`` hands it to the next in the queue (idempotent)."""

    def __init__(self, admission: TurnAdmission) -> None:
        self._admission: TurnAdmission | None = admission

    def release(self) -> None:
        if self._admission is not None:
            admission, self._admission = self._admission, None
            admission._pass_on()


class TurnAdmission:
    """At most ``max_active`` turns at once and ``max_waiting`` queued; the rest refused."""

    def __init__(
        self,
        *,
        max_active: int,
        max_waiting: int,
        wait_s: float,
        retry_after_s: int,
        on_refused: Callable[[str], None] = lambda reason: None,
        on_queue_change: Callable[[int], None] = lambda waiting: None,
    ) -> None:
        self._max_active = max_active
        self._max_waiting = max_waiting
        self._wait_s = wait_s
        self._retry_after_s = retry_after_s
        self._on_refused = on_refused
        self._on_queue_change = on_queue_change
        self._active = 0
        self._queue: deque[asyncio.Future[None]] = deque()

    @property
    def active(self) -> int:
        return self._active

    @property
    def waiting(self) -> int:
        return len(self._queue)

    async def enter(self) -> TurnSlot:
        """A slot, at once or after a bounded wait; ``ServerBusyError`` when none can be had."""
        if self._active < self._max_active and not self._queue:
            self._active += 1
            return TurnSlot(self)
        if len(self._queue) >= self._max_waiting:
            raise self._refuse("busy")
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(granted)
        self._on_queue_change(len(self._queue))
        try:
            async with asyncio.timeout(self._wait_s):
                await granted
        except TimeoutError:
            self._abandon(granted)
            raise self._refuse("queue_timeout") from None
        except asyncio.CancelledError:  # the shopper went away while queued
            self._abandon(granted)
            raise
        return TurnSlot(self)

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Hold a slot for the body of a ``with`` block."""
        held = await self.enter()
        try:
            yield
        finally:
            held.release()

    def _pass_on(self) -> None:
        """A slot came free: the first live waiter takes it over, else it is returned."""
        while self._queue:
            waiter = self._queue.popleft()
            if not waiter.done():
                waiter.set_result(None)
                self._on_queue_change(len(self._queue))
                return
        self._active -= 1
        self._on_queue_change(0)

    def _abandon(self, granted: asyncio.Future[None]) -> None:
        """A waiter gives up: leave the queue, or pass on the slot it was handed meanwhile."""
        if granted.done() and not granted.cancelled():
            self._pass_on()
            return
        granted.cancel()
        if granted in self._queue:
            self._queue.remove(granted)
        self._on_queue_change(len(self._queue))

    def _refuse(self, reason: str) -> ServerBusyError:
        self._on_refused(reason)
        return ServerBusyError(BUSY_MESSAGE, retry_after_s=self._retry_after_s)
