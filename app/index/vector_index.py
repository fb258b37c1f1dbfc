"""Faiss indexes over normalised vectors: exact for small collections, approximate above a size.

Inner product on L2-normalised vectors is cosine similarity. The kind and its parameters are
chosen from the collection's size, and the recall of an approximate index against exact search
is measured when it is built, so the manifest says what was traded.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from app.errors import require

logger = logging.getLogger(__name__)

IndexKind = Literal["flat", "hnsw", "ivf"]


@dataclass(frozen=True)
class IndexChoice:
    kind: IndexKind
    params: dict[str, int] = field(default_factory=dict)


def faiss_module() -> Any:
    return require("faiss", "cpu")


def gpu_count() -> int:
    """GPUs faiss can use: zero with faiss-cpu or without a GPU."""
    faiss = faiss_module()
    get = getattr(faiss, "get_num_gpus", None)
    return int(get()) if get else 0


def choose_index(
    count: int, *, setting: str = "auto", exact_max: int = 50_000, on_gpu: bool = False
) -> IndexChoice:
    """Exact search while it is cheap; above ``exact_max``, HNSW on CPU or IVF on the GPU."""
    kind: IndexKind
    if setting == "auto":
        kind = "flat" if count <= exact_max else ("ivf" if on_gpu else "hnsw")
    else:
        kind = setting  # type: ignore[assignment]
    if kind == "hnsw":
        return IndexChoice("hnsw", {"M": 32, "ef_construction": 200, "ef_search": 64})
    if kind == "ivf":
        nlist = max(1, min(count // 39, int(4 * math.sqrt(count))))
        return IndexChoice("ivf", {"nlist": nlist, "nprobe": max(1, min(nlist, nlist // 16 + 4))})
    return IndexChoice("flat")


def build_index(vectors: np.ndarray, choice: IndexChoice) -> Any:
    """A CPU index holding ``vectors`` (row i has id i), ready to save or move to a GPU."""
    faiss = faiss_module()
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    dimension = vectors.shape[1]
    if choice.kind == "hnsw":
        index = faiss.IndexHNSWFlat(dimension, choice.params["M"], faiss.METRIC_INNER_PRODUCT)
        index.hnsw.efConstruction = choice.params["ef_construction"]
        index.hnsw.efSearch = choice.params["ef_search"]
    elif choice.kind == "ivf":
        quantizer = faiss.IndexFlatIP(dimension)
        index = faiss.IndexIVFFlat(
            quantizer, dimension, choice.params["nlist"], faiss.METRIC_INNER_PRODUCT
        )
        index.train(vectors)
        index.nprobe = choice.params["nprobe"]
    else:
        index = faiss.IndexFlatIP(dimension)
    index.add(vectors)
    return index


def calibrate(
    index: Any, vectors: np.ndarray, choice: IndexChoice, *, target: float = 0.95
) -> tuple[IndexChoice, float]:
    """Widen an approximate index's search (nprobe, efSearch) until recall@10 meets ``target``.

    Returns the parameters it settled on and the recall measured with them.
    """
    recall = measure_recall(index, vectors)
    params = dict(choice.params)
    knob, ceiling = {"ivf": ("nprobe", params.get("nlist", 1)), "hnsw": ("ef_search", 1024)}.get(
        choice.kind, ("", 0)
    )
    while knob and recall < target and params[knob] < ceiling:
        params[knob] = min(ceiling, params[knob] * 2)
        if choice.kind == "ivf":
            index.nprobe = params[knob]
        else:
            index.hnsw.efSearch = params[knob]
        recall = measure_recall(index, vectors)
    return IndexChoice(choice.kind, params), recall


def measure_recall(index: Any, vectors: np.ndarray, *, k: int = 10, queries: int = 200) -> float:
    """Recall@k of ``index`` against exact search, on perturbed copies of stored vectors."""
    faiss = faiss_module()
    count = vectors.shape[0]
    if count == 0:
        return 1.0
    rng = np.random.default_rng(0)
    picks = rng.choice(count, size=min(queries, count), replace=False)
    probe = vectors[picks] + rng.normal(0, 0.05, size=(len(picks), vectors.shape[1]))
    probe = (probe / np.linalg.norm(probe, axis=1, keepdims=True)).astype(np.float32)
    k = min(k, count)
    exact = faiss.IndexFlatIP(vectors.shape[1])
    exact.add(np.ascontiguousarray(vectors, dtype=np.float32))
    _, truth = exact.search(probe, k)
    _, found = index.search(probe, k)
    hits = sum(len(set(t) & set(f)) for t, f in zip(truth, found, strict=True))
    return hits / (len(picks) * k)


def to_device(index: Any, preference: str = "auto") -> tuple[Any, str]:
    """Move an index onto every GPU when wanted and possible; returns (index, device name)."""
    if preference == "cpu":
        return index, "cpu"
    gpus = gpu_count()
    if gpus == 0:
        if preference == "gpu":
            logger.warning("SHOPDESK_INDEX_DEVICE=gpu but faiss sees no GPU; searching on CPU")
        return index, "cpu"
    faiss = faiss_module()
    if isinstance(index, faiss.IndexHNSWFlat):
        return index, "cpu"  # faiss has no GPU HNSW; IVF is the GPU's approximate kind
    options = faiss.GpuMultipleClonerOptions()
    options.shard = gpus > 1
    return faiss.index_cpu_to_all_gpus(index, co=options), f"gpu x{gpus}"


def save_index(index: Any, path: Path) -> None:
    faiss_module().write_index(index, str(path))


def load_index(path: Path) -> Any:
    return faiss_module().read_index(str(path))
