"""Second-stage ranker benchmark: what the learned ranker adds to a turn for 50 candidates.

For each HetPQA question, 50 of the set's real passages stand as the first stage's candidates
(their cosine and BM25 drawn at random: the cost does not depend on the values); the time is
feature extraction plus the model's scoring and the reorder, one question at a time, on one
thread, nothing else running. The first stage is untouched: its BM25 scores are the ones it
already computes. Prints a table and writes JSON.

    .venv/bin/python -m bench.rerank --model models/ranker/hetpqa-v1/model.txt \\
        [--out bench-results/rerank.json]
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from app.retrieval.rank_features import Candidate, feature_rows
from app.retrieval.rerank import LearnedRanker
from app.retrieval.retriever import RANKED
from evaluation import datasets

REPO = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rerank", description=__doc__)
    parser.add_argument("--model", type=Path, required=True, help="LightGBM ranker model file")
    parser.add_argument(
        "--hetpqa",
        type=Path,
        default=Path("..") / "shared" / "eval" / "hetpqa" / "evidence_ranking" / "dev.csv",
    )
    parser.add_argument("--out", type=Path, default=REPO / "bench-results" / "rerank.json")
    args = parser.parse_args(argv)
    ranker = LearnedRanker.load(args.model)
    passages, cases = datasets.hetpqa(args.hetpqa)
    rng = np.random.default_rng(0)
    features_ms, total_ms = [], []
    for case in cases:
        chosen = rng.choice(len(passages), RANKED, replace=False)
        found = [
            Candidate(
                int(r),
                passages[r],
                float(rng.uniform(0.2, 0.7)),
                float(rng.uniform(0, 8)),
                rank,
                False,
            )
            for rank, r in enumerate(chosen)
        ]
        start = time.perf_counter()
        feature_rows(case.question, found)
        features_ms.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        ranker.reorder(case.question, found)
        total_ms.append((time.perf_counter() - start) * 1000)
    result = {
        "candidates": RANKED,
        "questions": len(cases),
        "model": str(args.model),
        "machine": platform.processor() or platform.machine(),
        "features_ms_p50": round(statistics.median(features_ms), 3),
        "rerank_ms_p50": round(statistics.median(total_ms), 3),
        "rerank_ms_p95": round(float(np.percentile(total_ms, 95)), 3),
        "rerank_ms_mean": round(statistics.fmean(total_ms), 3),
    }
    print("| candidates | features p50 ms | rerank p50 ms | rerank p95 ms | mean ms |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    print(
        f"| {RANKED} | {result['features_ms_p50']} | {result['rerank_ms_p50']} | "
        f"{result['rerank_ms_p95']} | {result['rerank_ms_mean']} |"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
