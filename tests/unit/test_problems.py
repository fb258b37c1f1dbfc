"""A shopper's report of a problem with their purchase is read as the help question it asks."""

from __future__ import annotations

import pytest

from app.chat.problems import DAMAGED, FAULTY, NOT_ARRIVED, WRONG, reported_problem


@pytest.mark.parametrize(
    ("message", "asked"),
    [
        ("I got a faulty stove, the igniter doesn't spark", FAULTY),
        ("the zip on my jacket broke after 3 months", FAULTY),
        ("the tent I received has a torn seam", FAULTY),
        ("my headtorch wont turn on anymore", FAULTY),
        ("my boots leak after 3 months", FAULTY),  # seen in the forty-first session
        ("my tent is letting water in at the door", FAULTY),
        ("my order hasnt arrived and its been a week", NOT_ARRIVED),
        ("still waiting for my parcel!!", NOT_ARRIVED),
        ("I haven't received my order yet", NOT_ARRIVED),
        ("my delivery is really late", NOT_ARRIVED),
        ("the box arrived crushed and the stove is dented", DAMAGED),
        ("it came damaged in transit", DAMAGED),
        ("the stove arrived with a dent in it", DAMAGED),
        ("the pot arrived scratched", DAMAGED),
        ("you sent me the wrong size", WRONG),
        ("I received the wrong colour", WRONG),
        ("a tent peg is missing from my order", WRONG),
    ],
)
def test_a_report_is_read_as_what_to_do_about_it(message: str, asked: str) -> None:
    assert reported_problem(message) == f"{asked} What should I do?"


def test_what_a_report_asks_of_it_is_kept() -> None:
    message = "bought boots 2 wks ago, the sole is already peeling off. can i get my money back"
    assert reported_problem(message) == f"{FAULTY} can i get my money back"
    message = "my tent pole snapped, will you replace it?"
    assert reported_problem(message) == f"{FAULTY} will you replace it"


@pytest.mark.parametrize(
    "message",
    [
        # something else asked of it: a price, a time, how to see to it oneself
        "how much 2 fix a broken main zip on my jacket",
        "my buckle snapped, hows long is the warranty on packs",
        "my stove is broken, how do I repair the igniter?",
        # whether it is a fault at all: the pages may answer that very symptom
        "my waterproof is leaking is it broken??",
        # not a report about the shopper's purchase
        "does the zip on the Torridon jacket break easily?",
        "is the Airloft mat punctured easily by thorns?",
        "I haven't received my order confirmation email",
        "my discount code isn't working",
        "my gift card doesn't work at checkout",
        "the website is broken, my basket won't load",
        "I still haven't received my refund",
        "I ordered the wrong size, can I exchange it?",
        "can I cancel my order?",
        "how do I track my order?",
    ],
)
def test_other_messages_are_read_as_they_are(message: str) -> None:
    assert reported_problem(message) is None


def test_what_a_shopper_adds_to_a_report_is_read_with_it() -> None:
    report = "my stove is faulty"
    assert reported_problem("it's 8 months old", report) == (
        f"{FAULTY} it's 8 months old What should I do?"
    )
    assert reported_problem("is it waterproof?", report) is None  # a question of its own
    assert reported_problem("it's 8 months old", "is my stove waterproof?") is None


def test_asking_what_to_do_after_a_report_asks_it_of_what_the_report_told() -> None:
    """Seen in the twenty-ninth session: "what do i do?" after "my boots are leaking after 2
    months" was answered with the boots' care lines."""
    report = "my boots are leaking after 2 months"
    for follow_up in ("what do i do?", "So what should I do now?", "what are my options?"):
        assert reported_problem(follow_up, report) == f"{FAULTY} {report} What should I do?"
    assert reported_problem("what do i do?", "can I return a tent?") is None  # no report
