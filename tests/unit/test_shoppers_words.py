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
    assert _read("I want to file a reclamation") == "I want to make a complaint"
    assert _read("is customer support open?") == "is customer service open?"
    assert _read("can I modify the shipping address?") == "can I change the delivery address?"
    assert _read("check the available payment options") == "check the available payment methods"
    assert _read("what's the lightest rucksack?") == "what's the lightest backpack?"
    assert _read("do you sell head torches?") == "do you sell headlamps?"
    assert _read("do you sell gift vouchers?") == "do you sell gift cards?"
    assert _read("what is the return window?") == "what is the time limit for returns?"
    assert _read("can I take it on a plane?") == "can I take it on a air travel?"
    assert _read("does it have underarm vents?") == "does it have pit zips?"
    assert _read("can I pitch the fly first?") == "can I pitch the fly first?"  # a tent's fly
    assert _read("fastest way to get hold of you?") == "fastest way to contact you?"
    assert _read("can my husband pick it up for me?") == "can someone else collect it for me?"
    assert _read("when do you take the money?") == "when do you take payment?"
    assert _read("my son is 5, what size?") == "my son is 5, what size?"  # no errand of his
    assert _read("how high is it inside?") == "how tall is it inside?"
    # whom it is for says the cut (seen in the forty-fourth session: "what sizes does the
    # torridon jacket come in for my husband?" was hedged with both cuts' sizes)
    assert _read("a torridon for my husband?") == "a torridon for men?"
    assert _read("boots for my mum, what size?") == "boots for women, what size?"
    assert _read("a jacket for my son?") == "a jacket for my son?"  # a child or grown
    assert _read("a gift card for my brother's 40th?") == "a gift card for my brother's 40th?"


def test_a_word_the_pages_use_is_left_as_it_is() -> None:
    assert _read("Do you offer free shipping?", {"shipping"}) == "Do you offer free shipping?"


def test_a_purchase_the_shopper_placed_is_an_order_and_buying_is_not() -> None:
    assert _read("help me cancelling purchase 3707955617") == "help me cancelling order"
    assert _read("what is the total of my purchase") == "what is the total of my order"
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
    # editing or correcting it is changing it too; an address that is correct stays so
    assert _read("i have a trouble editing my address") == "i have a trouble changing my address"
    assert _read("can you correct the shipping address?") == "can you change the delivery address?"
    assert _read("is my address correct?") == "is my address correct?"


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


def test_the_customer_service_asked_of_is_the_shop_itself() -> None:
    assert _read("How do I contact customer support?") == "How do I contact us?"
    assert _read("I need assistance speaking to customer support") == (
        "I need assistance contacting us"
    )
    assert _read("what time can i reach customer assistance") == "what time can i contact us"
    # the channel the shopper names is kept
    assert _read("I'm trying to call customer service") == "I'm trying to call us"
    assert _read("emailing the customer care team") == "emailing us"
    # customer service named without a way of reaching it is left as it is
    assert _read("is customer service open on Sundays?") == "is customer service open on Sundays?"


def test_an_account_cancelled_is_deleted_and_an_orders_status_is_its_tracking() -> None:
    assert _read("I want information about the cancellation of my free account") == (
        "I want information about the deleting my account"
    )
    assert _read("can I cancel my order from my account?") == (
        "can I cancel my order from my account?"
    )
    assert _read("cancel account", {"cancel account"}) == "cancel account"  # the pages' own
    assert _read("whats my order status") == "whats my order tracking"
    assert _read("status of my parcel") == "tracking of my parcel"
    assert _read("where is my order?") == "how do I track my order?"
    assert _read("my order number is 12345678, where is it?") == "how do I track my order?"
    assert _read("Order 0012345: is it dispatched?") == "is my order dispatched?"


def test_the_sum_a_shopper_expects_back_is_their_own_case() -> None:
    assert _read("I xepect a compensation of $1499") == "I xepect a refund"
    assert _read("I am waiting for a rebate of 160 dollars") == "I am waiting for a refund"
    # expecting a refund is waiting for it; expecting a parcel asks when it arrives
    assert _read("I expect a compensation of 1499 dollars") == "I wait for a refund"
    assert _read("how soon can I expect my parcel") == "how soon can I expect my parcel"
    assert _read("will I get a refund of the £3.95?") == "will I get a refund of the £3.95?"


