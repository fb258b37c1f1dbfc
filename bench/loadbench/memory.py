"""Peak resident memory of a system under test: its process trees, sampled on a thread."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import psutil


def tree_rss(pids: Sequence[int]) -> int:
    """Bytes resident in these processes and all their descendants (shared pages count twice)."""
    total = 0
    for pid in pids:
        try:
            root = psutil.Process(pid)
            members = [root, *root.children(recursive=True)]
        except psutil.NoSuchProcess:
            continue
        for process in members:
            try:
                total += process.memory_info().rss
            except psutil.NoSuchProcess:
                continue
    return total


class PeakMemory:
    """Samples ``tree_rss(pids)`` every ``every_s`` while open; ``peak`` is the largest seen."""

    def __init__(self, pids: Sequence[int], *, every_s: float = 0.25) -> None:
        self._pids = list(pids)
        self._every = every_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="peak-memory", daemon=True)
        self.peak = 0

    def __enter__(self) -> PeakMemory:
        self.peak = tree_rss(self._pids)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, tree_rss(self._pids))

    def _run(self) -> None:
        while not self._stop.wait(self._every):
            self.peak = max(self.peak, tree_rss(self._pids))
