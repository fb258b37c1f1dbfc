"""Ingestion benchmark: one passage at a time vs plain batching vs shopdesk's pipeline.

All three embed the same corpus with the same model on the same device in one run: the bundled
knowledge base's passages plus, when ../shared/eval is present, the HetPQA candidate passages
(real product reviews, attributes and descriptions of very uneven length). Then the whole
ingestion job runs twice on the bundled knowledge base: a first run on an empty cache and a
re-run with nothing changed. Prints a table and writes JSON.

    .venv/bin/python -m bench.ingest [--limit N] [--out bench-results/ingest.json]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from app.embedding.embedder import SentenceTransformerEmbedder
from app.embedding.factory import build_embedder
from app.settings import Settings
from ingest.chunking import ChunkingPolicy, chunk_documents
from ingest.pipeline import IngestReport, load_documents, run_ingest

REPO = Path(__file__).resolve().parent.parent

HETPQA = REPO.parent / "shared" / "eval" / "hetpqa" / "evidence_ranking" / "dev.csv"
NAIVE_BATCH = 32


def corpus(settings: Settings, embedder: Any, limit: int | None) -> list[str]:
    documents = load_documents(settings, IngestReport())
    counter = lambda text: embedder.count_tokens([text])[0]  # noqa: E731
    policy = ChunkingPolicy(settings.chunk_tokens, settings.chunk_overlap_tokens)
    texts = [p.embed_text for p in chunk_documents(documents, counter, policy)]
    if HETPQA.exists():
        with HETPQA.open(newline="", encoding="utf-8") as handle:
            texts += [row["candidate"] for row in csv.DictReader(handle, delimiter="\t")]
    return texts[:limit] if limit else texts


def timed(label: str, work: Any) -> tuple[float, Any]:
    print(f"  running {label} ...", flush=True)
    started = time.perf_counter()
    result = work()
    return time.perf_counter() - started, result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="embed only the first N passages")
    parser.add_argument("--out", type=Path, default=REPO / "bench-results" / "ingest.json")
    args = parser.parse_args()

    settings = Settings(knowledge_dir=REPO / "knowledge", embed_device="auto")
    embedder = build_embedder(settings)
    if not isinstance(embedder, SentenceTransformerEmbedder):  # its model is timed bare below
        raise SystemExit(f"bench.ingest: needs the sentence-transformers embedder, not {embedder}")
    texts = corpus(settings, embedder, args.limit)
    model = embedder._load()  # the same loaded model for all three ways
    model.encode(texts[:8])  # warm up

    def one_at_a_time() -> None:
        for text in texts:
            model.encode([text], normalize_embeddings=True, show_progress_bar=False)

    def plain_batches() -> None:
        for start in range(0, len(texts), NAIVE_BATCH):
            model.encode(
                texts[start : start + NAIVE_BATCH],
                batch_size=NAIVE_BATCH,
                normalize_embeddings=True,
                show_progress_bar=False,
            )

    rows: list[dict[str, Any]] = []
    for label, work in (
        ("one passage at a time", one_at_a_time),
        (f"plain batches of {NAIVE_BATCH}", plain_batches),
        ("shopdesk pipeline", lambda: embedder.embed(texts)),
    ):
        seconds, _ = timed(label, work)
        rows.append(
            {"way": label, "seconds": round(seconds, 3), "passages_per_s": len(texts) / seconds}
        )
    for row in rows:
        row["speedup"] = round(row["passages_per_s"] / rows[0]["passages_per_s"], 2)
        row["passages_per_s"] = round(row["passages_per_s"], 1)

    with tempfile.TemporaryDirectory() as scratch:
        job = settings.model_copy(update={"data_dir": Path(scratch)})
        first_s, first = timed(
            "ingest job, first run", lambda: run_ingest(job, build_embedder(job))
        )
        again_s, again = timed(
            "ingest job, unchanged re-run", lambda: run_ingest(job, build_embedder(job))
        )
    incremental = {
        "passages": first.passages,
        "first_run_s": round(first_s, 3),
        "rerun_s": round(again_s, 3),
        "speedup": round(first_s / again_s, 1),
        "rerun_embedded_new": again.embedded_new,
        "rerun_outcome": again.outcome,
    }

    result: dict[str, Any] = {
        "machine": {
            "platform": platform.platform(),
            "processor": platform.processor() or platform.machine(),
            "cpus": os.cpu_count(),
            "device": ", ".join(embedder.devices),
        },
        "model": embedder.model_id,
        "corpus_passages": len(texts),
        "embedding": rows,
        "incremental": incremental,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))

    print(f"\n{len(texts)} passages, {embedder.model_id}, {result['machine']['device']}")
    print(f"{'way':<26} {'seconds':>9} {'passages/s':>11} {'speed-up':>9}")
    for row in rows:
        print(
            f"{row['way']:<26} {row['seconds']:>9.2f} "
            f"{row['passages_per_s']:>11.1f} {row['speedup']:>8.2f}x"
        )
    print(
        f"\ningest job on {first.passages} passages: first run {first_s:.2f}s, "
        f"unchanged re-run {again_s:.3f}s ({incremental['speedup']}x, "
        f"{again.embedded_new} re-embedded)"
    )
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
