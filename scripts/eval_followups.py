"""History-aware retrieval, measured: the follow-up question alone vs with the conversation.

Two sets, both scored by `app.eval` (the service's own retriever and turn-vector code):

* follow-ups written for the sample shop (below): the first question sets the topic, the
  follow-up ("how heavy is it?") only makes sense with it; a hit is a document whose id contains
  the expected string among the top 5;
* MTRAG-UN (../shared/eval/mtrag_un): human multi-turn conversations with gold passages; the
  corpus is every task's gold passages, the query the last user turn of each answerable task
  after the first turn; success@5: a gold passage among the top 5.

    .venv/bin/python scripts/eval_followups.py [--out bench-results/followups.json]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from app.embedding.embedder import Embedder  # noqa: E402
from app.embedding.factory import build_embedder  # noqa: E402
from app.eval import datasets  # noqa: E402
from app.eval.datasets import Case  # noqa: E402
from app.eval.retrieval_eval import InMemoryIndex, evaluate_retrieval  # noqa: E402
from app.retrieval.published_index import PublishedIndex  # noqa: E402
from app.retrieval.retriever import IndexSource  # noqa: E402
from app.settings import Settings  # noqa: E402
from ingest.pipeline import run_ingest  # noqa: E402

MTRAG = REPO.parent / "shared" / "eval" / "mtrag_un" / "reference.jsonl"

# (earlier questions, follow-up, a string the answering document's id contains)
SHOP_FOLLOW_UPS: list[tuple[list[str], str, str]] = [
    (["Tell me about the Stormhollow 2 tent"], "how heavy is it?", "FH-TNT-7020"),
    (["Tell me about the Stormhollow 2 tent"], "is there a footprint for it?", "FH-TNT-7090"),
    (["Do you sell the Ridgeline 35 backpack?"], "does it come with a rain cover?", "FH-BPK-6035"),
    (["What is the Beacon 400 headlamp like?"], "what batteries does it take?", "FH-ELC-9701"),
    (["I like the Beacon 700R headlamp"], "how long does it take to charge?", "FH-ELC-9702"),
    (["Tell me about the Cairngorm 800 down jacket"], "how do I wash it?", "product-care"),
    (["Tell me about the Torridon 3L jacket"], "is it in stock in XXL?", "FH-JKT-1042"),
    (["Do you deliver to Northern Ireland?"], "and how long does it take?", "shipping"),
    (["How do I return something?"], "how much does the label cost?", "returns"),
    (["Can I pay with Klarna?"], "what are the limits?", "payments"),
    (["What is the Nightjar 500 sleeping bag?"], "what's its comfort temperature?", "FH-SLB-8005"),
    (["Do you sell the Emberlite stove?"], "which gas canisters fit it?", "FH-STV-9010"),
    (["I want the ClearFlow squeeze filter"], "will it fit a 42 mm bottle?", "FH-WTR-9510"),
    (["Tell me about the Ben Nevis boots"], "can I use crampons with them?", "FH-BOT-1110"),
    (["What's your phone number?"], "when are you open on Saturdays?", "contact"),
    (["Tell me about gift cards"], "how long are they valid?", "faq"),
]


def shop_cases(document_ids: set[str]) -> list[Case]:
    """The shop follow-ups, each relevant to every document whose id holds its string."""
    return [
        Case(f"shop-{n}", "follow_up", tuple(history), question,
             frozenset(d for d in document_ids if wanted in d))
        for n, (history, question, wanted) in enumerate(SHOP_FOLLOW_UPS)
    ]  # fmt: skip


def compare(
    cases: list[Case], index: IndexSource, embedder: Embedder, settings: Settings
) -> dict[str, Any]:
    """success@5 of the same cases without and with their conversation."""
    result: dict[str, Any] = {"cases": len(cases)}
    for label, run in (
        ("question_only", [dataclasses.replace(c, history=()) for c in cases]),
        ("with_history", cases),
    ):
        scores = asyncio.run(
            evaluate_retrieval(
                run, index=index, embedder=embedder,
                weights=settings.history_weights, floor=settings.relevance_floor,
            )
        )  # fmt: skip
        result[label] = scores["overall"]["hit@5"]
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "bench-results" / "followups.json")
    args = parser.parse_args()

    settings = Settings(knowledge_dir=REPO / "knowledge", embed_device="auto")
    embedder = build_embedder(settings)
    result: dict[str, Any] = {"weights": list(settings.history_weights)}

    with tempfile.TemporaryDirectory() as scratch:
        shop = settings.model_copy(update={"data_dir": Path(scratch)})
        run_ingest(shop, embedder)
        index = PublishedIndex(shop.index_dir)
        ids = {p.document_id for p in index.current().version.passages}
        result["shop"] = compare(shop_cases(ids), index, embedder, settings)

    if MTRAG.exists():
        passages, cases = datasets.mtrag(MTRAG)
        mtrag = compare(cases, InMemoryIndex(embedder, passages, "mtrag"), embedder, settings)
        result["mtrag_un"] = {**mtrag, "corpus": len(passages)}

    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(f"{'set':<10}{'cases':>7}{'question only':>15}{'with history':>14}   (success@5)")
    for name in ("shop", "mtrag_un"):
        if name in result:
            r = result[name]
            print(f"{name:<10}{r['cases']:>7}{r['question_only']:>15}{r['with_history']:>14}")
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
