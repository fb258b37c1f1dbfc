"""Knowledge-gaps benchmark: what the staff page costs for 100k unanswered questions, against
the naive ways, in one run on one machine.

- embedding: the service's embedder batched (the page's way) against one call per question,
  on really embedded perturbed Bitext questions; and what embedding all of them cold would take;
- the page's recompute on a SQLite transcript file of 100k gap turns (declined, low
  groundedness, thumbs down, hand-offs) whose vectors are cached (as they are once the page has
  seen them): cold, after one new question, and unchanged (the kept report);
- grouping: Faiss k-means cells merged by agglomerative clustering, against agglomerative
  clustering of all questions pairwise (O(n²)) on smaller n; with the agreement of the groups
  with the Bitext intents.

The 100k questions' vectors are their Bitext utterances' real MiniLM vectors plus noise sized
to the measured distance between a perturbed question and its utterance (embedding 100k on a
2-core CPU would take the twenty-odd minutes the cache exists to pay once). Prints a table and
writes JSON.

    .venv/bin/python -m bench.gaps [--questions 100000] [--out bench-results/gaps.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import psutil
from sklearn.cluster import AgglomerativeClustering
from sklearn.metrics import adjusted_rand_score, homogeneity_completeness_v_measure

from app.chat.turn import AnswerParts, FinishedTurn
from app.embedding.factory import build_embedder
from app.gaps.clustering import GROUP_DISTANCE, group_vectors
from app.gaps.service import KnowledgeGaps
from app.settings import Settings
from app.transcripts.db import make_engine, session_factory, upgrade
from app.transcripts.writes import record_turn
from bench.e2e import machine
from bench.gap_questions import (
    START,
    bitext,
    cache_vectors,
    fill_transcripts,
    jittered,
    questions,
)

REPO = Path(__file__).resolve().parent.parent


@contextmanager
def measured(label: str, into: dict[str, Any]) -> Iterator[None]:
    """Time the block and sample the process's RSS every 20 ms: ``into[label]`` gets the seconds
    and the peak above the RSS at the start (MiB)."""
    print(f"  {label} ...", flush=True)
    process, peak, done = psutil.Process(), [0], threading.Event()
    start_rss = process.memory_info().rss

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], process.memory_info().rss - start_rss)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.perf_counter()
    try:
        yield
    finally:
        seconds = time.perf_counter() - started
        done.set()
        sampler.join()
        peak[0] = max(peak[0], process.memory_info().rss - start_rss)
        into[label] = {"seconds": round(seconds, 3), "peak_mib": round(peak[0] / 2**20, 1)}


def quality(truth: list[str], labels: np.ndarray) -> dict[str, float]:
    homogeneity, completeness, v = homogeneity_completeness_v_measure(truth, labels)
    return {
        "groups": int(labels.max()) + 1,
        "adjusted_rand": round(float(adjusted_rand_score(truth, labels)), 3),
        "homogeneity": round(float(homogeneity), 3),
        "completeness": round(float(completeness), 3),
        "v_measure": round(float(v), 3),
    }


def embedding(
    embedder: Any, texts: list[str], naive: int, runs: dict[str, Any]
) -> tuple[np.ndarray, float]:
    """Embed ``texts`` batched, and the first ``naive`` one call each; returns the vectors and
    the batched questions/s."""
    embedder.embed(texts[:16])  # loaded and warm
    with measured("embed batched", runs):
        vectors = embedder.embed(texts)
    with measured("embed one per call (naive)", runs):
        for text in texts[:naive]:
            embedder.embed([text])
    runs["embed batched"]["questions"] = len(texts)
    runs["embed one per call (naive)"]["questions"] = naive
    for run in ("embed batched", "embed one per call (naive)"):
        runs[run]["per_s"] = round(runs[run]["questions"] / runs[run]["seconds"], 1)
    return vectors, float(runs["embed batched"]["per_s"])


async def page(gaps: KnowledgeGaps, engine: Any, runs: dict[str, Any]) -> dict[str, Any]:
    """The page's recompute over the whole window: cold, one question later, unchanged (in one
    event loop, as in the server: ``asyncio.run`` would spend seconds on the report's repr)."""
    with measured("page: cold (vectors cached)", runs):
        first = await gaps.report(since=None, until=None)
    late = FinishedTurn(
        session_id="bench-late", turn_index=0, question="can i pay with bitcoin", answer="…",
        answered=False, groundedness=0.0, engine="vllm", model="m", index_version="v1",
        timings={}, prompt_tokens=0, cached_tokens=0, generated_tokens=0, passages=(),
        created_at=START + timedelta(days=31), parts=AnswerParts(declined="no_match"),
    )  # fmt: skip
    with session_factory(engine)() as session:
        record_turn(session=session, turn=late)
    with measured("page: one new question", runs):
        later = await gaps.report(since=None, until=None)
    with measured("page: unchanged (kept report)", runs):
        await gaps.report(since=None, until=None)
    return {
        "questions": first.questions,
        "groups": len(first.groups),
        "largest_groups": [g.count for g in first.groups[:5]],
        "embedded_after_one_new": later.embedded,
    }


