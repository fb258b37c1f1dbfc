"""An FAQ asked in other words: found by its own question's vector, its answer the answer."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import cast

import numpy as np

from app.chat.answerability import judge
from app.chat.evidence import select_evidence, units
from app.chat.faq_questions import faq_questions, paraphrased_faq
from app.chat.vocabulary import Vocabulary
from app.retrieval.line_vectors import LineVectors
from tests.unit.passages import FAQ, RETURNS, TENT, hit

CANCEL = hit(
    "Can I change or cancel my order?",
    "Question: Can I change or cancel my order?\nAnswer: Yes, within 60 minutes of placing "
    "it. After 60 minutes your order is released to our warehouse.\nCategory: Orders",
    kind="faq",
)


class _Lines:
    """The line cache's lookup, with fixed vectors: isolates the choice from the embedder."""

    def __init__(self, vectors: dict[str, list[float]]) -> None:
        self._vectors = vectors

    async def vectors(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([self._vectors[t] for t in texts], dtype=np.float32)


def _found(vector: list[float], threshold: float = 0.65, message: str = "cancel it") -> str | None:
    lines = _Lines({FAQ.passage.title: [1.0, 0.0], CANCEL.passage.title: [0.0, 1.0]})
    faqs = faq_questions([TENT.passage, FAQ.passage, CANCEL.passage, RETURNS.passage])
    asked = np.array(vector, dtype=np.float32)
    return asyncio.run(
        paraphrased_faq(message, asked, faqs, cast(LineVectors, lines), threshold=threshold)
    )


def test_the_faq_whose_own_question_is_closest_within_the_threshold_is_the_one_asked() -> None:
    assert faq_questions([TENT.passage, FAQ.passage, CANCEL.passage]) == [
        FAQ.passage,
        CANCEL.passage,
    ]
    assert _found([0.6, 0.8]) == CANCEL.passage.id
    assert _found([0.8, 0.6]) == FAQ.passage.id
    assert _found([0.6, 0.6]) is None  # not close enough to either
    assert _found([0.0, 1.0], threshold=0) is None  # the setting's 0: never by meaning alone
    # a name one of the two questions gives and the other does not: another question
    assert _found([0.6, 0.8], message="can I cancel my Zalando order?") is None


def test_of_faqs_about_as_near_the_one_holding_what_is_asked_is_the_one_asked() -> None:
    """ "how long does a warranty claim take?" is "How do I make a warranty claim?", though
    "How long is the warranty on my product?" is a little nearer: its "how long" frames."""
    assert _found([0.72, 0.69], message="cancel it") == CANCEL.passage.id
    assert _found([0.72, 0.69], message="change it") == FAQ.passage.id  # both hold it: nearer
    assert _found([0.78, 0.69], message="cancel it") == FAQ.passage.id  # not about as near


def test_the_faq_asked_in_other_words_is_the_answer_and_holds_the_question() -> None:
    question = "help me cancelling purchase 3707955617"
    passages = [RETURNS, CANCEL]
    similarity = [0.0] * len(units(passages))
    similarity[0] = 0.3  # the returns page's first line is closer by its own vector
    vocabulary = Vocabulary([h.passage for h in (*passages, TENT, FAQ)])
    plain = select_evidence(question, (), passages, similarity)
    assert not plain.answers_as_given
    assert plain.lines[0].number == 1
    asked = select_evidence(question, (), passages, similarity, answering=CANCEL.passage.id)
    assert asked.answers_as_given
    assert asked.lines[0].text.startswith("Yes, within 60 minutes")
    assert judge(question, asked, passages, vocabulary).partial is False
    # the checks on what the pages never name still decline
    named = "help me cancelling my Zalando purchase"
    selection = select_evidence(named, (), passages, similarity, answering=CANCEL.passage.id)
    assert judge(named, selection, passages, vocabulary).reason == "unknown_name"


def test_what_a_request_says_of_the_shopper_does_not_take_the_faqs_place() -> None:
    question = "i need help to cancel order"
    urgent = hit(
        "Changing or Cancelling an Order",
        "If you need to cancel urgently, call us on 0113 496 0123.",
        kind="policy",
        section="Changing or Cancelling an Order › If you need to cancel urgently",
    )
    passages = [urgent, CANCEL]
    similarity = [0.0] * len(units(passages))
    similarity[0] = 0.3  # the urgent line is closer by its own vector, and its section says "need"
    asked = select_evidence(question, (), passages, similarity, answering=CANCEL.passage.id)
    assert asked.lines[0].text.startswith("Yes, within 60 minutes")


def test_a_message_naming_another_kind_of_product_asks_another_faq() -> None:
    """ "can i wash my fleece in the machine?" is near "Can I wash my down jacket or sleeping
    bag?" by its vector, but names a kind of product that question does not."""
    down = hit(
        "Can I wash my down jacket or sleeping bag?",
        "Question: Can I wash my down jacket or sleeping bag?\nAnswer: Yes, with a down wash.",
        kind="faq",
    )
    lines = _Lines({down.passage.title: [1.0, 0.0]})
    kinds = frozenset({"fleec", "jacke", "bag", "tent"})

    def found(message: str) -> str | None:
        return asyncio.run(
            paraphrased_faq(
                message, np.array([0.9, 0.1], dtype=np.float32), [down.passage],
                cast(LineVectors, lines), kinds=kinds,
            )
        )  # fmt: skip

    assert found("can i wash my fleece in the machine?") is None
    assert found("can i wash my down jacket in the machine?") == down.passage.id
    assert found("can i machine wash it?") == down.passage.id  # naming no kind
