"""Remote vLLM servers over their OpenAI-compatible API, through vLLM's router or spread here.

This is how generation scales past one machine, the app replicas staying stateless. With a
router (``router_engine``: ``vllm-router`` in front of the ``vllm serve`` servers) every request
goes to it, and one that names its conversation carries the conversation's routing key in
``X-Session-ID``, so the router's ``consistent_hash`` policy keeps a conversation on the engine
that holds its KV blocks (``cache_aware`` matches the prompt's prefix instead); health checks,
retries and circuit breaking are the router's. Without one (``remote_engine``) the app spreads
requests itself, to the least-busy healthy server: a server that refuses a connection or errors
before the first token is marked down and the request goes to the next one, and a background
task probes ``/health`` and brings servers back. That choice knows nothing of prefix caches.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import time
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx

from app.engine.base import GenerationChunk, GenerationRequest, GenerationStats
from app.engine.stops import SERVER_STOPS, StopCut
from app.errors import EngineUnavailableError

logger = logging.getLogger(__name__)

SESSION_HEADER = "X-Session-ID"  # the first key vllm-router's consistent_hash policy reads


@dataclass
class _Server:
    url: str
    healthy: bool = True
    in_flight: int = 0
    failures: int = 0
    down_since: float = field(default=0.0)


def routing_key(session_id: str) -> str:
    """A stable, opaque key for a conversation: the router logs its keys, so the session id
    itself (which lets a client continue the conversation) never leaves the app."""
    return hashlib.sha256(session_id.encode()).hexdigest()[:32]


class RemoteEngine:
    def __init__(
        self,
        client: httpx.AsyncClient,
        urls: Sequence[str],
        *,
        model: str,
        timeout_s: float,
        health_path: str = "/health",
        kind: str = "remote",
    ) -> None:
        if not urls:
            raise EngineUnavailableError(
                "no generation server: set SHOPDESK_REMOTE_ROUTER_URL or SHOPDESK_REMOTE_URLS"
            )
        self._client = client
        self._servers = [_Server(u.rstrip("/")) for u in urls]
        self._model = model
        self._timeout = timeout_s
        self._health_path = health_path
        self._kind = kind

    @property
    def description(self) -> str:
        return f"{self._kind}:{len(self._servers)} server(s):{self._model}"

    @property
    def servers(self) -> list[tuple[str, bool, int]]:
        return [(s.url, s.healthy, s.in_flight) for s in self._servers]

    async def healthy(self) -> bool:
        return any(s.healthy for s in self._servers)

    async def stream(self, request: GenerationRequest) -> AsyncIterator[GenerationChunk]:
        tried: set[str] = set()
        while True:
            server = self._pick(tried)
            if server is None:
                raise EngineUnavailableError(
                    f"no generation server is reachable ({len(tried)} tried)"
                )
            tried.add(server.url)
            started = time.perf_counter()
            sent_any = False
            server.in_flight += 1
            try:
                async for chunk in self._stream_from(server, request, started):
                    sent_any = True
                    yield chunk
                server.failures = 0
                return
            except httpx.HTTPStatusError as exc:
                if exc.response.status_code < 500:  # our request is at fault, not the server
                    logger.error(
                        "generation server %s refused a request (%d): %s",
                        server.url,
                        exc.response.status_code,
                        exc.response.text[:300],
                    )
                    raise EngineUnavailableError(
                        f"{server.url} refused the request ({exc.response.status_code})"
                    ) from exc
                self._mark_down(server, exc)
                if sent_any:
                    raise EngineUnavailableError(f"{server.url} failed mid-answer: {exc}") from exc
            except httpx.TransportError as exc:
                self._mark_down(server, exc)
                if sent_any:  # text already reached the shopper; a retry would repeat it
                    raise EngineUnavailableError(f"{server.url} failed mid-answer: {exc}") from exc
            finally:
                server.in_flight -= 1

    async def probe(self) -> None:
        """Check every server's /health once; called periodically by the lifespan task."""

        async def check(server: _Server) -> None:
            try:
                response = await self._client.get(f"{server.url}{self._health_path}", timeout=5.0)
                if response.status_code == 404:  # llama.cpp's Python server has no /health
                    response = await self._client.get(f"{server.url}/v1/models", timeout=5.0)
                ok = response.status_code == 200
            except httpx.HTTPError:
                ok = False
            if ok and not server.healthy:
                logger.info("generation server %s is back", server.url)
            if not ok and server.healthy:
                logger.warning("generation server %s failed its health check", server.url)
            server.healthy = ok

        await asyncio.gather(*(check(s) for s in self._servers))

    def _pick(self, tried: set[str]) -> _Server | None:
        candidates = [s for s in self._servers if s.url not in tried]
        healthy = [s for s in candidates if s.healthy]
        pool = healthy or candidates  # when all look down, still try: the check may be stale
        return min(pool, key=lambda s: (s.in_flight, s.failures)) if pool else None

    def _mark_down(self, server: _Server, exc: Exception) -> None:
        server.failures += 1
        server.healthy = False
        server.down_since = time.monotonic()
        logger.warning("generation server %s failed: %s", server.url, exc)

    async def _stream_from(
        self, server: _Server, request: GenerationRequest, started: float
    ) -> AsyncIterator[GenerationChunk]:
        # The server stops at the first four stop sequences; the rest are cut here, and then
        # the request ends early, before the server's final usage: counts after every token
        # keep the prompt's size known (its cached share is then not: counted as none).
        cut = StopCut(request.stop[SERVER_STOPS:])
        body = {
            "model": self._model,
            "prompt": request.prompt,
            "max_tokens": request.max_tokens,
            "temperature": request.temperature,
            "frequency_penalty": request.frequency_penalty,
            "stop": list(request.stop[:SERVER_STOPS]) or None,
            "ignore_eos": request.ignore_eos,
            "stream": True,
            "stream_options": {"include_usage": True}
            | ({"continuous_usage_stats": True} if len(request.stop) > SERVER_STOPS else {}),
        }
        headers = {SESSION_HEADER: routing_key(request.session_id)} if request.session_id else {}
        first_token_s = 0.0
        chunks = 0  # about one token each: the count when a server streams no usage
        usage: dict[str, Any] = {}
        async with self._client.stream(
            "POST",
            f"{server.url}/v1/completions",
            json=body,
            headers=headers,
            timeout=self._timeout,
        ) as response:
            if response.is_error:
                await response.aread()  # the server's reason, for the log
            response.raise_for_status()
            async for line in response.aiter_lines():
                if not line.startswith("data: ") or line == "data: [DONE]":
                    continue
                event = json.loads(line[6:])
                usage = event.get("usage") or usage
                for choice in event.get("choices", []):
                    text = choice.get("text", "")
                    if text:
                        chunks += 1
                        if not first_token_s:
                            first_token_s = time.perf_counter() - started
                        shown = cut.feed(text)
                        if shown:
                            yield GenerationChunk(shown)
                if cut.stopped:
                    break  # leaving the stream ends the request on the server
        rest = cut.flush()
        if rest:
            yield GenerationChunk(rest)
        total = time.perf_counter() - started
        details = usage.get("prompt_tokens_details") or {}
        yield GenerationChunk(
            "",
            GenerationStats(
                prompt_tokens=int(usage.get("prompt_tokens", 0)),
                cached_tokens=int(details.get("cached_tokens", 0) or 0),
                # llama.cpp's Python server sends no usage when streaming
                generated_tokens=int(usage.get("completion_tokens", chunks)),
                first_token_s=first_token_s,
                prefill_s=first_token_s,
                decode_s=max(0.0, total - first_token_s),
                server=server.url,
            ),
        )


