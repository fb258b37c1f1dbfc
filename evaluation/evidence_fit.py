"""`python -m evaluation.evidence_fit`: fit the evidence selector's weights on the tuning part.

Every labelled shop question is asked once through the real service with the extractive policy
(no generation), and each turn's evidence-selection inputs are recorded: the passages, the
cosine of the question (and of each of its parts) with every quotable unit, the product the
turn is about. Those do not depend on the weights, so each weight setting is then replayed in
memory (selection, answerability, the composed answer, its key facts) in about a second.

The weights are searched one at a time over a small grid (two rounds of coordinate descent) on
the **tuning part only**, for the highest key facts + unanswerable declined - wrongly declined;
the report and fresh parts are scored once, with the weights found, as the held-out reading.
Writes bench-results/evidence_fit.json.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from app.chat import evidence
from app.chat import service as chat_service
from app.chat.answerability import Verdict, judge
from app.chat.catalog import Catalog, Product
from app.chat.compose import WITH_CLOSEST_LINES, composed_pieces
from app.chat.evidence import Selection, select_evidence
from app.chat.near_words import near_question_words
from app.chat.reading import read_question
from app.chat.vocabulary import Vocabulary
from app.embedding.embedder import WordEmbedder, WordVectors
from app.embedding.factory import build_embedder
from app.retrieval.published_index import ScoredPassage
from app.settings import Settings
from evaluation import datasets
from evaluation.answer_eval import evaluate_answers, facts_found

REPO = Path(__file__).resolve().parents[1]
# the weights searched, each over its grid (the module's current value is where it starts)
GRID: dict[str, tuple[float, ...]] = {
    "WORD_WEIGHT": (0.05, 0.1, 0.15, 0.2, 0.3),
    "PRODUCT_WEIGHT": (0.1, 0.2, 0.3, 0.4, 0.6),
    "RANK_PENALTY": (0.0, 0.01, 0.02, 0.04, 0.06),
    "LABEL_WEIGHT": (0.0, 0.1, 0.15, 0.25, 0.35),
    "SECOND_LINE_MARGIN": (0.2, 0.3, 0.4, 0.5, 0.7),
    "FAQ_WEIGHT": (0.2, 0.3, 0.45, 0.6, 0.8),
    "RANGE_WEIGHT": (0.15, 0.3, 0.45),
}
ROUNDS = 2


@dataclass(frozen=True)
class RecordedTurn:
    """What one turn's evidence selection and verdict were given."""

    question: str
    earlier: tuple[str, ...]
    passages: list[ScoredPassage]
    similarity: list[float]
    about: str | None
    parts: list[tuple[str, list[float]]]
    product: Product | None  # the product the verdict judged against
    vocabulary: Vocabulary
    catalog: Catalog | None
    answering: str | None = None  # the passage the pages' structure says answers


@contextmanager
def recording(turns: dict[tuple[str, tuple[str, ...]], RecordedTurn]) -> Iterator[None]:
    """Record each turn's selection inputs while the service runs. The verdict follows its
    selection in the same task with no await between, so the two calls pair up."""
    last: dict[str, Any] = {}

    def select(question: str, earlier: Any, passages: Any, similarity: Any, **kw: Any) -> Any:
        last.update(question=question, earlier=tuple(earlier), passages=list(passages),
                    similarity=list(similarity), about=kw.get("about"),
                    parts=[(p, list(s)) for p, s in kw.get("parts", ())],
                    answering=kw.get("answering"))  # fmt: skip
        return select_evidence(question, earlier, passages, similarity, **kw)

    def verdict(question: str, selection: Selection, passages: Any, vocabulary: Any, **kw: Any
                ) -> Verdict:  # fmt: skip
        if last.get("question") == question:
            turn = RecordedTurn(**last, product=kw.get("product"), vocabulary=vocabulary,
                                catalog=kw.get("catalog"))  # fmt: skip
            turns[(question, turn.earlier)] = turn
        return judge(question, selection, passages, vocabulary, **kw)

    with (
        mock.patch.object(chat_service, "select_evidence", select),
        mock.patch.object(chat_service, "judge", verdict),
    ):
        yield


def replay(turn: RecordedTurn, case: datasets.Case, words: WordEmbedder | None = None
           ) -> dict[str, Any]:  # fmt: skip
    """The turn's outcome under the evidence module's current weights (the hedge counting the
    question's words the lines hold in other words, as the service does, when ``words`` is
    given)."""
    selection = select_evidence(
        turn.question, turn.earlier, turn.passages, turn.similarity, about=turn.about,
        parts=turn.parts, answering=turn.answering,
    )  # fmt: skip
    verdict_of = functools.partial(
        judge, turn.question, selection, turn.passages, turn.vocabulary, catalog=turn.catalog,
        product=turn.product, earlier=turn.earlier[0] if turn.earlier else "",
        said=case.question,
    )  # fmt: skip
    found = verdict_of()
    if found.partial and words is not None:
        vectors = _word_vectors(words, (turn.question, *(e.text for e in selection.lines)))
        found = verdict_of(near=near_question_words(turn.question, vectors))
    if not found.answerable:  # some declines still show the closest lines
        shown = found.reason in WITH_CLOSEST_LINES
        answer = "".join(composed_pieces(selection.shown, turn.passages)) if shown else ""
        return {"declined": True, "key_facts": facts_found(answer, case.key_facts)}
    answer = "".join(composed_pieces(selection.shown, turn.passages, partial=found.partial))
    return {"declined": found.partial, "key_facts": facts_found(answer, case.key_facts)}


