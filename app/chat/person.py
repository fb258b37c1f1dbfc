"""A shopper asking in their own words for a person rather than the assistant.

"I want to speak to a human", "can I talk to a real person?", "agent please": the same as the
page's "Talk to a person" button, so the conversation is handed to the support team and the
shopper told what happens next, instead of the pages being searched for "a human". Asking how to
contact the shop ("how do I contact customer service?", "whats ur phone number") is a question
the pages answer, and stays one.
"""

from __future__ import annotations

import re

_SOMEONE = (
    r"(?:(?:a|an|the|some|one|any|your|ur)\s+)?(?:(?:real|actual|live|proper|human)\s+)?"
    r"(?:human(?:\s+(?:being|agent))?|person|people|agent|representative|rep|operator|adviser|"
    r"advisor|assistant|"
    r"someone|somebody|member\s+of\s+(?:staff|the\s+team|your\s+team)|staff\s+member|manager|"
    r"supervisor)"
)
_PERSON = re.compile(
    rf"\b(?:speak|talk|chat|contact)(?:ing)?\s+(?:(?:to|with)\s+)?{_SOMEONE}\b"
    rf"|\b(?:connect|put|transfer|pass|hand)\s+me\s+(?:(?:through|over|on)\s+)?(?:to|with)\s+"
    rf"{_SOMEONE}\b"
    rf"|\b(?:want|need|get|like)\s+{_SOMEONE}\b(?!\s+(?:to\s+)?(?:collect|pick|sign|receive))"
    r"|\b(?:real|actual|live)\s+(?:human|person|agent)\b"
    r"|^\W*(?:a\s+)?(?:human|agent|operator|representative|person)(?:\s+please|\s+pls|\s+now)?\W*$",
    re.IGNORECASE,
)


def asks_for_person(message: str) -> bool:
    """Whether ``message`` asks to be handed to a person."""
    return bool(_PERSON.search(message))
