"""`python -m app.eval`: retrieval quality on the shop's labelled questions and public sets.

Writes bench-results/eval-retrieval.json and .md. Runs on a fresh machine after set-up.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from app.embedding.factory import build_embedder
from app.eval import datasets
from app.eval.retrieval_eval import InMemoryIndex, evaluate_retrieval
from app.retrieval.published_index import PublishedIndex
from app.settings import Settings
from ingest.pipeline import run_ingest

REPO = Path(__file__).resolve().parents[2]
EVAL = REPO.parent / "shared" / "eval"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.eval", description=__doc__.split("\n")[0])
    parser.add_argument("--sets", default="shop,hetpqa,mtrag", help="comma-separated")
    parser.add_argument("--out-dir", type=Path, default=REPO / "bench-results")
    args = parser.parse_args(argv)
    settings = Settings(knowledge_dir=REPO / "knowledge")
    embedder = build_embedder(settings)
    weights, floor = settings.history_weights, settings.relevance_floor
    results: dict[str, Any] = {"floor": floor, "weights": weights}
    wanted = set(args.sets.split(","))

    if "shop" in wanted:
        with tempfile.TemporaryDirectory() as scratch:
            shop = settings.model_copy(update={"data_dir": Path(scratch)})
            run_ingest(shop, embedder)
            index = PublishedIndex(shop.index_dir)
            results["shop"] = asyncio.run(
                evaluate_retrieval(
                    datasets.shop_cases(),
                    index=index,
                    embedder=embedder,
                    weights=weights,
                    floor=floor,
                )
            )
    for name, loader, path in (
        ("hetpqa", datasets.hetpqa, EVAL / "hetpqa" / "evidence_ranking" / "dev.csv"),
        ("mtrag", datasets.mtrag, EVAL / "mtrag_un" / "reference.jsonl"),
    ):
        if name in wanted and path.exists():
            passages, cases = loader(path)
            source = InMemoryIndex(embedder, passages, name)
            results[name] = asyncio.run(
                evaluate_retrieval(
                    cases, index=source, embedder=embedder, weights=weights, floor=floor
                )
            )
            results[name]["corpus"] = len(passages)

    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "eval-retrieval.json").write_text(json.dumps(results, indent=2))
    report = markdown(results)
    (args.out_dir / "eval-retrieval.md").write_text(report)
    print(report)
    return 0


def markdown(results: dict[str, Any]) -> str:
    columns = ["cases", "hit@1", "hit@5", "recall@5", "recall@10", "mrr", "ndcg@10"]
    lines = [
        f"relevance floor {results['floor']}, history weights {results['weights']}",
        "",
        "| set / category | " + " | ".join(columns) + " | wrongly refused | refused unanswerable |",
        "| --- |" + " ---: |" * (len(columns) + 2),
    ]
    for name in ("shop", "hetpqa", "mtrag"):
        if name not in results:
            continue
        groups = [(f"**{name}**", results[name]["overall"])]
        groups += [(f"{name} / {c}", m) for c, m in results[name]["by_category"].items()]
        if len(results[name]["by_category"]) == 1:
            groups = groups[:1]
        for label, m in groups:
            cells = [str(m.get(c, "")) for c in columns]
            extra = [str(m.get("wrongly_refused", "")), str(m.get("refused_unanswerable", ""))]
            lines.append(f"| {label} | " + " | ".join(cells + extra) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