def grouping(
    vectors: np.ndarray, truth: list[str], sizes: list[int], runs: dict[str, Any]
) -> dict[str, Any]:
    """Ours against pairwise agglomerative clustering at each size, and ours on everything."""
    scores: dict[str, Any] = {}
    for n in sizes:
        with measured(f"group {n}: k-means cells + agglomerative", runs):
            ours = group_vectors(vectors[:n])
        with measured(f"group {n}: pairwise agglomerative (naive)", runs):
            naive = AgglomerativeClustering(
                n_clusters=None, distance_threshold=GROUP_DISTANCE, metric="cosine",
                linkage="average",
            ).fit_predict(vectors[:n])  # fmt: skip
        scores[str(n)] = {"ours": quality(truth[:n], ours), "naive": quality(truth[:n], naive)}
    with measured(f"group {len(vectors)}: k-means cells + agglomerative", runs):
        labels = group_vectors(vectors)
    scores[str(len(vectors))] = {"ours": quality(truth, labels)}
    return scores


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--questions", type=int, default=100_000)
    parser.add_argument("--embed-sample", type=int, default=2_000)
    parser.add_argument("--naive-embed", type=int, default=200)
    parser.add_argument("--naive-sizes", type=int, nargs="*", default=[1_000, 2_000, 4_000])
    parser.add_argument("--out", type=Path, default=REPO / "bench-results" / "gaps.json")
    args = parser.parse_args()
    load_before = os.getloadavg()
    settings = Settings(_env_file=None, embed_device="cpu")
    embedder = build_embedder(settings)
    source = bitext()
    texts, picks = questions(source, args.questions, seed=7)
    truth = [source.intents[i] for i in picks]
    runs: dict[str, Any] = {}

    sample, per_s = embedding(embedder, texts[: args.embed_sample], args.naive_embed, runs)
    with measured("embed the Bitext utterances", runs):
        base = embedder.embed(source.texts)
    cosine = float(np.mean(np.sum(sample * base[picks[: args.embed_sample]], axis=1)))
    vectors = jittered(base, picks, cosine, seed=7)
    scores = grouping(vectors, truth, args.naive_sizes, runs)
    scores["bitext utterances, really embedded"] = {
        "ours": quality(source.intents, group_vectors(base))
    }

    with tempfile.TemporaryDirectory() as scratch:
        url = f"sqlite:///{Path(scratch) / 'transcripts.sqlite3'}"
        upgrade(url)
        engine = make_engine(url)
        with measured("fill the transcripts (not the page's cost)", runs):
            ids = fill_transcripts(engine, texts, seed=7)
            cache_vectors(engine, embedder.model_id, ids, vectors)
        gaps = KnowledgeGaps(session_factory(engine), embedder, floor=settings.min_groundedness)
        shown = asyncio.run(page(gaps, engine, runs))
        database_mib = round(Path(scratch, "transcripts.sqlite3").stat().st_size / 2**20, 1)
        engine.dispose()

    cold_page = runs["page: cold (vectors cached)"]["seconds"]
    result: dict[str, Any] = {
        "machine": {**machine(), "device": "cpu", "load_before": load_before,
                    "load_after": os.getloadavg(),
                    "note": "a shared machine: other engineers' CPU-heavy jobs ran alongside"},
        "model": embedder.model_id,
        "questions": len(texts),
        "distinct_questions": len(set(texts)),
        "perturbed_to_utterance_cosine": round(cosine, 3),
        "group_distance": GROUP_DISTANCE,
        "runs": runs,
        "page": shown,
        "database_mib": database_mib,
        "extrapolated": {
            "embed_all_cold_s": round(len(texts) / per_s, 1),
            "page_without_vector_cache_s": round(len(texts) / per_s + cold_page, 1),
        },
        "grouping_quality_vs_intents": scores,
    }  # fmt: skip
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2))
    report(result, args.out)
    return 0


def report(result: dict[str, Any], out: Path) -> None:
    print(f"\n{result['questions']:,} gap questions, {result['model']}, {result['machine']}")
    print(f"{'step':<52} {'seconds':>9} {'peak MiB':>9} {'per s':>9}")
    for label, run in result["runs"].items():
        rate = f"{run['per_s']:>9.1f}" if "per_s" in run else ""
        print(f"{label:<52} {run['seconds']:>9.2f} {run['peak_mib']:>9.1f} {rate}")
    extra = result["extrapolated"]
    cold = extra["embed_all_cold_s"]
    print(f"\nembedding all {result['questions']:,} cold (extrapolated): {cold} s")
    print(f"page: {result['page']}")
    for n, score in result["grouping_quality_vs_intents"].items():
        print(f"groups vs intents, {n}: {score}")
    print(f"written to {out}")


if __name__ == "__main__":
    sys.exit(main())
