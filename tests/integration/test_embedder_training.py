"""`python -m training.embedder` on 16 pairs, one step: the folder it writes is one the service's
embedder loads as it is, and its manifest says what was trained on what."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from app.embedding.embedder import SentenceTransformerEmbedder
from app.embedding.factory import build_embedder
from app.settings import Settings
from evaluation.splits import is_held_out
from tests.unit.test_embedder_pairs import write_tsv
from training.embedder import main
from training.pairs import is_validation

PRODUCTS = [
    f"B{n:04d}"
    for n in range(200)
    if not is_held_out(f"B{n:04d}") and not is_validation(f"B{n:04d}")
][:16]


def test_one_step_writes_a_folder_the_service_loads(tmp_path: Path) -> None:
    data = tmp_path / "eval"
    header = ["ASIN", "question", "candidate", "answer", "source"]
    rows = [[p, f"how long is the cable of item {n}?", f"cable length {n} m", "", "bullet"]
            for n, p in enumerate(PRODUCTS)]  # fmt: skip
    write_tsv(data / "hetpqa" / "answer_generation" / "dev.csv", header, rows)
    write_tsv(data / "hetpqa" / "answer_generation" / "test.csv", header, [])
    write_tsv(
        data / "hetpqa" / "evidence_ranking" / "dev.csv",
        ["qid", "ASIN", "qa_pair_id", "question", "candidate", "label", "source", "confidence"],
        [],
    )
    out = tmp_path / "tuned"
    argv = ["--out", str(out), "--eval-data", str(data), "--epochs", "1", "--batch-size", "16"]
    assert main(argv) == 0

    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["base_model"] == "packaged:all-MiniLM-L6-v2"
    assert manifest["pairs"]["train"] == 16
    assert manifest["pairs"]["validation"] == 0
    assert manifest["data"]["answer_generation_pairs"]["kept"] == 16
    assert manifest["chosen_epoch"] == 1
    assert manifest["validation"][0]["loss"] > 0
    assert manifest["max_seq_length"] == 256  # trained on 128 tokens, served as the base model
    assert manifest["weights_sha256"] != manifest["base_weights_sha256"]

    tuned = SentenceTransformerEmbedder(out, name="tuned", device="cpu")
    packaged = build_embedder(Settings(embed_device="cpu"))
    texts = ["how long is the cable?", "cable length 2 m"]
    vectors = tuned.embed(texts)
    assert vectors.shape == (2, packaged.dimension)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert not np.allclose(vectors, packaged.embed(texts), atol=1e-4)  # one step moved it
    assert tuned.model_id != packaged.model_id  # so the embedding cache tells them apart