def test_the_days_shoppers_name_are_read_as_the_dates_pages_give() -> None:
    assert _read("are you open on Christmas Eve?") == "are you open on 24 December?"
    assert _read("delivery on boxing day?") == "delivery on 26 December?"
    assert _read("open on new years eve") == "open on 31 December"
    assert _read("open on Christmas Eve?", {"christmas eve"}) == "open on Christmas Eve?"


def test_a_complaint_is_made_against_the_shop_however_it_is_put() -> None:
    assert _read("I need to lodge a claim against yor business") == "I need to make a complaint"
    assert _read("need help lodging a reclamation against ur organization") == (
        "need help making a complaint"
    )
    assert _read("how do I file a complaint", {"file a complaint"}) == "how do I file a complaint"


def test_a_coin_is_a_cryptocurrency_unless_the_pages_name_it() -> None:
    assert _read("Can I pay with Bitcoin?") == "Can I pay with cryptocurrency?"
    assert _read("can i pay in BTC?") == "can i pay in cryptocurrency?"
    assert _read("Can I pay with Bitcoin?", {"bitcoin"}) == "Can I pay with Bitcoin?"


def test_where_a_thing_is_made_is_asked_as_its_manufacture() -> None:
    """ "made in the UK?" asks no Materials line; "made of" does."""
    assert _read("is it made in the uk?") == "is it manufactured in the uk?"
    assert _read("where are the scafell boots made?") == "where are the scafell boots manufactured?"
    assert _read("what is it made of?") == "what is it made of?"
    assert _read("is it made in the uk?", {"made in"}) == "is it made in the uk?"


def test_a_currency_the_pages_do_not_name_is_another_currency() -> None:
    assert _read("can i pay in euros?") == "can i pay in another currency?"
    assert _read("do you take US dollars") == "do you take another currency"
    assert _read("can i pay in euros?", {"euros"}) == "can i pay in euros?"


def test_nobody_at_home_for_a_delivery_is_a_delivery_the_carrier_cannot_make() -> None:
    assert _read("what happens if i'm not in when my parcel arrives?") == (
        "what happens if the carrier can't deliver when my parcel arrives?"
    )
    assert _read("what if nobody is home?") == "what if the carrier can't deliver?"
    assert _read("i missed the delivery, what now?") == "the carrier can't deliver, what now?"
    assert _read("i'm in the uk") == "i'm in the uk"


def test_carry_on_luggage_is_cabin_luggage_and_carrying_on_is_not() -> None:
    assert _read("is it carry on size?") == "is it cabin luggage size?"
    assert _read("does it fit carry-on?") == "does it fit cabin luggage?"
    assert _read("can i carry on?") == "can i carry on?"
    assert _read("can i carry on using it after a fall?") == "can i carry on using it after a fall?"


def test_paying_over_time_is_splitting_the_payment_unless_the_pages_say_it() -> None:
    split = "split the payment into instalments"
    assert _read("can i pay in instalments?") == f"can i {split}?"
    assert _read("can i pay monthly?") == f"can i {split}?"
    assert _read("do you do buy now pay later?") == f"do you do {split}?"
    assert _read("can i pay monthly?", {"pay monthly"}) == "can i pay monthly?"


def test_the_shops_own_address_is_the_one_it_gives_for_post() -> None:
    assert _read("what's your postal address?") == "what's your post address?"
    assert _read("what's your address?") == "what's your post address?"
    assert _read("whats ur mailing address") == "whats ur post address"
    assert _read("can i change my address?") == "can i change my address?"
    assert _read("what's your postal address?", {"postal"}) == "what's your postal address?"


def test_an_opened_packet_is_packaging_and_bobbly_fabric_is_pilling() -> None:
    """Seen in the thirty-ninth session: "Can I return socks if I've opened the packet?" was
    hedged beside "socks that have been removed from their packaging"; "all bobbly" is the
    warranty page's "pilling of fleece"."""
    assert _read("I've opened the packet") == "I've opened the packaging"
    assert _read("it came out the wash all bobbly") == "it came out the wash all pilling"
    assert _read("can I send the packages together?") == "can I send the parcels together?"
    assert _read("my boots need new soles") == "my boots need resoling"
