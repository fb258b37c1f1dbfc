from __future__ import annotations

import pytest

from app.transcripts.masking import luhn_valid, mask_personal_data


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Write to jane.doe@example.com please", "Write to [email] please"),
        ("Mail jane.doe+shop@mail.example.co.uk.", "Mail [email]."),
        ("Me: J_Smith-1990@shop-mail.org, thanks", "Me: [email], thanks"),
    ],
)
def test_email_addresses_are_masked(text: str, expected: str) -> None:
    assert mask_personal_data(text) == expected


@pytest.mark.parametrize(
    "phone",
    [
        "0113 496 0123",
        "07700 900123",
        "07700900123",
        "020 7946 0018",
        "01632 960123",
        "(0113) 496 0123",
        "+44 7700 900123",
        "+447700900123",
        "+44 (0)113 496 0123",
        "+44 20 7946 0018",
        "+1 415 555 0123",
        "+1 (415) 555-0123",
        "+33 1 23 45 67 89",
        "+49 30 12345678",
    ],
)
def test_phone_numbers_are_masked(phone: str) -> None:
    assert mask_personal_data(f"Call me on {phone}, after six.") == "Call me on [phone], after six."


@pytest.mark.parametrize(
    "card",
    [
        "4111 1111 1111 1111",
        "4111-1111-1111-1111",
        "4111111111111111",
        "5555 5555 5555 4444",
        "3782 822463 10005",  # American Express, 15 digits
        "6011000990139424",
        "4222222222222",  # 13 digits
    ],
)
def test_card_numbers_passing_luhn_are_masked(card: str) -> None:
    assert mask_personal_data(f"My card is {card}.") == "My card is [card]."


@pytest.mark.parametrize(
    "text",
    [
        "The Fellhaven jacket costs £229.00, or £1,049.00 for the set.",
        "Is FH-JKT-1042 in stock?",
        "Where is order 10452?",
        "Order #10452 was placed on 2026-11-29 at 14:00.",
        "Do you have size 12, UK 10, EU 42 or 32/34?",
        "Delivery between 09:00 and 17:30 on 29/11/2026.",
        "Card 4111 1111 1111 1112 is wrong by one digit.",  # fails Luhn
        "Reference 1234567890123 is not a card.",  # 13 digits failing Luhn
        "Take 25% off 3 items; 2 for £30.",
        "Version 2026.11.29 and build 20261129.",
    ],
)
def test_ordinary_shop_text_is_left_alone(text: str) -> None:
    assert mask_personal_data(text) == text


def test_every_kind_is_masked_in_one_message_and_neighbours_survive() -> None:
    text = (
        "I'm jo@example.com, phone +44 7700 900123 10452 about order 10452 "
        "(FH-JKT-1042, £229.00), card 4111 1111 1111 1111 10452."
    )
    assert mask_personal_data(text) == (
        "I'm [email], phone [phone] 10452 about order 10452 "
        "(FH-JKT-1042, £229.00), card [card] 10452."
    )


def test_luhn_checksum() -> None:
    assert luhn_valid("79927398713")
    assert not luhn_valid("79927398710")
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("4111111111111112")
