"""Words as the lexical index and the groundedness check see them.

One tokenizer for both, so "FH-STV-9030", "1,550 g" and "UK 10.5" mean the same thing wherever
they are compared. Compound tokens (joined by ``-./,'``) are kept whole *and* split into their
parts: a shopper may type the whole product code or only part of a model name.
"""

from __future__ import annotations

import re

_TOKEN = re.compile(r"[a-z0-9£€$%°]+(?:[-./,'][a-z0-9]+)*", re.IGNORECASE)
_PART = re.compile(r"[a-z0-9]+", re.IGNORECASE)

STOPWORDS = frozenset(
    """a an the and or but if then so of to in on at by for with from as is are was were be been
    being it its this that these those you your yours we our ours i me my he she they them their
    there here what which who whom when where why how can could would should will shall may might
    must do does did done have has had not no yes please thanks thank hi hello any some all more
    most other such only own same than too very just also about into over under again further once
    up down out off""".split()  # noqa: SIM905 (a word list reads better as prose)
)


def content_words(text: str) -> list[str]:
    """Whole tokens, lower-cased, without stop words (what groundedness compares)."""
    return [w for w in (m.group(0).lower() for m in _TOKEN.finditer(text)) if w not in STOPWORDS]


def index_terms(text: str) -> list[str]:
    """Terms for the lexical index: each content word, its parts, and a light plural fold."""
    terms: list[str] = []
    for word in content_words(text):
        terms.append(_fold(word))
        parts = _PART.findall(word)
        if len(parts) > 1:
            terms.extend(_fold(p) for p in parts if p not in STOPWORDS)
    return terms


def identifiers(text: str) -> set[str]:
    """Product codes and model numbers: tokens that mix letters and digits or join parts by '-'.

    "FH-STV-9030", "CR2032", "700R" and "21700" qualify; plain words and short numbers do not.
    """
    found = set()
    for word in content_words(text):
        letters = any(c.isalpha() for c in word)
        digits = sum(c.isdigit() for c in word)
        if (letters and digits) or ("-" in word and digits) or digits >= 5:
            found.add(word)
    return found


def _fold(word: str) -> str:
    """'boots' → 'boot', 'batteries' → 'battery'; leaves 'glass', 'gps' and codes alone."""
    if len(word) > 4 and word.isalpha():
        if word.endswith("ies"):
            return word[:-3] + "y"
        if word.endswith("s") and not word.endswith(("ss", "us", "is")):
            return word[:-1]
    return word


# A name of two or more capitalised words, not opening the sentence: "American Express",
# "Apple Pay", "Leeds Collection Point", "Click & Collect"
_NAME_RUN = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][\w']+(?:\s+(?:&\s+)?[A-Z][\w']+)+)")


def name_phrases(text: str) -> list[str]:
    """The names of two or more capitalised words that ``text`` gives after its first word."""
    return _NAME_RUN.findall(text.strip())
