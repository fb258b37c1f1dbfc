"""Shoppers' abbreviations, read as the words the pages use: "do u take amex" asks about
American Express, "max load" about the maximum load, "comfort temp" about the comfort
temperature. An abbreviation the pages use themselves is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable

_FULL = {
    "amex": "American Express",
    "max": "maximum",
    "temp": "temperature",
    "temps": "temperatures",
    "approx": "approximately",
    "qty": "quantity",
    "dims": "dimensions",
    "xmas": "Christmas",
    "bday": "birthday",
    "dofe": "Duke of Edinburgh",  # the award's expeditions, as UK shoppers write it
    "tmrw": "tomorrow",
    "tmr": "tomorrow",
    "wk": "week",
    "wks": "weeks",
    "hr": "hour",
    "hrs": "hours",
    "yr": "year",
    "yrs": "years",
    "mth": "month",
    "mths": "months",
    "ppl": "people",
    "addr": "address",
    "pwd": "password",
    "b4": "before",
    "w/": "with",
    "w/o": "without",
    "w/out": "without",
    # chat shorthand: "whats ur phone number" is no question the embedder reads
    "u": "you",
    "ur": "your",
    "pls": "please",
    "plz": "please",
    "abt": "about",
    "wat": "what",
    "wot": "what",
    "hw": "how",
}
_ABBREVIATION = re.compile(
    r"(?<![\w/])(" + "|".join(re.escape(a) for a in sorted(_FULL, key=len, reverse=True)) + r")"
    r"(?![\w/])",
    re.IGNORECASE,
)


def spelled_out(question: str, holds: Callable[[str], bool]) -> str:
    """``question`` with each abbreviation the pages do not use themselves (``holds``: whether
    the pages hold a word, lower case) in its full words."""

    def full(match: re.Match[str]) -> str:
        said = match.group(1)
        return said if holds(said.lower()) else _FULL[said.lower()]

    return _ABBREVIATION.sub(full, question)
