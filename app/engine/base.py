"""The generation engine interface: stream a prompt's continuation, then report what it cost."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class GenerationRequest:
    request_id: str
    prompt: str
    max_tokens: int = 256
    temperature: float = 0.2
    frequency_penalty: float = 0.0
    stop: tuple[str, ...] = ()
    ignore_eos: bool = False  # generate exactly max_tokens (benchmarks and load tests)
    # The conversation it belongs to: a fleet's router keeps one session on one engine with it.
    session_id: str = ""


@dataclass
class GenerationStats:
    """Token counts and stage times (seconds) of one request, as the engine saw them."""

    prompt_tokens: int = 0
    cached_tokens: int = 0
    generated_tokens: int = 0
    queue_s: float = 0.0
    prefill_s: float = 0.0
    first_token_s: float = 0.0
    decode_s: float = 0.0
    server: str = ""

    @property
    def prefilled_tokens(self) -> int:
        """Prompt tokens computed for this request (the rest came from the prefix cache)."""
        return max(0, self.prompt_tokens - self.cached_tokens)


@dataclass(frozen=True)
class GenerationChunk:
    """A piece of streamed text; the last chunk of a request has ``stats`` set (an engine may
    also set the prompt's counts on the first, for a caller that stops reading early)."""

    text: str
    stats: GenerationStats | None = field(default=None)


class Engine(Protocol):
    """Continuous batching lives behind this: every concurrent ``stream`` shares one engine."""

    @property
    def description(self) -> str: ...

    def stream(self, request: GenerationRequest) -> AsyncIterator[GenerationChunk]: ...

    async def healthy(self) -> bool: ...
