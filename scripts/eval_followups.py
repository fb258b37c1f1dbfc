"""History-aware retrieval, measured: the follow-up question alone vs with the conversation.

Two sets, each scored with the service's own retriever and turn-vector code:

* follow-ups written for the sample shop (below): the first question sets the topic, the
  follow-up ("how heavy is it?") only makes sense with it; a hit is the expected document
  among the top 5;
* MTRAG-UN (../shared/eval/mtrag_un): human multi-turn conversations with gold passages; the
  corpus is every task's gold passages, the query the last user turn of each answerable task
  after the first turn; success@5: a gold passage among the top 5.

    .venv/bin/python scripts/eval_followups.py [--out bench-results/followups.json]
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
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from app.embedding.factory import build_embedder  # noqa: E402
from app.index import vector_index  # noqa: E402
from app.index.passage import Passage  # noqa: E402
from app.index.versions import IndexVersion  # noqa: E402
from app.retrieval.published_index import PublishedIndex, ServedIndex  # noqa: E402
from app.retrieval.retriever import Retriever  # noqa: E402
from app.sessions.memory import MemorySessionStore  # noqa: E402
from app.sessions.turn_vectors import TurnVectorCache  # noqa: E402
from app.settings import Settings  # noqa: E402
from ingest.pipeline import run_ingest  # noqa: E402

MTRAG = REPO.parent / "shared" / "eval" / "mtrag_un" / "reference.jsonl"

# (earlier questions, follow-up, a string the answering document's id contains)
SHOP_FOLLOW_UPS: list[tuple[list[str], str, str]] = [
    (["Tell me about the Stormhollow 2 tent"], "how heavy is it?", "FH-TNT-7020"),
    (["Tell me about the Stormhollow 2 tent"], "is there a footprint for it?", "FH-TNT-7090"),
    (["Do you sell the Ridgeline 35 backpack?"], "does it come with a rain cover?", "FH-BPK-6035"),
    (["What is the Beacon 400 headlamp like?"], "what batteries does it take?", "FH-ELC-9701"),
    (
        ["I'm looking at the Beacon 700R headlamp"],
        "how long does it take to charge?",
        "FH-ELC-9702",
    ),
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


class FixedIndex:
    def __init__(self, served: ServedIndex) -> None:
        self._served = served

    def current(self) -> ServedIndex:
        return self._served


async def retrieve(
    retriever: Retriever, cache: TurnVectorCache, embedder: Any, history: list[str], question: str,
    weights: tuple[float, ...], use_history: bool,
) -> list[str]:  # fmt: skip
    session = os.urandom(8).hex()
    for i, earlier in enumerate(history):
        await cache.put(session, i, embedder.embed([earlier])[0])
    vector = embedder.embed([question])[0]
    queries = [vector]
    if use_history and history:
        previous = await cache.get(session, list(range(len(history)))[-2:])
        queries.append(cache.blend(vector, previous, weights))
    return [h.passage.document_id for h in retriever.search(queries).passages]


def score(hits: list[list[str]], wanted: list[set[str]], *, substring: bool) -> float:
    def hit(found: list[str], gold: set[str]) -> bool:
        if substring:
            return any(g in f for f in found for g in gold)
        return bool(gold & set(found))

    return sum(hit(f, g) for f, g in zip(hits, wanted, strict=True)) / len(wanted)


async def evaluate(
    retriever: Retriever, embedder: Any, cases: list[tuple[list[str], str, set[str]]],
    weights: tuple[float, ...], *, substring: bool,
) -> dict[str, float]:  # fmt: skip
    cache = TurnVectorCache(MemorySessionStore(ttl_s=600), capacity=100_000)
    result = {}
    for label, use in (("question_only", False), ("with_history", True)):
        hits = [await retrieve(retriever, cache, embedder, h, q, weights, use) for h, q, _ in cases]
        result[label] = round(score(hits, [g for _, _, g in cases], substring=substring), 3)
    return result


def mtrag_cases(limit: int | None) -> tuple[list[Passage], list[tuple[list[str], str, set[str]]]]:
    passages: dict[str, Passage] = {}
    cases = []
    for line in MTRAG.open(encoding="utf-8"):
        task = json.loads(line)
        for ctx in task["contexts"]:
            text = ctx["text"].strip()
            passages.setdefault(
                ctx["document_id"],
                Passage(ctx["document_id"], ctx["document_id"], "mtrag", "", "", "", "", "page",
                        text, text, ctx["document_id"], 0),
            )  # fmt: skip
        users = [t["text"] for t in task["input"] if t["speaker"] == "user"]
        if "ANSWERABLE" in task["answerability"] and len(users) > 1 and task["contexts"]:
            cases.append((users[:-1], users[-1], {c["document_id"] for c in task["contexts"]}))
    return list(passages.values()), cases[:limit] if limit else cases


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "bench-results" / "followups.json")
    parser.add_argument("--mtrag-limit", type=int, default=None)
    args = parser.parse_args()

    settings = Settings(knowledge_dir=REPO / "knowledge", embed_device="auto")
    embedder = build_embedder(settings)
    weights = tuple(settings.history_weights)
    result: dict[str, Any] = {"weights": list(weights)}

    with tempfile.TemporaryDirectory() as scratch:
        shop = settings.model_copy(update={"data_dir": Path(scratch)})
        run_ingest(shop, embedder)
        retriever = Retriever(PublishedIndex(shop.index_dir), top_k=5, floor=-1.0)
        cases = [(h, q, {doc}) for h, q, doc in SHOP_FOLLOW_UPS]
        result["shop"] = {"cases": len(cases)} | asyncio.run(
            evaluate(retriever, embedder, cases, weights, substring=True)
        )

    if MTRAG.exists():
        passages, cases = mtrag_cases(args.mtrag_limit)
        vectors = embedder.embed([p.embed_text for p in passages])
        index = vector_index.build_index(vectors, vector_index.IndexChoice("flat"))
        served = ServedIndex(IndexVersion("mtrag", {}, passages, index), index, "cpu")
        retriever = Retriever(FixedIndex(served), top_k=5, floor=-1.0)
        result["mtrag_un"] = {"cases": len(cases), "corpus": len(passages)} | asyncio.run(
            evaluate(retriever, embedder, cases, weights, substring=False)
        )

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
