"""BM25, product codes, rank fusion and follow-up rewriting, on a hand-made index."""

from __future__ import annotations

import numpy as np
import pytest

from app.index import vector_index
from app.index.passage import Passage
from app.index.versions import IndexVersion
from app.retrieval.lexical import LexicalIndex
from app.retrieval.published_index import ServedIndex
from app.retrieval.retriever import Retriever
from app.retrieval.rewrite import (
    asked_questions,
    query_texts,
    question_parts,
    resolve_bare,
    resolve_ellipsis,
    resolve_plural,
    resolve_statement,
)
from app.retrieval.terms import identifiers, index_terms


def passage(n: int, title: str, text: str, *, kind: str = "product", anchor: str = "") -> Passage:
    return Passage(
        f"p{n}", f"d{n}", "s", title, title, "", anchor, kind, text, f"{title}\n{text}", "h", 9
    )


PASSAGES = [
    passage(0, "Emberlite Canister Stove", "Fits FH-STV-9030 canisters. Weight 82 g.",
            anchor="fh-stv-9010"),
    passage(1, "Fernhill 230 g Gas Canister", "Net gas weight: 230 g. Burn time 60 minutes.",
            anchor="fh-stv-9030"),
    passage(2, "Returns", "Return boots within 30 days for a refund.", kind="policy"),
]  # fmt: skip


class Fixed:
    """An index whose vectors are chosen by the test: dense search prefers passage 0."""

    def __init__(self) -> None:
        vectors = np.eye(3, 4, dtype=np.float32)
        index = vector_index.build_index(vectors, vector_index.IndexChoice("flat"))
        self._served = ServedIndex.serve(IndexVersion("v1", None, PASSAGES, index), "cpu")

    def current(self) -> ServedIndex:
        return self._served


def test_terms_keep_codes_whole_and_in_parts_and_fold_plurals() -> None:
    assert {"fh-stv-9030", "fh", "stv", "9030"} <= set(index_terms("Is FH-STV-9030 in stock?"))
    assert index_terms("boots batteries glass") == ["boot", "battery", "glass"]
    assert identifiers("FH-STV-9030, CR2032, 700R, 21700 and 500 g") == {
        "fh-stv-9030", "cr2032", "700r", "21700"
    }  # fmt: skip


def test_bm25_ranks_the_passage_sharing_rare_terms_first() -> None:
    lexical = LexicalIndex(PASSAGES)
    assert [row for row, _ in lexical.search("refund on boots", 5)] == [2]
    assert lexical.search("unrelated words entirely", 5) == []
    # the canister is about FH-STV-9030; the stove only mentions it
    assert lexical.identifier_matches("FH-STV-9030 burn time?") == {1}


def test_a_product_code_wins_over_dense_similarity_and_survives_the_floor() -> None:
    retriever = Retriever(Fixed(), top_k=2, floor=0.5, lexical_weight=0.5)
    query = np.array([1, 0, 0, 0], dtype=np.float32)  # dense: passage 0 (cosine 1), others 0
    found = retriever.search([query], ["How long does FH-STV-9030 burn?"])
    assert [h.passage.id for h in found.passages] == ["p1", "p0"]
    assert found.exact_match
    assert found.passages[0].score == 0.0  # its cosine, computed though dense search missed it
    dense_only = Retriever(Fixed(), top_k=2, floor=0.5, lexical_weight=0.0)
    assert [h.passage.id for h in dense_only.search([query], ["FH-STV-9030"]).passages] == ["p0"]


def test_lexical_agreement_reorders_close_dense_scores() -> None:
    retriever = Retriever(Fixed(), top_k=3, floor=-1.0, lexical_weight=1.0)
    query = np.array([0.6, 0.0, 0.55, 0], dtype=np.float32)
    found = retriever.search([query / np.linalg.norm(query)], ["refund for boots"])
    assert found.passages[0].passage.id == "p2"


def test_one_retriever_returns_as_many_passages_as_each_call_asks_for() -> None:
    retriever = Retriever(Fixed(), top_k=1, floor=-1.0, lexical_weight=1.0)
    query = np.array([1, 0, 0, 0], dtype=np.float32)
    assert len(retriever.search([query], ["stove"]).passages) == 1
    three = retriever.search([query], ["stove"], top_k=3).passages
    assert len(three) == 3 and three[0].passage.id == "p0"
    assert len(retriever.search([query], ["stove"], top_k=2).passages) == 2


def test_follow_ups_search_with_the_recent_questions_too() -> None:
    assert query_texts("how heavy is it?", []) == ["how heavy is it?"]
    assert query_texts("how heavy is it?", ["a", "b", "Tell me about the tent"]) == [
        "how heavy is it?",
        "b Tell me about the tent how heavy is it?",
    ]
    assert query_texts("and in blue?", ["jacket"], turns=0) == ["and in blue?"]


