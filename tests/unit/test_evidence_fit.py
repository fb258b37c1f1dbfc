"""The evidence-weight fit replays recorded turns under each weight setting."""

from __future__ import annotations

import pytest

from app.chat.evidence import units
from app.chat.vocabulary import Vocabulary
from evaluation.datasets import Case
from evaluation.evidence_fit import RecordedTurn, figures, score_all
from tests.unit.passages import FOOTPRINT, TENT


def _case(question: str, facts: tuple[str, ...], *, part: str = "tuning") -> Case:
    return Case(id=question, category="product_fact", history=(), question=question,
                relevant=frozenset(), key_facts=facts, answerable=True, part=part)  # fmt: skip


def test_a_recorded_turn_is_scored_again_under_new_weights() -> None:
    question = "How much does the Stormhollow 2 Tent weigh?"
    passages = [FOOTPRINT, TENT]
    # the embedder's view, as recorded: the footprint's weight looks closest
    similarity = [0.9 if "210 g" in u.text else 0.0 for u in units(passages)]
    turn = RecordedTurn(question, (), passages, similarity, None, [], None,
                        Vocabulary([p.passage for p in passages]), None)  # fmt: skip
    case = _case(question, ("1,550 g",))
    turns = {(question, ()): turn}
    unseen = _case("Do you sell kayaks?", ("no",), part="report")
    asked = [(case, {}), (unseen, {"declined": True, "key_facts": 0.0})]
    rows = score_all(asked, turns)
    assert rows[0]["key_facts"] == 1.0  # the named product's record wins over a closer cosine
    assert rows[1] == {"part": "report", "answerable": True, "declined": True, "key_facts": 0.0}
    assert figures(rows) == {"key_facts": 0.5, "all_key_facts": 0.5, "wrongly_declined": 0.5,
                             "declined_unanswerable": 0.0, "objective": 0.0}  # fmt: skip


def test_importing_the_fit_changes_no_setting_of_the_process(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The tests that run after this one in the same process keep their answer policy."""
    import importlib
    import os

    from evaluation import evidence_fit

    for name in [k for k in os.environ if k.startswith("SHOPDESK_")]:
        monkeypatch.delenv(name)
    importlib.reload(evidence_fit)
    assert [k for k in os.environ if k.startswith("SHOPDESK_")] == []
