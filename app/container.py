"""The composition root: every backend is built here, from the settings, inside one lifespan."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any

from app.chat.conversations import ConversationService
from app.chat.evidence import quotable_lines
from app.chat.prompt_format import PromptFormat
from app.chat.service import ChatOptions, ChatService
from app.embedding.embedder import WordEmbedder
from app.embedding.factory import build_embedder
from app.engine.supervisor import SupervisedEngine, supervised_engine
from app.errors import ConfigurationError, IndexNotPublishedError
from app.gaps.service import KnowledgeGaps
from app.modelstore import resolve_generator
from app.observability.faults import FaultReadings
from app.observability.metrics import ChatMetrics
from app.retrieval.line_vectors import LineVectors
from app.retrieval.passage_search import PassageSearch
from app.retrieval.published_index import PublishedIndex
from app.retrieval.query_encoder import QueryEncoder
from app.retrieval.rerank import load_ranker
from app.retrieval.retriever import Retriever
from app.sessions.base import SessionStore
from app.sessions.resilient import ResilientSessionStore
from app.sessions.turn_vectors import TurnVectorCache
from app.settings import Settings
from app.traffic.guards import Guards, build_guards
from app.transcripts.durable import DurableTranscripts, OutboxStats, durable_transcripts
from app.transcripts.review import TranscriptReview
from app.transcripts.store import SqlTranscripts

logger = logging.getLogger(__name__)


@dataclass
class Container:
    settings: Settings
    index: PublishedIndex
    encoder: QueryEncoder
    search: PassageSearch  # staff's and tools' passage search, shared by every request
    engine: SupervisedEngine
    chat: ChatService
    transcript_review: TranscriptReview  # the staff pages' reads and notes
    gaps: KnowledgeGaps  # the staff's knowledge-gaps page
    conversations: ConversationService
    metrics: ChatMetrics
    guards: Guards
    transcript_writes: OutboxStats  # whether the transcript database takes writes, the outbox


@asynccontextmanager
async def build_container(settings: Settings) -> AsyncIterator[Container]:
    """Start everything; close everything in reverse order however the app ends."""
    async with AsyncExitStack() as stack:
        embedder = build_embedder(settings)
        index = PublishedIndex(
            settings.index_dir,
            device=settings.index_device,
            poll_seconds=settings.index_poll_seconds,
        )
        try:
            index.current()
        except IndexNotPublishedError as exc:
            logger.warning("%s; chat answers wait for a published index", exc)
        encoder = QueryEncoder(embedder)
        stack.push_async_callback(encoder.close)
        line_vectors = LineVectors(encoder, embedder)
        stack.push_async_callback(line_vectors.close)
        with contextlib.suppress(IndexNotPublishedError):  # embedded while the engine starts
            served = index.current().version
            line_vectors.warm_soon(served.id, quotable_lines(served.passages))
        transcripts, durable = await transcript_writes(settings, stack)
        store = ResilientSessionStore(
            await _session_store(settings),
            recorded=durable.session_turns,
            ttl_s=settings.session_ttl_s,
        )
        stack.push_async_callback(store.close)
        engine, model_source = await _engine(settings, stack)
        device = getattr(embedder, "devices", ["cpu"])[0]
        chat = ChatService(
            store=store,
            turn_vectors=TurnVectorCache(
                store, capacity=settings.turn_vector_capacity, device=device
            ),
            encoder=encoder,
            retriever=Retriever(
                index,
                top_k=settings.top_k,
                floor=settings.relevance_floor,
                lexical_weight=settings.lexical_weight,
                ranker=load_ranker(settings.ranker_model),
            ),
            engine=engine,
            prompt_format=PromptFormat(
                model_source,
                shop_name=settings.shop_name,
                canary=settings.prompt_canary,
            ),
            options=ChatOptions(
                shop_name=settings.shop_name,
                max_message_chars=settings.max_message_chars,
                max_answer_tokens=settings.max_answer_tokens,
                temperature=settings.temperature,
                frequency_penalty=settings.frequency_penalty,
                context_tokens=settings.vllm_max_model_len,
                passage_tokens=settings.passage_tokens,
                history_weights=tuple(settings.history_weights),
                min_groundedness=settings.min_groundedness,
                answer_policy=settings.answer_policy,
                min_coverage=settings.answer_min_coverage,
                near_word_similarity=settings.answer_near_word_similarity,
                faq_paraphrase=settings.answer_faq_paraphrase,
                stop_after_dropped=settings.answer_stop_after_dropped,
                generation_passages=settings.generation_passages,
            ),
            line_vectors=line_vectors,
            words=embedder if isinstance(embedder, WordEmbedder) else None,
        )
        metrics = ChatMetrics()
        metrics.registry.register(
            FaultReadings(outbox=durable.stats, sessions=store.stats, engine=engine.stats)
        )
        conversations = ConversationService(
            chat=chat,
            transcripts=durable,
            metrics=metrics,
            model=model_source,
            handoff=settings.handoff_message,
        )
        yield Container(
            settings=settings,
            index=index,
            encoder=encoder,
            search=PassageSearch(index, encoder, lexical_weight=settings.lexical_weight),
            engine=engine,
            chat=chat,
            transcript_review=TranscriptReview(transcripts.sessions),
            gaps=KnowledgeGaps(transcripts.sessions, embedder, floor=settings.min_groundedness),
            conversations=conversations,
            metrics=metrics,
            guards=build_guards(settings, metrics),
            transcript_writes=durable.stats,
        )


async def transcript_writes(
    settings: Settings, stack: AsyncExitStack
) -> tuple[SqlTranscripts, DurableTranscripts]:
    """The transcript database and the durable writer over it, its flusher running. A database
    that does not answer yet is no reason not to start: the outbox takes the writes and the
    flusher migrates the database once it answers (a URL that cannot work still fails here)."""
    transcripts = SqlTranscripts.open(settings.transcripts_url)
    stack.callback(transcripts.close)
    durable = await stack.enter_async_context(
        durable_transcripts(
            transcripts,
            settings.transcript_outbox_path,
            write_timeout_s=settings.transcript_write_timeout_s,
            retry_max_s=settings.transcript_retry_max_s,
        )
    )
    return transcripts, durable


async def _session_store(settings: Settings) -> SessionStore:
    if settings.redis_url is None:
        from app.sessions.memory import MemorySessionStore

        logger.info("sessions in process memory (set SHOPDESK_REDIS_URL to share them)")
        return MemorySessionStore(ttl_s=settings.session_ttl_s)
    import redis.asyncio as redis
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    from app.sessions.redis_store import RedisSessionStore

    # Fail fast when Redis is gone (the turn then goes on from the transcripts); one immediate
    # retry replaces a pooled connection that a Redis restart broke.
    client: Any = redis.from_url(
        settings.redis_url,
        socket_timeout=settings.redis_timeout_s,
        socket_connect_timeout=settings.redis_timeout_s,
        retry=Retry(NoBackoff(), 1),
    )
    store = RedisSessionStore(client, ttl_s=settings.session_ttl_s)
    if not await store.ping():
        logger.warning("Redis at %s does not answer yet; sessions will retry", settings.redis_url)
    logger.info("sessions in Redis at %s", settings.redis_url)
    return store


async def _engine(settings: Settings, stack: AsyncExitStack) -> tuple[SupervisedEngine, str]:
    """The configured engine, supervised (answers bounded in time; the in-process engine is
    restarted if it dies), and where the generator's tokenizer can be read from."""
    if settings.engine == "remote":
        from app.engine.remote import remote_engine, router_engine

        if not settings.remote_model:
            raise ConfigurationError(
                "SHOPDESK_REMOTE_MODEL must name the model the servers serve (a local folder "
                "with the same tokenizer, or its hub id)"
            )
        router = settings.remote_router_url
        logger.info("engine: remote, %s", f"through {router}" if router else "spread by the app")
        engine = await stack.enter_async_context(
            supervised_engine(
                lambda: (
                    router_engine(
                        router, model=settings.remote_model, timeout_s=settings.remote_timeout_s
                    )
                    if router
                    else remote_engine(
                        settings.remote_urls,
                        model=settings.remote_model,
                        timeout_s=settings.remote_timeout_s,
                    )
                ),
                timeout_s=settings.generation_timeout_s,
                restart=False,  # the servers fail over among themselves
            )
        )
        return engine, resolve_generator(settings.remote_model, settings.model_cache_dir)
    from app.engine.vllm_engine import VllmOptions, vllm_engine

    model = resolve_generator(settings.generator_model, settings.model_cache_dir)
    options = VllmOptions(
        model=model,
        dtype=settings.vllm_dtype,
        max_model_len=settings.vllm_max_model_len,
        max_num_seqs=settings.vllm_max_num_seqs,
        enable_prefix_caching=settings.vllm_prefix_caching,
        gpu_memory_utilization=settings.vllm_gpu_memory_utilization,
        tensor_parallel_size=settings.vllm_tensor_parallel_size,
        quantization=settings.vllm_quantization,
        enforce_eager=settings.vllm_enforce_eager,
        speculative_tokens=settings.vllm_speculative_tokens,
        cpu_kvcache_gib=settings.vllm_cpu_kvcache_gib,
        compile_cache_dir=str(settings.model_cache_dir / "vllm"),
    )
    logger.info("engine: in-process vLLM with %s", model)
    engine = await stack.enter_async_context(
        supervised_engine(
            lambda: vllm_engine(options), timeout_s=settings.generation_timeout_s, restart=True
        )
    )
    return engine, model