def test_a_message_asking_two_questions_is_searched_in_parts() -> None:
    assert question_parts(
        "Will the Nightjar 500 fit in the Ridgeline 65+10, and what's the warranty on it?"
    ) == ["Will the Nightjar 500 fit in the Ridgeline 65+10", "what's the warranty on it?"]
    assert question_parts("How much is the stove? What does it weigh?") == [
        "How much is the stove",
        "What does it weigh?",
    ]
    for one in ("Is it red, and blue?", "how heavy is it", "Can I return boots and how?"):
        assert question_parts(one) == [one]


def test_a_message_asks_several_questions_only_when_each_part_opens_as_one() -> None:
    assert asked_questions("Will the Nightjar 500 fit, and what's the warranty on it?") == [
        "Will the Nightjar 500 fit",
        "what's the warranty on it?",
    ]
    for one in (
        "I'm a Gold member, can I get more time?",  # something told, then one question
        "I'm a Bronze member and can't pay on time. Can I get an extension?",
        "How heavy is the Stormhollow 2 Tent?",
    ):
        assert asked_questions(one) == [], one


def test_the_parts_passages_are_taken_in_turn_from_one_version() -> None:
    retriever = Retriever(Fixed(), top_k=2, floor=-1.0, lexical_weight=0.0)
    stove = np.array([0.8, 0.6, 0, 0], dtype=np.float32)  # the stove, then the canister
    returns = np.array([0, 0, 1, 0], dtype=np.float32)
    alone = retriever.search([stove], ["stove weight"])
    assert [h.passage.id for h in alone.passages] == ["p0", "p1"]  # the second part is lost
    both = retriever.search_parts([([stove], ["stove weight"]), ([returns], ["returns"])])
    assert [h.passage.id for h in both.passages] == ["p0", "p2"]
    assert both.index_version == "v1" and both.best_score == pytest.approx(1.0)


def test_the_pages_product_is_ranked_first_and_kept_below_the_floor() -> None:
    retriever = Retriever(Fixed(), top_k=2, floor=0.5, lexical_weight=1.0)
    returns = np.array([0, 0, 1, 0], dtype=np.float32)  # dense: only the returns page clears it
    alone = retriever.search([returns], ["can I return it?"])
    assert [h.passage.id for h in alone.passages] == ["p2"]
    page = retriever.search([returns], ["can I return it?"], prefer="Fernhill 230 g Gas Canister")
    # the canister first though its cosine is 0; the returns page keeps the other half
    assert [h.passage.id for h in page.passages] == ["p1", "p2"]
    assert page.passages[0].score == 0.0
    unknown = retriever.search([returns], ["can I return it?"], prefer="No such product")
    assert [h.passage.id for h in unknown.passages] == ["p2"]


def test_the_named_products_passages_fill_the_places_the_floor_leaves() -> None:
    retriever = Retriever(Fixed(), top_k=3, floor=0.5, lexical_weight=1.0)
    returns = np.array([0, 0, 1, 0], dtype=np.float32)  # dense: only the returns page clears it
    asked = "what is the burn time of the gas canister?"
    named = retriever.search([returns], [asked], named=["Fernhill 230 g Gas Canister"])
    # the page over the floor keeps its place; the canister, under it, comes after
    assert [h.passage.id for h in named.passages] == ["p2", "p1"]
    assert [h.passage.id for h in retriever.search([returns], [asked]).passages] == ["p2"]


def test_a_name_few_passages_hold_survives_the_floor() -> None:
    payments = passage(
        3, "Payments", "We accept Visa, Mastercard and American Express.", kind="policy"
    )
    assert LexicalIndex([*PASSAGES, payments]).name_matches("Do you take American Express?") == {3}
    assert LexicalIndex([*PASSAGES, payments]).name_matches("do you take american express") == set()
    # a name too many passages hold tells nothing
    many = [passage(10 + i, "Page", "Pay by American Express.", kind="policy") for i in range(6)]
    assert LexicalIndex([*PASSAGES, *many]).name_matches("Do you take American Express?") == set()
    # a name the pages do not hold whole finds nothing
    assert (
        LexicalIndex([*PASSAGES, payments]).name_matches("Do you take American Airlines?") == set()
    )


