"""Synthetic but realistic unanswered questions for the knowledge-gaps benchmark, and a
transcript database holding them as turns.

The questions are Bitext customer-support utterances (4,514, labelled with 27 intents, already
with typos and casual phrasing) sampled and perturbed the way shoppers vary a question: casing,
greetings and sign-offs, a dropped or swapped letter, missing punctuation. Each keeps its
utterance's intent, so the grouping can be scored against the intents.
"""

from __future__ import annotations

import csv
import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
from sqlalchemy import Engine, insert

from app.transcripts.db import session_factory
from app.transcripts.gaps import store_question_vectors
from app.transcripts.models import Conversation, Escalation, Feedback, Message

BITEXT = (
    Path(__file__).resolve().parent.parent.parent
    / "shared"
    / "eval"
    / "bitext"
    / "Bitext_Sample_Customer_Support_Training_Dataset.csv"
)
OPENERS = ("", "", "", "hi, ", "hello ", "hey, ", "quick question: ", "Hi there! ", "excuse me, ")
CLOSERS = ("", "", "", " please", " thanks", " asap", " thank you!", " ??", " pls help")
START = datetime(2026, 11, 1, tzinfo=UTC)


@dataclass(frozen=True)
class Utterances:
    texts: list[str]
    intents: list[str]


def bitext() -> Utterances:
    with BITEXT.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return Utterances([r["instruction"] for r in rows], [r["intent"] for r in rows])


def _typo(text: str, rng: random.Random) -> str:
    words = text.split()
    long = [i for i, w in enumerate(words) if len(w) > 3]
    if not long:
        return text
    i = rng.choice(long)
    word, at = words[i], rng.randrange(len(words[i]) - 1)
    if rng.random() < 0.5:
        words[i] = word[:at] + word[at + 1] + word[at] + word[at + 2 :]  # swapped letters
    else:
        words[i] = word[:at] + word[at + 1 :]  # a dropped letter
    return " ".join(words)


def perturb(text: str, rng: random.Random) -> str:
    """One shopper's way of asking ``text``."""
    text = text.strip()
    if rng.random() < 0.4:
        text = _typo(text, rng)
    if rng.random() < 0.3:
        text = text.lower()
    elif rng.random() < 0.2:
        text = text[:1].upper() + text[1:]
    if rng.random() < 0.3:
        text = text.rstrip("?.!")
    return (rng.choice(OPENERS) + text + rng.choice(CLOSERS)).strip()


def questions(source: Utterances, count: int, seed: int) -> tuple[list[str], list[int]]:
    """``count`` perturbed questions and the index of the utterance each came from."""
    rng = random.Random(seed)
    picks = [rng.randrange(len(source.texts)) for _ in range(count)]
    return [perturb(source.texts[i], rng) for i in picks], picks


def jittered(base: np.ndarray, picks: list[int], cosine: float, seed: int) -> np.ndarray:
    """Vectors for questions whose utterances' vectors are ``base``: each its utterance's, plus
    Gaussian noise sized so that the mean cosine to it is ``cosine`` (as measured on really
    embedded perturbed questions): for unit v, cos(v, v + e) ≈ 1/sqrt(1 + d·σ²)."""
    dimension = base.shape[1]
    sigma = np.sqrt(max(1 / cosine**2 - 1, 0.0) / dimension)
    rng = np.random.default_rng(seed)
    vectors = base[picks] + rng.normal(scale=sigma, size=(len(picks), dimension))
    return (vectors / np.linalg.norm(vectors, axis=1, keepdims=True)).astype(np.float32)


def fill_transcripts(engine: Engine, texts: list[str], *, seed: int) -> list[int]:
    """Store ``texts`` as the first turns of as many conversations over 30 days, each a gap:
    about half declined, a third answered with low groundedness, the rest rated thumbs down or
    followed by a hand-off. Returns the message ids in order. Bulk inserts, not record_turn:
    filling the table is not what is measured."""
    rng = random.Random(seed)
    conversations, messages, ratings, handoffs = [], [], [], []
    for n, text in enumerate(texts, start=1):
        at = START + timedelta(seconds=n * 26)  # 100k turns over 30 days
        conversations.append(
            {"id": n, "session_id": f"bench-{n}", "started_at": at, "last_message_at": at,
             "turns": 1, "escalated": False, "any_unanswered": True}
        )  # fmt: skip
        draw = rng.random()
        declined = rng.choice(("floor", "no_match", "partial")) if draw < 0.5 else None
        grounded = 0.2 if 0.5 <= draw < 0.83 else 0.9
        messages.append(
            {"id": n, "conversation_id": n, "turn_index": 0, "question": text,
             "answer": "…", "answered": declined is None, "groundedness": grounded,
             "engine": "vllm", "model": "m", "index_version": "v1", "timings": {},
             "prompt_tokens": 0, "cached_tokens": 0, "generated_tokens": 0, "created_at": at,
             "declined": declined}
        )  # fmt: skip
        if 0.83 <= draw < 0.95:
            ratings.append({"message_id": n, "rating": -1, "created_at": at})
        elif draw >= 0.95:
            handoffs.append({"conversation_id": n, "reason": "a person", "created_at": at})
    with engine.begin() as connection:
        for model, rows in (
            (Conversation, conversations),
            (Message, messages),
            (Feedback, ratings),
            (Escalation, handoffs),
        ):
            connection.execute(insert(model), rows)
    return list(range(1, len(texts) + 1))


def cache_vectors(engine: Engine, model_id: str, ids: list[int], vectors: np.ndarray) -> None:
    """Fill the page's vector cache as if every question had been embedded before."""
    stored = vectors.astype("<f2")
    sessions = session_factory(engine)
    for start in range(0, len(ids), 10_000):
        chunk = {ids[i]: stored[i].tobytes() for i in range(start, min(start + 10_000, len(ids)))}
        with sessions() as session:
            store_question_vectors(session=session, model_id=model_id, vectors=chunk)
