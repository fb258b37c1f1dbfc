"""Group question embeddings by meaning: Faiss k-means into fine cells, then scikit-learn's
agglomerative clustering of the cells under a cosine-distance threshold.

Why two steps: agglomerative clustering decides the number of groups from the meaning itself
(questions closer than the threshold, on average, share a group), with no k to guess, but it
costs O(n²) time and memory (4,500 questions took 5 s here; 100k would need ~40 GB of
distances). Spherical k-means is linear in n, so it first cuts the questions into at most
``MAX_CELLS`` cells, far more than there are topics, and only the cells' centroids are
agglomerated. Up to ``MAX_CELLS`` questions, each question is its own cell. Pure numpy in,
labels out; deterministic for a given seed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.cluster import AgglomerativeClustering

from app.errors import require

# Average-linkage cosine distance under which cells share a group: 0.6 grouped the Bitext
# customer-support utterances closest to their 27 intents (python -m bench.gaps reports it).
GROUP_DISTANCE = 0.6
MAX_CELLS = 256
KMEANS_ITERATIONS = 20
SEED = 1234


def group_vectors(
    vectors: np.ndarray, *, distance: float = GROUP_DISTANCE, seed: int = SEED
) -> np.ndarray:
    """A group number per row of ``vectors`` (L2-normalised), 0 for the largest group, then
    by size (ties: the group whose first row comes first)."""
    count = len(vectors)
    if count < 2:
        return np.zeros(count, dtype=np.int64)
    points = np.ascontiguousarray(vectors, dtype=np.float32)
    if count <= MAX_CELLS:
        cells, centroids = np.arange(count), points
    else:
        cells, centroids = _kmeans(points, MAX_CELLS, seed)
    merged = AgglomerativeClustering(
        n_clusters=None, distance_threshold=distance, metric="cosine", linkage="average"
    ).fit_predict(centroids)
    return _numbered_by_size(merged[cells])


def _kmeans(points: np.ndarray, cells: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Each point's cell and the cells' unit centroids (spherical k-means, seeded)."""
    faiss: Any = require("faiss", "cpu")
    kmeans = faiss.Kmeans(
        points.shape[1],
        cells,
        niter=KMEANS_ITERATIONS,
        seed=seed,
        spherical=True,
        min_points_per_centroid=1,  # fewer points than Faiss likes is expected, not a warning
        max_points_per_centroid=64,  # trained on a sample of at most 64 per cell
    )
    kmeans.train(points)
    _, nearest = kmeans.index.search(points, 1)
    centroids = kmeans.centroids / np.maximum(
        np.linalg.norm(kmeans.centroids, axis=1, keepdims=True), 1e-12
    )
    return nearest[:, 0], centroids


def _numbered_by_size(labels: np.ndarray) -> np.ndarray:
    found, first, sizes = np.unique(labels, return_index=True, return_counts=True)
    order = sorted(range(len(found)), key=lambda i: (-sizes[i], first[i]))
    renumber = np.empty(int(found.max()) + 1, dtype=np.int64)
    renumber[found[order]] = np.arange(len(found))
    return renumber[labels]


def by_centrality(vectors: np.ndarray) -> np.ndarray:
    """Row indices of ``vectors`` (one group's), closest to the group's mean direction first."""
    mean = vectors.mean(axis=0)
    return np.argsort(-(vectors @ mean), kind="stable")