def test_a_follow_up_asking_the_last_question_of_something_else_is_read_as_it() -> None:
    last = "What's the warranty on sleeping bags?"
    assert (
        resolve_ellipsis("and on sleeping mats?", last) == "What's the warranty on sleeping mats?"
    )
    assert resolve_ellipsis(
        "what about to France", "How much is delivery to Northern Ireland?"
    ) == ("How much is delivery to France?")
    # another shape, or no such preposition in the last question: left as it is
    assert resolve_ellipsis("and the 3?", "How heavy is the Stormhollow 2 Tent?") == "and the 3?"
    assert resolve_ellipsis("and on sleeping mats?", "What is the warranty?") == (
        "and on sleeping mats?"
    )
    assert resolve_ellipsis("and on sleeping mats?", "") == "and on sleeping mats?"


def test_a_follow_ups_them_is_read_as_the_things_the_last_question_named() -> None:
    held = {"gift cards", "cards", "gift", "socks", "carbon poles", "poles"}.__contains__
    assert resolve_plural("can I use two of them on one order?", "do you do gift cards?", held) == (
        "can I use two gift cards on one order?"
    )
    assert resolve_plural("are they returnable?", "do you sell socks?", held) == (
        "are socks returnable?"
    )
    # the longest phrase the pages hold; nothing named, no pronoun, or "it": left as it is
    assert resolve_plural(
        "what comes with them", "do you sell striderlite carbon poles?", held
    ) == ("what comes with carbon poles")
    assert resolve_plural("will they last?", "What about the Ben Nevis?", held) == "will they last?"
    assert resolve_plural("is it free?", "do you do gift cards?", held) == "is it free?"
    assert resolve_plural("are they returnable?", "", held) == "are they returnable?"


def test_a_follow_up_asking_only_a_price_or_a_time_is_asked_of_the_last_question() -> None:
    last = "do you deliver to jersey?"
    for bare in (
        "how much?",
        "How long does it take?",
        "and how much is that?",
        "what does it cost?",
        "what's the price?",
        "when?",
        "so how much then?",
        "what do i do?",
        "What should I do now?",
        "what are my options?",
    ):
        assert resolve_bare(bare, last) == f"do you deliver to jersey: {bare}"
    # a question that names what it asks of, or asks something else, is left as it is
    for other in (
        "how much is the stormhollow 2?",
        "what is it?",
        "How long do I have?",
        "And when will it arrive?",
        "is it free?",
        "what do i do with the old one?",
        "what do you sell?",
    ):
        assert resolve_bare(other, last) == other
    assert resolve_bare("how much?", "") == "how much?"
    # the last message's own bare question is not asked again
    assert resolve_bare("how long will it take?", "do you deliver to france? how much?") == (
        "do you deliver to france: how long will it take?"
    )


def test_a_follow_up_telling_when_is_read_after_the_question_it_tells_it_of() -> None:
    last = "can I change my delivery address?"
    assert resolve_statement("I placed the order 2 hours ago", last) == (
        "can I change my delivery address? I placed the order 2 hours ago"
    )
    assert resolve_statement("ordered it yesterday", last) == (
        "can I change my delivery address? ordered it yesterday"
    )
    # a question, a request, a reaction, or a first turn: left as it is
    for other in (
        "did you get it 2 days ago?",
        "I want to cancel it by 5pm",
        "the little fell one looks good",
        "how long do I have, 2 days?",
    ):
        assert resolve_statement(other, last) == other
    assert resolve_statement("I placed the order 2 hours ago", "") == (
        "I placed the order 2 hours ago"
    )


class ContactPage:
    """A page in sections, and another page, at cosines chosen by the test."""

    def __init__(self) -> None:
        def section(n: int, doc: str, name: str) -> Passage:
            return Passage(f"s{n}", doc, "s", "Contact", name, "", "", "policy", name, name, "h", 9)

        self.passages = [
            section(0, "contact", "Social media"),
            section(1, "contact", "Phone"),
            section(2, "privacy", "Contact details we keep"),
            section(3, "contact", "Post"),
        ]
        cosines = [0.6, 0.47, 0.47, 0.4]
        vectors = np.array([[c, np.sqrt(1 - c * c), 0, 0] for c in cosines], dtype=np.float32)
        vectors[2, 1:3] = vectors[2, 2:0:-1]  # another direction, the same cosine
        index = vector_index.build_index(vectors, vector_index.IndexChoice("flat"))
        self._served = ServedIndex.serve(IndexVersion("v1", None, self.passages, index), "cpu")

    def current(self) -> ServedIndex:
        return self._served


def test_another_section_of_the_best_page_is_kept_a_little_under_the_floor() -> None:
    """ "How do I contact you?": the Phone section of the page the best passage is on is kept
    just under the floor; another page at the same cosine is not, nor a section far under."""
    retriever = Retriever(ContactPage(), top_k=4, floor=0.5, lexical_weight=0.0)
    found = retriever.search([np.array([1, 0, 0, 0], dtype=np.float32)], [])
    assert [h.passage.id for h in found.passages] == ["s0", "s1"]
