from __future__ import annotations

from app.chat.evidence import stems
from app.chat.turn_search import without_name


def test_what_a_question_asks_of_a_product_is_it_without_the_name() -> None:
    name = stems("Waymark 3 Handheld GPS")
    assert without_name("is the waymark 3 waterproof?", name) == "is the waterproof?"
    name = stems("Nightjar 300 Down Sleeping Bag")
    assert without_name("i want to return my Nightjar 300.", name) == "i want to return my"
