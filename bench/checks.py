"""Answer-check benchmark: what the evidence selection, verdict and claim checks cost per turn.

For every labelled shop question, the turn's passages are retrieved and budgeted as the service
does; then, on the same passages in the same run:

- naive: the turn's lines embedded on demand (what a turn pays without the warmed line cache),
  then selection and verdict;
- shopdesk: the served version's lines embedded once up front (as the service does while its
  engine starts), so a turn only looks them up; then selection and verdict;
- near words: for a turn whose lines hold too few of the question's words by spelling (the
  hedge), the word vectors of the question and its lines and the verdict again (the service
  pays this on those turns only);
- claims: the sentence checks over the turn's evidence lines, standing in for model sentences.

Times one turn at a time, nothing else running. Prints a table and writes JSON.

    .venv/bin/python -m bench.checks [--out bench-results/checks.json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np

from app.chat.answerability import judge
from app.chat.claims import check_sentence
from app.chat.defences.planted_instructions import neutralise
from app.chat.evidence import quotable_lines, select_evidence, units
from app.chat.near_words import near_question_words
from app.chat.prompt import fit_passages
from app.chat.vocabulary import Vocabulary
from app.embedding.embedder import WordEmbedder
from app.embedding.factory import build_embedder
from app.modelstore import resolve_generator
from app.retrieval.published_index import PublishedIndex
from app.retrieval.retriever import Retriever
from app.retrieval.rewrite import query_texts
from app.settings import Settings
from bench.e2e import machine
from evaluation.datasets import answer_cases
from ingest.pipeline import run_ingest

REPO = Path(__file__).resolve().parent.parent


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50_ms": round(1000 * statistics.median(ordered), 2),
        "p95_ms": round(1000 * ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 2),
        "mean_ms": round(1000 * statistics.fmean(ordered), 2),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "bench-results" / "checks.json")
    args = parser.parse_args()
    import transformers

    settings = Settings(knowledge_dir=REPO / "knowledge")
    embedder = build_embedder(settings)
    model = resolve_generator(settings.generator_model, settings.model_cache_dir)
    tokenizer = transformers.AutoTokenizer.from_pretrained(model)

    def count(text: str) -> int:
        return len(tokenizer(text, add_special_tokens=False)["input_ids"])

    cases = answer_cases()
    timings: dict[str, list[float]] = {"naive": [], "shopdesk": [], "near_words": [], "claims": []}
    with tempfile.TemporaryDirectory() as scratch:
        shop = settings.model_copy(update={"data_dir": Path(scratch)})
        run_ingest(shop, embedder)
        index = PublishedIndex(shop.index_dir)
        retriever = Retriever(index, top_k=shop.top_k, floor=shop.relevance_floor)
        served = index.current().version
        lines = quotable_lines(served.passages)
        vocabulary = Vocabulary(served.passages)
        started = time.perf_counter()
        warm = dict(zip(lines, embedder.embed(lines), strict=True))
        warm_s = time.perf_counter() - started
        for case in cases:
            vector = embedder.embed([case.question])[0]
            found = retriever.search([vector], query_texts(case.question, case.history))
            passages = fit_passages(
                [neutralise(h) for h in found.passages], count, shop.passage_tokens
            )
            if not passages:
                continue
            texts = [u.text for u in units(passages)]
            for variant in ("naive", "shopdesk"):
                started = time.perf_counter()
                if variant == "naive":
                    matrix = embedder.embed(texts)
                else:  # a line cut by the passage budget is new: embedded on demand, as served
                    missing = [t for t in texts if t not in warm]
                    if missing:
                        warm.update(zip(missing, embedder.embed(missing), strict=True))
                    matrix = np.stack([warm[t] for t in texts])
                selection = select_evidence(
                    case.question, case.history[::-1], passages, (matrix @ vector).tolist()
                )
                verdict = judge(case.question, selection, passages, vocabulary)
                timings[variant].append(time.perf_counter() - started)
            if verdict.partial and isinstance(embedder, WordEmbedder):
                started = time.perf_counter()
                vectors = embedder.word_vectors([case.question, *(e.text for e in selection.lines)])
                near = near_question_words(case.question, vectors)
                judge(case.question, selection, passages, vocabulary, near=near)
                timings["near_words"].append(time.perf_counter() - started)
            started = time.perf_counter()
            for line in selection.lines:
                check_sentence(line.text, passages=passages, question=case.question, product=None)
            timings["claims"].append(time.perf_counter() - started)
    result: dict[str, Any] = {
        "machine": machine(),
        "turns": len(timings["naive"]),
        "warm_lines": len(lines),
        "warm_seconds": round(warm_s, 2),
        "near_words_turns": len(timings["near_words"]),
        "per_turn": {name: percentiles(values) for name, values in timings.items() if values},
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    print(
        f"{result['turns']} turns; {len(lines)} lines warmed once in {warm_s:.1f} s; near words "
        f"on {len(timings['near_words'])} of them"
    )
    print("| per turn | p50 ms | p95 ms | mean ms |\n| --- | ---: | ---: | ---: |")
    for name, figures in result["per_turn"].items():
        print(f"| {name} | {figures['p50_ms']} | {figures['p95_ms']} | {figures['mean_ms']} |")
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
