"""Question/evidence pairs for tuning the embedder, kept apart from everything it is scored on.

HetPQA answer_generation pairs a shopper's question with the evidence that answers it. A pair is
dropped when its product is one of HetPQA's held-out products (`evaluation.splits`, the ranker's
split) or its question is also an evidence-ranking question (the set the embedder is scored on).
The evidence-ranking training products' labelled pairs may be added; held-out ones never are.
Also the batches: in-batch negatives want no question or evidence twice in one batch.
"""

from __future__ import annotations

import csv
import hashlib
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evaluation import datasets, splits

VALIDATION_SALT = "shopdesk-embedder-validation-v1"  # not the held-out split's salt
VALIDATION_SHARE = 0.15  # of the training products
ANSWER_FILES = ("dev.csv", "test.csv")


@dataclass(frozen=True)
class Pair:
    """A question and one passage that answers it, about one product."""

    product: str
    question: str
    evidence: str


def normalise(question: str) -> str:
    """Lower case, whitespace collapsed: how questions are compared across files."""
    return " ".join(question.lower().split())


def read_answer_generation(path: Path) -> list[Pair]:
    """Every row of an answer_generation file (ASIN, question, candidate, answer, source)."""
    with path.open(newline="", encoding="utf-8") as handle:
        return [
            Pair(row["ASIN"], row["question"].strip(), (row["candidate"] or "").strip())
            for row in csv.DictReader(handle, delimiter="\t")
        ]


def evidence_ranking_questions(path: Path) -> set[str]:
    """The evidence-ranking questions, normalised (training and held-out products alike)."""
    with path.open(newline="", encoding="utf-8") as handle:
        return {normalise(row["question"]) for row in csv.DictReader(handle, delimiter="\t")}


def evidence_ranking_pairs(path: Path) -> list[Pair]:
    """The labelled (relevant) pairs of the evidence-ranking questions on training products."""
    passages, cases = datasets.hetpqa(path)
    text = {p.id: p.text for p in passages}
    train, _ = splits.split_by_product(cases)
    return [
        Pair(case.product, case.question, text[pid])
        for case in train
        for pid in sorted(case.relevant)
    ]


def keep_pairs(pairs: list[Pair], scored_questions: set[str]) -> tuple[list[Pair], Counter[str]]:
    """(pairs kept, count of each reason a pair was dropped), the first reason that applies."""
    kept: list[Pair] = []
    dropped: Counter[str] = Counter()
    seen: set[tuple[str, str]] = set()
    for pair in pairs:
        key = (normalise(pair.question), pair.evidence)
        if splits.is_held_out(pair.product):
            dropped["held_out_product"] += 1
        elif key[0] in scored_questions:
            dropped["question_in_evidence_ranking"] += 1
        elif not pair.question or not pair.evidence:
            dropped["empty"] += 1
        elif key in seen:
            dropped["duplicate"] += 1
        else:
            seen.add(key)
            kept.append(pair)
    return kept, dropped


def is_validation(product: str) -> bool:
    return splits.bucket(product, VALIDATION_SALT) < VALIDATION_SHARE


def split_validation(pairs: list[Pair]) -> tuple[list[Pair], list[Pair]]:
    """(train, validation) by product: the validation slice chooses the number of epochs."""
    return (
        [p for p in pairs if not is_validation(p.product)],
        [p for p in pairs if is_validation(p.product)],
    )


def batches(pairs: list[Pair], size: int, rng: random.Random) -> list[list[Pair]]:
    """Shuffled batches in which no question and no evidence appears twice: another pair's
    evidence is a negative, so a second copy of one's own would be a false one."""
    left = list(pairs)
    rng.shuffle(left)
    out = []
    while left:
        batch: list[Pair] = []
        questions: set[str] = set()
        evidence: set[str] = set()
        rest = []
        for pair in left:
            question = normalise(pair.question)
            if len(batch) < size and question not in questions and pair.evidence not in evidence:
                batch.append(pair)
                questions.add(question)
                evidence.add(pair.evidence)
            else:
                rest.append(pair)
        out.append(batch)
        left = rest
    return [b for b in out if len(b) > 1]  # a lone pair has no negative


def sha256(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def gather_pairs(
    eval_data: Path, *, add_evidence_ranking: bool
) -> tuple[list[Pair], dict[str, Any]]:
    """The kept pairs and what was read, kept and dropped (for the manifest)."""
    ranking = eval_data / "hetpqa" / "evidence_ranking" / "dev.csv"
    answers = [eval_data / "hetpqa" / "answer_generation" / name for name in ANSWER_FILES]
    read = [pair for path in answers for pair in read_answer_generation(path)]
    kept, dropped = keep_pairs(read, evidence_ranking_questions(ranking))
    added = evidence_ranking_pairs(ranking) if add_evidence_ranking else []
    data = {
        "files": [
            {"path": str(path.relative_to(eval_data)), "sha256": sha256(path)}
            for path in (*answers, ranking)
        ],
        "answer_generation_pairs": {"read": len(read), "kept": len(kept), "dropped": dropped},
        "evidence_ranking_training_pairs": len(added),
        "evidence_ranking_use": "questions: dropped from answer_generation; "
        + ("labelled pairs of the training products: added" if added else "pairs: not added"),
    }
    return kept + added, data
