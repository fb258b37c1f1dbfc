"""Masking of personal data before a transcript is stored: e-mail addresses, phones, card numbers.

Shoppers paste contact and payment details into chat; staff reviewing transcripts need the
conversation, not those details. Prices, SKUs, order numbers, dates and times are left alone.
"""

from __future__ import annotations

import re

_EMAIL = re.compile(r"(?<![\w.%+-])[\w.%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b")

# 13 to 19 digits, single spaces or dashes between them; the Luhn check decides.
_CARD = re.compile(r"(?<![\w.,-])\d(?:[ -]?\d){12,18}(?![\w-]|[.,]\d)")

# UK numbers written nationally: 0 (or "(0") then 9 or 10 digits in the usual groupings.
_UK_PHONE = re.compile(
    r"(?<![\w.,/-])(?:\(0|0)"
    r"(?:\d{2,4}\)?[ -]?\d{3,4}[ -]?\d{3,4}|\d{4}\)?[ -]?\d{5,6}|\d{9,10})"
    r"(?![\w-]|[.,]\d)"
)

# International numbers: "+" and a country code, groups split by single spaces, dashes or dots,
# an optional "(0)" trunk prefix (as in +44 (0)113 496 0123).
_INTL_PHONE = re.compile(
    r"(?<![\w+])\+\d{1,3}(?:[ .-]?\(0\))?(?:[ .-]?\(?\d{1,5}\)?){1,6}(?![\w-]|[.,]\d)"
)


def _digits(text: str) -> str:
    return "".join(ch for ch in text if ch.isdigit())


def luhn_valid(digits: str) -> bool:
    """Whether a string of digits passes the Luhn checksum that payment card numbers carry."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char)
        if position % 2 == 1:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _mask_card(match: re.Match[str]) -> str:
    return "[card]" if luhn_valid(_digits(match.group())) else match.group()


def _mask_uk_phone(match: re.Match[str]) -> str:
    return "[phone]" if 10 <= len(_digits(match.group())) <= 11 else match.group()


def _mask_intl_phone(match: re.Match[str]) -> str:
    # A run of groups can swallow a number that follows the phone (an order number, say):
    # drop trailing groups until the digits fit an international number.
    number, rest = match.group(), ""
    while len(_digits(number)) > 16:
        cut = max(number.rfind(" "), number.rfind("-"), number.rfind("."))
        if cut <= 0:
            return match.group()
        number, rest = number[:cut], number[cut:] + rest
    return "[phone]" + rest if len(_digits(number)) >= 9 else match.group()


def mask_personal_data(text: str) -> str:
    """``text`` with e-mail addresses, phone numbers and Luhn-valid card numbers replaced by
    ``[email]``, ``[phone]`` and ``[card]``."""
    text = _EMAIL.sub("[email]", text)
    text = _CARD.sub(_mask_card, text)
    text = _INTL_PHONE.sub(_mask_intl_phone, text)
    return _UK_PHONE.sub(_mask_uk_phone, text)
