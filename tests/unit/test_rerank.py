"""The learned second stage: a tiny LightGBM model, trained here on synthetic candidates, is
loaded from its file and reorders the first stage's candidates; the retriever applies it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.errors import ConfigurationError
from app.retrieval.rank_features import FEATURES, feature_rows
from app.retrieval.rerank import LearnedRanker, load_ranker
from app.retrieval.retriever import Retriever
from tests.unit.test_hybrid_retrieval import Fixed
from tests.unit.test_rank_features import candidate

lightgbm = pytest.importorskip("lightgbm")


def train_tiny(path: Path, *, names: list[str] | None = None) -> Path:
    """A model that learns 'the passage with the higher BM25 is the relevant one'."""
    rng = np.random.default_rng(0)
    rows, labels = [], []
    for _ in range(60):
        found = [
            candidate(i, cosine=float(rng.uniform(0.3, 0.6)), bm25=float(rng.uniform(0, 5)))
            for i in range(5)
        ]
        relevant = int(np.argmax([c.bm25 for c in found]))
        rows.append(feature_rows("question", found))
        labels.append([float(i == relevant) for i in range(5)])
    data = lightgbm.Dataset(
        np.vstack(rows),
        np.concatenate(labels),
        group=[5] * 60,
        feature_name=names or list(FEATURES),
    )
    params = {"objective": "lambdarank", "min_data_in_leaf": 5, "verbosity": -1, "seed": 1}
    lightgbm.train(params, data, num_boost_round=20).save_model(str(path))
    return path


def test_a_loaded_model_puts_the_strong_lexical_match_first(tmp_path: Path) -> None:
    ranker = load_ranker(train_tiny(tmp_path / "model.txt"))
    assert ranker is not None
    found = [
        candidate(0, cosine=0.6, bm25=0.5),
        candidate(1, cosine=0.5, bm25=1.0),
        candidate(2, cosine=0.4, bm25=4.5),
    ]
    assert ranker.reorder("question", found)[0].row == 2
    assert ranker.reorder("question", []) == []


def test_the_ranker_is_off_without_a_path_and_refuses_a_missing_or_foreign_model(
    tmp_path: Path,
) -> None:
    assert load_ranker("") is None
    with pytest.raises(ConfigurationError, match="no model file"):
        load_ranker(tmp_path / "absent.txt")
    foreign = train_tiny(tmp_path / "foreign.txt", names=[f"f{i}" for i in range(len(FEATURES))])
    with pytest.raises(ConfigurationError, match="trained on features"):
        load_ranker(foreign)


def test_the_retriever_returns_the_rankers_order(tmp_path: Path) -> None:
    ranker = LearnedRanker.load(train_tiny(tmp_path / "model.txt"))
    # dense search prefers passage 0; only passage 2 shares words with the question
    query = [np.array([1.0, 0.0, 0.0, 0.0], np.float32)]
    plain = Retriever(Fixed(), top_k=3, floor=-1.0, lexical_weight=0.0)
    ranked = Retriever(Fixed(), top_k=3, floor=-1.0, lexical_weight=1.0, ranker=ranker)
    assert plain.search(query, ["refund on boots"]).passages[0].passage.id == "p0"
    assert ranked.search(query, ["refund on boots"]).passages[0].passage.id == "p2"