_WORD_VECTORS: dict[str, WordVectors] = {}  # the same lines come back in every replay


def _word_vectors(words: WordEmbedder, texts: tuple[str, ...]) -> list[WordVectors]:
    missing = [t for t in dict.fromkeys(texts) if t not in _WORD_VECTORS]
    _WORD_VECTORS.update(zip(missing, words.word_vectors(missing), strict=True))
    return [_WORD_VECTORS[t] for t in texts]


def figures(rows: list[dict[str, Any]]) -> dict[str, float]:
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    result = {
        "key_facts": _mean(r["key_facts"] for r in answerable),
        "all_key_facts": _mean(r["key_facts"] == 1.0 for r in answerable),
        "wrongly_declined": _mean(r["declined"] for r in answerable),
        "declined_unanswerable": _mean(r["declined"] for r in unanswerable),
    }
    result["objective"] = (
        result["key_facts"] + result["declined_unanswerable"] - result["wrongly_declined"]
    )
    return {name: round(value, 4) for name, value in result.items()}


def _mean(values: Iterable[float]) -> float:
    found = list(values)
    return sum(found) / len(found) if found else 0.0


def score_all(
    asked: list[tuple[datasets.Case, dict[str, Any]]],
    turns: dict[tuple[str, tuple[str, ...]], RecordedTurn],
    words: WordEmbedder | None = None,
) -> list[dict[str, Any]]:
    """Each case scored under the current weights; a case declined before any evidence was
    chosen (nothing retrieved, a screened message) keeps its recorded outcome."""
    rows = []
    for case, seen in asked:
        turn = recorded_turn(turns, case)
        outcome = replay(turn, case, words) if turn is not None else seen
        rows.append({"part": case.part, "answerable": case.answerable, **outcome})
    return rows


def recorded_turn(
    turns: dict[tuple[str, tuple[str, ...]], RecordedTurn], case: datasets.Case
) -> RecordedTurn | None:
    """The turn recorded for ``case``: asked in its own words, or as the service read them
    (`app.chat.reading`: "Belfast" as "Belfast (Northern Ireland)")."""
    earlier = tuple(reversed(case.history))[:2]
    turn = turns.get((case.question, earlier))
    if turn is None and turns:
        vocabulary = next(iter(turns.values())).vocabulary
        last = case.history[-1] if case.history else ""
        turn = turns.get((read_question(case.question, last, vocabulary), earlier))
    return turn


def fit(asked: list[tuple[datasets.Case, dict[str, Any]]],
        turns: dict[tuple[str, tuple[str, ...]], RecordedTurn],
        words: WordEmbedder | None = None) -> dict[str, float]:  # fmt: skip
    """Coordinate descent over GRID on the tuning part; leaves the best weights set."""
    tuning = [(c, seen) for c, seen in asked if c.part == "tuning"]
    weights = {name: float(getattr(evidence, name)) for name in GRID}
    best = figures(score_all(tuning, turns, words))["objective"]
    for _ in range(ROUNDS):
        for name, grid in GRID.items():
            for value in grid:
                setattr(evidence, name, value)
                found = figures(score_all(tuning, turns, words))["objective"]
                if found > best + 1e-9:
                    best, weights[name] = found, value
            setattr(evidence, name, weights[name])
    return weights


async def record(cases: list[datasets.Case]) -> tuple[list[dict[str, Any]], dict[Any, Any]]:
    from app.container import build_container

    turns: dict[tuple[str, tuple[str, ...]], RecordedTurn] = {}
    with recording(turns):
        # the shop's lines only: no generation, and the selection is the same in every policy
        async with build_container(Settings(answer_policy="extractive")) as container:
            scored = await evaluate_answers(cases, container.chat)
    return scored["rows"], turns


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m evaluation.evidence_fit")
    parser.add_argument("--out-dir", type=Path, default=REPO / "bench-results")
    args = parser.parse_args()
    cases = datasets.answer_cases()
    rows, turns = asyncio.run(record(cases))
    seen = {r["id"]: {"declined": r["declined"], "key_facts": r.get("key_facts", 0.0)}
            for r in rows}  # fmt: skip
    asked = [(c, seen[c.id]) for c in cases]
    start = {name: float(getattr(evidence, name)) for name in GRID}
    embedder = build_embedder(Settings())
    words = embedder if isinstance(embedder, WordEmbedder) else None
    before = score_all(asked, turns, words)
    weights = fit(asked, turns, words)
    after = score_all(asked, turns, words)
    result: dict[str, Any] = {"start": start, "fitted": weights, "parts": {}}
    for part in ("tuning", "report", "fresh"):
        result["parts"][part] = {
            "before": figures([r for r in before if r["part"] == part]),
            "after": figures([r for r in after if r["part"] == part]),
        }
    args.out_dir.mkdir(parents=True, exist_ok=True)
    (args.out_dir / "evidence_fit.json").write_text(json.dumps(result, indent=2))
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
