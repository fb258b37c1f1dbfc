"""`python -m training.embedder`: tune the packaged all-MiniLM-L6-v2 on shoppers' questions.

Contrastive training with in-batch negatives (sentence-transformers' MultipleNegativesRankingLoss)
on HetPQA question/evidence pairs (training.pairs says which are kept: no held-out product, no
evidence-ranking question). A validation slice of the training products, split by product with
its own salt, chooses the epoch. Writes a sentence-transformers folder that
``SHOPDESK_EMBEDDER_MODEL`` loads, and manifest.json (data, counts, split, settings, figures).
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import os
import platform
import random
import shutil
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np
import sentence_transformers
import torch
import transformers
from sentence_transformers import SentenceTransformer
from sentence_transformers.sentence_transformer.losses import MultipleNegativesRankingLoss

from app.modelstore import resolve_embedder
from app.settings import Settings
from evaluation import datasets, splits
from evaluation.metrics import hit_at, reciprocal_rank
from training import pairs as pairing
from training.pairs import Pair, batches, gather_pairs, sha256

BASE = "packaged:all-MiniLM-L6-v2"
OUTPUT_NAME = "all-MiniLM-L6-v2-hetpqa"
SEED = 7
TRAIN_MAX_TOKENS = 128  # of 256: HetPQA evidence is short (median 19 tokens)


def validation_figures(model: SentenceTransformer, pairs: list[Pair]) -> dict[str, float]:
    """hit@1 and MRR of each validation question over all the validation evidence."""
    relevant: dict[str, set[str]] = defaultdict(set)
    for pair in pairs:
        relevant[pair.question].add(pair.evidence)
    corpus = sorted({p.evidence for p in pairs})
    questions = sorted(relevant)
    was_training = model.training
    model.eval()
    with torch.no_grad():
        q = np.asarray(model.encode(questions, batch_size=64, normalize_embeddings=True))
        d = np.asarray(model.encode(corpus, batch_size=64, normalize_embeddings=True))
    model.train(was_training)
    order = np.argsort(-(q @ d.T), axis=1, kind="stable")
    ranked = {x: [corpus[i] for i in row] for x, row in zip(questions, order, strict=True)}
    return {
        "questions": len(questions),
        "corpus": len(corpus),
        "hit@1": round(float(np.mean([hit_at(ranked[x], relevant[x], 1) for x in questions])), 4),
        "mrr": round(
            float(np.mean([reciprocal_rank(ranked[x], relevant[x]) for x in questions])), 4
        ),
    }


def fine_tune(
    model: SentenceTransformer, train: list[Pair], validation: list[Pair], hyper: dict[str, Any]
) -> tuple[list[dict[str, Any]], int]:
    """Train for ``hyper["epochs"]`` epochs and keep the weights of the epoch with the best
    validation MRR (epoch 0: the base model; the last epoch without a validation slice).
    Returns (figures per epoch, chosen epoch)."""
    rng = random.Random(SEED)
    loss = MultipleNegativesRankingLoss(model, scale=hyper["scale"])
    optimizer = torch.optim.AdamW(
        model.parameters(), lr=hyper["learning_rate"], weight_decay=hyper["weight_decay"]
    )
    steps = hyper["epochs"] * len(batches(train, hyper["batch_size"], random.Random(SEED)))
    schedule = transformers.get_linear_schedule_with_warmup(
        optimizer, int(steps * hyper["warmup_share"]), steps
    )
    history: list[dict[str, Any]] = []
    chosen, best_mrr, best_state = 0, -1.0, None
    if validation:
        history.append({"epoch": 0, **validation_figures(model, validation)})
        best_mrr, best_state = history[0]["mrr"], copy.deepcopy(model.state_dict())
    for epoch in range(1, hyper["epochs"] + 1):
        model.train()
        started, losses = time.perf_counter(), []
        for batch in batches(train, hyper["batch_size"], rng):
            features = [
                model.preprocess([p.question for p in batch]),
                model.preprocess([p.evidence for p in batch]),
            ]
            value = loss(features, torch.empty(0))  # the pairs' order is the label
            value.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            schedule.step()
            optimizer.zero_grad()
            losses.append(float(value.detach()))
        figures: dict[str, Any] = {
            "epoch": epoch,
            "loss": round(float(np.mean(losses)), 4) if losses else None,
            "seconds": round(time.perf_counter() - started, 1),
        }
        if validation:
            figures.update(validation_figures(model, validation))
        history.append(figures)
        print(f"epoch {epoch}: {figures}", flush=True)
        if not validation or figures["mrr"] > best_mrr:
            chosen, best_mrr = epoch, figures.get("mrr", 0.0)
            best_state = copy.deepcopy(model.state_dict()) if validation else None
    if best_state is not None and chosen != hyper["epochs"]:
        model.load_state_dict(best_state)
    model.eval()
    return history, chosen


def save(model: SentenceTransformer, out: Path, manifest: dict[str, Any]) -> None:
    """Write the folder beside ``out`` and move it into place, replacing an earlier run's."""
    if out.exists() and any(out.iterdir()) and not (out / "manifest.json").exists():
        raise SystemExit(f"{out} holds files this script did not write; choose another --out")
    staging = out.with_name(f".{out.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    model.save(str(staging), create_model_card=False)
    manifest["weights_sha256"] = sha256(staging / "model.safetensors")
    (staging / "manifest.json").write_text(json.dumps(manifest, indent=2))
    shutil.rmtree(out, ignore_errors=True)
    staging.rename(out)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m training.embedder", description=__doc__)
    parser.add_argument(
        "--out", type=Path, default=Settings().model_cache_dir / OUTPUT_NAME,
        help="output folder (default: under the model cache, SHOPDESK_MODEL_CACHE_DIR)",
    )  # fmt: skip
    parser.add_argument(
        "--eval-data", type=Path, default=datasets.default_eval_data(),
        help="folder of the public sets (hetpqa/ is used; default: as python -m evaluation's)",
    )  # fmt: skip
    parser.add_argument(
        "--evidence-ranking-pairs", action=argparse.BooleanOptionalAction, default=True,
        help="also train on the evidence-ranking training products' labelled pairs",
    )  # fmt: skip
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--learning-rate", type=float, default=2e-5)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    began = time.perf_counter()
    random.seed(SEED)
    np.random.seed(SEED)
    torch.manual_seed(SEED)
    torch.set_num_threads(os.cpu_count() or 1)
    kept, data = gather_pairs(args.eval_data, add_evidence_ranking=args.evidence_ranking_pairs)
    train, validation = pairing.split_validation(kept)
    hyper = {
        "epochs": args.epochs,
        "batch_size": args.batch_size,
        "learning_rate": args.learning_rate,
        "weight_decay": 0.01,
        "warmup_share": 0.1,
        "scale": 20.0,
        "max_seq_length_training": TRAIN_MAX_TOKENS,
        "gradient_clip": 1.0,
        "seed": SEED,
        "torch_threads": torch.get_num_threads(),
    }
    print(f"pairs: {len(train)} to train, {len(validation)} to validate; {data}", flush=True)
    base = resolve_embedder(BASE)
    model = SentenceTransformer(str(base), device="cpu")
    served_length = model.max_seq_length
    model.max_seq_length = TRAIN_MAX_TOKENS
    trained = time.perf_counter()
    history, chosen = fine_tune(model, train, validation, hyper)
    trained = time.perf_counter() - trained
    model.max_seq_length = served_length  # the service embeds as the base model does
    manifest: dict[str, Any] = {
        "base_model": BASE,
        "base_weights_sha256": sha256(base / "model.safetensors"),
        "loss": "MultipleNegativesRankingLoss (in-batch negatives, cosine, no duplicate "
        "question or evidence in a batch)",
        "data": data,
        "pairs": {
            "train": len(train),
            "train_products": len({p.product for p in train}),
            "validation": len(validation),
            "validation_products": len({p.product for p in validation}),
        },
        "split": {
            "held_out": {
                "by": "product (ASIN)",
                "salt": splits.SALT,
                "share": splits.HELD_OUT_SHARE,
            },
            "validation": {
                "by": "product (ASIN)",
                "salt": pairing.VALIDATION_SALT,
                "share": pairing.VALIDATION_SHARE,
            },
        },
        "hyperparameters": hyper,
        "max_seq_length": served_length,
        "validation": history,
        "chosen_epoch": chosen,
        "seconds": {
            "training": round(trained, 1),
            "total": round(time.perf_counter() - began, 1),
        },
        "trained_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "versions": {
            "python": platform.python_version(),
            "sentence_transformers": sentence_transformers.__version__,
            "transformers": transformers.__version__,
            "torch": torch.__version__,
        },
    }
    save(model, args.out, manifest)
    print(f"written: {args.out} (epoch {chosen}, {manifest['seconds']['total']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
