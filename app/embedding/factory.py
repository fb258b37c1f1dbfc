"""Build the configured embedder (the one place that names a concrete embedding backend)."""

from __future__ import annotations

import logging

from app.embedding.embedder import Embedder, SentenceTransformerEmbedder
from app.modelstore import PACKAGED_PREFIX, resolve_embedder
from app.settings import Settings

logger = logging.getLogger(__name__)


def build_embedder(settings: Settings) -> Embedder:
    folder = resolve_embedder(settings.embedder_model)
    name = settings.embedder_model.removeprefix(PACKAGED_PREFIX)
    if not settings.embedder_model.startswith(PACKAGED_PREFIX):
        name = folder.name
    embedder = SentenceTransformerEmbedder(
        folder, name=name, device=settings.embed_device, batch_tokens=settings.embed_batch_tokens
    )
    logger.info("embedder %s on %s", embedder.model_id, ", ".join(embedder.devices))
    return embedder
