"""The knowledge-gaps benchmark's own logic: its synthetic questions and their vectors, and the
transcripts it fills, read back as the page reads them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from app.transcripts.db import make_engine, session_factory, upgrade
from app.transcripts.gaps import GapWindow, gap_questions, question_vectors
from bench.gap_questions import (
    BITEXT,
    Utterances,
    bitext,
    cache_vectors,
    fill_transcripts,
    jittered,
    questions,
)

SOURCE = Utterances(
    ["how can I cancel my order?", "where is my refund", "I want to change my address"],
    ["cancel_order", "track_refund", "change_shipping_address"],
)


def test_questions_are_perturbed_utterances_the_same_for_a_seed() -> None:
    texts, picks = questions(SOURCE, 300, seed=1)
    assert (texts, picks) == questions(SOURCE, 300, seed=1)
    assert len(set(texts)) > 100  # shoppers' variations, not copies
    assert set(picks) == {0, 1, 2}
    refunds = [t for t, i in zip(texts, picks, strict=True) if i == 1]
    assert sum("refund" in t.lower() for t in refunds) > 0.6 * len(refunds)


@pytest.mark.parametrize("cosine", [0.9, 0.75])
def test_jittered_vectors_sit_at_the_measured_distance_from_their_utterance(
    cosine: float,
) -> None:
    rng = np.random.default_rng(0)
    base = rng.normal(size=(3, 384)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    picks = rng.integers(0, 3, size=2000).tolist()
    vectors = jittered(base, picks, cosine, seed=2)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1, atol=1e-5)
    assert np.mean(np.sum(vectors * base[picks], axis=1)) == pytest.approx(cosine, abs=0.01)


def test_the_filled_transcripts_are_all_gaps_with_their_vectors_cached(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 't.db'}"
    upgrade(url)
    engine = make_engine(url)
    texts, _ = questions(SOURCE, 400, seed=3)
    ids = fill_transcripts(engine, texts, seed=3)
    vectors = np.eye(400, 384, dtype=np.float32)
    cache_vectors(engine, "m", ids, vectors)
    with session_factory(engine)() as session:
        found = gap_questions(session=session, window=GapWindow(0.5))
        cached = question_vectors(session=session, window=GapWindow(0.5), model_id="m")
    engine.dispose()
    assert [q.question for q in found] == texts
    reasons = {r for q in found for r in q.reasons}
    assert reasons == {"declined", "low_groundedness", "thumbs_down", "handoff"}
    assert len(cached) == 400 and len(cached[ids[0]]) == 2 * 384


def test_the_bitext_utterances_come_with_their_intents() -> None:
    if not BITEXT.exists():
        pytest.skip("../shared/eval is not present")
    source = bitext()
    assert len(source.texts) == len(source.intents) == 4514
    assert len(set(source.intents)) == 27 and "cancel_order" in source.intents
