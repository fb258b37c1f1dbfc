"""Sentence embedding: one narrow interface and its sentence-transformers implementation."""

from __future__ import annotations

import hashlib
import json
import logging
import re
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
from tqdm import tqdm

from app.embedding.batching import token_budget_batches
from app.errors import require

logger = logging.getLogger(__name__)

DevicePreference = Literal["auto", "cpu", "cuda"]

# Padded tokens per batch. On CPU small batches stay in cache: 2048 embedded 287 passages/s
# against 214 at 8192 (HetPQA candidates, 2 cores); a GPU wants large batches.
CPU_BATCH_TOKENS, CUDA_BATCH_TOKENS = 2048, 65536


class Embedder(Protocol):
    """Turns texts into L2-normalised float32 vectors; inner product is cosine similarity."""

    @property
    def model_id(self) -> str: ...

    @property
    def dimension(self) -> int: ...

    def count_tokens(self, texts: Sequence[str]) -> list[int]: ...

    def embed(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray: ...


# A text's words (lower case) with the model's vector of each word in its context.
WordVectors = list[tuple[str, np.ndarray]]
_WORD = re.compile(r"[A-Za-z0-9]+")


@runtime_checkable
class WordEmbedder(Protocol):
    """Contextual word vectors: what a word means where it stands ("footage" beside "CCTV")."""

    def word_vectors(self, texts: Sequence[str]) -> list[WordVectors]: ...


class SentenceTransformerEmbedder:
    """A sentence-transformers model folder, batched by token budget.

    The tokenizer is loaded at once (chunking needs it); the network only on the first
    ``embed``, so that a re-ingest with every embedding cached never loads it. On CUDA the
    model runs in fp16, and across every visible GPU when there are several.
    """

    def __init__(
        self,
        folder: Path,
        *,
        name: str,
        device: DevicePreference = "auto",
        batch_tokens: int | None = None,
    ) -> None:
        transformers: Any = require("transformers", "cpu")
        self._folder = folder
        self._tokenizer = transformers.AutoTokenizer.from_pretrained(str(folder))
        self._max_tokens = _max_seq_length(folder)
        self._devices = _choose_devices(device)
        self._precision = "fp16" if self._devices[0].startswith("cuda") else "fp32"
        self._batch_tokens = batch_tokens or (
            CUDA_BATCH_TOKENS if self._precision == "fp16" else CPU_BATCH_TOKENS
        )
        self._model_id = f"{name}@{_fingerprint(folder)}/{self._precision}"
        self._dimension = _dimension(folder)
        self._model: Any = None
        self._lock = threading.Lock()

    @property
    def model_id(self) -> str:
        return self._model_id

    @property
    def dimension(self) -> int:
        return self._dimension

    @property
    def devices(self) -> list[str]:
        return list(self._devices)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        """Tokens each text takes, special tokens included, before truncation."""
        if not texts:
            return []
        encoded = self._tokenizer(
            list(texts), add_special_tokens=True, truncation=False, verbose=False
        )
        return [len(ids) for ids in encoded["input_ids"]]

    def embed(self, texts: Sequence[str], *, progress: bool = False) -> np.ndarray:
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        if not texts:
            return out
        model = self._load()
        lengths = [min(n, self._max_tokens) for n in self.count_tokens(texts)]
        batches = token_budget_batches(lengths, self._batch_tokens)
        if len(self._devices) > 1:
            order = [i for batch in batches for i in batch]
            vectors = model.encode(
                [texts[i] for i in order],
                device=self._devices,
                batch_size=max(len(b) for b in batches),
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=progress,
            )
            out[order] = vectors
            return out
        for batch in tqdm(batches, desc="embedding", unit="batch", disable=not progress):
            out[batch] = model.encode(
                [texts[i] for i in batch],
                batch_size=len(batch),
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        return out

    def word_vectors(self, texts: Sequence[str]) -> list[WordVectors]:
        """Each text's words with their L2-normalised vectors: the mean of the model's output
        for the word's tokens, in one batch (for a few short texts: a question and its lines)."""
        if not texts:
            return []
        model = self._load()
        tokens = model.encode(
            list(texts),
            output_value="token_embeddings",
            batch_size=len(texts),
            convert_to_numpy=False,
            show_progress_bar=False,
        )
        offsets = self._tokenizer(
            list(texts), return_offsets_mapping=True, truncation=True, max_length=self._max_tokens
        )["offset_mapping"]
        found = []
        for text, vectors, spans in zip(texts, tokens, offsets, strict=True):
            rows = vectors.float().cpu().numpy()
            found.append(_words_of(text, rows, spans))
        return found

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                st: Any = require("sentence_transformers", "cpu")
                model = st.SentenceTransformer(str(self._folder), device=self._devices[0])
                if self._precision == "fp16":
                    model.half()
                model.eval()
                logger.info(
                    "embedder %s loaded on %s (%s)",
                    self._model_id,
                    ", ".join(self._devices),
                    self._precision,
                )
                self._model = model
            return self._model


def _words_of(text: str, rows: np.ndarray, spans: Sequence[tuple[int, int]]) -> WordVectors:
    """Group token vectors into the words of ``text`` they were cut from."""
    words: WordVectors = []
    for match in _WORD.finditer(text):
        picked = [
            i
            for i, (start, end) in enumerate(spans[: len(rows)])
            if end > start and start >= match.start() and end <= match.end()
        ]
        if picked:
            vector = rows[picked].mean(axis=0)
            words.append((match.group(0).lower(), vector / (np.linalg.norm(vector) + 1e-12)))
    return words


def _choose_devices(preference: DevicePreference) -> list[str]:
    if preference == "cpu":
        return ["cpu"]
    torch: Any = require("torch", "cpu")
    count = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if count == 0:
        if preference == "cuda":
            logger.warning("SHOPDESK_EMBED_DEVICE=cuda but no CUDA device is visible; using CPU")
        return ["cpu"]
    return [f"cuda:{i}" for i in range(count)]


def _max_seq_length(folder: Path) -> int:
    """The model's input limit: sentence-transformers before 6 wrote it in sentence_bert_config,
    6 and later in the tokenizer's config."""
    for name, key in (
        ("sentence_bert_config.json", "max_seq_length"),
        ("tokenizer_config.json", "model_max_length"),
    ):
        config = folder / name
        if config.exists():
            limit = json.loads(config.read_text()).get(key)
            if isinstance(limit, int) and 0 < limit <= 8192:  # a tokenizer's "no limit" is 1e30
                return limit
    return 512


def _dimension(folder: Path) -> int:
    pooling = folder / "1_Pooling" / "config.json"
    if pooling.exists():
        config = json.loads(pooling.read_text())
        # the key before sentence-transformers 6, then its own
        dimension = config.get("word_embedding_dimension", config.get("embedding_dimension"))
        if dimension:
            return int(dimension)
    return int(json.loads((folder / "config.json").read_text())["hidden_size"])


def _fingerprint(folder: Path) -> str:
    """Changes when the model's configuration or weights change (cache key)."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file() and path.suffix in {".json", ".txt", ".safetensors", ".bin"}:
            digest.update(path.relative_to(folder).as_posix().encode())
            if path.suffix in {".json", ".txt"}:
                digest.update(path.read_bytes())
            else:
                digest.update(str(path.stat().st_size).encode())
    return digest.hexdigest()[:12]
