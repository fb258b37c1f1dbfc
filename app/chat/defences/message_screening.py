"""Screening a shopper's message for attacks on the assistant itself, before any work is done.

Three kinds of message are declined with a fixed, safe answer instead of being sent to the
generator: asking for the hidden instructions (prompt extraction), telling the assistant to
drop them or become someone else (instruction override: "ignore previous instructions", DAN
and other role-play jailbreaks), and asking for another customer's data. Each is recognised by
general features of the request, weighted so that one strong sign or two weak ones are enough,
and looked for in disguised forms too (spaced-out letters, digits for letters, look-alike
letters, ROT13, base64). Ordinary shop questions ("what are the care instructions?", "can
someone else collect my order?") carry none of them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.chat.defences.disguises import (
    decoded_base64,
    fold,
    join_spaced_letters,
    rot13,
    squeeze,
    unleet,
)
from app.chat.defences.screening_features import (
    EXTRACTION,
    GENERIC,
    ORDER_REF,
    OTHERS_DATA,
    OVERRIDE,
    OWN,
    PERSONAL_FIELD,
    SQUEEZED_EXTRACTION,
    SQUEEZED_OVERRIDE,
    Feature,
)

Reason = Literal["prompt_extraction", "instruction_override", "other_customer_data"]

DECLINES: dict[Reason, str] = {
    "prompt_extraction": (
        "I can't share how I'm set up, but I'm happy to help with {shop} products, sizes, "
        "delivery, returns and orders. What would you like to know?"
    ),
    "instruction_override": (
        "I can only help as the customer-service assistant of {shop}, so I can't take on "
        "another role or change how I work. Is there anything about our products, delivery, "
        "returns or orders I can help with?"
    ),
    "other_customer_data": (
        "I can't look up or share anyone's orders, addresses or account details: I don't have "
        "access to customer records, and other customers' information is private. For your "
        "own orders, please sign in to your account, or I can connect you with our support team."
    ),
}


@dataclass(frozen=True)
class Screening:
    """Why a message is declined, and the features that said so (for logs and tests)."""

    reason: Reason
    features: tuple[str, ...]

    def decline(self, *, shop: str) -> str:
        return DECLINES[self.reason].format(shop=shop)


def screen_message(message: str) -> Screening | None:
    """Why the message must be declined, or None for an ordinary question."""
    for view in _views(message):
        found = _judge(view)
        if found is not None:
            return found
    return None


def _views(message: str) -> list[str]:
    folded = fold(message)
    views = [folded, join_spaced_letters(unleet(folded))]
    views += [fold(hidden) for _, hidden in decoded_base64(message)]
    views.append(rot13(folded))
    return views


def _judge(text: str) -> Screening | None:
    squeezed = squeeze(text)
    extraction = _score(text, EXTRACTION)
    if SQUEEZED_EXTRACTION.search(squeezed):
        extraction.append(("squeezed_system_prompt", 1.0))
    override = _score(text, OVERRIDE)
    if SQUEEZED_OVERRIDE.search(squeezed):
        override.append(("squeezed_override", 1.0))
    others = _score(text, OTHERS_DATA)
    if ORDER_REF.search(text) and PERSONAL_FIELD.search(text) and not OWN.search(text):
        others.append(("order_of_someone", 1.0))
    verdicts: tuple[tuple[Reason, list[tuple[str, float]]], ...] = (
        ("prompt_extraction", extraction),
        ("instruction_override", override),
        ("other_customer_data", others),
    )
    best: Screening | None = None
    best_score = 0.0
    for reason, hits in verdicts:
        score = sum(weight for _, weight in hits)
        specific = any(name not in GENERIC for name, _ in hits)
        if specific and score >= 1.0 and score > best_score:
            best, best_score = Screening(reason, tuple(name for name, _ in hits)), score
    return best


def _score(text: str, features: tuple[Feature, ...]) -> list[tuple[str, float]]:
    return [(name, weight) for name, weight, pattern in features if pattern.search(text)]
