"""`python -m training.ranker`: fit the second-stage ranker on HetPQA's training products.

The first stage (the service's own retriever, dense + BM25 fused) gives each training question
its top candidates; their features (app.retrieval.rank_features) and HetPQA's labels train a
LightGBM LambdaMART model. A few settings are compared by cross-validation grouped by product on
the training products only; the best is refitted on all of them. Writes the model (LightGBM text)
and a manifest (features, data, split, cross-validation figures, date) to --out.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import lightgbm
import numpy as np

from app.embedding.factory import build_embedder
from app.retrieval.rank_features import FEATURES, feature_rows
from app.retrieval.retriever import RANKED, Retriever
from app.settings import Settings
from evaluation import datasets, splits
from evaluation.retrieval_eval import InMemoryIndex

# Tiny on purpose: ~230 training questions.
GRID: tuple[dict[str, Any], ...] = (
    {"num_leaves": 7, "min_data_in_leaf": 20, "learning_rate": 0.05, "rounds": 100},
    {"num_leaves": 15, "min_data_in_leaf": 10, "learning_rate": 0.05, "rounds": 200},
    {"num_leaves": 4, "min_data_in_leaf": 40, "learning_rate": 0.1, "rounds": 60},
)
FOLDS = 4


def groups_for(
    cases: list[datasets.Case], index: InMemoryIndex, settings: Settings
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(features, labels) of each case's first-stage candidates, as the service computes them."""
    embedder = build_embedder(settings)
    retriever = Retriever(index, top_k=10, floor=-1.0, lexical_weight=settings.lexical_weight)
    served = index.current()
    vectors = embedder.embed([c.question for c in cases])
    groups = []
    for case, vector in zip(cases, vectors, strict=True):
        found, _ = retriever.candidates(served, [vector], [case.question], RANKED)
        found = found[:RANKED]
        labels = np.array([float(c.passage.document_id in case.relevant) for c in found])
        groups.append((feature_rows(case.question, found), labels))
    return groups


def fit(groups: list[tuple[np.ndarray, np.ndarray]], setting: dict[str, Any]) -> Any:
    params = {
        "objective": "lambdarank",
        "metric": "ndcg",
        "num_leaves": setting["num_leaves"],
        "min_data_in_leaf": setting["min_data_in_leaf"],
        "learning_rate": setting["learning_rate"],
        "num_threads": 2,
        "seed": 7,
        "deterministic": True,
        "verbosity": -1,
    }
    data = lightgbm.Dataset(
        np.vstack([f for f, _ in groups]),
        np.concatenate([y for _, y in groups]),
        group=[len(y) for _, y in groups],
        feature_name=list(FEATURES),
    )
    return lightgbm.train(params, data, num_boost_round=setting["rounds"])


def mrr(booster: Any, groups: list[tuple[np.ndarray, np.ndarray]]) -> float:
    """Mean reciprocal rank of the first relevant candidate (0 when none was a candidate)."""
    ranks = []
    for features, labels in groups:
        order = np.argsort(-booster.predict(features), kind="stable")
        hits = np.flatnonzero(labels[order] > 0)
        ranks.append(1.0 / (1 + hits[0]) if len(hits) else 0.0)
    return statistics.fmean(ranks)


def first_stage_mrr(groups: list[tuple[np.ndarray, np.ndarray]]) -> float:
    ranks = []
    for _, labels in groups:
        hits = np.flatnonzero(labels > 0)
        ranks.append(1.0 / (1 + hits[0]) if len(hits) else 0.0)
    return statistics.fmean(ranks)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m training.ranker", description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("models/ranker"), help="output folder")
    parser.add_argument(
        "--eval-data",
        type=Path,
        default=Path("..") / "shared" / "eval",
        help="folder of the public sets (hetpqa/ is used)",
    )
    args = parser.parse_args(argv)
    source = args.eval_data / "hetpqa" / "evidence_ranking" / "dev.csv"
    settings = Settings()
    passages, cases = datasets.hetpqa(source)
    train, held_out = splits.split_by_product(cases)
    index = InMemoryIndex(build_embedder(settings), passages, "hetpqa")
    groups = groups_for(train, index, settings)
    cv = []
    for setting in GRID:
        scores = []
        for fit_rows, check_rows in splits.folds(train, FOLDS):
            booster = fit([groups[i] for i in fit_rows], setting)
            scores.append(mrr(booster, [groups[i] for i in check_rows]))
        cv.append(
            {
                **setting,
                "mrr_folds": [round(s, 4) for s in scores],
                "mrr": round(statistics.fmean(scores), 4),
            }
        )
        print(f"{setting}: CV MRR {statistics.fmean(scores):.4f}")
    best = max(range(len(GRID)), key=lambda i: cv[i]["mrr"])
    booster = fit(groups, GRID[best])
    args.out.mkdir(parents=True, exist_ok=True)
    booster.save_model(str(args.out / "model.txt"))
    manifest = {
        "model": "model.txt",
        "kind": "lightgbm lambdarank",
        "lightgbm": lightgbm.__version__,
        "features": list(FEATURES),
        "candidates": RANKED,
        "first_stage": {
            "lexical_weight": settings.lexical_weight,
            "embedder": settings.embedder_model,
        },
        "training_data": {
            "set": "HetPQA evidence_ranking/dev.csv",
            "questions": len(train),
            "products": len({c.product for c in train}),
        },
        "split": {
            "by": "product (ASIN)",
            "salt": splits.SALT,
            "held_out_share": splits.HELD_OUT_SHARE,
            "held_out_questions": len(held_out),
            "held_out_products": len({c.product for c in held_out}),
        },
        "cross_validation": {
            "folds": FOLDS,
            "grouped_by": "product",
            "first_stage_mrr": round(first_stage_mrr(groups), 4),
            "settings": cv,
            "chosen": best,
        },
        "trained_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
    }
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=2))
    print(f"written: {args.out / 'model.txt'}, {args.out / 'manifest.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
