"""On a CUDA box: the embedder runs in fp16 on every GPU and Faiss searches on the GPU."""

from __future__ import annotations

import numpy as np
import pytest

from app.embedding.factory import build_embedder
from app.index import vector_index
from app.settings import Settings

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.gpu
needs_cuda = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA GPU")

TEXTS = ["Is the Stormhollow 2 footprint compatible with the Stormhollow 3?", "Returns window"] * 8


@needs_cuda
def test_fp16_gpu_embeddings_match_cpu_ones(embedder) -> None:  # type: ignore[no-untyped-def]
    gpu = build_embedder(Settings(embed_device="cuda"))
    assert gpu.model_id.endswith("/fp16") and gpu.model_id != embedder.model_id
    cosine = np.sum(gpu.embed(TEXTS) * embedder.embed(TEXTS), axis=1)
    assert cosine.min() > 0.99


@needs_cuda
def test_index_moves_to_the_gpu_when_faiss_can() -> None:
    if vector_index.gpu_count() == 0:
        pytest.skip("faiss-cpu is installed; the gpu extra brings faiss-gpu")
    vectors = np.random.default_rng(0).normal(size=(1000, 64)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = vector_index.build_index(vectors, vector_index.IndexChoice("flat"))
    on_gpu, device = vector_index.to_device(index, "auto")
    assert device.startswith("gpu")
    _, ids = on_gpu.search(vectors[:10], 1)
    assert ids[:, 0].tolist() == list(range(10))
