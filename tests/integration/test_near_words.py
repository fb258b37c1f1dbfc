"""The real embedder's word vectors: a question's word held by a line in other words, or not."""

from __future__ import annotations

from typing import Any

import numpy as np

from app.chat.near_words import near_question_words


def test_each_word_gets_one_unit_vector_in_its_context(embedder: Any) -> None:
    question, line = embedder.word_vectors(["Is the Nightjar-500 waterproof?", "Fly: 3,000 mm"])
    assert [w for w, _ in question] == ["is", "the", "nightjar", "500", "waterproof"]
    assert [w for w, _ in line] == ["fly", "3", "000", "mm"]
    for _, vector in question + line:
        assert vector.shape == (embedder.dimension,)
        assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-4
    assert embedder.word_vectors([]) == []


def test_the_lines_words_hold_the_questions_in_other_words_not_another_case(
    embedder: Any,
) -> None:
    def near(question: str, *lines: str) -> frozenset[str]:
        return near_question_words(question, embedder.word_vectors([question, *lines]))

    assert "footage" in near("How long is CCTV footage kept?", "CCTV recordings | 30 days")
    # another battery is another case: the hedge must still see "alkaline" missing
    battery = near(
        "How long does the headlamp run on alkaline AA batteries?",
        "Battery life: 40 hours (lithium AA); 28 hours (NiMH)",
    )
    assert "alkaline" not in battery
    assert not near("Can I hire a tent?", "You can return unused items within 30 days.") & {"hire"}
