"""A shopper asking for a person in their own words is handed to one."""

from __future__ import annotations

import pytest

from app.chat.person import asks_for_person


@pytest.mark.parametrize(
    "message",
    [
        "I want to speak to a human",
        "can I talk to a real person?",
        "agent please",
        "Human!",
        "put me through to someone who can help",
        "i need a real human not a bot",
        "let me speak with your manager",
    ],
)
def test_asking_for_a_person(message: str) -> None:
    assert asks_for_person(message)


@pytest.mark.parametrize(
    "message",
    [
        "how do I contact customer service?",
        "whats ur phone number",
        "can someone else collect my order?",
        "is the Stormhollow 3 big enough for three people?",
        "I need someone to collect my Click & Collect order for me",
        "do your staff test the tents?",
    ],
)
def test_other_messages_are_questions(message: str) -> None:
    assert not asks_for_person(message)
