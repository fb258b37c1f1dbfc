"""A shopper's word for what the pages name otherwise is read in the pages' word, unless the
pages use it; an order number the pages never hold is no word of the question."""

from __future__ import annotations

from collections.abc import Set

from app.chat.shoppers_words import in_shop_words


def _read(question: str, words: Set[str] = frozenset(), figures: Set[str] = frozenset()) -> str:
    return in_shop_words(question, words.__contains__, figures.__contains__)


def test_retail_words_are_read_as_the_pages_words() -> None:
    assert _read("Do you offer free shipping?") == "Do you offer free delivery?"
    assert _read("in which cases can I get my money back?") == "in which cases can I get a refund?"
    assert _read("I want to file a reclamation") == "I want to file a complaint"
    assert _read("how do I reach customer support") == "how do I reach customer service"
    assert _read("can I modify the shipping address?") == "can I change the delivery address?"
    assert _read("check the available payment options") == "check the available payment methods"


def test_a_word_the_pages_use_is_left_as_it_is() -> None:
    assert _read("Do you offer free shipping?", {"shipping"}) == "Do you offer free shipping?"


def test_a_purchase_the_shopper_placed_is_an_order_and_buying_is_not() -> None:
    assert _read("help me cancelling purchase 3707955617") == "help me cancelling order"
    assert _read("what is the status of my purchase") == "what is the status of my order"
    assert _read("I want to purchase a tent") == "I want to purchase a tent"


def test_an_order_number_goes_but_a_figure_of_the_pages_stays() -> None:
    assert _read("need to update order #00004587345 now") == "need to change order now"
    assert _read("how long does the PowerCell 10000 take", figures={"10000"}) == (
        "how long does the PowerCell 10000 take"
    )
    assert _read("a 1200 lm torch") == "a 1200 lm torch"  # four digits are a figure
    assert _read("is it £12345.50?") == "is it £12345.50?"


def test_a_models_number_is_no_order_number() -> None:
    assert _read("Do you sell a PowerCell 20000?") == "Do you sell a PowerCell 20000?"
    assert _read("cancel order 12345 please") == "cancel order please"


def test_updating_an_order_or_an_address_is_changing_it_unless_the_pages_say_so() -> None:
    assert _read("need to update purchase 00004587345") == "need to change order"
    assert _read("I want to update my delivery address") == "I want to change my delivery address"
    assert _read("help me updating my order") == "help me changing my order"
    assert _read("why hasn't my tracking updated?") == "why hasn't my tracking updated?"
    assert _read("update my order", {"update order"}) == "update my order"


def test_a_requests_opening_asks_nothing_of_the_pages() -> None:
    assert _read("I want to check the available payment options") == (
        "the available payment methods"
    )
    assert _read("help me check in what cases can I request a refund") == (
        "in what cases can I request a refund"
    )
    assert _read("How do I check my gift card balance?") == "How do I check my gift card balance?"
    assert _read("what is it made of? i want to know how much is wool") == (
        "what is it made of? i want to know how much is wool"
    )
