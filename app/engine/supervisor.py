"""Generation that a stalled or dead engine cannot take down with it.

Every answer is bounded in time: past ``timeout_s`` the request is aborted and the shopper is
told so (EngineTimeoutError). An engine that died (the in-process vLLM's EngineCore process
killed, out of memory, a driver fault) is shut down and started again in the background; turns
meanwhile get a clear "restarting" error at once instead of hanging. A watcher checks the
engine's health every ``watch_s`` so a death while nobody is chatting is repaired too.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager
from dataclasses import dataclass

from app.engine.base import Engine, GenerationChunk, GenerationRequest
from app.errors import EngineTimeoutError, EngineUnavailableError

logger = logging.getLogger(__name__)

EngineLifespan = Callable[[], AbstractAsyncContextManager[Engine]]


@dataclass
class SupervisionStats:
    """Read by the metrics at scrape time."""

    timeouts: int = 0  # answers abandoned at the time limit
    failures: int = 0  # answers the engine failed
    restarts: int = 0  # engines started again after dying
    restarting: bool = False


class SupervisedEngine:
    """An Engine in front of the real one; ``restart=False`` for engines that fail over on
    their own (the remote servers)."""

    def __init__(
        self, start: EngineLifespan, *, timeout_s: float, restart: bool, watch_s: float = 5.0
    ) -> None:
        self._start = start
        self._timeout_s = timeout_s
        self._restart = restart
        self._watch_s = watch_s
        self._engine: Engine | None = None
        self._lifespan: AsyncExitStack | None = None
        self._restarter: asyncio.Task[None] | None = None
        self._watcher: asyncio.Task[None] | None = None
        self.stats = SupervisionStats()

    @property
    def engine(self) -> Engine:
        """The engine serving now (the dead one while a restart is under way)."""
        if self._engine is None:
            raise EngineUnavailableError("the generation engine has not started")
        return self._engine

    @property
    def description(self) -> str:
        return self.engine.description

    async def healthy(self) -> bool:
        return not self.stats.restarting and await self.engine.healthy()

    async def stream(self, request: GenerationRequest) -> AsyncIterator[GenerationChunk]:
        if self.stats.restarting:
            raise EngineUnavailableError("the generation engine is restarting")
        engine = self.engine
        try:
            async for chunk in _bounded(engine.stream(request), self._timeout_s):
                yield chunk
        except EngineTimeoutError:
            self.stats.timeouts += 1
            logger.warning("request %s abandoned after %gs", request.request_id, self._timeout_s)
            raise
        except Exception as exc:
            if not isinstance(exc, EngineUnavailableError) and await engine.healthy():
                raise  # the engine is fine: this request is at fault
            self.stats.failures += 1
            if self._restart and not await engine.healthy():
                self._begin_restart(engine, str(exc))
            if isinstance(exc, EngineUnavailableError):
                raise
            raise EngineUnavailableError(f"the generation engine failed: {exc}") from exc

    async def open(self) -> None:
        """Start the engine (failing if it cannot start) and, with restarts on, its watcher."""
        await self._start_engine()
        if self._restart:
            self._watcher = asyncio.create_task(self._watch(), name="engine-watcher")

    async def aclose(self) -> None:
        for task in (self._watcher, self._restarter):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if self._lifespan is not None:
            await self._lifespan.aclose()
        self._engine = self._lifespan = None

    async def _start_engine(self) -> None:
        lifespan = AsyncExitStack()
        try:
            engine = await lifespan.enter_async_context(self._start())
        except BaseException:
            await lifespan.aclose()
            raise
        self._engine, self._lifespan = engine, lifespan

    def _begin_restart(self, dead: Engine, reason: str) -> None:
        if self._engine is not dead or self.stats.restarting:
            return  # already replaced, or being replaced
        self.stats.restarting = True
        logger.error("generation engine %s died (%s); restarting it", dead.description, reason)
        self._restarter = asyncio.create_task(self._replace(), name="engine-restart")

    async def _replace(self, retry_max_s: float = 60.0) -> None:
        try:
            old, self._lifespan = self._lifespan, None
            if old is not None:
                try:
                    await old.aclose()
                except Exception:
                    logger.exception("shutting the dead engine down failed; starting anew anyway")
            delay = 1.0
            while True:
                try:
                    await self._start_engine()
                    break
                except Exception:
                    logger.exception("the generation engine did not start; again in %gs", delay)
                    await asyncio.sleep(delay)
                    delay = min(delay * 2, retry_max_s)
            self.stats.restarts += 1
            logger.info("generation engine %s restarted", self.engine.description)
        finally:
            self.stats.restarting = False

    async def _watch(self) -> None:
        while True:
            await asyncio.sleep(self._watch_s)
            engine = self._engine
            if engine is not None and not self.stats.restarting and not await engine.healthy():
                self._begin_restart(engine, "failed its health check")


async def _bounded(
    chunks: AsyncIterator[GenerationChunk], timeout_s: float
) -> AsyncIterator[GenerationChunk]:
    """The chunks of one answer, abandoned (and the request aborted) past the deadline."""
    deadline = asyncio.get_running_loop().time() + timeout_s
    try:
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    chunk = await anext(chunks)
            except StopAsyncIteration:
                return
            except TimeoutError as exc:
                raise EngineTimeoutError(f"no complete answer within {timeout_s:g}s") from exc
            yield chunk
    finally:
        close = getattr(chunks, "aclose", None)
        if close is not None:
            await close()


@asynccontextmanager
async def supervised_engine(
    start: EngineLifespan, *, timeout_s: float, restart: bool, watch_s: float = 5.0
) -> AsyncIterator[SupervisedEngine]:
    supervisor = SupervisedEngine(start, timeout_s=timeout_s, restart=restart, watch_s=watch_s)
    await supervisor.open()
    try:
        yield supervisor
    finally:
        await supervisor.aclose()
