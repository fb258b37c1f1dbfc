"""Answerability: the evidence must hold what was asked, for the product and case asked."""

from __future__ import annotations

from app.chat.answerability import coverage, judge
from app.chat.evidence import select_evidence, units
from app.chat.vocabulary import Vocabulary
from app.retrieval.published_index import ScoredPassage
from tests.unit.passages import FAQ, FOOTPRINT, JACKET, RETURNS, TENT, hit

SHOP = [FAQ, FOOTPRINT, JACKET, RETURNS, TENT]
STORES = hit("Our stores", "Our only store is the Leeds Collection Point.", kind="policy")


def verdict(
    question: str,
    passages: list[ScoredPassage],
    earlier: tuple[str, ...] = (),
    shop: list[ScoredPassage] = SHOP,
) -> tuple[bool, str | None, bool]:
    similarity = [0.0] * len(units(passages))
    selection = select_evidence(question, earlier, passages, similarity)
    found = judge(question, selection, passages, Vocabulary([h.passage for h in shop]))
    return found.answerable, found.reason, found.partial


def test_a_plain_question_with_its_answer_is_answerable() -> None:
    assert verdict("How much does the Stormhollow 2 Tent weigh?", [TENT, FOOTPRINT]) == (
        True,
        None,
        False,
    )
    assert verdict("Can I change my order?", [FAQ]) == (True, None, False)
    assert verdict("What does FH-TNT-7090 cost?", [FOOTPRINT, TENT]) == (True, None, False)


def test_a_size_the_evidence_does_not_state_is_declined() -> None:
    assert verdict("What does the Cairngorm 800 weigh in size XL?", [JACKET])[:2] == (
        False,
        "other_size",
    )
    assert verdict("What does the Cairngorm 800 weigh in size M?", [JACKET])[:2] == (True, None)


def test_a_code_or_name_the_pages_never_mention_is_declined() -> None:
    assert verdict("Do you sell FH-TNT-7095?", [TENT, FOOTPRINT])[:2] == (False, "unknown_code")
    assert verdict("Do you have a shop in Manchester?", [RETURNS])[:2] == (False, "unknown_name")
    assert verdict("Do you offer an NHS discount?", [RETURNS, FAQ])[:2] == (False, "unknown_name")


def test_a_name_the_shop_mentions_elsewhere_is_no_unknown() -> None:
    question = "Do you have a shop in Leeds?"
    assert verdict(question, [RETURNS], shop=[*SHOP, STORES])[:2] == (True, None)
    assert verdict(question, [RETURNS])[:2] == (False, "unknown_name")


def test_evidence_without_the_questions_telling_words_is_partial() -> None:
    assert verdict("can i hire kayaks", [RETURNS]) == (True, None, True)
    # "tent" is held, but the telling "hire" is not: the closest lines are shown as such
    assert verdict("Can I hire a tent for the weekend?", [RETURNS, TENT]) == (True, None, True)
    assert verdict("Can I return a tent that was pitched outdoors?", [RETURNS])[2] is False


def test_rare_words_weigh_more_than_common_ones() -> None:
    words = Vocabulary([h.passage for h in SHOP])
    assert words.weight("hire") > words.weight("tent") > 0
    selection = select_evidence("tent hire", (), [RETURNS], [0.0] * len(units([RETURNS])))
    assert 0 < coverage("tent hire", selection, words) < 0.5


def test_no_evidence_at_all_is_declined() -> None:
    assert verdict("anything", []) == (False, "no_match", False)


def test_chat_shorthand_does_not_count_and_a_slip_is_read_as_the_pages_spell_it() -> None:
    """Messy phrasing: "u" and "pls" are no part of what was asked, and "retrun" is "return"."""
    words = Vocabulary([h.passage for h in SHOP])

    def covered(question: str) -> float:
        selection = select_evidence(question, (), [RETURNS], [0.0] * len(units([RETURNS])))
        return coverage(question, selection, words)

    clean = covered("How long do I have to return unused items?")
    assert clean == covered("pls how long do u have to retrun unused items") > 0.5
