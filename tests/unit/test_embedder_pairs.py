"""The embedder's training pairs: nothing from a held-out product or an evidence-ranking question,
no duplicate in a batch, a validation slice by product."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

from evaluation.splits import is_held_out
from training.pairs import Pair, batches, gather_pairs, is_validation, split_validation

# product ids on each side of the fixed splits, found once from the hash
HELD_OUT = next(f"H{n}" for n in range(100) if is_held_out(f"H{n}"))
TRAIN = next(f"T{n}" for n in range(100) if not is_held_out(f"T{n}") and not is_validation(f"T{n}"))
OTHER_TRAIN = next(
    f"U{n}" for n in range(100) if not is_held_out(f"U{n}") and not is_validation(f"U{n}")
)


def write_tsv(path: Path, header: list[str], rows: list[list[str]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter="\t")
        writer.writerow(header)
        writer.writerows(rows)
    return path


def hetpqa(root: Path) -> Path:
    """A tiny HetPQA: answer_generation dev/test and evidence_ranking dev, in its own columns."""
    header = ["ASIN", "question", "candidate", "answer", "source"]
    write_tsv(
        root / "hetpqa" / "answer_generation" / "dev.csv",
        header,
        [
            [TRAIN, "How heavy is it?", "weight: 1.2 kg", "1.2 kg", "attribute"],
            [HELD_OUT, "Is it waterproof?", "fully waterproof", "yes", "bullet"],
            [TRAIN, "  DOES it   FOLD flat? ", "folds flat for storage", "yes", "review"],
            [TRAIN, "how heavy is it?", "weight: 1.2 kg", "1.2 kg", "attribute"],
            [TRAIN, "What colour is it?", "", "", "Desc"],
        ],
    )
    write_tsv(
        root / "hetpqa" / "answer_generation" / "test.csv",
        header,
        [[OTHER_TRAIN, "Does it come with batteries?", "batteries included", "yes", "CQA"]],
    )
    write_tsv(
        root / "hetpqa" / "evidence_ranking" / "dev.csv",
        ["qid", "ASIN", "qa_pair_id", "question", "candidate", "label", "source", "confidence"],
        [
            ["1", TRAIN, "a", "does it fold flat?", "folds in half", "1", "review", "1"],
            ["1", TRAIN, "b", "does it fold flat?", "red colour", "0", "bullet", "1"],
            ["2", HELD_OUT, "c", "is it loud?", "quiet motor", "1", "review", "1"],
        ],
    )
    return root


def test_pairs_of_held_out_products_and_evidence_ranking_questions_are_dropped(
    tmp_path: Path,
) -> None:
    kept, data = gather_pairs(hetpqa(tmp_path), add_evidence_ranking=False)
    assert kept == [
        Pair(TRAIN, "How heavy is it?", "weight: 1.2 kg"),
        Pair(OTHER_TRAIN, "Does it come with batteries?", "batteries included"),
    ]
    counts = data["answer_generation_pairs"]
    assert counts["read"] == 6
    assert counts["kept"] == 2
    # the overlap is found through case and spacing; the same pair twice is kept once
    assert counts["dropped"] == {
        "held_out_product": 1,
        "question_in_evidence_ranking": 1,
        "duplicate": 1,
        "empty": 1,
    }
    assert data["evidence_ranking_training_pairs"] == 0
    assert [f["path"] for f in data["files"]] == [
        "hetpqa/answer_generation/dev.csv",
        "hetpqa/answer_generation/test.csv",
        "hetpqa/evidence_ranking/dev.csv",
    ]
    assert all(len(f["sha256"]) == 64 for f in data["files"])
    json.dumps(data)  # goes into the manifest as it is


def test_only_the_training_products_relevant_evidence_ranking_pairs_are_added(
    tmp_path: Path,
) -> None:
    kept, data = gather_pairs(hetpqa(tmp_path), add_evidence_ranking=True)
    added = kept[2:]
    assert added == [Pair(TRAIN, "does it fold flat?", "folds in half")]
    assert data["evidence_ranking_training_pairs"] == 1
    assert all(not is_held_out(p.product) for p in kept)


def test_a_batch_never_holds_a_question_or_an_evidence_twice() -> None:
    pairs = [Pair(f"P{n % 7}", f"Question {n % 40}", f"evidence {n % 55}") for n in range(200)]
    pairs = list(dict.fromkeys(pairs))
    found = batches(pairs, 16, random.Random(1))
    for batch in found:
        assert 1 < len(batch) <= 16
        assert len({p.question.lower() for p in batch}) == len(batch)
        assert len({p.evidence for p in batch}) == len(batch)
    placed = [p for b in found for p in b]
    assert len(placed) == len(set(placed))
    assert len(placed) >= len(pairs) - 1  # only a lone last pair (no negative) is left out
    assert batches(pairs, 16, random.Random(1)) == found  # fixed by the seed


def test_the_validation_slice_is_split_by_product() -> None:
    pairs = [Pair(f"P{n}", f"q{n}-{k}", f"e{n}-{k}") for n in range(300) for k in range(2)]
    train, validation = split_validation(pairs)
    assert {p.product for p in train}.isdisjoint({p.product for p in validation})
    assert 0.05 < len(validation) / len(pairs) < 0.3
    assert len(train) + len(validation) == len(pairs)
