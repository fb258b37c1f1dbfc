"""The case a figure is stated for: another alternative, another scope, a negated condition."""

from __future__ import annotations

from app.chat.conditions import alternatives, other_case
from app.chat.evidence import stem

PAGES = [
    "Batteries: 2 × AA (alkaline, lithium or NiMH); 2 × NiMH rechargeable AA included",
    "Battery life: Up to 25 hours (lithium AA); about 18 hours (NiMH)",
    "Delivery to Zone 2 (Highlands and Islands) takes 3 days.",
]
SIBLINGS = alternatives(PAGES)
BATTERY = PAGES[1]


def test_alternatives_are_the_sets_listed_in_brackets() -> None:
    assert SIBLINGS[stem("alkaline")] == {stem("lithium"), stem("nimh")}
    assert stem("rechargeable") not in SIBLINGS  # outside brackets: no set
    assert SIBLINGS[stem("highlands")] == {stem("islands")}


def test_a_figure_stated_for_other_alternatives_is_another_case() -> None:
    asked = "What's the battery life of the Waymark 3 GPS on alkaline AA batteries?"
    assert other_case(asked, BATTERY, SIBLINGS) == "alkaline"
    # the alternatives the line states are its own cases
    assert other_case("How long does it run on lithium AAs?", BATTERY, SIBLINGS) is None
    assert other_case("What's the battery life?", BATTERY, SIBLINGS) is None
    # a product's own name is never a case
    named = frozenset({stem("alkaline")})
    assert (
        other_case("How long does the Alkaline GPS last?", BATTERY, SIBLINGS, named=named) is None
    )


def test_a_figure_of_one_part_against_a_question_with_more() -> None:
    line = "Weight: 85 g (filter only)"
    asked = "How much does the ClearFlow filter weigh together with its 1 L pouch?"
    assert other_case(asked, line, SIBLINGS) == "together with its 1 L pouch"
    assert other_case("How much does the ClearFlow filter weigh?", line, SIBLINGS) is None


def test_a_figure_with_a_part_against_a_question_for_the_rest_alone() -> None:
    line = "Weight: 110 g including lid"
    assert other_case("What does the pot weigh without its lid?", line, SIBLINGS) == (
        "without its lid"
    )
    assert other_case("What does the lid weigh on its own?", line, SIBLINGS) == "on its own"
    assert other_case("What does the pot weigh with its lid?", line, SIBLINGS) is None
    # "with" that is no figure's condition
    assert other_case("Does it come with a lid?", "Lid: included", SIBLINGS) is None


def test_a_condition_the_question_excludes() -> None:
    line = "Burn time: About 60 minutes on full power with a 230 g canister"
    asked = "how long will a canister last if im only simmering, not on full power"
    assert other_case(asked, line, SIBLINGS) == "not on full power"
    assert other_case("how long will a canister last on full power?", line, SIBLINGS) is None
    # the line states the same exclusion: no other case
    boots = "Returns: 30 days for boots not worn outdoors, 2 pairs max"
    assert other_case("Can I return boots if they're not worn outdoors?", boots, SIBLINGS) is None


def test_a_low_setting_asked_of_a_figure_stated_at_full_power() -> None:
    burn = "Burn time: About 120 minutes on full power (Emberlite Canister Stove)"
    asked = "how long would it last if I'm just simmering on a low flame?"
    assert other_case(asked, burn, SIBLINGS) == "simmering"
    assert other_case("how long does it last on full power?", burn, SIBLINGS) is None


def test_a_quantity_held_against_a_limit_the_line_states_is_no_other_case() -> None:
    lengths = "Regular (for people up to 185 cm tall) and Long (up to 200 cm)."
    assert other_case("I'm 192 cm tall, which length?", lengths, SIBLINGS) is None
    burn = "Burn time: About 60 minutes with a 230 g canister"
    assert other_case("how long on a 450 g canister?", burn, SIBLINGS) == "on a 450 g"


def test_a_quantity_the_question_sets_against_another_the_line_states() -> None:
    line = "Recharge time: About 3.5 hours with a 20 W USB-C charger"
    assert other_case("how long to charge it with a 10w charger", line, SIBLINGS) == "with a 10w"
    assert other_case("how long to charge it with a 20W charger?", line, SIBLINGS) is None
    # set with the shopper's own words around it
    assert (
        other_case("how long to charge it off an old 10W phone plug?", line, SIBLINGS)
        == "off an old 10W"
    )
    # a quantity of another unit, or none stated, is no other case
    assert other_case("how long with a 230 g canister?", line, SIBLINGS) is None
    assert other_case("how long does it take to boil at 3,000 m?", line, SIBLINGS) is None
    # nor a number of the product's name
    burn = "Burn time: About 60 minutes (230 g canister)"
    named = frozenset({"450"})
    assert (
        other_case("how long will it burn on the 450 g canister?", burn, SIBLINGS, named=named)
        is None
    )


def test_another_quantity_of_the_thing_the_figure_is_stated_with() -> None:
    burn = "Burn time: About 60 minutes on full power with a 230 g canister"
    asked = "Roughly how long will one of your 450 g gas canisters last on the Emberlite stove?"
    assert other_case(asked, burn, SIBLINGS) == "450 g gas canisters"
    assert other_case("how long do your 230 g gas canisters last on it?", burn, SIBLINGS) is None
    # another thing of that unit is no other case of this one
    assert other_case("will it fit in my 900 g pot bag?", burn, SIBLINGS) is None
    # a row of ranges states no thing: the shopper's chest is theirs to give
    row = "| M | 97–102 cm | 81 cm |"
    assert other_case("what size for a 100 cm chest?", row, SIBLINGS) is None
    # a quantity in the product's own name is no case asked ("my Langdale 2L jacket")
    successor = "Successor: Torridon 3L Waterproof Jacket (FH-JKT-1042)."
    langdale = frozenset({"langd", "2l", "waterproof", "jacke"})
    asked = "The zip failed on my Langdale 2L jacket. What will I get under warranty?"
    assert other_case(asked, successor, SIBLINGS, named=langdale) is None


def test_a_list_in_brackets_starts_with_an_item_of_its_own() -> None:
    """ "Next Working Day, Saturday or Express": the first item is three words, and its last
    word is no alternative; asked from "the day it arrived", a Saturday line is no other case."""
    siblings = alternatives(["Premium services (Next Working Day, Saturday or Express)."])
    assert stem("day") not in siblings
    assert siblings[stem("saturday")] == {stem("express")}
    line = "Free drop-off at our Leeds Collection Point (Monday to Saturday 09:00–17:30)."
    asked = "How long have I got from the day it arrived to send it back?"
    assert other_case(asked, line, siblings) is None
