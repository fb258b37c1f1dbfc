"""Views of a text that undo cheap disguises: casing, spacing, look-alike letters, encodings.

The input screen and the output guard both compare text against what they look for; an
attacker (or a model told to "encode it first") changes the surface, not the content. These
views give the same content back so the checks see through the change.
"""

from __future__ import annotations

import base64
import binascii
import codecs
import re
import unicodedata

# Letters from other scripts that render like Latin ones (the common homoglyph swaps).
_CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁɡοαεικνρτυмтвнк",
    "aeopcyxijsdgoaeikvptumtbhk",
)
_LEET = str.maketrans("0134578@$!|", "oieastbasii")
_SPACED_LETTERS = re.compile(r"\b(?:\w[ .\-_*]){2,}\w\b")
_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{16,}={0,2}")
_WHITESPACE = re.compile(r"\s+")


def fold(text: str) -> str:
    """Compatibility-normalised, case-folded, look-alikes mapped, invisible characters removed."""
    text = unicodedata.normalize("NFKC", text)
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")  # zero-width and bidi
    return _WHITESPACE.sub(" ", text.casefold().translate(_CONFUSABLES)).strip()


def fold_char(char: str) -> str:
    """``fold`` of one character (what a streaming check can do as characters arrive)."""
    if char.isascii():
        return char.lower()
    if unicodedata.category(char) == "Cf":
        return ""
    return unicodedata.normalize("NFKC", char).casefold().translate(_CONFUSABLES)


def squeeze(text: str) -> str:
    """Only the letters and digits of the folded text: spacing and punctuation cannot hide a run."""
    return "".join(f for c in text for f in fold_char(c) if f.isalnum())


def skeleton(squeezed: str) -> str:
    """The consonants and digits of a squeezed text ("replace the vowels with *" leaves these)."""
    return "".join(c for c in squeezed if c not in "aeiouy")


def rot13(text: str) -> str:
    return codecs.encode(text, "rot13")


def unleet(text: str) -> str:
    """Digits and symbols read as the letters they imitate, inside words that have letters."""
    return re.sub(r"\S+", _unleet_word, text)


def _unleet_word(match: re.Match[str]) -> str:
    word = match.group(0)
    return word.translate(_LEET) if any(c.isalpha() for c in word) else word


def join_spaced_letters(text: str) -> str:
    """``i g n o r e`` and ``s.y.s.t.e.m`` become ``ignore`` and ``system``."""
    return _SPACED_LETTERS.sub(lambda m: "".join(c for c in m.group(0) if c.isalnum()), text)


def decoded_base64(text: str) -> list[tuple[int, str]]:
    """(where, readable text) for each base64 run of ``text`` that decodes to text."""
    found = []
    for match in _BASE64_RUN.finditer(text):
        run = match.group(0)
        run = run if run.endswith("=") else run[: len(run) - len(run) % 4]
        try:
            decoded = base64.b64decode(run, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            continue
        if decoded and sum(c.isprintable() or c.isspace() for c in decoded) / len(decoded) > 0.9:
            found.append((match.start(), decoded))
    return found
