"""The naive baseline's own pieces: frequency penalty, history blend, stop strings."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from app.sessions.memory import MemorySessionStore
from app.sessions.turn_vectors import TurnVectorCache
from bench.loadbench.naive_pipeline import FrequencyPenalty, Watch, blend, cut_at_stop


def test_frequency_penalty_counts_only_the_answer_tokens() -> None:
    prompt = [5, 5, 5]
    answer = [7, 7, 9]
    ids = torch.tensor([prompt + answer])
    scores = torch.zeros(1, 12)
    penalised = FrequencyPenalty(0.5, prompt_tokens=len(prompt))(ids, scores)
    assert penalised[0, 7].item() == -1.0 and penalised[0, 9].item() == -0.5
    assert penalised[0, 5].item() == 0.0  # the prompt's tokens are not penalised
    assert FrequencyPenalty(0.0, 3)(ids, scores) is scores


def test_the_blend_is_shopdesks() -> None:
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(3, 384)).astype(np.float32)
    current, first, second = (v / np.linalg.norm(v) for v in vectors)
    cache = TurnVectorCache(MemorySessionStore(ttl_s=60), capacity=4, device="cpu")
    theirs = cache.blend(current, [torch.from_numpy(first), torch.from_numpy(second)], (0.6, 0.3))
    mine = blend(current, [first, second], (0.6, 0.3))
    assert np.allclose(mine, theirs, atol=1e-6)
    assert np.linalg.norm(mine) == pytest.approx(1.0)


def test_stop_strings_are_cut_like_vllm_cuts_them() -> None:
    assert cut_at_stop("It weighs 1.5 kg [1].\nCustomer question: and") == "It weighs 1.5 kg [1]."
    assert cut_at_stop("no stop here") == "no stop here"


def test_the_watch_notes_the_first_token_and_stops_when_cancelled() -> None:
    watch = Watch()
    ids = torch.zeros(2, 4, dtype=torch.long)
    assert not watch(ids, torch.zeros(2, 3)).any()
    assert watch.first_token_at > 0
    watch.cancelled.set()
    assert watch(ids, torch.zeros(2, 3)).all()