@asynccontextmanager
async def router_engine(
    url: str, *, model: str, timeout_s: float = 120.0, probe_every_s: float = 10.0
) -> AsyncIterator[RemoteEngine]:
    """One ``vllm-router`` in front of the servers. Its ``/readiness`` answers 200 while any
    server behind it is healthy (its ``/health`` fails as soon as one is not)."""
    async with remote_engine(
        [url],
        model=model,
        timeout_s=timeout_s,
        probe_every_s=probe_every_s,
        health_path="/readiness",
        kind="router",
    ) as engine:
        yield engine


@asynccontextmanager
async def remote_engine(
    urls: Sequence[str],
    *,
    model: str,
    timeout_s: float = 120.0,
    probe_every_s: float = 10.0,
    health_path: str = "/health",
    kind: str = "remote",
) -> AsyncIterator[RemoteEngine]:
    async with httpx.AsyncClient() as client:
        engine = RemoteEngine(
            client, urls, model=model, timeout_s=timeout_s, health_path=health_path, kind=kind
        )
        await engine.probe()

        async def keep_probing() -> None:
            while True:
                await asyncio.sleep(probe_every_s)
                await engine.probe()

        prober = asyncio.create_task(keep_probing())
        try:
            yield engine
        finally:
            prober.cancel()
