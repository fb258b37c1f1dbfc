from __future__ import annotations

import numpy as np
import pytest

from app.index import vector_index


def unit_vectors(n: int, d: int = 32, seed: int = 0) -> np.ndarray:
    vectors = np.random.default_rng(seed).normal(size=(n, d)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def test_choice_follows_size_and_device() -> None:
    assert vector_index.choose_index(100, exact_max=1000).kind == "flat"
    assert vector_index.choose_index(5000, exact_max=1000).kind == "hnsw"
    ivf = vector_index.choose_index(5000, exact_max=1000, on_gpu=True)
    assert ivf.kind == "ivf" and 1 <= ivf.params["nprobe"] <= ivf.params["nlist"]
    assert vector_index.choose_index(10, setting="ivf").kind == "ivf"


@pytest.mark.parametrize("kind", ["hnsw", "ivf"])
def test_approximate_indexes_keep_high_recall(kind: str) -> None:
    vectors = unit_vectors(4000)
    choice = vector_index.choose_index(len(vectors), setting=kind)
    index = vector_index.build_index(vectors, choice)
    tuned, recall = vector_index.calibrate(index, vectors, choice, target=0.95)
    assert recall >= 0.95, recall
    assert recall == vector_index.measure_recall(index, vectors)
    knob = "nprobe" if kind == "ivf" else "ef_search"
    assert tuned.params[knob] >= choice.params[knob]


def test_exact_index_finds_the_vector_itself() -> None:
    vectors = unit_vectors(200)
    index = vector_index.build_index(vectors, vector_index.IndexChoice("flat"))
    scores, ids = index.search(vectors[:5], 1)
    assert ids[:, 0].tolist() == [0, 1, 2, 3, 4]
    assert np.allclose(scores[:, 0], 1.0, atol=1e-5)
    assert vector_index.measure_recall(index, vectors) == 1.0
