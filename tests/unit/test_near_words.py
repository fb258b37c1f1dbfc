"""Question words the lines hold in other words: the pure matching, and the hedge counting them."""

from __future__ import annotations

import numpy as np

from app.chat.answerability import coverage
from app.chat.evidence import select_evidence, units
from app.chat.near_words import near_question_words, near_words
from app.chat.vocabulary import Vocabulary
from tests.unit.passages import FAQ, RETURNS, TENT


def unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


FOOTAGE, RECORDINGS, ELSEWHERE = unit(1, 0.3, 0), unit(1, 0.1, 0.2), unit(0, 0, 1)


def test_a_word_counts_only_when_a_line_word_is_alike_enough() -> None:
    asked = [("footage", FOOTAGE), ("kept", ELSEWHERE)]
    lines = [("recordings", RECORDINGS), ("days", unit(0, 1, 0))]
    assert near_words(asked, lines, threshold=0.9) == {"footage"}
    assert near_words(asked, lines, threshold=0.999) == frozenset()
    assert near_words(asked, lines, threshold=0) == frozenset()  # 0: by spelling only
    assert near_words(asked, [], threshold=0.5) == frozenset()


def test_names_numbers_and_short_words_never_count_by_meaning() -> None:
    lines = [("uk", FOOTAGE), ("30", FOOTAGE), ("recordings", FOOTAGE)]
    asked = [("eu", FOOTAGE), ("40", FOOTAGE), ("ireland", FOOTAGE), ("footage", FOOTAGE)]
    assert near_words(asked, lines, threshold=0.5, names={"ireland"}) == {"footage"}


def test_the_questions_capitalised_names_are_left_to_the_pages_spelling() -> None:
    found = [[("ship", FOOTAGE), ("to", ELSEWHERE), ("ireland", FOOTAGE)], [("deliver", FOOTAGE)]]
    assert near_question_words("Do you ship to Ireland?", found, threshold=0.5) == {"ship"}
    assert near_question_words("Do you ship to Ireland?", [], threshold=0.5) == frozenset()


def test_a_word_held_by_meaning_raises_the_coverage() -> None:
    shop = Vocabulary([h.passage for h in (FAQ, RETURNS, TENT)])
    question = "can i hire kayaks"
    selection = select_evidence(question, (), [RETURNS], [0.0] * len(units([RETURNS])))
    spelled = coverage(question, selection, shop)
    assert spelled < coverage(question, selection, shop, near=frozenset({"hire"})) < 1.0
    assert coverage(question, selection, shop, near=frozenset({"hire", "kayaks"})) == 1.0
