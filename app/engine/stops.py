"""Stop sequences past what a server takes: OpenAI-compatible servers (vLLM's included) accept at
most four in a request, so the remote engine sends the first four and cuts the rest here."""

from __future__ import annotations

from collections.abc import Sequence

SERVER_STOPS = 4  # the OpenAI completions API's limit, enforced by `vllm serve`


class StopCut:
    """Streamed text in, text safe to show out: held back while it could still be the start of a
    stop sequence, cut where one begins (``stopped`` then says to end the request)."""

    def __init__(self, stops: Sequence[str]) -> None:
        self._stops = [s for s in stops if s]
        self._hold = max((len(s) for s in self._stops), default=1) - 1
        self._held = ""
        self.stopped = False

    def feed(self, text: str) -> str:
        if self.stopped:
            return ""
        self._held += text
        hits = [i for i in (self._held.find(s) for s in self._stops) if i >= 0]
        if hits:
            self.stopped = True
            released, self._held = self._held[: min(hits)], ""
            return released
        keep = min(self._hold, len(self._held))
        released = self._held[: len(self._held) - keep]
        self._held = self._held[len(self._held) - keep :]
        return released

    def flush(self) -> str:
        """What is still held when the stream ends without a stop sequence."""
        released, self._held = self._held, ""
        return released
