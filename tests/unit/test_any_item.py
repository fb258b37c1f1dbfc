"""A return or an exchange of a kind of product, read as asked of any item."""

from __future__ import annotations

from app.chat.any_item import AnyItem
from tests.unit.passages import hit

RECORDS = [
    hit("Scafell Mid Walking Boot Men's", "Price (GBP): 149"),
    hit("Torridon 3L Waterproof Jacket", "Price (GBP): 220"),
    hit("Helvellyn 200 Fleece", "Price (GBP): 55"),
    hit("Stormhollow 2 Tent", "Price (GBP): 289"),
    hit("Merino Hiking Sock", "Price (GBP): 16"),
    hit("Fernhill 230 g Gas Canister", "Delivery: UK only, and gas canisters cannot be returned."),
    hit("ClearFlow Squeeze Water Filter", "Price (GBP): 30"),
    hit("Ridgeline 45 Backpack", "Price (GBP): 120"),
]  # fmt: skip
PAGES = [
    hit("Can I return a tent I've used?", "No, unless it's faulty.", kind="faq"),
    hit(
        "Returns and Refunds",
        "For hygiene reasons the following can't be returned:\n"
        "- **Socks** that have been removed from their packaging.\n"
        "- **Personalised items**, such as jackets or backpacks embroidered with a name.",
        kind="policy",
        section="Returns and Refunds › What condition items need to be in",
    ),
    hit(
        "Returns and Refunds",
        "- **Water filters** that have been wet.",
        kind="policy",
        section="Returns and Refunds › Items we can't accept back",
    ),
    hit(
        "Returns and Refunds",
        "- **Footwear:** try boots on indoors, on a clean carpet.",
        kind="policy",
        section="Returns and Refunds › How to try things on",
    ),
]
ITEMS = AnyItem([h.passage for h in RECORDS + PAGES])


def test_a_return_of_a_kind_the_pages_have_no_rule_for_is_asked_of_any_item() -> None:
    assert ITEMS.read("how do I return some boots?") == "how do I return an item?"
    assert ITEMS.read("how do I return my walking boots") == "how do I return an item"
    assert ITEMS.read("can I swap my fleece for a bigger size?") == (
        "can I swap an item for a bigger size?"
    )
    # what a list item is an example of is its own: personalised items, not jackets
    assert ITEMS.read("I need to send back a jacket that doesn't fit") == (
        "I need to return an item that doesn't fit"
    )


def test_a_kind_the_pages_give_a_return_rule_of_its_own_is_left_as_asked() -> None:
    assert ITEMS.read("can I return my tent?") is None  # an FAQ's question names it
    assert ITEMS.read("can I return socks?") is None  # an item of a list a return leads
    assert ITEMS.read("can i send back a water filter?") is None  # under "can't accept back"
    assert ITEMS.read("can i return a gas canister i haven't opened?") is None  # its record


def test_a_message_asking_no_return_or_naming_no_kind_is_left_as_asked() -> None:
    assert ITEMS.read("are the boots waterproof?") is None
    assert ITEMS.read("do the boots come back in stock?") is None
    assert ITEMS.read("how do I return an order?") is None


def test_a_return_asked_of_the_product_the_conversation_is_on_is_asked_of_any_item() -> None:
    boot = "Scafell Mid Walking Boot Men's"
    assert ITEMS.read_of("can I swap my Scafell boots for a bigger size?", boot) == (
        "can I swap an item for a bigger size?"
    )
    # "them", "it", "this" returned: any item
    assert ITEMS.read_of("can I swap them for a bigger size?", boot) == (
        "can I swap an item for a bigger size?"
    )
    assert ITEMS.read_of("how do I send it back?", boot) == "how do I return an item?"
    assert ITEMS.read_of("is this returnable?", boot) == "is an item returnable?"
    assert ITEMS.read_of("They're too small. Can I exchange them?", boot) == (
        "They're too small. Can I exchange an item?"
    )
    # what goes on to speak of them speaks of it: seen in the forty-fourth session, "can I send
    # them back if they don't fit?" after the Scafell boots matched no FAQ and was hedged
    assert ITEMS.read_of("can I send them back if they don't fit?", boot) == (
        "can I return an item if it doesn't fit?"
    )
    assert ITEMS.read_of("can I return them if they're too tight?", boot) == (
        "can I return an item if it is too tight?"
    )


def test_a_return_of_a_product_whose_kind_has_a_rule_of_its_own_keeps_the_product() -> None:
    assert ITEMS.read_of("can I return it?", "Stormhollow 2 Tent") is None
    assert ITEMS.read_of("can I send them back?", "Merino Hiking Sock") is None
    assert ITEMS.read_of("what does it weigh?", "Scafell Mid Walking Boot Men's") is None


def test_it_returned_after_a_return_refused_is_left_as_asked() -> None:
    """ "can I return it then?" after "Personalised items … can't be returned": "it" may be
    what that refuses, so it is not read as any item."""
    refused = "Personalised items take 2 extra working days and can't be returned or exchanged."
    boot = "Scafell Mid Walking Boot Men's"
    assert ITEMS.read_of("can i return it then?", boot, refused) is None
    assert ITEMS.read_of("can i return it then?", boot, "Price (GBP): 149") == (
        "can i return an item then?"
    )
    # a kind named is any item's whatever was shown
    assert ITEMS.read_of("can i return my boots?", boot, refused) == "can i return an item?"
