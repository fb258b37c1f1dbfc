"""Places the pages cover by region: read as the region, named ones left alone."""

from __future__ import annotations

from app.chat.places import GAZETTEER, Places
from app.chat.reading import read_question
from app.chat.vocabulary import Vocabulary
from tests.unit.passages import hit

SHIPPING = [
    "Zone 1: UK mainland. England, Wales and mainland Scotland.",
    "Zone 2: Scottish Highlands & Islands, Isle of Man and Isles of Scilly.",
    "Zone 3: Northern Ireland. All BT postcodes.",
    "Zone 4: European Union. EU orders are sent Delivered Duty Paid.",
    "Zone 5: Rest of the world, including Norway, Canada and the USA.",
]


def test_a_place_the_pages_cover_by_region_is_read_with_that_region() -> None:
    places = Places(SHIPPING)
    assert places.read("How much is delivery to Belfast?") == (
        "How much is delivery to Northern Ireland?"
    )
    assert places.read("can you send it to my home in Inverness") == (
        "can you send it to my home in Scottish Highlands"
    )
    assert places.note("How much is delivery to Belfast?") == (
        "Our pages cover Belfast under Northern Ireland."
    )
    assert places.resolved("Do you ship to Paris or Tokyo?") == [
        ("Paris", "EU"),
        ("Tokyo", "rest of the world"),
    ]


def test_a_city_is_read_with_its_country_when_the_pages_name_the_country() -> None:
    assert Places(SHIPPING).read("Do you deliver to Toronto?") == "Do you deliver to Canada?"
    # "the States" as a shopper calls the USA, "2" as a text message's "to"
    assert Places(SHIPPING).read("do u ship 2 the states?") == "do u ship 2 the USA?"
    assert Places(SHIPPING).read("the page states it") == "the page states it"


def test_a_place_the_pages_name_is_left_as_it_is() -> None:
    places = Places(SHIPPING)
    assert places.read("Do you deliver to Norway?") == "Do you deliver to Norway?"
    assert places.read("Do you post to Northern Ireland?") == "Do you post to Northern Ireland?"
    assert places.resolved("Do you deliver to Canada?") == []


def test_a_name_inside_a_longer_one_is_not_named_by_it() -> None:
    """The pages' "Northern Ireland" does not name the Republic: Dublin is read as the EU."""
    places = Places(SHIPPING)
    assert not places.named("Ireland") and places.named("Northern Ireland")
    assert places.region_of("Dublin") == "EU"
    # the name would find Northern Ireland's lines: read as its region in its stead
    assert places.read("Do you ship to Ireland?") == "Do you ship to the EU?"
    assert places.read("Do you deliver to the Republic of Ireland?") == "Do you deliver to the EU?"


def test_a_place_asked_about_as_the_shops_own_is_not_read_by_region() -> None:
    """ "Is there a store in Manchester?" asks where the shop is: its pages must name it."""
    places = Places(SHIPPING)
    assert places.read("Is there a store in Manchester?") == "Is there a store in Manchester?"
    assert places.resolved("Is there a store in Manchester?") == []


def test_no_region_named_leaves_the_place_unknown() -> None:
    places = Places(["We deliver to UK mainland addresses only."])
    assert places.read("Do you deliver to Tokyo?") == "Do you deliver to Tokyo?"
    assert places.read("Do you deliver to Leeds?") == "Do you deliver to Leeds?"  # not listed


def test_every_place_has_a_region() -> None:
    assert all(GAZETTEER.values())


def test_a_place_in_a_hurried_messages_lower_case_is_read_too() -> None:
    places = Places(SHIPPING)
    assert places.read("hw much 2 send a parcel to belfast??") == (
        "hw much 2 send a parcel to Northern Ireland??"
    )
    assert places.note("hw much 2 send a parcel to belfast??") == (
        "Our pages cover Belfast under Northern Ireland."
    )
    # a name that is also a word is read only as a name is written, or where it is a place
    assert places.read("can you send my jersey back from cork?") == (
        "can you send my jersey back from cork?"
    )
    assert places.read("are the grips made from cork? will they post to Cork") == (
        "are the grips made from cork? will they post to the EU"
    )
    assert places.mentioned("i live in jersey, do you deliver to turkey?") == ["Jersey", "Turkey"]


def test_the_turn_reads_a_follow_up_as_its_question_and_a_place_as_its_region() -> None:
    vocabulary = Vocabulary([hit("Delivery", text, kind="policy").passage for text in SHIPPING])
    last = "How much is standard delivery to Northern Ireland?"
    assert read_question("and to Belfast?", last, vocabulary) == (
        "How much is standard delivery to Northern Ireland?"
    )
    assert read_question("Is there a store in Manchester?", "", vocabulary) == (
        "Is there a store in Manchester?"
    )


def test_the_turn_reads_a_hyphenated_word_written_apart_as_the_pages_write_it() -> None:
    mat = hit("Airloft Mat", "Specs: R-value: 4.2; Charging: USB-C\nBack-in-stock emails")
    faq = hit("Stock", "We email you when it is back in stock.", kind="faq")
    vocabulary = Vocabulary([mat.passage, faq.passage])
    assert read_question("airloft r value?? usb c?", "", vocabulary) == "airloft r-value?? usb-c?"
    # words the pages also write apart, and a lone letter in other words, are left alone
    assert read_question("back in stock soon?", "", vocabulary) == "back in stock soon?"
    assert read_question("is it a value buy?", "", vocabulary) == "is it a value buy?"


