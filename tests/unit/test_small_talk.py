"""Small talk is answered as such, and nothing else is taken for it."""

from __future__ import annotations

import pytest

from app.chat.small_talk import GOODBYE, GREETING, THANKS, small_talk_reply


@pytest.mark.parametrize(
    ("message", "reply"),
    [
        ("hi there!", GREETING),
        ("Hello", GREETING),
        ("good morning :)", GREETING),
        ("thanks, that's all", THANKS),
        ("Thank you so much!", THANKS),
        ("ok great, cheers", THANKS),
        ("ok", THANKS),
        ("bye", GOODBYE),
        ("no that's all", GOODBYE),
    ],
)
def test_small_talk_is_answered_as_such(message: str, reply: str) -> None:
    assert small_talk_reply(message, shop="Fernhill") == reply.format(shop="Fernhill")


@pytest.mark.parametrize(
    "message",
    [
        "hi, do you sell tents?",
        "thanks, and how long is delivery?",
        "hello I want to return my boots",
        "ok so how long do i have to send them back?",
        "is that all the colours?",
        "thanks for nothing, my parcel is lost",
    ],
)
def test_a_message_that_asks_anything_is_no_small_talk(message: str) -> None:
    assert small_talk_reply(message, shop="Fernhill") is None
