from __future__ import annotations

from app.chat.catalog import Focus, Product
from app.chat.evidence import stems
from app.chat.turn_search import new_subject, without_name
from app.sessions.base import Turn


def test_what_a_question_asks_of_a_product_is_it_without_the_name() -> None:
    name = stems("Waymark 3 Handheld GPS")
    assert without_name("is the waymark 3 waterproof?", name) == "is the waterproof?"
    name = stems("Nightjar 300 Down Sleeping Bag")
    assert without_name("i want to return my Nightjar 300.", name) == "i want to return my"


FLEECE = Product("catalog#FLC", "Helvellyn 200 Fleece", "FH-FLC-3005", "")
JACKET = Product("catalog#JKT-M", "Torridon 3L Waterproof Jacket Men's", "FH-JKT-1042", "")
WOMENS = Product("catalog#JKT-W", "Torridon 3L Waterproof Jacket Women's", "FH-JKT-1043", "")
ON_FLEECE = [Turn("how much is the helvellyn fleece?", "", product=FLEECE.document_id)]


def test_a_question_asking_its_own_of_another_product_starts_a_new_subject() -> None:
    asking = "what sizes does the torridon jacket come in for men?"
    assert new_subject(asking, ON_FLEECE, Focus(JACKET, named=True), [])
    # the two cuts it names alike are the new subject too
    assert new_subject(
        "what sizes does the torridon jacket come in?", ON_FLEECE, None, [JACKET, WOMENS]
    )


def test_a_question_going_on_from_the_last_keeps_its_subject() -> None:
    jacket = Focus(JACKET, named=True)
    assert not new_subject("and the torridon jacket?", ON_FLEECE, jacket, [])
    assert not new_subject("is the torridon jacket warmer than that?", ON_FLEECE, jacket, [])
    assert not new_subject(
        "which is warmer, the torridon jacket or the fleece?", ON_FLEECE, jacket, []
    )
    assert not new_subject("the torridon jacket?", ON_FLEECE, jacket, [])  # asks nothing of it
    # the same product, a product "it" is, the shopper's page, a help page's topic before
    assert not new_subject(
        "how much is the helvellyn fleece?", ON_FLEECE, Focus(FLEECE, named=True), []
    )
    assert not new_subject("how warm is it?", ON_FLEECE, Focus(JACKET, named=False), [])
    assert not new_subject(
        "how much is the torridon?", ON_FLEECE, Focus(JACKET, True, page=True), []
    )
    on_returns = [Turn("what's your returns policy?", "")]
    assert not new_subject("can i return the torridon jacket?", on_returns, jacket, [])
    assert not new_subject("can i return the torridon jacket?", [], jacket, [])
