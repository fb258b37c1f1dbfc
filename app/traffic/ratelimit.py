"""Per-client limits as plain data structures: token buckets and failure lock-outs.

Both keep at most ``max_keys`` clients (least recently seen forgotten first), so a flood of new
addresses cannot grow memory without bound. The clock is injected so the arithmetic is testable.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from collections.abc import Callable

Clock = Callable[[], float]
DEFAULT_MAX_KEYS = 50_000


class TokenBuckets:
    """One bucket per key holding up to ``burst`` tokens, refilled at ``per_minute`` a minute."""

    def __init__(
        self,
        *,
        per_minute: float,
        burst: int,
        max_keys: int = DEFAULT_MAX_KEYS,
        clock: Clock = time.monotonic,
    ) -> None:
        self._rate = per_minute / 60.0
        self._burst = float(burst)
        self._max_keys = max_keys
        self._clock = clock
        self._buckets: OrderedDict[str, tuple[float, float]] = OrderedDict()  # tokens, when

    @property
    def enabled(self) -> bool:
        return self._rate > 0

    def take(self, key: str) -> float:
        """Spend one of ``key``'s tokens: 0.0 when it may go ahead, else seconds to wait."""
        if not self.enabled:
            return 0.0
        now = self._clock()
        tokens, updated = self._buckets.pop(key, (self._burst, now))
        tokens = min(self._burst, tokens + (now - updated) * self._rate)
        wait = 0.0
        if tokens >= 1.0:
            tokens -= 1.0
        else:
            wait = (1.0 - tokens) / self._rate
        self._buckets[key] = (tokens, now)
        while len(self._buckets) > self._max_keys:
            self._buckets.popitem(last=False)
        return wait


class FailureLockout:
    """Locks a key out once it has ``max_failures`` failures within ``window_s`` seconds.

    The lock lifts when the oldest of those failures is ``window_s`` old, so a steady guesser gets
    at most ``max_failures`` tries per window however it paces them.
    """

    def __init__(
        self,
        *,
        max_failures: int,
        window_s: float,
        max_keys: int = DEFAULT_MAX_KEYS,
        clock: Clock = time.monotonic,
    ) -> None:
        self._max = max_failures
        self._window = window_s
        self._max_keys = max_keys
        self._clock = clock
        self._failures: OrderedDict[str, deque[float]] = OrderedDict()

    def retry_after(self, *keys: str) -> float:
        """Seconds until every one of ``keys`` may try again (0.0: none is locked)."""
        now = self._clock()
        waits = [0.0]
        for key in keys:
            failures = self._failures.get(key)
            if failures is not None and len(failures) >= self._max:
                waits.append(failures[0] + self._window - now)
        return max(waits)

    def fail(self, *keys: str) -> None:
        """Count one failure against each of ``keys``."""
        now = self._clock()
        for key in keys:
            failures = self._failures.pop(key, None) or deque(maxlen=self._max)
            while failures and failures[0] + self._window <= now:
                failures.popleft()
            failures.append(now)
            self._failures[key] = failures
        while len(self._failures) > self._max_keys:
            self._failures.popitem(last=False)

    def clear(self, *keys: str) -> None:
        """Forget the failures of ``keys`` (after a successful sign-in)."""
        for key in keys:
            self._failures.pop(key, None)