def test_the_turn_reads_a_shoppers_word_as_the_pages_and_leaves_out_an_order_number() -> None:
    vocabulary = Vocabulary([hit("Delivery", text, kind="policy").passage for text in SHIPPING])
    assert read_question("free shipping?", "", vocabulary) == "free delivery?"
    assert read_question("cancel purchase 3707955617", "", vocabulary) == "cancel order"


def test_a_shoppers_phrase_the_pages_use_is_left_as_it_is() -> None:
    care = hit("Contact", "Our customer support team answers within a day.", kind="policy")
    vocabulary = Vocabulary([care.passage])
    assert vocabulary.holds_phrase("customer support") and not vocabulary.holds_phrase("money back")
    assert read_question("is customer support open on Sundays?", "", vocabulary) == (
        "is customer support open on Sundays?"
    )
    assert read_question("can I get my money back?", "", vocabulary) == "can I get a refund?"


def test_a_place_held_only_by_a_catch_all_region_is_not_said_to_be_covered() -> None:
    places = Places(SHIPPING)
    assert places.by_catch_all("do u ship to iceland?") == ["iceland"]
    assert places.by_catch_all("Do you ship to Paris?") == []
    assert places.note("Do you ship to Iceland or Paris?") == (
        "Our pages cover Paris under the EU. "
        "Our pages don't name Iceland; they say this of the rest of the world."
    )
    assert places.read("do u ship to gibraltar?") == "do u ship to the rest of the world?"


def test_a_destination_is_a_place_the_pages_name_that_goods_go_to() -> None:
    """ "how long does delivery to canada take?" asks about Canada, which the pages name; "a
    women's UK size 20" names the UK and asks nothing about goods going there."""
    places = Places(SHIPPING)
    assert places.destinations("how long does delivery to canada take?") == ["Canada"]
    assert places.destinations("What are the measurements for a women's UK size 20?") == []
    assert places.destinations("Do you deliver to Singapore?") == []  # not named by the pages


def test_a_follow_up_pointing_back_asks_about_the_last_questions_place() -> None:
    """ "how much is it?" after "how long does delivery to canada take?" is Canada's price; a
    follow-up that names its own place, or points at nothing, keeps to its own words."""
    places = Places(SHIPPING)
    last = "how long does delivery to canada take?"
    assert places.asked_in("how much is it?", last) == ["Canada"]
    assert places.asked_in("how much is delivery to Norway then?", last) == ["Norway"]
    assert places.asked_in("How long do I have to return a tent?", last) == []


def test_a_follow_up_about_the_delivery_is_read_with_the_last_questions_place() -> None:
    """ "do I pay customs?" after "do you ship to canada?" is asked of Canada; a question that
    names its own place, or asks of no delivery, is left as it is."""
    places = Places(SHIPPING)
    last = "do you ship to canada?"
    assert places.carried("do i pay customs?", last) == "do i pay customs? (to Canada)"
    assert places.carried("do i pay customs in Norway?", last) == "do i pay customs in Norway?"
    assert places.carried("can I return a tent?", last) == "can I return a tent?"
    assert places.carried("do i pay customs?", "can I return a tent?") == "do i pay customs?"


def test_a_place_the_pages_list_under_a_catch_all_region_is_read_with_it_too() -> None:
    """ "do you ship to the usa?": the FAQ's "Rest-of-world orders …" answers it."""
    places = Places(SHIPPING)
    assert places.with_catch_all("do you ship to the usa?") == (
        "do you ship to the usa (the rest of the world)?"
    )
    assert places.listed_under("Norway") == "rest of the world"
    assert places.listed_under("Northern Ireland") is None  # no catch-all
    assert places.listed_under("Australia") is None  # not named: read as the region instead
    assert places.with_catch_all("is the usa edition different?") == (
        "is the usa edition different?"
    )  # not where goods go


def test_a_figure_typed_with_its_unit_on_is_read_as_the_pages_write_it() -> None:
    vocabulary = Vocabulary([hit("Size guide", "Chest 103–108 cm. Torridon 3L jacket.").passage])
    assert read_question("a 104cm chest?", "", vocabulary) == "a 104 cm chest?"
    assert read_question("the 450G canister", "", vocabulary) == "the 450 G canister"
    assert read_question("the torridon 3L", "", vocabulary) == "the torridon 3L"  # a model


def test_a_countrys_adjective_is_read_as_the_country() -> None:
    """ "a Dutch address" is the Netherlands', in the EU; "Northern Irish" is not Irish."""
    places = Places(SHIPPING)
    asked = "I'm ordering from a Dutch address. Will the courier ask me for import VAT?"
    assert places.resolved(asked) == [("Dutch", "EU")]
    assert places.read(asked) == (
        "I'm ordering from the EU address. Will the courier ask me for import VAT?"
    )
    assert places.note(asked) == "Our pages cover the Netherlands under the EU."
    northern = "do you deliver to a northern irish address?"
    assert places.resolved(northern) == [("northern irish", "Northern Ireland")]
    assert places.note(northern) == ""  # nothing to say: it is the region the pages name
    # the pages name Norway: read as it, with nothing to say
    norwegian = "Will a Norwegian address pay import duty?"
    assert places.resolved(norwegian) == [("Norwegian", "Norway")]
    assert places.note(norwegian) == ""
    # a thing, not a country's: boot polish is not Poland's
    assert places.resolved("is boot polish sent with the boots?") == []
    assert places.resolved("do you sell French presses?") == []  # no goods going anywhere
